package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"github.com/rubricgate/rubricgate/finding"
	"io"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	glhost "github.com/rubricgate/rubricgate/host/gitlab"
	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/pipeline"
	"github.com/rubricgate/rubricgate/render"
	"github.com/rubricgate/rubricgate/rubric"
)

// defaultCommentAuthor is the login of the workflow's GITHUB_TOKEN: only its
// marker comments are adopted, so nobody can plant a comment with the marker
// and have the gate edit (and so vouch for) it.
const defaultCommentAuthor = "github-actions[bot]"

// defaultBaselineDir is the local store used outside GitHub Actions.
const defaultBaselineDir = ".rubricgate/baselines"

// gateConfig holds the gate's settings: the flag names are the action inputs.
type gateConfig struct {
	rubric, format                                string
	results                                       stringList
	maxDrop, maxUnscored, maxBaselineAge          string
	noisyDrop, hardDrop                           string
	baselineFile, baselineDir                     string
	baselineArtifact, baselineBranch, branch      string
	baselineKey                                   string
	maxArchive                                    string
	ifNoBaseline, onBaselineError, onRubricChange string
	acceptLabel, writeBaseline, jsonOut, mdOut    string
	junitOut                                      string
	comment, commentKey, githubToken, title       string
	commentAuthor                                 string
	tierCfg                                       tierConfig
	judge                                         judgeConfig // one-step gate: --input and the judge flags
}

// gateFlags declares the gate's flags on fs; the same names are the action
// inputs (see action.yml).
func gateFlags(fs *flag.FlagSet, c *gateConfig) {
	fs.StringVar(&c.rubric, "rubric", "", "rubric file (YAML or JSON)")
	fs.Var(&c.results, "results", "results files or globs (repeatable; whitespace-separated)")
	fs.StringVar(&c.format, "format", "", formatHelp())
	fs.StringVar(&c.maxDrop, "max-drop", "2%", "relative drop of the aggregate score that blocks: 2% or 0.02")
	fs.StringVar(&c.noisyDrop, "noisy-drop", "block", "a drop at or above max-drop whose paired 95% interval includes 0: block, or warn (pass with a warning)")
	fs.StringVar(&c.hardDrop, "hard-drop", "5%", "with noisy-drop warn, the relative drop that blocks whatever the interval: 5% or 0.05")
	fs.StringVar(&c.maxUnscored, "max-unscored", "0", "share of unscored (judge error) items tolerated")
	fs.StringVar(&c.maxBaselineAge, "max-baseline-age", "30d", "warn when the baseline is older than this (e.g. 30d, 72h; 0 never)")
	fs.StringVar(&c.baselineFile, "baseline", "", "read the baseline from this file")
	fs.StringVar(&c.baselineDir, "baseline-dir", "", "local baseline store: DIR/<rubric>/<branch>.json (default outside Actions: "+defaultBaselineDir+")")
	fs.StringVar(&c.baselineArtifact, "baseline-artifact", "rubricgate-baseline", "GitHub Actions artifact name holding baseline.json")
	fs.StringVar(&c.baselineKey, "baseline-key", "", "local baseline directory slot: DIR/<key>/<branch>.json instead of the rubric's name, which a pull request can change")
	fs.StringVar(&c.baselineBranch, "baseline-branch", "", "branch whose last passing run is the baseline (default: the PR's or merge request's target branch, else the default branch (GitHub's payload, CI_DEFAULT_BRANCH, refs/remotes/origin/HEAD), else main)")
	fs.StringVar(&c.branch, "branch", "", "branch this run is on, for the local store: a passing run saves only when it is the baseline branch (default: GITHUB_REF inside Actions, else CI variables, else .git/HEAD)")
	fs.StringVar(&c.maxArchive, "max-archive", "100MiB", "largest baseline artifact accepted (compressed and uncompressed)")
	fs.StringVar(&c.ifNoBaseline, "if-no-baseline", "pass", "no baseline found: pass (this run starts it) or fail")
	fs.StringVar(&c.onBaselineError, "on-baseline-error", "fail", "baseline store unreachable or wrong: fail (exit 2) or pass (warned)")
	fs.StringVar(&c.onRubricChange, "on-rubric-change", "block", "rubric changed and the run cannot be re-scored under the baseline's, or lacks one of its blocking criteria: block (unless the accept label is on the pull request) or fail (label or not); skip is a deprecated name of block")
	fs.StringVar(&c.acceptLabel, "accept-label", "rubricgate:accept-regression", "pull request label that accepts a relative-drop regression or a rubric change the gate cannot follow")
	fs.StringVar(&c.writeBaseline, "write-baseline", "", "write a new baseline file here when the run passes")
	fs.StringVar(&c.jsonOut, "json", "", "write the JSON report here (- for stdout)")
	fs.StringVar(&c.mdOut, "markdown", "", "write the markdown report here")
	fs.StringVar(&c.junitOut, "junit", "", "write a JUnit XML report here (a test case per criterion and per blocking item)")
	fs.StringVar(&c.comment, "comment", "auto", "PR comment: auto (on pull request events), always, never")
	fs.StringVar(&c.commentKey, "comment-key", "", "sticky comment key (default: workflow, job, rubric and results)")
	fs.StringVar(&c.githubToken, "github-token", "", "token for the GitHub API (artifacts, comments); never printed")
	fs.StringVar(&c.commentAuthor, "comment-author", defaultCommentAuthor, "login whose marker comment is adopted and edited (the token's identity); * for any author")
	fs.StringVar(&c.title, "title", "", "heading of the report (default: rubricgate: <rubric name>)")
	tierFlags(fs, &c.tierCfg)
	gateJudgeFlags(fs, &c.judge)
}

// cmdGate runs the gate. It returns the exit status; errors are exit 2.
func cmdGate(args []string, e *env, gh *ghContext) (int, error) {
	fs := newFlags("gate", e)
	var c gateConfig
	gateFlags(fs, &c)
	posArgs, err := parseArgs(fs, args)
	if err != nil {
		return exitError, err
	}
	c.results = append(c.results, posArgs...)
	if gh == nil && e.inActions() {
		var err error
		if gh, err = readGHContext(e); err != nil {
			return exitError, err
		}
	}
	return runGate(context.Background(), &c, e, gh)
}

// settings are the parsed, checked forms of a gateConfig.
type settings struct {
	th          gate.Thresholds
	policy      gate.Policy
	maxUnscored float64
	maxArchive  int64
}

func (c *gateConfig) check() (*settings, error) {
	s := &settings{th: gate.DefaultThresholds, policy: gate.DefaultPolicy}
	var err error
	if s.th.MaxDrop, err = gate.ParseMaxDrop(c.maxDrop); err != nil {
		return nil, &usageError{err.Error()}
	}
	if s.th.NoisyDrop, err = gate.ParseNoisyMode(c.noisyDrop); err != nil {
		return nil, &usageError{err.Error()}
	}
	if s.th.HardDrop, err = gate.ParseDrop("hard-drop", c.hardDrop); err != nil {
		return nil, &usageError{err.Error()}
	}
	if s.maxUnscored, err = parseShare("max-unscored", c.maxUnscored); err != nil {
		return nil, err
	}
	if s.th.MaxBaselineAge, err = parseAge(c.maxBaselineAge); err != nil {
		return nil, err
	}
	if s.maxArchive, err = parseSize(c.maxArchive); err != nil {
		return nil, err
	}
	s.policy.IfNoBaseline = c.ifNoBaseline
	s.policy.OnRubricChange = c.onRubricChange
	s.policy.AcceptLabel = c.acceptLabel
	if err := s.policy.Validate(); err != nil {
		return nil, &usageError{err.Error()}
	}
	if c.onBaselineError != "fail" && c.onBaselineError != "pass" {
		return nil, usagef("on-baseline-error %q: expected fail or pass", c.onBaselineError)
	}
	switch c.comment {
	case "auto", "always", "never":
	default:
		return nil, usagef("comment %q: expected auto, always or never", c.comment)
	}
	if c.baselineFile != "" && c.baselineDir != "" {
		return nil, usagef("give --baseline or --baseline-dir, not both")
	}
	return s, nil
}

// runGate runs the gate pipeline with the checked settings of c and writes
// what it decided: the outputs (all or nothing, the local store's baseline
// last), the log, and inside Actions the step outputs, job summary and
// comment. It returns the exit status (0 pass, 1 blocked); an error is exit 2.
func runGate(ctx context.Context, c *gateConfig, e *env, gh *ghContext) (int, error) {
	s, err := c.check()
	if err != nil {
		return exitError, err
	}
	rb, warns, err := loadRubric(c.rubric, e)
	if err != nil {
		return exitError, err
	}
	if c.judge.input != "" {
		if len(c.results) > 0 {
			return exitError, usagef("give --input (answers to judge) or --results, not both")
		}
		out, err := judgeForGate(ctx, &c.judge, &c.tierCfg, rb, e)
		if err != nil {
			return exitError, err
		}
		c.results = stringList{out}
	}
	src, err := newResultSource(c.results, c.format, e)
	if err != nil {
		return exitError, err
	}
	tier, err := c.tierCfg.check(rb, e)
	if err != nil {
		return exitError, err
	}
	// The host: GitHub Actions, else GitLab CI, else a local run.
	b := gh.build()
	gl, err := readGitLab(e)
	if err != nil {
		return exitError, err
	}
	var notes *glhost.Notes
	if gl != nil {
		b = gl.Build()
		notes = gitlabNotes(e, gl, c)
	}
	save := pipeline.SaveInputs{Branch: c.branch, Getenv: e.getenv, WorkDir: e.wd}
	ref := pipeline.ResolveBaselineBranch(c.baselineBranch, b, save)
	store, q, saveDir, err := c.baselineStore(rb, e, gh, b, s, ref)
	if err != nil {
		return exitError, err
	}
	if saveDir != nil {
		if w := pipeline.TrackedStoreWarning(saveDir.Root, exec.LookPath); w != "" {
			warn(e, "", 0, w)
		}
	}
	o := pipeline.Options{
		Rubric: rb, RubricWarnings: warns, Results: src, ResultNames: c.results,
		Thresholds: s.th, Policy: s.policy, MaxUnscored: s.maxUnscored,
		Store: store, Query: q, StoreName: pipeline.StoreName(store),
		OnBaselineError: pipeline.OnBaselineError(c.onBaselineError),
		SaveDir:         saveDir, WriteBaseline: c.writeBaseline != "",
		Save: save, BaselineRef: ref,
		BaselineLoaded: func(n int) { tuneGC(e.getenv, n) },
		Build:          b, CommentKey: c.commentKey, Title: c.title, Tier: tier, Now: e.clock(),
		Warn: func(msg string) { warn(e, "", 0, msg) },
		Log:  func(msg string) { fmt.Fprintln(e.stdout, safe.LogLine(msg)) },
	}
	// A fork's pull request runs with a read-only token: the comment, and
	// so the accept record, is never posted, and the acceptance cannot be
	// bound (the report says so).
	if gh != nil && c.comment != "never" && c.githubToken != "" && c.commentAuthor != "*" && c.commentAuthor != "" && !gh.ev.FromFork() {
		o.Accept = func(ctx context.Context, key string) (string, bool, error) { return c.previousComment(ctx, e, gh, key) }
	}
	// On GitLab the record is read back only from a note of a named author
	// (comment-author set to the token's username): anyone may post a note.
	if notes != nil && c.comment != "never" && gitlabAuthor(c) != "" {
		o.Accept = notes.Existing
	}
	res, err := pipeline.Gate(ctx, o)
	if err != nil {
		return exitError, err
	}
	g, md := res.Report, res.Markdown

	// Outputs are staged and renamed into place together once everything
	// succeeded, so a run that ends in an error leaves nothing written.
	var out staged
	defer out.Abort()
	baselinePath := ""
	if bf := res.NewBaseline; bf != nil && c.writeBaseline != "" {
		if err := out.Add(output{Path: c.writeBaseline, Write: bf.Write}); err != nil {
			return exitError, err
		}
		baselinePath = c.writeBaseline
	} else if g.Decision != gate.Pass && c.writeBaseline != "" {
		fmt.Fprintf(e.stderr, "no baseline written to %s: the run was blocked\n", c.writeBaseline)
	}
	if res.SaveTo != "" && baselinePath == "" {
		baselinePath = res.SaveTo
	}
	reportPath := c.jsonOut
	if reportPath == "" {
		reportPath = e.defaultReportPath()
	}
	if err := out.Add(
		output{Path: reportPath, Write: func(w io.Writer) error { return render.JSON(w, g) }},
		output{Path: c.mdOut, Write: func(w io.Writer) error { _, err := io.WriteString(w, md); return err }},
		output{Path: c.junitOut, Write: func(w io.Writer) error { return junit(w, g, c.title, e.clock()) }},
	); err != nil {
		return exitError, err
	}
	if res.SaveTo != "" {
		// Staged like the outputs, as one more rename of the set: the
		// store's baseline lands only when every output does.
		if err := out.Mkdirs(filepath.Dir(res.SaveTo)); err != nil {
			return exitError, fmt.Errorf("save baseline: %w", err)
		}
		if err := out.Add(output{Path: res.SaveTo, Write: res.NewBaseline.Write}); err != nil {
			return exitError, fmt.Errorf("save baseline: %w", err)
		}
	}
	// Inside Actions the comment is posted first (best effort: it never
	// changes the exit status) so its address is among the step outputs,
	// and the step outputs are appended as the last step of the commit:
	// when GITHUB_OUTPUT cannot be written the files are put back and the
	// run is an error (exit 2) with nothing saved, since later steps (the
	// baseline upload) rely on the outputs. The job summary is for people:
	// a failure to write it is a warning.
	var last func() error
	commentLine := ""
	switch {
	case e.inActions() && gh != nil:
		var commentURL string
		commentURL, commentLine = postComment(ctx, e, gh, c, res.CommentKey, md)
		last = func() error { return actionOutputs(e, gh, g, md, reportPath, baselinePath, commentURL) }
	case gl != nil:
		var noteURL string
		noteURL, commentLine = postNote(ctx, e, b, notes, c, res.CommentKey, md)
		last = func() error { return gitlabOutputs(e, gl, g, reportPath, baselinePath, noteURL) }
	}
	if err := out.CommitThen(e.stdout, last); err != nil {
		return exitError, err
	}

	// The log.
	// The rubric's warnings lead the report's and were printed with their
	// file and line when the rubric was loaded: print the others only.
	shown, rep := *g, *g.Report
	rep.Warnings = rep.Warnings[res.RubricWarnings:]
	shown.Report = &rep
	printDecision(e, &shown, baselinePath)
	if commentLine != "" {
		fmt.Fprintln(e.stdout, commentLine)
	}
	if res.Blocked() {
		return exitBlocked, nil
	}
	return exitPass, nil
}

// printDecision writes the human summary to stdout and annotations inside Actions.
func printDecision(e *env, g *gate.GateReport, baselinePath string) {
	word := strings.ToUpper(string(g.Decision))
	if g.Accepted {
		word = "PASS (regression accepted)"
	}
	fmt.Fprintf(e.stdout, "rubricgate: %s\n", word)
	fmt.Fprintf(e.stdout, "  score %s", fmtScore(g.Score))
	if g.Baseline != nil {
		fmt.Fprintf(e.stdout, ", baseline %.1f", g.Baseline.Score)
	}
	if g.RelativeChange != nil {
		fmt.Fprintf(e.stdout, ", change %s", gate.FormatChange(*g.RelativeChange, g.MaxDrop))
	}
	if g.CI95 != nil {
		fmt.Fprintf(e.stdout, " (95%% CI %+.2f%% .. %+.2f%%)", 100*g.CI95[0], 100*g.CI95[1])
	}
	fmt.Fprintln(e.stdout)
	if line := render.ResolutionLine(g.DropCheck); line != "" {
		fmt.Fprintf(e.stdout, "  %s\n", line)
	}
	// A reason or warning that is one finding's text is annotated from the
	// finding (its level, and file and line when known); a reason joining
	// the blocking failures of several criteria is annotated as a string.
	byText := map[string]finding.Finding{}
	for _, f := range g.Findings {
		byText[f.Text()] = f
	}
	for _, r := range g.Reasons {
		f, ok := byText[r]
		switch {
		case !e.inActions() || g.Decision != gate.Block:
			fmt.Fprintf(e.stdout, "  - %s\n", safe.LogLine(r))
		case ok && f.Severity != finding.Warning:
			annotate(e, f.Annotation())
		default:
			fmt.Fprintf(e.stdout, "::error title=rubricgate blocked::%s\n", escapeCommand(r))
		}
	}
	for _, w := range g.Warnings {
		if f, ok := byText[w]; ok && f.Severity == finding.Warning && e.inActions() {
			annotate(e, f.Annotation())
			continue
		}
		warn(e, "", 0, w)
	}
	if baselinePath != "" {
		fmt.Fprintf(e.stdout, "  new baseline written to %s\n", safe.LogLine(baselinePath))
	}
}

func fmtScore(f *float64) string {
	if f == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*f, 'f', 1, 64)
}

// parseAge reads "30d", "72h", "0".
func parseAge(s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "0" || t == "" {
		return 0, nil
	}
	if d, ok := strings.CutSuffix(t, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, usagef("max-baseline-age %q: expected days like 30d or a duration like 72h", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 {
		return 0, usagef("max-baseline-age %q: expected days like 30d or a duration like 72h", s)
	}
	return d, nil
}

// parseSize reads "100MiB", "50MB", "1048576".
func parseSize(s string) (int64, error) {
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
		return 0, usagef("max-archive %q: expected a size like 100MiB", s)
	}
	return n * mult, nil
}

// resultSource can read the results more than once (to re-score under the
// baseline's rubric); stdin is buffered for that.
type resultSource struct {
	patterns []string
	format   string
	e        *env
	stdin    []byte
}

func newResultSource(patterns []string, format string, e *env) (*resultSource, error) {
	rs := &resultSource{patterns: patterns, format: format, e: e}
	for _, p := range patterns {
		if p == "-" {
			data, err := io.ReadAll(e.stdin)
			if err != nil {
				return nil, fmt.Errorf("read stdin: %w", err)
			}
			rs.stdin = data
		}
	}
	return rs, nil
}

// CheckBlocking checks the results against rb's blocking criteria.
func (rs *resultSource) CheckBlocking(rb *rubric.Rubric) (*gate.GateCheck, error) {
	inputs, closeAll, err := rs.open()
	if err != nil {
		return nil, err
	}
	defer closeAll()
	return gate.CheckBlocking(rb, inputs)
}

func (rs *resultSource) open() ([]gate.Input, func(), error) {
	e := *rs.e
	if rs.stdin != nil {
		e.stdin = bytes.NewReader(rs.stdin)
	}
	return openInputs(rs.patterns, rs.format, &e)
}

// Score scores the results under rb.
func (rs *resultSource) Score(rb *rubric.Rubric, opts gate.ScoreOptions) (*gate.Report, error) {
	inputs, closeAll, err := rs.open()
	if err != nil {
		return nil, err
	}
	defer closeAll()
	return gate.Score(rb, inputs, opts)
}

// tuneGC bounds the heap of a gate against a large baseline (the baseline's
// items stay live while the run is scored, and the garbage collector's
// default lets the heap grow to twice the live data): from 100,000 items,
// unless GOGC or GOMEMLIMIT is set, the collector runs at GOGC=50 with a
// soft limit of 64 MiB + 48 bytes an item (110 MiB for a million), trading a
// little CPU for a peak RSS under 128 MiB. It returns whether it changed them.
func tuneGC(getenv func(string) string, items int) bool {
	if items < 100_000 || getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(50)
	debug.SetMemoryLimit(64<<20 + 48*int64(items))
	return true
}

// annotate writes a finding's annotation as a workflow command.
func annotate(e *env, a finding.Annotation) {
	props := "title=" + escapeProperty(a.Title)
	if a.File != "" {
		props = fmt.Sprintf("file=%s,line=%d,%s", escapeProperty(a.File), a.Line, props)
	}
	fmt.Fprintf(e.stdout, "::%s %s::%s\n", a.Level, props, escapeCommand(a.Message))
}
