package gaterun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/results"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

const (
	exampleRubric    = "../rubrics/support.yaml"
	exampleRun       = "../examples/support/run.jsonl"
	exampleRegressed = "../examples/support/run-regressed.jsonl"
	exampleBaseline  = "../examples/support/baseline.json"
)

var testNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// files reads results files again on every call, as the gate needs.
type files []string

func (f files) Score(rb *rubric.Rubric, opts native.ScoreOptions) (*gate.Report, error) {
	in, closeAll, err := results.Open(f, "", nil)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	return native.Score(rb, in, opts)
}

func (f files) CheckBlocking(rb *rubric.Rubric) (*gate.GateCheck, error) {
	in, closeAll, err := results.Open(f, "", nil)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	return native.CheckBlocking(rb, in)
}

func loadExample(t *testing.T) *rubric.Rubric {
	t.Helper()
	data, err := os.ReadFile(exampleRubric)
	if err != nil {
		t.Fatal(err)
	}
	rb, _, err := rubric.Load(exampleRubric, data)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

func options(rb *rubric.Rubric, run string, store baseline.Store) Options {
	return Options{
		Rubric: rb, Results: files{run}, ResultNames: []string{run},
		Thresholds: gate.DefaultThresholds, Policy: gate.DefaultPolicy,
		Store: store, Query: baseline.Query{Rubric: rb.Name, Branch: "main"}, StoreName: StoreName(store),
		OnBaselineError: BaselineErrorFail, Now: testNow,
		// The host says a reviewer applied the accept label to another's
		// pull request (TestAcceptByAuthor tests the author's).
		LabelActor: func(context.Context, string) (gate.Actor, error) {
			return gate.Actor{AppliedBy: "reviewer", Author: "author"}, nil
		},
	}
}

// A passing run against its baseline makes a new baseline; only a run on
// the baseline branch saves it into the local store, and a blocked run
// makes none.
func TestGateSavesOnlyOnTheBaselineBranch(t *testing.T) {
	rb := loadExample(t)
	store := &baseline.Dir{Root: t.TempDir()}

	// No baseline yet: the run passes and, on main, is saved.
	o := options(rb, exampleRun, store)
	o.SaveDir, o.Save = store, host.SaveInputs{Branch: "main"}
	res, err := Gate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(store.Root, "support-answers", "main.json")
	if res.Blocked() || res.NewBaseline == nil || res.SaveTo != want {
		t.Fatalf("first run: blocked %v, baseline %v, save to %q", res.Blocked(), res.NewBaseline != nil, res.SaveTo)
	}
	if !strings.Contains(strings.Join(res.Report.Reasons, " "), "no baseline found") {
		t.Errorf("reasons %q", res.Report.Reasons)
	}

	// On feature/x the same passing run is not saved, and says why.
	o.Save = host.SaveInputs{Branch: "feature/x"}
	if res, err = Gate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if res.SaveTo != "" || !strings.Contains(res.NotSaved, `on branch "feature/x"`) {
		t.Errorf("feature/x: save to %q, not saved %q", res.SaveTo, res.NotSaved)
	}

	// The regressed run against the shipped baseline is blocked: no baseline.
	o = options(rb, exampleRegressed, baseline.FileStore{Path: exampleBaseline})
	o.WriteBaseline = true
	if res, err = Gate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if !res.Blocked() || res.NewBaseline != nil || res.Report.Decision != gate.Block {
		t.Errorf("regressed: blocked %v, baseline %v", res.Blocked(), res.NewBaseline != nil)
	}
}

// Inside CI, the report records the run, the comment key defaults to
// workflow/job/results, and the accept label turns a drop into an accepted
// pass whose record (head commit and score) leads the markdown; a record in
// the previous comment is kept. When the gate cannot read back its comment,
// the label accepts only on the event that adds it.
func TestGateAcceptLabelRecord(t *testing.T) {
	rb := loadExample(t)
	head := strings.Repeat("a", 40)
	b := &host.Build{Host: "github", Repository: "o/r", Event: "pull_request", SHA: strings.Repeat("f", 40), HeadSHA: head,
		Ref: "refs/pull/3/merge", ChangeRequest: 3, ChangeRequestEvent: true, Labels: []string{"RubricGate:Accept-Regression"},
		RunID: 9, Workflow: "evals", Job: "gate", BaseBranch: "main"}
	// The example run with lower accuracy: a drop, no blocking failure.
	data, err := os.ReadFile(exampleRun)
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(run, []byte(strings.ReplaceAll(string(data), `"accuracy":5`, `"accuracy":2`)), 0o644); err != nil {
		t.Fatal(err)
	}
	o := options(rb, run, baseline.FileStore{Path: exampleBaseline})
	o.Build = b
	// The comment cannot be read back: a later push accepts nothing new.
	res, err := Gate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	g := res.Report
	if !res.Blocked() || g.Accepted || g.Findings[0].Kind != finding.AcceptanceUnreadable ||
		!strings.HasPrefix(res.Markdown, lostField+"\n") || !strings.Contains(res.Markdown, "Remove and re-add the label") {
		t.Fatalf("unreadable record: %s %q\n%s", g.Decision, g.Reasons, res.Markdown)
	}
	if key := DefaultCommentKey("evals", "gate", []string{run}); res.CommentKey != key || g.Context == nil || g.Context.CommentKey != key || g.Context.RunID != 9 {
		t.Errorf("key %q, context %+v", res.CommentKey, g.Context)
	}
	// The event that adds the label: accepted at this commit.
	b.LabelAdded = "rubricgate:accept-regression"
	if res, err = Gate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	g = res.Report
	if res.Blocked() || !g.Accepted {
		t.Fatalf("the label did not accept the drop: %s %q", g.Decision, g.Reasons)
	}
	if !strings.Contains(strings.Join(g.Reasons, " "), "aggregate score dropped") {
		t.Errorf("reasons %q", g.Reasons)
	}
	if !strings.HasPrefix(res.Markdown, acceptedPrefix+"sha="+head+" ") {
		t.Errorf("no acceptance record:\n%s", res.Markdown)
	}
	b.LabelAdded = ""

	// An earlier acceptance (an older version's record) at another commit
	// with another, lower score is kept, and the note says the score
	// changed since.
	earlier := gate.AcceptRecord{SHA: strings.Repeat("b", 40), Score: 60, Legacy: true}
	o.Accept = func(context.Context, string) (string, bool, error) {
		return AcceptField(earlier) + "\nold body", true, nil
	}
	if res, err = Gate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.Markdown, acceptedPrefix+"sha="+earlier.SHA+" score=60 rubric="+rb.Hash()+" kinds=drop drop=") || !strings.Contains(res.Markdown, "Later commits changed the score") {
		t.Errorf("the earlier record was not kept:\n%s", res.Markdown)
	}
}
