// Package gaterun is the gate as a library: given a rubric, a source of
// results, a baseline store and the run's build information, [Gate] scores
// the run, finds and checks the baseline, decides, applies the judge-bias
// and tier checks, records an accepted regression and says which baseline
// the run may save. It holds the product's rules; cmd/rubricgate parses
// flags and inputs, picks the host, writes the outputs and chooses the exit
// code.
//
// The package writes nothing: warnings and log lines go to the callbacks
// in [Options], and everything to write is in the [Outcome].
package gaterun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/stage"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/publish"
	"github.com/rubricgate/rubricgate/render"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
	"github.com/rubricgate/rubricgate/tier"
)

// Results reads the run's results, as often as the gate needs them (once
// under the current rubric, again under the baseline's when it changed).
type Results interface {
	Score(rb *rubric.Rubric, opts native.ScoreOptions) (*gate.Report, error)
	CheckBlocking(rb *rubric.Rubric) (*gate.GateCheck, error)
}

// OnBaselineError says what a baseline store that cannot be read does.
type OnBaselineError string

// The baseline-store error policies.
const (
	// BaselineErrorFail: the run ends in an error (exit 2).
	BaselineErrorFail OnBaselineError = "fail"
	// BaselineErrorPass: the run goes on without a baseline, warned.
	BaselineErrorPass OnBaselineError = "pass"
)

// Options are the gate's inputs, parsed and checked by the caller.
type Options struct {
	// Rubric is the current rubric; RubricWarnings its load warnings, which
	// lead the report's warnings.
	Rubric         *rubric.Rubric
	RubricWarnings []rubric.Warning
	// Results are the run's results; ResultNames the names given (for the
	// default comment key).
	Results     Results
	ResultNames []string

	Thresholds  gate.Thresholds
	Policy      gate.Policy
	MaxUnscored float64

	// Store is where the baseline comes from, Query which one (see
	// [host.ResolveBaselineBranch]); StoreName names the store in a note.
	Store     baseline.Store
	Query     baseline.Query
	StoreName string
	// BaselineRef is where Query's branch came from and the default
	// branch, for the warning when a run on the default branch could never
	// save a baseline (zero: no check).
	BaselineRef host.BaselineRef
	// OnBaselineError is the store error policy.
	OnBaselineError OnBaselineError
	// BaselineLoaded, when set, is told how many items the baseline has
	// once it is read (cmd bounds the heap of a large one).
	BaselineLoaded func(items int)
	// SaveDir is the local store a passing run saves into, nil when none.
	SaveDir *baseline.Dir
	// WriteBaseline is true when a new baseline file was asked for.
	WriteBaseline bool
	// PoolRuns is how many consecutive runs of the branch a new baseline
	// pools (baseline.File.Pool; 0 or 1: this run alone).
	PoolRuns int
	// Save says what decides whether the run may save its baseline.
	Save host.SaveInputs

	// Build is the CI run (nil outside GitHub Actions).
	Build *host.Build
	// CommentKey is the sticky comment key ("" for the default).
	CommentKey string
	// Title heads the markdown report ("" for "rubricgate: <rubric>").
	Title string
	// Tier is the judge-bias and tier state (see [tier.State]).
	Tier *tier.State
	// Accept reads back the gate's previous sticky comment to find when a
	// regression was accepted; nil when it cannot be read.
	Accept func(ctx context.Context, key string) (body string, ok bool, err error)
	// AttemptsDir is the local store of the attempts' state (outside CI,
	// where there is no comment to keep it in); "" for none.
	AttemptsDir string
	// LabelActor asks the host who applied the accept label and who wrote
	// the change request (host.Commenting.LabelActor); nil when it cannot
	// be asked. AcceptBy is the accept-by policy.
	LabelActor func(ctx context.Context, label string) (gate.Actor, error)
	AcceptBy   gate.AcceptByPolicy

	// Now is the clock.
	Now time.Time
	// Warn shows a warning.
	Warn func(msg string)
}

// Outcome is what the gate decided and what to write.
type Outcome struct {
	// Result is what publish.Publish shows: the report, its markdown, the
	// comment key, why no baseline was saved.
	publish.Result
	// NewBaseline is the baseline a passing run may write (nil otherwise):
	// to the file asked for and, when SaveTo is set, into the local store at
	// SaveTo (written last, with the other outputs).
	NewBaseline *baseline.File
	SaveTo      string
	// attempts is the local attempts store's state file to write (none
	// on a CI host, whose comment carries the state).
	attempts []stage.Output
}

// Gate runs the gate. An error is exit 2: bad input, a baseline store that
// cannot be read under on-baseline-error fail, a judge of the production
// model's family under same-family fail.
//
// The run is a list of named steps over one state (see [gateRun]): each
// step reads what the earlier ones found and adds its own.
func Gate(ctx context.Context, o Options) (*Outcome, error) {
	r := newGateRun(o)
	for _, st := range []struct {
		name string
		run  func(context.Context) error
	}{
		{"branch", r.branch},            // may this run save; is it the baseline branch's own
		{"baseline", r.readBaseline},    // the baseline, under the store error policy
		{"score", r.score},              // score under the current rubric, paired with the baseline
		{"rescore", r.rescore},          // a changed rubric: re-score under the baseline's
		{"acceptance", r.acceptance},    // the accept label's record, or --accept
		{"attempts", r.readAttempts},    // the earlier attempts at these inputs
		{"decide", r.decide},            // gate.Decide, then the judge-bias, tier and branch checks
		{"markdown", r.markdown},        // the comment and summary body
		{"new baseline", r.newBaseline}, // what a passing run may save
	} {
		if err := st.run(ctx); err != nil {
			return nil, err
		}
	}
	return r.out, nil
}

// gateRun is one run of [Gate]: its options and what the steps found.
type gateRun struct {
	o      Options
	warn   func(string)
	tier   *tier.State
	policy gate.Policy
	// onBase is whether the run is on the baseline branch (a push there);
	// whyNotBase why not.
	onBase     bool
	whyNotBase string

	base       *gate.Baseline
	noBaseNote string
	renamed    *gate.RenamedRubric
	fellBack   string         // the branch the baseline came from when it is the fallback
	prev       *baseline.File // the baseline read, whose history a new one continues

	items      *gate.ItemColumns
	wantItems  bool
	sameRubric bool
	pairer     *gate.Pairer
	paired     *gate.Paired // the pairer's result, once decided
	cur        *gate.Report

	compared   *gate.Report
	rescoreErr error
	baseGates  *gate.GateCheck

	commentKey string
	previous   func(ctx context.Context, key string) (string, bool, error)
	acc        gate.Acceptance
	// attempts is where the attempts' state is kept (zero: nowhere),
	// digest this run's answers, attIn what the decision reads of them.
	attempts          attemptsStore
	digest            *gate.AnswerDigest
	attIn             gate.AttemptsInput
	accField, accNote string // the accept record's hidden line and note

	out *Outcome
}

func newGateRun(o Options) *gateRun {
	r := &gateRun{o: o, tier: o.Tier, warn: func(s string) {
		if o.Warn != nil {
			o.Warn(s)
		}
	}}
	if r.tier == nil {
		r.tier = &tier.State{}
	}
	r.tier.ForRubric(o.Rubric)
	if o.Accept != nil {
		// The gate's own comment, read once for the accept record and the
		// attempts' state.
		type read struct {
			body string
			ok   bool
			err  error
		}
		cache := map[string]read{}
		r.previous = func(ctx context.Context, key string) (string, bool, error) {
			c, hit := cache[key]
			if !hit {
				c.body, c.ok, c.err = o.Accept(ctx, key)
				cache[key] = c
			}
			return c.body, c.ok, c.err
		}
	}
	return r
}

// branch finds whether this run is the baseline branch's own (a push
// there): it may save a baseline, and a rubric change or removed items
// that were reviewed when they merged start a new baseline instead of
// blocking.
func (r *gateRun) branch(context.Context) error {
	o, b := r.o, r.o.Build
	r.onBase, r.whyNotBase = host.MaySave(o.Save, b, o.Query.Branch, r.warn)
	r.policy = o.Policy
	r.policy.Accepted = b != nil && b.HasLabel(r.policy.AcceptLabel)
	// Relaxing the rubric-change and removed-items blocks needs more than a
	// local checkout's HEAD: a CI run on the branch, or a branch given.
	r.policy.BaselineBranchRun = r.onBase && (b != nil || o.Save.Branch != "" || host.CIBranchKnown(o.Save.Getenv))
	// The attempts of a change request are kept in the gate's own
	// comment; outside CI in the local attempts store. The baseline
	// branch's own runs are not attempts: they are pooled as baselines.
	switch {
	case r.onBase:
	case b != nil && b.ChangeRequest > 0 && r.previous != nil:
		r.attempts.previous = r.previous
	case (b == nil || b.ChangeRequest == 0) && o.AttemptsDir != "":
		r.attempts.dir = o.AttemptsDir
	}
	if r.attempts.previous != nil || r.attempts.dir != "" {
		r.digest = &gate.AnswerDigest{}
	}
	return nil
}

// readBaseline reads the baseline under the store error policy.
func (r *gateRun) readBaseline(ctx context.Context) error {
	o, rb, q := r.o, r.o.Rubric, r.o.Query
	var renamed *baseline.OtherRubricsError
	file, bsrc, fellBack, err := latestOrDefault(ctx, o.Store, q, o.BaselineRef)
	r.fellBack = fellBack
	switch {
	case errors.As(err, &renamed):
		// Not "no baseline": the rubric's name is the pull request's to
		// change, and a new name must not buy a fresh, empty baseline. It
		// is a rubric change the gate cannot follow (never a store error
		// that on-baseline-error: pass would wave through).
		r.noBaseNote = fmt.Sprintf("no baseline for rubric %q on branch %q (%s)", rb.Name, q.Branch, o.StoreName)
		r.renamed = &gate.RenamedRubric{Rubric: renamed.Rubric, Branch: renamed.Branch, Others: renamed.Found}
	case errors.Is(err, baseline.ErrNotFound):
		r.noBaseNote = fmt.Sprintf("no baseline found for rubric %q on branch %q (%s)", rb.Name, q.Branch, o.StoreName)
	case err != nil && o.OnBaselineError == BaselineErrorPass:
		r.noBaseNote = "the baseline could not be read (on-baseline-error is pass)"
		r.warn("baseline: " + err.Error())
	case err != nil:
		return fmt.Errorf("baseline: %w", err)
	default:
		if r.base, err = file.Gate(bsrc); err != nil {
			return fmt.Errorf("baseline %s: %w", bsrc.Location, err)
		}
		r.prev = file
		// The rubric's name picks the slot, and a pull request edits it:
		// the slot under the new name holding a baseline (one the pull
		// request may have written) does not make a renamed rubric a
		// fresh one.
		if rf, ok := o.Store.(renamedFrom); ok {
			rq := q
			if fellBack != "" {
				rq.Branch = fellBack // the slots of the branch the baseline came from
			}
			from, err := rf.RenamedFrom(rq, rb)
			if err != nil {
				return fmt.Errorf("baseline: %w", err)
			}
			if len(from) > 0 {
				r.renamed = &gate.RenamedRubric{Rubric: rb.Name, Branch: q.Branch, Others: from, Same: true}
			}
		}
		if o.BaselineLoaded != nil {
			o.BaselineLoaded(r.base.Items.Len())
		}
	}
	return nil
}

// score scores the run under the current rubric, pairing it with the
// baseline when the rubric is the same. The items are kept only for a new
// baseline, in pointer-free columns: a million id strings kept live would
// be rescanned by every collection while the run is scored.
func (r *gateRun) score(context.Context) error {
	o, rb := r.o, r.o.Rubric
	r.wantItems = o.WriteBaseline || o.SaveDir != nil
	r.sameRubric = r.base != nil && r.base.RubricHash == rb.Hash()
	if r.wantItems {
		r.items = &gate.ItemColumns{}
	}
	if r.sameRubric {
		r.pairer = gate.NewPairerColumns(r.base.Items, o.Thresholds.WorstItems)
	}
	// Only the pairer reads an item's reasoning, and only for the few it
	// may show: the others are never copied.
	want := func(*gate.ItemResult) bool { return false }
	if r.sameRubric {
		want = r.pairer.WantsReasoning
	}
	cur, err := o.Results.Score(rb, native.ScoreOptions{MaxUnscored: o.MaxUnscored, WantReasoning: want, OnItem: func(it *gate.ItemResult) error {
		if !it.Unscored && r.wantItems {
			r.items.AppendAnswers(it.ID, it.Score, it.Answers, it.AnswerVar)
			r.items.SetInputHash(r.items.Len()-1, it.InputHash)
		}
		if r.sameRubric {
			r.pairer.Add(it)
		}
		r.tier.Observe(it)
		if r.digest != nil {
			r.digest.Add(it)
		}
		return nil
	}})
	if err != nil {
		return err
	}
	AddRubricWarnings(cur, o.RubricWarnings)
	r.cur = cur
	return nil
}

// rescore re-scores a run whose rubric changed under the baseline's, where
// the results carry its criteria, and checks the baseline rubric's
// blocking gates, which apply whatever the current rubric says and
// whether or not the run could be re-scored.
func (r *gateRun) rescore(context.Context) error {
	if r.base == nil || r.sameRubric {
		return nil
	}
	o := r.o
	rescorePairer := gate.NewPairerColumns(r.base.Items, o.Thresholds.WorstItems)
	r.compared, r.rescoreErr = o.Results.Score(r.base.Rubric, native.ScoreOptions{
		MaxUnscored:   o.MaxUnscored,
		Read:          native.ReadOptions{IgnoreUnknown: true},
		WantReasoning: rescorePairer.WantsReasoning,
		OnItem:        func(it *gate.ItemResult) error { rescorePairer.Add(it); return nil },
	})
	var ie *native.InputError
	switch {
	case r.rescoreErr == nil:
		r.pairer = rescorePairer
	case errors.As(r.rescoreErr, &ie):
		r.compared = nil
		r.pairer = nil
	default:
		return fmt.Errorf("re-score under the baseline's rubric: %w", r.rescoreErr)
	}
	var err error
	if r.baseGates, err = o.Results.CheckBlocking(r.base.Rubric); err != nil {
		return err
	}
	return nil
}

// acceptance finds what accepts a regression: --accept (this run, with
// its reason), or the accept label with the record of what it was applied
// for, kept in the sticky comment. The comment is keyed by what the
// workflow sets, never by the rubric's name, which the pull request edits.
func (r *gateRun) acceptance(ctx context.Context) error {
	o, b := r.o, r.o.Build
	r.commentKey = o.CommentKey
	if b != nil && r.commentKey == "" {
		r.commentKey = DefaultCommentKey(b.Workflow, b.Job, o.ResultNames)
	}
	switch {
	case r.policy.AcceptReason != "":
		// On a GitHub pull request the label (a reviewer's act, recorded
		// in the comment) is the way.
		if b != nil && b.Host == "github" && b.ChangeRequest > 0 {
			return usage.Errorf("accept: on a GitHub pull request a reviewer accepts a regression with the %q label, not --accept", r.policy.AcceptLabel)
		}
		r.policy.Accepted = true
		r.acc = gate.Acceptance{State: gate.AcceptFresh}
		if b != nil {
			r.acc.HeadSHA = b.HeadSHA
		}
	case r.policy.Accepted:
		// The label is on a change request (no build, no label).
		r.acc = readAcceptance(ctx, b, r.previous, r.policy.AcceptLabel, r.commentKey, r.warn)
		r.acc.By = o.AcceptBy
		r.acc.Actor, r.acc.ActorWhy = labelActor(ctx, b, o.LabelActor, r.policy.AcceptLabel)
	}
	if b != nil {
		r.acc.HeadSHA = b.HeadSHA // what the comment shows is at the head
	}
	if r.acc.By == "" {
		// The next step says whose label would accept, the label off too.
		r.acc.By = o.AcceptBy
	}
	return nil
}

// readAttempts reads the state of the earlier attempts at this run's
// inputs. A state that cannot be read is warned, and the run decided
// alone (a final gate then says it cannot check its first run).
func (r *gateRun) readAttempts(ctx context.Context) error {
	if r.digest == nil {
		return nil
	}
	key := r.digest.Key(r.o.Rubric.Hash())
	prior, err := r.attempts.read(ctx, r.commentKey, key)
	if err != nil {
		r.warn("attempts: " + err.Error() + "; this run is decided alone")
		return nil
	}
	r.attIn = gate.AttemptsInput{Kept: true, Key: key, Prior: prior, Digest: r.digest}
	return nil
}

// decide makes the decision (gate.Decide), then adds the judge-bias and
// tier checks and the baseline-branch warnings.
func (r *gateRun) decide(context.Context) error {
	o, rb, b := r.o, r.o.Rubric, r.o.Build
	var paired *gate.Paired
	if r.pairer != nil {
		paired = r.pairer.Result()
	}
	r.paired = paired
	g := gate.Decide(gate.DecideInput{
		Current: r.cur, Rubric: rb, Baseline: r.base, NoBaselineNote: r.noBaseNote,
		Compared: r.compared, RescoreErr: r.rescoreErr, BaselineGates: r.baseGates, Paired: paired,
		Now: o.Now, Thresholds: o.Thresholds, Policy: r.policy, Renamed: r.renamed, Acceptance: r.acc,
		Attempts: r.attIn,
	})
	// The acceptance's note reads the decision's own findings, before the
	// checks below add theirs.
	r.accField, r.accNote = acceptanceNote(r.policy.AcceptLabel, g)
	if b != nil && b.ChangeRequest > 0 && g.Waivable != nil && isHexSHA(b.HeadSHA) {
		// What the comment shows, which a label applied later accepts
		// and nothing beyond.
		r.accField = joinLines(r.accField, ShownField(*g.Waivable, b.HasLabel(r.policy.AcceptLabel)))
	}
	var attOut []stage.Output
	if a := g.Attempts; a != nil && a.Next != nil {
		if r.attempts.previous != nil {
			r.accField = joinLines(r.accField, AttemptsField(*a.Next))
		}
		attOut = r.attempts.output(a.Next)
	}
	if err := r.tier.Apply(g, rb); err != nil {
		return err
	}
	if f, ok := host.DefaultBranchFinding(o.BaselineRef, o.Save, b); ok {
		g.Warn(f)
	}
	if r.fellBack != "" {
		g.Warn(fallbackFinding(o.Query.Branch, r.fellBack))
	}
	r.out = &Outcome{Result: publish.Result{Report: g, CommentKey: r.commentKey, RubricWarnings: min(len(o.RubricWarnings), len(g.Warnings))}, attempts: attOut}
	if b != nil {
		g.Context = b.RunContext(r.commentKey)
	}
	return nil
}

// markdown renders the comment and summary body, with the record of an
// accepted regression.
func (r *gateRun) markdown(context.Context) error {
	o, g := r.o, r.out.Report
	accField, accNote := r.accField, r.accNote
	title := o.Title
	if title == "" {
		title = "rubricgate: " + o.Rubric.Name
	}
	runs := ""
	if o.Build != nil {
		runs = o.Build.RunsURL
	}
	md := render.Markdown(g, render.MarkdownOptions{Title: title, Now: o.Now, Budget: comment.BodyLimit(r.commentKey) - len(accField) - 1 - len(accNote), RunsURL: runs})
	r.out.Markdown = withAcceptance(md, accField, accNote)
	return nil
}

// newBaseline makes the new baseline: only a passing run makes one, and
// only a run on the baseline branch saves it into the local store.
func (r *gateRun) newBaseline(context.Context) error {
	o, b, q := r.o, r.o.Build, r.o.Query
	if r.out.Report.Decision != gate.Pass || !r.wantItems {
		return nil
	}
	meta := baseline.Meta{CreatedAt: o.Now.UTC(), Branch: q.Branch}
	if b != nil {
		meta.SHA, meta.Ref, meta.Repository, meta.RunID, meta.RunURL = b.SHA, b.Ref, b.Repository, b.RunID, b.RunURL
		meta.Branch = b.Branch
	}
	bf, err := baseline.NewColumns(o.Rubric, r.cur, r.items, meta)
	if err != nil {
		return fmt.Errorf("new baseline: %w", err)
	}
	// The trend travels in the baseline: the new one's history is the
	// previous one's and its own point. A baseline of another branch (the
	// default branch's, on a branch without its own) starts this branch's
	// history afresh.
	if r.prev != nil && r.fellBack == "" {
		bf.Continue(r.prev)
		// And, while the branch's runs agree within noise, the new
		// baseline pools their items: the next comparison measures
		// against their mean, not one noisy run.
		paired := r.paired
		if !r.sameRubric {
			paired = nil // paired under the baseline's rubric, not this one
		}
		why, err := bf.Pool(r.prev, baseline.PoolCheck{Paired: paired, Accepted: r.policy.Accepted, MaxDrop: o.Thresholds.MaxDrop}, o.PoolRuns)
		if err != nil {
			return fmt.Errorf("new baseline: %w", err)
		}
		r.out.Pooling = poolingNote(bf, why)
		bf.SetAnchor(r.prev, r.anchorUpdate(why == ""))
	} else {
		bf.SetAnchor(nil, baseline.AnchorUpdate{RunSE: bf.OwnSE(0)})
	}
	r.out.NewBaseline = bf
	if o.WriteBaseline && b != nil && !r.onBase {
		// The artifact store reads only baselines uploaded by successful
		// push runs on the baseline branch: one uploaded here is never used.
		r.warn("write-baseline: the gate uses only baselines uploaded by push runs on the baseline branch; " + r.whyNotBase)
	}
	switch {
	case o.SaveDir != nil && !r.onBase:
		r.out.NotSaved = r.whyNotBase
	case o.SaveDir != nil:
		p, err := o.SaveDir.Path(baseline.Query{Rubric: o.Rubric.Name, Branch: q.Branch, Key: q.Key})
		if err != nil {
			return fmt.Errorf("save baseline: %w", err)
		}
		r.out.SaveTo = p
	}
	return nil
}

// anchorUpdate is what moves the branch's anchor in the new baseline:
// the run's change from the baseline it was compared with (on the items
// and under the rubric compared), its noise, and an acceptance.
func (r *gateRun) anchorUpdate(pooled bool) baseline.AnchorUpdate {
	g := r.out.Report
	u := baseline.AnchorUpdate{Pooled: pooled, Accepted: g.Accepted}
	if g.Accepted {
		u.Reason = r.policy.AcceptReason
		if u.Reason == "" {
			u.Reason = "label " + r.policy.AcceptLabel
		}
	}
	if dc := g.DropCheck; dc != nil && dc.Baseline > 0 {
		c := dc.Current/dc.Baseline - 1
		u.Change = &c
		if se, base, ok := gate.RunNoise(r.paired, dc.Baseline); ok {
			u.RunSE, u.BaseSE = se, base
		}
	}
	return u
}

// poolingNote says what a new baseline holds, for the log.
func poolingNote(bf *baseline.File, why baseline.PoolRefusal) string {
	if why == "" {
		return fmt.Sprintf("pools the last %d runs of this branch (score %.2f; this run %.2f)", bf.PooledRuns, bf.Score, bf.RunScore)
	}
	return "holds this run alone: " + string(why)
}

// renamedFrom is a store that can tell a renamed rubric whatever the slot
// under its new name holds (baseline.Dir).
type renamedFrom interface {
	RenamedFrom(q baseline.Query, rb *rubric.Rubric) ([]string, error)
}

// DefaultCommentKey keeps two gates or matrix legs apart by what the
// workflow sets: workflow, job and the results as named there. The rubric's
// name is not part of it: a pull request edits it, and a new name would
// open a fresh comment without the accept label's record.
func DefaultCommentKey(workflow, job string, results []string) string {
	return strings.Join([]string{workflow, job, strings.Join(results, ",")}, "/")
}

// AddRubricWarnings puts the rubric's load warnings first in the report's,
// as findings (finding.RubricWarning) and their text.
func AddRubricWarnings(rep *gate.Report, warns []rubric.Warning) {
	if len(warns) == 0 {
		return
	}
	fs := make([]finding.Finding, 0, len(warns)+len(rep.Findings))
	for _, w := range warns {
		fs = append(fs, RubricFinding(w))
	}
	ws := append(finding.Texts(fs), rep.Warnings...)
	rep.Findings, rep.Warnings = append(fs, rep.Findings...), ws
}

// RubricFinding is a rubric's load warning as a finding: its Text is the
// warning's String.
func RubricFinding(w rubric.Warning) finding.Finding {
	return finding.Finding{Kind: finding.RubricWarning, Severity: finding.Warning, Criterion: w.Criterion,
		File: w.File, Line: w.Line, Col: w.Col, Params: finding.Params{Detail: w.Msg}}
}

// StoreName names a baseline store in a note (a store of another kind
// names itself with a StoreName method).
func StoreName(s baseline.Store) string {
	switch st := s.(type) {
	case baseline.FileStore:
		return "file " + st.Path
	case *baseline.Dir:
		return "directory " + st.Root
	case baseline.GitHub:
		return fmt.Sprintf("artifact %q of %s/%s", st.ArtifactName, st.Owner, st.Repo)
	case interface{ StoreName() string }:
		return st.StoreName()
	}
	return "store"
}
