package pipeline

import (
	"errors"
	"flag"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/fraction"
	"github.com/rubricgate/rubricgate/internal/usage"
)

// Settings are the gate's policy settings as written: the flags of
// `rubricgate gate` and the action inputs of the same names.
type Settings struct {
	// MaxDrop, NoisyDrop, HardDrop and MaxUnscored are the decision's
	// thresholds; MaxBaselineAge warns of an old baseline, MaxArchive caps
	// a downloaded one.
	MaxDrop, NoisyDrop, HardDrop, MaxUnscored, MaxBaselineAge, MaxArchive string
	// Final marks the last gate of a noisy-drop rerun: a drop still within
	// noise is decided, never sent to another rerun.
	Final bool
	// IfNoBaseline, OnBaselineError, OnRubricChange and AcceptLabel are
	// the policy.
	IfNoBaseline, OnBaselineError, OnRubricChange, AcceptLabel string
	// Accept is the reason of an acceptance given with this run (--accept),
	// "" for none.
	Accept string
	// Comment is the comment mode, CommentAuthor the login whose marker
	// comment is adopted.
	Comment, CommentAuthor string
	// BaselineFile, BaselineDir, BaselineArtifact and BaselineKey choose
	// the baseline store (see [Checked.Store]).
	BaselineFile, BaselineDir, BaselineArtifact, BaselineKey string
	// BaselineBranch and Branch are the baseline's branch and the run's
	// ("" to find them: see [ResolveBaselineBranch] and [MaySave]).
	BaselineBranch, Branch string
	// CommentKey is the sticky comment key, GitHubToken the token for the
	// GitHub API, Title the report's heading ("" for the defaults).
	CommentKey, GitHubToken, Title string
}

// DefaultCommentAuthor is the login of the workflow's GITHUB_TOKEN: only
// its marker comments are adopted, so nobody can plant a comment with the
// marker and have the gate edit (and so vouch for) it.
const DefaultCommentAuthor = "github-actions[bot]"

// Flags declares the settings on fs under their names, with their
// defaults and help.
func (s *Settings) Flags(fs *flag.FlagSet) {
	th, pol := gate.DefaultThresholds, gate.DefaultPolicy
	fs.StringVar(&s.MaxDrop, "max-drop", fraction.Percent(th.MaxDrop), "relative drop of the aggregate score that blocks: 2% or 0.02")
	fs.StringVar(&s.NoisyDrop, "noisy-drop", string(th.NoisyDrop), "a drop at or above max-drop whose paired 95% interval includes 0: block, warn (pass with a warning), or rerun (neither: exit 3 and output rerun=true, asking for more answers per item)")
	fs.StringVar(&s.HardDrop, "hard-drop", fraction.Percent(th.HardDrop), "with noisy-drop warn, the relative drop that blocks whatever the interval: 5% or 0.05")
	fs.BoolVar(&s.Final, "final", false, "true on the gate of a re-run (the union of both runs' answers): with noisy-drop rerun, a drop at or above max-drop blocks as under noisy-drop block (interval or not), never another rerun")
	fs.StringVar(&s.MaxUnscored, "max-unscored", "0", "share of unscored (judge error) items tolerated")
	fs.StringVar(&s.MaxBaselineAge, "max-baseline-age", "30d", "warn when the baseline is older than this (e.g. 30d, 72h; 0 never)")
	fs.StringVar(&s.BaselineFile, "baseline", "", "read the baseline from this file")
	fs.StringVar(&s.BaselineDir, "baseline-dir", "", "local baseline store: DIR/<rubric>/<branch>.json (default outside Actions: "+host.DefaultLocalDir+")")
	fs.StringVar(&s.BaselineArtifact, "baseline-artifact", "rubricgate-baseline", "GitHub Actions artifact name holding baseline.json")
	fs.StringVar(&s.BaselineKey, "baseline-key", "", "local baseline directory slot: DIR/<key>/<branch>.json instead of the rubric's name, which a pull request can change")
	fs.StringVar(&s.MaxArchive, "max-archive", "100MiB", "largest baseline artifact accepted (compressed and uncompressed)")
	fs.StringVar(&s.IfNoBaseline, "if-no-baseline", pol.IfNoBaseline, "no baseline found: pass (this run starts it) or fail")
	fs.StringVar(&s.OnBaselineError, "on-baseline-error", "fail", "baseline store unreachable or wrong: fail (exit 2) or pass (warned)")
	fs.StringVar(&s.OnRubricChange, "on-rubric-change", pol.OnRubricChange, "rubric changed and the run cannot be re-scored under the baseline's, lacks one of its blocking criteria, or a text that reaches the judge prompt changed: block (unless the accept label is on the pull request) or fail (label or not); skip is a deprecated name of block")
	fs.StringVar(&s.AcceptLabel, "accept-label", pol.AcceptLabel, "pull request label that accepts a relative-drop regression or a rubric change the gate cannot follow")
	fs.StringVar(&s.Accept, "accept", "", "accept this run's relative-drop regression or rubric change the gate cannot follow, with the reason recorded in the report (CLI and other CI systems; refused on a GitHub pull request, where the accept label is the way)")
	fs.StringVar(&s.Comment, "comment", "auto", "PR comment: auto (on pull request events), always, never")
	fs.StringVar(&s.CommentAuthor, "comment-author", DefaultCommentAuthor, "login whose marker comment is adopted and edited (the token's identity); * for any author")
	fs.StringVar(&s.BaselineBranch, "baseline-branch", "", "branch whose last passing run is the baseline (default: the PR's or merge request's target branch, else the default branch (GitHub's payload, CI_DEFAULT_BRANCH, refs/remotes/origin/HEAD), else main)")
	fs.StringVar(&s.Branch, "branch", "", "branch this run is on, for the local store: a passing run saves only when it is the baseline branch (default: GITHUB_REF inside Actions, else CI variables, else .git/HEAD)")
	fs.StringVar(&s.CommentKey, "comment-key", "", "sticky comment key (default: workflow, job and results)")
	fs.StringVar(&s.GitHubToken, "github-token", "", "token for the GitHub API (artifacts, comments); never printed")
	fs.StringVar(&s.Title, "title", "", "heading of the report (default: rubricgate: <rubric name>)")
}

// CommentOptions are the comment settings for host.Host.Commenting.
func (c *Checked) CommentOptions() host.CommentOptions {
	return host.CommentOptions{Mode: c.CommentMode, Token: c.GitHubToken, Author: c.CommentAuthor}
}

// Checked are the parsed, checked forms of [Settings], which it keeps.
type Checked struct {
	Thresholds      gate.Thresholds
	Policy          gate.Policy
	MaxUnscored     float64
	MaxArchive      int64
	OnBaselineError OnBaselineError
	CommentMode     host.CommentMode
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

// Parse checks the settings; every error is a *usage.Error naming the
// setting and what it expects.
func (s *Settings) Parse() (*Checked, error) {
	c := &Checked{Settings: *s}
	th, p := gate.DefaultThresholds, gate.DefaultPolicy
	var err error
	if th.MaxDrop, err = gate.ParseMaxDrop(s.MaxDrop); err != nil {
		return nil, usage.Wrap(err)
	}
	if th.NoisyDrop, err = gate.ParseNoisyMode(s.NoisyDrop); err != nil {
		return nil, usage.Wrap(err)
	}
	if th.HardDrop, err = gate.ParseDrop("hard-drop", s.HardDrop); err != nil {
		return nil, usage.Wrap(err)
	}
	th.Final = s.Final
	if c.MaxUnscored, err = fraction.Parse("max-unscored", s.MaxUnscored); err != nil {
		return nil, usage.Wrap(err)
	}
	if th.MaxBaselineAge, err = ParseAge("max-baseline-age", s.MaxBaselineAge); err != nil {
		return nil, err
	}
	if c.MaxArchive, err = ParseSize("max-archive", s.MaxArchive); err != nil {
		return nil, err
	}
	p.IfNoBaseline, p.OnRubricChange, p.AcceptLabel = s.IfNoBaseline, s.OnRubricChange, s.AcceptLabel
	if p.AcceptReason = strings.TrimSpace(s.Accept); s.Accept != "" && p.AcceptReason == "" {
		return nil, usage.Errorf("accept: give the reason the regression is accepted")
	}
	if err := p.Validate(); err != nil {
		return nil, usage.Wrap(err)
	}
	c.Thresholds, c.Policy = th, p
	switch c.OnBaselineError = OnBaselineError(s.OnBaselineError); c.OnBaselineError {
	case BaselineErrorFail, BaselineErrorPass:
	default:
		return nil, usage.Errorf("on-baseline-error %q: expected fail or pass", s.OnBaselineError)
	}
	switch c.CommentMode = host.CommentMode(s.Comment); c.CommentMode {
	case host.CommentAuto, host.CommentAlways, host.CommentNever:
	default:
		return nil, usage.Errorf("comment %q: expected auto, always or never", s.Comment)
	}
	if s.BaselineFile != "" && s.BaselineDir != "" {
		return nil, usage.Errorf("give --baseline or --baseline-dir, not both")
	}
	return c, nil
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

// ParseAge reads a duration setting written "30d", "72h" or "0" (never).
func ParseAge(name, s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "0" || t == "" {
		return 0, nil
	}
	bad := usage.Errorf("%s %q: expected days like 30d or a duration like 72h", name, s)
	if d, ok := strings.CutSuffix(t, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, bad
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 {
		return 0, bad
	}
	return d, nil
}

// ParseSize reads a size setting written "100MiB", "50MB" or "1048576":
// positive, at most 1 TiB.
func ParseSize(name, s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}} {
		if v, ok := strings.CutSuffix(t, u.suf); ok {
			t, mult = strings.TrimSpace(v), u.m
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, usage.Errorf("%s %q: expected a size like 100MiB", name, s)
	}
	return n * mult, nil
}
