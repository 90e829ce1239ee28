package pipeline

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/rubric"
)

// Issue 15 §4: a run that renames its rubric and brings a baseline in the
// new name's slot (made from its own regressed run, so nothing "drops") is
// still a renamed rubric: the rename check compares the rubric with the
// branch's other baselines, whatever the new slot holds.
func TestGateRenamedRubricWithAFilledSlot(t *testing.T) {
	rb := loadExample(t)
	store := &baseline.Dir{Root: t.TempDir()}
	// The baseline branch's real baseline, under the rubric's name.
	data, err := os.ReadFile(exampleBaseline)
	if err != nil {
		t.Fatal(err)
	}
	f, err := baseline.Read(strings.NewReader(string(data)), exampleBaseline, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(baseline.Query{Rubric: rb.Name, Branch: "main"}, f); err != nil {
		t.Fatal(err)
	}

	// The pull request: the same rubric under a new name, a regressed run,
	// and a baseline of that very run in the new slot.
	renamedPath := rewrite(t, exampleRubric, "support.yaml", "name: "+rb.Name, "name: "+rb.Name+"-v2")
	rdata, err := os.ReadFile(renamedPath)
	if err != nil {
		t.Fatal(err)
	}
	rb2, _, err := rubric.Load(renamedPath, rdata)
	if err != nil {
		t.Fatal(err)
	}
	dropped := rewrite(t, exampleRun, "run.jsonl", `"accuracy":5`, `"accuracy":1`)
	o := options(rb2, dropped, baseline.FileStore{Path: "/nonexistent"})
	o.Store, o.StoreName = nil, ""
	o.Query.Rubric = rb2.Name
	// The doctored baseline: this run's own figures, so it shows no drop.
	probe := o
	probe.Store = &baseline.Dir{Root: t.TempDir()}
	probe.WriteBaseline = true
	res, err := Gate(context.Background(), probe)
	if err != nil {
		t.Fatal(err)
	}
	if res.NewBaseline == nil {
		t.Fatalf("no baseline from the probe run: %q", res.Report.Reasons)
	}
	if err := store.Save(baseline.Query{Rubric: rb2.Name, Branch: "main"}, res.NewBaseline); err != nil {
		t.Fatal(err)
	}

	o.Store, o.StoreName = store, StoreName(store)
	res, err = Gate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	g := res.Report
	if !res.Blocked() || g.Findings[0].Kind != finding.RenamedRubric || !g.Findings[0].Renamed ||
		!strings.Contains(g.Reasons[0], "under a new name") || !strings.Contains(g.Reasons[0], rb.Name) {
		t.Fatalf("a renamed rubric with a filled slot: %s %q", g.Decision, g.Reasons)
	}
	// With the label (on the event that adds it), it is accepted and
	// recorded as a rename.
	o.Build = &host.Build{Host: "github", Repository: "o/r", Event: "pull_request", HeadSHA: strings.Repeat("1", 40), ChangeRequest: 3,
		ChangeRequestEvent: true, Labels: []string{gate.DefaultPolicy.AcceptLabel}, LabelAdded: gate.DefaultPolicy.AcceptLabel, Workflow: "evals", Job: "gate", BaseBranch: "main"}
	if res, err = Gate(context.Background(), o); err != nil || res.Blocked() || !strings.Contains(res.Markdown, "kinds="+string(gate.WaiveRenamedRubric)) {
		t.Fatalf("accepted: %v %q", err, res.Report.Reasons)
	}
	o.Build = nil
	// The check does not depend on what either slot holds: while the
	// store holds the same rubric under two names, a run under either is
	// read as renaming the other (after a rename merges, remove the old
	// name's slot).
	o.Policy = gate.DefaultPolicy
	o.Rubric = rb
	o.Query.Rubric = rb.Name
	if res, err = Gate(context.Background(), o); err != nil || !res.Blocked() || !strings.Contains(res.Report.Reasons[0], rb2.Name) {
		t.Fatalf("the rubric under its old name: %v %q", err, res.Report.Reasons)
	}
	// A rubric that is not the other's (here its threshold differs) is not
	// a rename.
	own := rewrite(t, exampleRubric, "own.yaml", "threshold: 70", "threshold: 71")
	odata, err := os.ReadFile(own)
	if err != nil {
		t.Fatal(err)
	}
	rb3, _, err := rubric.Load(own, odata)
	if err != nil {
		t.Fatal(err)
	}
	o.Rubric = rb3
	if res, err = Gate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Report.Findings {
		if f.Kind == finding.RenamedRubric {
			t.Errorf("a rubric of its own read as renamed: %q", res.Report.Reasons)
		}
	}
}
