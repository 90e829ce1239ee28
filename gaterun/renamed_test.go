package gaterun

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

func loadRubric(t *testing.T, path string) *rubric.Rubric {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rb, _, err := rubric.Load(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

// Issue 15 §4: the renamed-rubric check does not stop at an empty slot. A
// run that gives its rubric the name of a slot holding another rubric's
// baseline (one its regressed run does not drop against) is a renamed
// rubric: the store holds this very rubric under its old name.
func TestGateRenamedRubricOntoAFilledSlot(t *testing.T) {
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
	// Another rubric's slot (a threshold of its own), whose baseline is a
	// regressed run's figures.
	newName := rb.Name + "-v2"
	otherRb := loadRubric(t, rewrite(t, exampleRubric, "other.yaml", "name: "+rb.Name, "name: "+newName, "threshold: 70", "threshold: 71"))
	dropped := rewrite(t, exampleRun, "run.jsonl", `"accuracy":5`, `"accuracy":1`)
	probe := options(otherRb, dropped, &baseline.Dir{Root: t.TempDir()})
	probe.WriteBaseline = true
	res, err := Gate(context.Background(), probe)
	if err != nil || res.NewBaseline == nil {
		t.Fatalf("no baseline from the probe run: %v", err)
	}
	if err := store.Save(baseline.Query{Rubric: newName, Branch: "main"}, res.NewBaseline); err != nil {
		t.Fatal(err)
	}

	// The pull request: the support rubric under the other's name, and the
	// regressed run.
	rb2 := loadRubric(t, rewrite(t, exampleRubric, "support.yaml", "name: "+rb.Name, "name: "+newName))
	o := options(rb2, dropped, store)
	res, err = Gate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	g := res.Report
	if !res.Blocked() || g.Findings[0].Kind != finding.RenamedRubric || !g.Findings[0].Renamed ||
		!strings.Contains(g.Reasons[0], "under a new name") || !strings.Contains(g.Reasons[0], rb.Name) {
		t.Fatalf("a rubric renamed onto another's slot: %s %q", g.Decision, g.Reasons)
	}
	// With the label (on the event that adds it), it is accepted and
	// recorded as a rename.
	o.Build = &host.Build{Host: "github", Repository: "o/r", Event: "pull_request", HeadSHA: strings.Repeat("1", 40), ChangeRequest: 3,
		ChangeRequestEvent: true, Labels: []string{gate.DefaultPolicy.AcceptLabel}, LabelAdded: gate.DefaultPolicy.AcceptLabel, Workflow: "evals", Job: "gate", BaseBranch: "main"}
	if res, err = Gate(context.Background(), o); err != nil || res.Blocked() || !strings.Contains(res.Markdown, "kinds="+string(gate.WaiveRenamedRubric)) {
		t.Fatalf("accepted: %v %q", err, res.Report.Reasons)
	}

	// The other rubric under its own name is not a rename, nor is the
	// support rubric under its own.
	for _, r := range []*rubric.Rubric{otherRb, rb} {
		o := options(r, exampleRun, store)
		if res, err = Gate(context.Background(), o); err != nil {
			t.Fatal(err)
		}
		for _, f := range res.Report.Findings {
			if f.Kind == finding.RenamedRubric {
				t.Errorf("%s under its own name read as renamed: %q", r.Name, res.Report.Reasons)
			}
		}
	}
}

// --accept accepts the run's drop with its reason outside a GitHub pull
// request (no record in a comment), and is refused on one.
func TestGateAcceptFlag(t *testing.T) {
	rb := loadExample(t)
	dropped := rewrite(t, exampleRun, "run.jsonl", `"accuracy":5`, `"accuracy":2`)
	o := options(rb, dropped, baseline.FileStore{Path: exampleBaseline})
	if res, err := Gate(context.Background(), o); err != nil || !res.Blocked() {
		t.Fatalf("without --accept: %v", err)
	}
	o.Policy.AcceptReason = "the judge model changed; reviewed by ops"
	res, err := Gate(context.Background(), o)
	if err != nil || res.Blocked() || !res.Report.Accepted || res.Report.Acceptance.Reason != o.Policy.AcceptReason {
		t.Fatalf("--accept: %v %+v", err, res.Report.Reasons)
	}
	if strings.Contains(res.Markdown, acceptedPrefix) || !strings.Contains(res.Markdown, "accepted with `--accept`: the judge model changed") {
		t.Errorf("markdown:\n%s", res.Markdown)
	}
	// A GitLab merge request: accepted too.
	o.Build = &host.Build{Host: "gitlab", Event: "merge_request_event", HeadSHA: strings.Repeat("1", 40), ChangeRequest: 4, ChangeRequestEvent: true}
	if res, err = Gate(context.Background(), o); err != nil || res.Blocked() {
		t.Fatalf("--accept on GitLab: %v", err)
	}
	// A GitHub pull request: the label is the way.
	o.Build = &host.Build{Host: "github", Event: "pull_request", HeadSHA: strings.Repeat("1", 40), ChangeRequest: 4, ChangeRequestEvent: true}
	if _, err = Gate(context.Background(), o); err == nil || !IsUsage(err) || !strings.Contains(err.Error(), "label") {
		t.Fatalf("--accept on a GitHub pull request: %v", err)
	}
}
