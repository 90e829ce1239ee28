// Package pipeline is the gate as a library: given a rubric, a source of
// results, a baseline store and the run's build information, [Gate] scores
// the run, finds and checks the baseline, decides, applies the judge-bias
// and tier checks, records an accepted regression and says which baseline
// the run may save. It holds the product's rules; cmd/rubricgate parses
// flags and inputs, picks the host, writes the outputs and chooses the exit
// code.
//
// [CheckReport], beside it, checks a report a later (trusted) workflow is
// asked to post; host/github.CheckProvenance checks it belongs to the run
// that triggered that workflow.
//
// The package writes nothing: warnings and log lines go to the callbacks
// in [Options], and everything to write is in the [Outcome].
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/finding"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/render"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
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
	// [ResolveBaselineBranch]); StoreName names the store in a note.
	Store     baseline.Store
	Query     baseline.Query
	StoreName string
	// BaselineRef is where Query's branch came from and the default
	// branch, for the warning when a run on the default branch could never
	// save a baseline (zero: no check).
	BaselineRef BaselineRef
	// OnBaselineError is the store error policy.
	OnBaselineError OnBaselineError
	// BaselineLoaded, when set, is told how many items the baseline has
	// once it is read (cmd bounds the heap of a large one).
	BaselineLoaded func(items int)
	// SaveDir is the local store a passing run saves into, nil when none.
	SaveDir *baseline.Dir
	// WriteBaseline is true when a new baseline file was asked for.
	WriteBaseline bool
	// Save says what decides whether the run may save its baseline.
	Save SaveInputs

	// Build is the CI run (nil outside GitHub Actions).
	Build *host.Build
	// CommentKey is the sticky comment key ("" for the default).
	CommentKey string
	// Title heads the markdown report ("" for "rubricgate: <rubric>").
	Title string
	// Tier is the judge-bias and tier state (see [Tier]).
	Tier *Tier
	// Accept reads back the gate's previous sticky comment to find when a
	// regression was accepted; nil when it cannot be read.
	Accept func(ctx context.Context, key string) (body string, ok bool, err error)

	// Now is the clock.
	Now time.Time
	// Warn shows a warning; Log a plain line of the run's log.
	Warn func(msg string)
	Log  func(msg string)
}

// Outcome is what the gate decided and what to write.
type Outcome struct {
	// Report is the report value; Markdown its comment and summary body.
	Report   *gate.GateReport
	Markdown string
	// CommentKey is the sticky comment key used.
	CommentKey string
	// NewBaseline is the baseline a passing run may write (nil otherwise):
	// to the file asked for and, when SaveTo is set, into the local store at
	// SaveTo (written last, with the other outputs).
	NewBaseline *baseline.File
	SaveTo      string
	// NotSaved says why a passing run's baseline was not saved into the
	// local store ("" when it was, or there is none): told after the
	// decision, as the saved path is.
	NotSaved string
	// RubricWarnings is how many of the report's warnings lead it from the
	// rubric (already shown with their file and line).
	RubricWarnings int
}

// Blocked reports whether the run is blocked (exit 1).
func (o *Outcome) Blocked() bool { return o.Report.Decision == gate.Block }

// Rerun reports whether the run asks for a re-run (noisy-drop rerun: a
// drop within noise, neither a pass nor a block).
func (o *Outcome) Rerun() bool { return o.Report.Decision == gate.Rerun }

// Gate runs the gate. An error is exit 2: bad input, a baseline store that
// cannot be read under on-baseline-error fail, a judge of the production
// model's family under same-family fail.
func Gate(ctx context.Context, o Options) (*Outcome, error) {
	warn := func(s string) {
		if o.Warn != nil {
			o.Warn(s)
		}
	}
	rb, q, b := o.Rubric, o.Query, o.Build
	tier := o.Tier
	if tier == nil {
		tier = &Tier{}
	}
	tier.extra = o.Rubric.ModelFamilies

	// Whether this run is the baseline branch's own (a push there): it may
	// save a baseline, and a rubric change or removed items that were
	// reviewed when they merged start a new baseline instead of blocking.
	onBase, whyNotBase := MaySave(o.Save, b, q.Branch, warn)
	policy := o.Policy
	policy.Accepted = b != nil && b.HasLabel(policy.AcceptLabel)
	// Relaxing the rubric-change and removed-items blocks needs more than a
	// local checkout's HEAD: a CI run on the branch, or a branch given.
	policy.BaselineBranchRun = onBase && (b != nil || o.Save.Branch != "" || ciBranchKnown(o.Save.Getenv))

	// The baseline, under the store error policy.
	var base *gate.Baseline
	noBaseNote := ""
	var renamed *baseline.OtherRubricsError
	var renamedIn *gate.RenamedRubric
	file, bsrc, fellBack, err := latestOrDefault(ctx, o.Store, q, o.BaselineRef)
	switch {
	case errors.As(err, &renamed):
		// Not "no baseline": the rubric's name is the pull request's to
		// change, and a new name must not buy a fresh, empty baseline. It
		// is a rubric change the gate cannot follow (never a store error
		// that on-baseline-error: pass would wave through).
		noBaseNote = fmt.Sprintf("no baseline for rubric %q on branch %q (%s)", rb.Name, q.Branch, o.StoreName)
		renamedIn = &gate.RenamedRubric{Rubric: renamed.Rubric, Branch: renamed.Branch, Others: renamed.Found}
	case errors.Is(err, baseline.ErrNotFound):
		noBaseNote = fmt.Sprintf("no baseline found for rubric %q on branch %q (%s)", rb.Name, q.Branch, o.StoreName)
	case err != nil && o.OnBaselineError == BaselineErrorPass:
		noBaseNote = "the baseline could not be read (on-baseline-error is pass)"
		warn("baseline: " + err.Error())
	case err != nil:
		return nil, fmt.Errorf("baseline: %w", err)
	default:
		if base, err = file.Gate(bsrc); err != nil {
			return nil, fmt.Errorf("baseline %s: %w", bsrc.Location, err)
		}
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
				return nil, fmt.Errorf("baseline: %w", err)
			}
			if len(from) > 0 {
				renamedIn = &gate.RenamedRubric{Rubric: rb.Name, Branch: q.Branch, Others: from, Same: true}
			}
		}
		if o.BaselineLoaded != nil {
			o.BaselineLoaded(base.Items.Len())
		}
	}

	// Score under the current rubric; pair with the baseline when the rubric is the same.
	// The items are kept only for a new baseline (a million of them take
	// tens of megabytes).
	// In pointer-free columns: a million id strings kept live would be
	// rescanned by every collection while the run is scored.
	var items *gate.ItemColumns
	wantItems := o.WriteBaseline || o.SaveDir != nil
	var pairer *gate.Pairer
	th := o.Thresholds
	sameRubric := base != nil && base.RubricHash == rb.Hash()
	if wantItems {
		items = &gate.ItemColumns{}
	}
	if sameRubric {
		pairer = gate.NewPairerColumns(base.Items, th.WorstItems)
	}
	cur, err := o.Results.Score(rb, native.ScoreOptions{MaxUnscored: o.MaxUnscored, OnItem: func(it *gate.ItemResult) error {
		if !it.Unscored && wantItems {
			items.AppendAnswers(it.ID, it.Score, it.Answers, it.AnswerVar)
		}
		if sameRubric {
			pairer.Add(it)
		}
		tier.observe(it)
		return nil
	}})
	if err != nil {
		return nil, err
	}
	AddRubricWarnings(cur, o.RubricWarnings)

	// A changed rubric: re-score under the baseline's, where the results carry its criteria.
	var compared *gate.Report
	var rescoreErr error
	if base != nil && !sameRubric {
		rescorePairer := gate.NewPairerColumns(base.Items, th.WorstItems)
		compared, rescoreErr = o.Results.Score(base.Rubric, native.ScoreOptions{
			MaxUnscored: o.MaxUnscored,
			Read:        native.ReadOptions{IgnoreUnknown: true},
			OnItem:      func(it *gate.ItemResult) error { rescorePairer.Add(it); return nil },
		})
		var ie *native.InputError
		switch {
		case rescoreErr == nil:
			pairer = rescorePairer
		case errors.As(rescoreErr, &ie):
			compared = nil
			pairer = nil
		default:
			return nil, fmt.Errorf("re-score under the baseline's rubric: %w", rescoreErr)
		}
	}
	// The baseline rubric's blocking gates apply whatever the current rubric
	// says, and whether or not the run could be re-scored.
	var baseGates *gate.GateCheck
	if base != nil && !sameRubric {
		if baseGates, err = o.Results.CheckBlocking(base.Rubric); err != nil {
			return nil, err
		}
	}
	var paired *gate.Paired
	if pairer != nil {
		paired = pairer.Result()
	}

	// The sticky comment, keyed by what the workflow sets (never by the
	// rubric's name, which the pull request edits), carries the record of
	// what the accept label was applied for.
	commentKey := o.CommentKey
	if b != nil && commentKey == "" {
		commentKey = DefaultCommentKey(b.Workflow, b.Job, o.ResultNames)
	}
	var acc gate.Acceptance
	switch {
	case policy.AcceptReason != "":
		// --accept: this run, with its reason. On a GitHub pull request
		// the label (a reviewer's act, recorded in the comment) is the way.
		if b != nil && b.Host == "github" && b.ChangeRequest > 0 {
			return nil, usage.Errorf("accept: on a GitHub pull request a reviewer accepts a regression with the %q label, not --accept", policy.AcceptLabel)
		}
		policy.Accepted = true
		acc = gate.Acceptance{State: gate.AcceptFresh}
		if b != nil {
			acc.HeadSHA = b.HeadSHA
		}
	case policy.Accepted:
		// The label is on a change request (no build, no label).
		acc = readAcceptance(ctx, b, o.Accept, policy.AcceptLabel, commentKey, warn)
	}
	g := gate.Decide(gate.DecideInput{
		Current: cur, Rubric: rb, Baseline: base, NoBaselineNote: noBaseNote,
		Compared: compared, RescoreErr: rescoreErr, BaselineGates: baseGates, Paired: paired,
		Now: o.Now, Thresholds: th, Policy: policy, Renamed: renamedIn, Acceptance: acc,
	})
	accField, accNote := acceptanceNote(policy.AcceptLabel, g)
	if err := tier.apply(g, rb); err != nil {
		return nil, err
	}
	if f, ok := DefaultBranchFinding(o.BaselineRef, o.Save, b); ok {
		g.Warn(f)
	}
	if fellBack != "" {
		g.Warn(fallbackFinding(q.Branch, fellBack))
	}
	out := &Outcome{Report: g, CommentKey: commentKey, RubricWarnings: min(len(o.RubricWarnings), len(g.Warnings))}
	if b != nil {
		g.Context = b.RunContext(out.CommentKey)
	}

	// The markdown, with the record of an accepted regression.
	title := o.Title
	if title == "" {
		title = "rubricgate: " + rb.Name
	}
	runs := ""
	if b != nil {
		runs = b.RunsURL
	}
	md := render.Markdown(g, render.MarkdownOptions{Title: title, Now: o.Now, Budget: comment.BodyLimit(out.CommentKey) - len(accField) - 1 - len(accNote), RunsURL: runs})
	out.Markdown = withAcceptance(md, accField, accNote)

	// The new baseline: only a passing run makes one, and only a run on the
	// baseline branch saves it into the local store.
	if g.Decision == gate.Pass && (o.WriteBaseline || o.SaveDir != nil) {
		meta := baseline.Meta{CreatedAt: o.Now.UTC(), Branch: q.Branch}
		if b != nil {
			meta.SHA, meta.Ref, meta.Repository, meta.RunID, meta.RunURL = b.SHA, b.Ref, b.Repository, b.RunID, b.RunURL
			meta.Branch = b.Branch
		}
		bf, err := baseline.NewColumns(rb, cur, items, meta)
		if err != nil {
			return nil, fmt.Errorf("new baseline: %w", err)
		}
		out.NewBaseline = bf
		if o.WriteBaseline && b != nil && !onBase {
			// The artifact store reads only baselines uploaded by successful
			// push runs on the baseline branch: one uploaded here is never used.
			warn("write-baseline: the gate uses only baselines uploaded by push runs on the baseline branch; " + whyNotBase)
		}
		if o.SaveDir != nil && !onBase {
			out.NotSaved = whyNotBase
		} else if o.SaveDir != nil {
			p, err := o.SaveDir.Path(baseline.Query{Rubric: rb.Name, Branch: q.Branch, Key: q.Key})
			if err != nil {
				return nil, fmt.Errorf("save baseline: %w", err)
			}
			out.SaveTo = p
		}
	}
	return out, nil
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

// StoreName names a baseline store in a note.
func StoreName(s baseline.Store) string {
	switch st := s.(type) {
	case baseline.FileStore:
		return "file " + st.Path
	case *baseline.Dir:
		return "directory " + st.Root
	case baseline.GitHub:
		return fmt.Sprintf("artifact %q of %s/%s", st.ArtifactName, st.Owner, st.Repo)
	}
	return "store"
}

// BaselineBranch is the branch whose last passing run is the baseline:
// explicit when given (--baseline-branch), else the change request's target
// branch, else the repository's default branch, else "main". The branch the
// run is on never chooses it: a run on feature/x would otherwise find no
// baseline, pass, and start its own.
func BaselineBranch(explicit string, b *host.Build) string {
	if explicit != "" {
		return explicit
	}
	if b != nil {
		if b.BaseBranch != "" {
			return b.BaseBranch
		}
		if b.DefaultBranch != "" {
			return b.DefaultBranch
		}
	}
	return "main"
}

// ciBranchKnown reports whether another CI system names the run's branch.
func ciBranchKnown(getenv func(string) string) bool {
	if getenv == nil {
		return false
	}
	for _, v := range ciBranchVars {
		if strings.TrimSpace(getenv(v)) != "" {
			return true
		}
	}
	return false
}
