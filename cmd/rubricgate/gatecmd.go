package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/safe"
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
	maxArchive                                    string
	ifNoBaseline, onBaselineError, onRubricChange string
	acceptLabel, writeBaseline, jsonOut, mdOut    string
	comment, commentKey, githubToken, title       string
	commentAuthor                                 string
	tierCfg                                       tierConfig
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
	fs.StringVar(&c.baselineBranch, "baseline-branch", "", "branch whose last passing run is the baseline (default: the PR's base branch, else the default branch, else main)")
	fs.StringVar(&c.branch, "branch", "", "branch this run is on, for the local store: a passing run saves only when it is the baseline branch (default: GITHUB_REF inside Actions, else CI variables, else .git/HEAD)")
	fs.StringVar(&c.maxArchive, "max-archive", "100MiB", "largest baseline artifact accepted (compressed and uncompressed)")
	fs.StringVar(&c.ifNoBaseline, "if-no-baseline", "pass", "no baseline found: pass (this run starts it) or fail")
	fs.StringVar(&c.onBaselineError, "on-baseline-error", "fail", "baseline store unreachable or wrong: fail (exit 2) or pass (warned)")
	fs.StringVar(&c.onRubricChange, "on-rubric-change", "block", "rubric changed and the run cannot be re-scored under the baseline's, or lacks one of its blocking criteria: block (unless the accept label is on the pull request) or fail (label or not); skip is a deprecated name of block")
	fs.StringVar(&c.acceptLabel, "accept-label", "rubricgate:accept-regression", "pull request label that accepts a relative-drop regression or a rubric change the gate cannot follow")
	fs.StringVar(&c.writeBaseline, "write-baseline", "", "write a new baseline file here when the run passes")
	fs.StringVar(&c.jsonOut, "json", "", "write the JSON report here (- for stdout)")
	fs.StringVar(&c.mdOut, "markdown", "", "write the markdown report here")
	fs.StringVar(&c.comment, "comment", "auto", "PR comment: auto (on pull request events), always, never")
	fs.StringVar(&c.commentKey, "comment-key", "", "sticky comment key (default: workflow, job, rubric and results)")
	fs.StringVar(&c.githubToken, "github-token", "", "token for the GitHub API (artifacts, comments); never printed")
	fs.StringVar(&c.commentAuthor, "comment-author", defaultCommentAuthor, "login whose marker comment is adopted and edited (the token's identity); * for any author")
	fs.StringVar(&c.title, "title", "", "heading of the report (default: rubricgate: <rubric name>)")
	tierFlags(fs, &c.tierCfg)
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
		if gh, err = readGHContext(e.getenv); err != nil {
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

func runGate(ctx context.Context, c *gateConfig, e *env, gh *ghContext) (int, error) {
	s, err := c.check()
	if err != nil {
		return exitError, err
	}
	rb, warns, err := loadRubric(c.rubric, e)
	if err != nil {
		return exitError, err
	}
	src, err := newResultSource(c.results, c.format, e)
	if err != nil {
		return exitError, err
	}
	tier, err := c.tierCfg.check(rb, e)
	if err != nil {
		return exitError, err
	}

	// The baseline.
	store, q, saveDir, err := c.baselineStore(rb, e, gh, s)
	if err != nil {
		return exitError, err
	}
	if saveDir != nil {
		if w := trackedStoreWarning(saveDir.Root, exec.LookPath); w != "" {
			warn(e, "", 0, w)
		}
	}
	var base *gate.Baseline
	noBaseNote := ""
	file, bsrc, err := store.Latest(ctx, q)
	switch {
	case errors.Is(err, baseline.ErrNotFound):
		noBaseNote = fmt.Sprintf("no baseline found for rubric %q on branch %q (%s)", rb.Name, q.Branch, storeName(store))
	case err != nil && c.onBaselineError == "pass":
		noBaseNote = "the baseline could not be read (on-baseline-error is pass)"
		warn(e, "", 0, "baseline: "+err.Error())
	case err != nil:
		return exitError, fmt.Errorf("baseline: %w", err)
	default:
		if base, err = file.Gate(bsrc); err != nil {
			return exitError, fmt.Errorf("baseline %s: %w", bsrc.Location, err)
		}
		tuneGC(e.getenv, len(base.Items))
	}

	// Score under the current rubric; pair with the baseline when the rubric is the same.
	// The items are kept only for a new baseline (a million of them take
	// tens of megabytes).
	var items itemChunks
	wantItems := c.writeBaseline != "" || saveDir != nil
	var pairer *gate.Pairer
	sameRubric := base != nil && base.RubricHash == rb.Hash()
	if sameRubric {
		pairer = gate.NewPairer(base.Items, s.th.WorstItems)
		// The pairer holds a compact copy; dropping the items spares the
		// collector a million id strings to rescan while the run is scored.
		base.Items = nil
	}
	cur, err := src.score(rb, gate.ScoreOptions{MaxUnscored: s.maxUnscored, OnItem: func(it *gate.ItemResult) error {
		if !it.Unscored && wantItems {
			items.add(gate.ItemScore{ID: it.ID, Score: it.Score})
		}
		if sameRubric {
			pairer.Add(it)
		}
		tier.observe(it)
		return nil
	}})
	if err != nil {
		return exitError, err
	}
	addRubricWarnings(cur, warns)

	// A changed rubric: re-score under the baseline's, where the results carry its criteria.
	var compared *gate.Report
	var rescoreErr error
	if base != nil && !sameRubric {
		rescorePairer := gate.NewPairer(base.Items, s.th.WorstItems)
		base.Items = nil // as above
		compared, rescoreErr = src.score(base.Rubric, gate.ScoreOptions{
			MaxUnscored: s.maxUnscored,
			Read:        gate.ReadOptions{IgnoreUnknown: true},
			OnItem:      func(it *gate.ItemResult) error { rescorePairer.Add(it); return nil },
		})
		var ie *gate.InputError
		switch {
		case rescoreErr == nil:
			pairer = rescorePairer
		case errors.As(rescoreErr, &ie):
			compared = nil
			pairer = nil
		default:
			return exitError, fmt.Errorf("re-score under the baseline's rubric: %w", rescoreErr)
		}
	}
	// The baseline rubric's blocking gates apply whatever the current rubric
	// says, and whether or not the run could be re-scored.
	var baseGates *gate.GateCheck
	if base != nil && !sameRubric {
		if baseGates, err = src.checkBlocking(base.Rubric); err != nil {
			return exitError, err
		}
	}
	var paired *gate.Paired
	if pairer != nil {
		paired = pairer.Result()
	}

	g := gate.Decide(gate.DecideInput{
		Current: cur, Rubric: rb, Baseline: base, NoBaselineNote: noBaseNote,
		Compared: compared, RescoreErr: rescoreErr, BaselineGates: baseGates, Paired: paired,
		Now: e.clock(), Thresholds: s.th,
		Policy: func() gate.Policy {
			p := s.policy
			p.Accepted = gh != nil && gh.hasLabel(c.acceptLabel)
			return p
		}(),
	})
	if err := tier.apply(g, rb); err != nil {
		return exitError, err
	}
	key := c.commentKey
	if gh != nil {
		if key == "" {
			key = defaultCommentKey(gh, rb, c.results)
		}
		g.Context = &gate.RunContext{Repository: gh.owner + "/" + gh.repo, EventName: gh.eventName, SHA: gh.sha, HeadSHA: gh.headSHA, PullRequest: gh.pr, RunID: gh.runID, RunURL: gh.runURL, CommentKey: key}
	}

	// Everything is computed: now write. The local store's baseline last, only on a pass.
	title := c.title
	if title == "" {
		title = "rubricgate: " + rb.Name
	}
	accField, accNote := c.acceptance(ctx, e, gh, key, g)
	md := render.Markdown(g, render.MarkdownOptions{Title: title, Now: e.clock(), Budget: comment.BodyLimit(key) - len(accField) - 1 - len(accNote)})
	md = withAcceptance(md, accField, accNote)
	// Outputs are staged and renamed into place together once everything
	// succeeded, so a run that ends in an error leaves nothing written.
	var out staged
	defer out.abort()
	baselinePath := ""
	var saveLocal func() error
	if g.Decision == gate.Pass && (c.writeBaseline != "" || saveDir != nil) {
		meta := baseline.Meta{CreatedAt: e.clock().UTC(), Branch: q.Branch}
		if gh != nil {
			meta.SHA, meta.Ref, meta.Repository, meta.RunID, meta.RunURL = gh.sha, gh.ref, gh.owner+"/"+gh.repo, gh.runID, gh.runURL
			meta.Branch = gh.branch()
		}
		bf, err := baseline.New(rb, cur, items.all(), meta)
		if err != nil {
			return exitError, fmt.Errorf("new baseline: %w", err)
		}
		onBase, why := c.saveBranch(e, gh, q.Branch)
		if c.writeBaseline != "" {
			if err := out.add(output{c.writeBaseline, bf.Write}); err != nil {
				return exitError, err
			}
			baselinePath = c.writeBaseline
			if gh != nil && !onBase {
				// The artifact store cannot tell which event made a run: only a
				// push run on the baseline branch should upload a baseline.
				warn(e, "", 0, "write-baseline: upload baseline.json as the baseline artifact only from push runs on the baseline branch; "+why)
			}
		}
		if saveDir != nil && !onBase {
			fmt.Fprintln(e.stdout, "  baseline not saved: "+safe.LogLine(why))
		} else if saveDir != nil {
			sq := baseline.Query{Rubric: rb.Name, Branch: q.Branch}
			p, err := saveDir.Path(sq)
			if err != nil {
				return exitError, fmt.Errorf("save baseline: %w", err)
			}
			// Staged like the outputs, as one more rename of the set: the
			// store's baseline lands only when every output does.
			saveLocal = func() error {
				if err := out.mkdirs(filepath.Dir(p)); err != nil {
					return err
				}
				return out.add(output{p, bf.Write})
			}
			if baselinePath == "" {
				baselinePath = p
			}
		}
	} else if g.Decision != gate.Pass && c.writeBaseline != "" {
		fmt.Fprintf(e.stderr, "no baseline written to %s: the run was blocked\n", c.writeBaseline)
	}
	reportPath := c.jsonOut
	if reportPath == "" {
		reportPath = e.defaultReportPath()
	}
	if err := out.add(
		output{reportPath, func(w io.Writer) error { return render.JSON(w, g) }},
		output{c.mdOut, func(w io.Writer) error { _, err := io.WriteString(w, md); return err }},
	); err != nil {
		return exitError, err
	}
	if saveLocal != nil {
		if err := saveLocal(); err != nil {
			return exitError, fmt.Errorf("save baseline: %w", err)
		}
	}
	if err := out.commit(e.stdout); err != nil {
		return exitError, err
	}

	// The log, the summary, outputs and the comment.
	// The rubric's warnings lead the report's and were printed with their
	// file and line when the rubric was loaded: print the others only.
	shown, rep := *g, *g.Report
	rep.Warnings = rep.Warnings[min(len(warns), len(rep.Warnings)):]
	shown.Report = &rep
	printDecision(e, &shown, baselinePath)
	commentURL := ""
	if e.inActions() && gh != nil {
		commentURL = postComment(ctx, e, gh, c, key, md)
		if err := actionOutputs(e, g, md, reportPath, baselinePath, commentURL); err != nil {
			return exitError, err
		}
	}
	if g.Decision == gate.Block {
		return exitBlocked, nil
	}
	return exitPass, nil
}

// defaultCommentKey keeps two gates or matrix legs apart: workflow, job,
// rubric name and the results given.
func defaultCommentKey(gh *ghContext, rb *rubric.Rubric, results []string) string {
	return strings.Join([]string{gh.workflow, gh.job, rb.Name, strings.Join(results, ",")}, "/")
}

// printDecision writes the human summary to stdout and annotations inside Actions.
func printDecision(e *env, g *gate.GateReport, baselinePath string) {
	word := strings.ToUpper(g.Decision)
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
	for _, r := range g.Reasons {
		if e.inActions() && g.Decision == gate.Block {
			fmt.Fprintf(e.stdout, "::error title=rubricgate blocked::%s\n", escapeCommand(r))
		} else {
			fmt.Fprintf(e.stdout, "  - %s\n", safe.LogLine(r))
		}
	}
	for _, w := range g.Warnings {
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

func (rs *resultSource) checkBlocking(rb *rubric.Rubric) (*gate.GateCheck, error) {
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

func (rs *resultSource) score(rb *rubric.Rubric, opts gate.ScoreOptions) (*gate.Report, error) {
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

// itemChunks collects items in fixed-size chunks: a growing slice of a
// million items copies itself over and over (a third of a first baseline's
// write time).
type itemChunks struct {
	chunks [][]gate.ItemScore
	n      int
}

const itemChunk = 1 << 15

func (c *itemChunks) add(it gate.ItemScore) {
	if k := len(c.chunks); k == 0 || len(c.chunks[k-1]) == itemChunk {
		c.chunks = append(c.chunks, make([]gate.ItemScore, 0, itemChunk))
	}
	k := len(c.chunks) - 1
	c.chunks[k] = append(c.chunks[k], it)
	c.n++
}

// all returns the items in order, in one slice.
func (c *itemChunks) all() []gate.ItemScore {
	out := make([]gate.ItemScore, 0, c.n)
	for _, ch := range c.chunks {
		out = append(out, ch...)
	}
	return out
}
