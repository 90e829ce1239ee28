package gaterun

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/cliflag"
	"github.com/rubricgate/rubricgate/internal/fraction"
	"github.com/rubricgate/rubricgate/internal/usage"
)

// Settings are the gate's policy settings: the flags of `rubricgate gate`
// and the action inputs of the same names. Each is parsed when it is set
// (a flag.Value per kind, see [Settings.Flags]): a mistake is an error
// naming the setting before anything runs.
type Settings struct {
	// MaxDrop, NoisyDrop, HardDrop and MaxUnscored are the decision's
	// thresholds; MaxBaselineAge warns of an old baseline (0: never),
	// MaxArchive caps a downloaded one (bytes).
	MaxDrop, HardDrop, MaxUnscored float64
	NoisyDrop                      gate.NoisyMode
	MaxBaselineAge                 time.Duration
	MaxArchive                     int64
	// MaxDrift is the cumulative drop below the branch's anchor that
	// blocks (0: the drift rule is off; see gate.CheckDrift).
	MaxDrift float64
	// BaselinePool is how many consecutive runs of the baseline branch a
	// new baseline pools (1: this run alone; see baseline.File.Pool).
	BaselinePool int
	// Final marks the last gate of a noisy-drop rerun: a drop still within
	// noise is decided, never sent to another rerun.
	Final bool
	// RerunMaxRuns bounds a noisy-drop rerun's request: at most this many
	// times the run's answers per item.
	RerunMaxRuns int
	// AttemptsDir is the local store of the attempts at the same inputs
	// (outside CI; on a change request the gate's comment keeps them).
	AttemptsDir string
	// IfNoBaseline, OnBaselineError, OnRubricChange and AcceptLabel are
	// the policy.
	IfNoBaseline    gate.NoBaselinePolicy
	OnBaselineError OnBaselineError
	OnRubricChange  gate.RubricChangePolicy
	AcceptLabel     string
	// AcceptBy is whose accept label accepts: others than the change
	// request's author (the default), or anyone.
	AcceptBy gate.AcceptByPolicy
	// Accept is the reason of an acceptance given with this run (--accept),
	// "" for none.
	Accept string
	// Comment is the comment mode, CommentAuthor the login whose marker
	// comment is adopted.
	Comment       host.CommentMode
	CommentAuthor string
	// BaselineFile, BaselineDir, BaselineArtifact and BaselineKey choose
	// the baseline store (see [Checked.Store]).
	BaselineFile, BaselineDir, BaselineArtifact, BaselineKey string
	// BaselineBranch and Branch are the baseline's branch and the run's
	// ("" to find them: see [host.ResolveBaselineBranch] and [host.MaySave]).
	BaselineBranch, Branch string
	// CommentKey is the sticky comment key, GitHubToken the token for the
	// GitHub API, Title the report's heading ("" for the defaults).
	CommentKey, GitHubToken, Title string
}

// Flags declares the settings on fs under their names, with their
// defaults (gate's) and help.
func (s *Settings) Flags(fs *flag.FlagSet) {
	th, pol := gate.DefaultThresholds, gate.DefaultPolicy
	cliflag.Var(fs, &s.MaxDrop, "max-drop", fraction.Percent(th.MaxDrop), gate.ParseMaxDrop, "relative drop of the aggregate score that blocks: 2% or 0.02")
	cliflag.Enum(fs, &s.NoisyDrop, "noisy-drop", th.NoisyDrop, gate.ParseNoisyMode, "a drop at or above max-drop whose paired 95% interval includes 0: block, warn (pass with a warning), or rerun (neither: exit 3 and output rerun=true, asking for more answers per item)")
	cliflag.Var(fs, &s.HardDrop, "hard-drop", fraction.Percent(th.HardDrop), parseAs("hard-drop", gate.ParseDrop), "with noisy-drop warn, the relative drop that blocks whatever the interval: 5% or 0.05")
	cliflag.Var(fs, &s.MaxDrift, "max-drift", fraction.Percent(gate.DefaultMaxDrift), parseAs("max-drift", gate.ParseDrop), "cumulative drop below the branch's anchor (its level, moved only by an accepted regression or an improvement) that blocks, when beyond noise: 5% or 0.05; 0 switches the rule off")
	fs.BoolVar(&s.Final, "final", false, "true on the gate of a re-run (the union of both runs' answers): with noisy-drop rerun, a drop at or above max-drop blocks as under noisy-drop block (interval or not), never another rerun")
	cliflag.Var(fs, &s.RerunMaxRuns, "rerun-max-runs", strconv.Itoa(gate.DefaultRerunMaxRuns), parseAs("rerun-max-runs", ParseRerunMaxRuns), fmt.Sprintf("with noisy-drop rerun, a re-run asks for at most N times this run's answers per item (1 to %d); when that cannot resolve the drop, the final gate decides on what it has", gate.MaxRerunMaxRuns))
	fs.StringVar(&s.AttemptsDir, "attempts-dir", "", "outside CI: keep the state of the attempts at the same items, inputs and rubric in this directory, so re-runs are decided on all of them (on a pull request the gate's own comment keeps it)")
	cliflag.Var(fs, &s.BaselinePool, "baseline-pool", strconv.Itoa(baseline.DefaultPoolRuns), parseAs("baseline-pool", ParsePoolRuns), fmt.Sprintf("a new baseline pools the last N runs of its branch while they agree within noise (same rubric, items and tasks; 1: this run alone; at most %d)", baseline.MaxPoolRuns))
	cliflag.Var(fs, &s.MaxUnscored, "max-unscored", "0", parseAs("max-unscored", fraction.Parse), "share of unscored (judge error) items tolerated")
	cliflag.Var(fs, &s.MaxBaselineAge, "max-baseline-age", "30d", parseAs("max-baseline-age", cliflag.ParseAge), "warn when the baseline is older than this (e.g. 30d, 72h; 0 never)")
	fs.StringVar(&s.BaselineFile, "baseline", "", "read the baseline from this file")
	fs.StringVar(&s.BaselineDir, "baseline-dir", "", "local baseline store: DIR/<rubric>/<branch>.json (default outside Actions: "+host.DefaultLocalDir+")")
	fs.StringVar(&s.BaselineArtifact, "baseline-artifact", "rubricgate-baseline", "GitHub Actions artifact name holding baseline.json")
	fs.StringVar(&s.BaselineKey, "baseline-key", "", "local baseline directory slot: DIR/<key>/<branch>.json instead of the rubric's name, which a pull request can change")
	cliflag.Var(fs, &s.MaxArchive, "max-archive", "100MiB", parseAs("max-archive", cliflag.ParseSize), "largest baseline artifact accepted (compressed and uncompressed)")
	cliflag.Enum(fs, &s.IfNoBaseline, "if-no-baseline", pol.IfNoBaseline, gate.ParseNoBaseline, "no baseline found: pass (this run starts it) or fail")
	cliflag.Enum(fs, &s.OnBaselineError, "on-baseline-error", BaselineErrorFail, ParseOnBaselineError, "baseline store unreachable or wrong: fail (exit 2) or pass (warned)")
	cliflag.Enum(fs, &s.OnRubricChange, "on-rubric-change", pol.OnRubricChange, gate.ParseRubricChange, "rubric changed and the run cannot be re-scored under the baseline's, lacks one of its blocking criteria, or a text that reaches the judge prompt changed: block (unless the accept label is on the pull request) or fail (label or not); skip is a deprecated name of block")
	fs.StringVar(&s.AcceptLabel, "accept-label", pol.AcceptLabel, "pull request label that accepts a relative-drop regression or a rubric change the gate cannot follow")
	cliflag.Enum(fs, &s.AcceptBy, "accept-by", gate.AcceptByOthers, gate.ParseAcceptBy, "whose accept label accepts: others (a label the pull request's author applied accepts nothing, nor one whose applier the host cannot name) or anyone")
	fs.StringVar(&s.Accept, "accept", "", "accept this run's relative-drop regression or rubric change the gate cannot follow, with the reason recorded in the report (CLI and other CI systems; refused on a GitHub pull request, where the accept label is the way)")
	cliflag.Enum(fs, &s.Comment, "comment", host.CommentAuto, host.ParseCommentMode, "PR comment: auto (on pull request events), always, never")
	fs.StringVar(&s.CommentAuthor, "comment-author", host.DefaultCommentAuthor, "login whose marker comment is adopted and edited (the token's identity); * for any author")
	fs.StringVar(&s.BaselineBranch, "baseline-branch", "", "branch whose last passing run is the baseline (default: the PR's or merge request's target branch, else the default branch (GitHub's payload, CI_DEFAULT_BRANCH, refs/remotes/origin/HEAD), else main)")
	fs.StringVar(&s.Branch, "branch", "", "branch this run is on, for the local store: a passing run saves only when it is the baseline branch (default: GITHUB_REF inside Actions, else CI variables, else .git/HEAD)")
	fs.StringVar(&s.CommentKey, "comment-key", "", "sticky comment key (default: workflow, job and results)")
	fs.StringVar(&s.GitHubToken, "github-token", "", "token for the GitHub API (artifacts, comments); never printed")
	fs.StringVar(&s.Title, "title", "", "heading of the report (default: rubricgate: <rubric name>)")
}

// parseAs binds a parser of a named setting to its name.
func parseAs[T any](name string, parse func(name, s string) (T, error)) func(string) (T, error) {
	return func(s string) (T, error) { return parse(name, s) }
}

// ParsePoolRuns reads the baseline-pool setting: a whole number of runs
// from 1 to baseline.MaxPoolRuns.
func ParsePoolRuns(name, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > baseline.MaxPoolRuns {
		return 0, usage.Errorf("%s %q: expected a whole number of runs from 1 to %d", name, s, baseline.MaxPoolRuns)
	}
	return n, nil
}

// ParseRerunMaxRuns reads the rerun-max-runs setting: a whole number from
// 1 to gate.MaxRerunMaxRuns.
func ParseRerunMaxRuns(name, s string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < 1 || n > gate.MaxRerunMaxRuns {
		return 0, usage.Errorf("%s %q: expected a whole number of runs from 1 to %d", name, s, gate.MaxRerunMaxRuns)
	}
	return n, nil
}

// ParseOnBaselineError reads the on-baseline-error setting.
func ParseOnBaselineError(s string) (OnBaselineError, error) {
	switch p := OnBaselineError(s); p {
	case BaselineErrorFail, BaselineErrorPass:
		return p, nil
	}
	return "", fmt.Errorf("on-baseline-error %q: expected fail or pass", s)
}

// CommentOptions are the comment settings for host.Host.Commenting.
func (c *Checked) CommentOptions() host.CommentOptions {
	return host.CommentOptions{Mode: c.Comment, Token: c.GitHubToken, Author: c.CommentAuthor}
}

// Checked are the settings assembled for the decision: the thresholds
// and the policy, with the [Settings] they came from.
type Checked struct {
	Thresholds gate.Thresholds
	Policy     gate.Policy
	Settings
}

// IsUsage reports whether err is a mistake in the settings, inputs or
// environment the user gave (a *usage.Error, which every library returns
// for a setting given wrong, or a *host.ConfigError), which a command
// answers with a hint at its usage.
func IsUsage(err error) bool {
	var ue *usage.Error
	var ce *host.ConfigError
	return errors.As(err, &ue) || errors.As(err, &ce)
}

// Parse checks what no single setting can (the accept reason, a file and
// a directory store given together, values set in code) and assembles the
// thresholds and the policy; every error is a *usage.Error naming the
// setting and what it expects.
func (s *Settings) Parse() (*Checked, error) {
	th, p := gate.DefaultThresholds, gate.DefaultPolicy
	th.MaxDrop, th.NoisyDrop, th.HardDrop, th.MaxBaselineAge, th.MaxDrift = s.MaxDrop, s.NoisyDrop, s.HardDrop, s.MaxBaselineAge, s.MaxDrift
	if _, err := gate.ParseNoisyMode(string(s.NoisyDrop)); err != nil {
		return nil, usage.Wrap(err)
	}
	th.Final, th.RerunMaxRuns = s.Final, s.RerunMaxRuns
	p.IfNoBaseline, p.OnRubricChange, p.AcceptLabel = s.IfNoBaseline, s.OnRubricChange, s.AcceptLabel
	if p.AcceptReason = strings.TrimSpace(s.Accept); s.Accept != "" && p.AcceptReason == "" {
		return nil, usage.Errorf("accept: give the reason the regression is accepted")
	}
	if err := p.Validate(); err != nil {
		return nil, usage.Wrap(err)
	}
	if s.AcceptBy == "" {
		s.AcceptBy = gate.AcceptByOthers
	}
	if _, err := gate.ParseAcceptBy(string(s.AcceptBy)); err != nil {
		return nil, usage.Wrap(err)
	}
	if _, err := ParseOnBaselineError(string(s.OnBaselineError)); err != nil {
		return nil, usage.Wrap(err)
	}
	if _, err := host.ParseCommentMode(string(s.Comment)); err != nil {
		return nil, usage.Wrap(err)
	}
	if s.BaselineFile != "" && s.BaselineDir != "" {
		return nil, usage.Errorf("give --baseline or --baseline-dir, not both")
	}
	return &Checked{Thresholds: th, Policy: p, Settings: *s}, nil
}

// Store picks the baseline store: the file or the local directory named,
// else the host's default (the repository's artifacts on GitHub, read with
// token; a local directory elsewhere). saveDir is the local store a
// passing run saves into, when there is one.
func (c *Checked) Store(h host.Stores, token string, logf func(string, ...any)) (store baseline.Store, saveDir *baseline.Dir, err error) {
	switch {
	case c.BaselineFile != "":
		return baseline.FileStore{Path: c.BaselineFile}, nil, nil
	case c.BaselineDir != "":
		d := &baseline.Dir{Root: c.BaselineDir}
		return d, d, nil
	}
	return h.DefaultStore(host.StoreOptions{Token: token, ArtifactName: c.BaselineArtifact, MaxArchive: c.MaxArchive, LocalDir: host.DefaultLocalDir, Logf: logf})
}
