package pipeline

import (
	"reflect"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
)

// TestRenamedRubricKeepsFindingsInStep: the block (or warning) a renamed
// rubric adds after Decide is in the findings too, and the no-baseline
// pass note it drops from the reasons is dropped from the findings.
func TestRenamedRubricKeepsFindingsInStep(t *testing.T) {
	e := &baseline.OtherRubricsError{Rubric: "v2", Branch: "main", Found: []string{"v1"}}
	decideNoBaseline := func() *gate.GateReport {
		score := 80.0
		cur := &gate.Report{Items: 1, Scored: 1, Score: &score, Warnings: []string{}}
		return gate.Decide(gate.DecideInput{Current: cur, Thresholds: gate.DefaultThresholds, Policy: gate.DefaultPolicy})
	}
	texts := func(fs []finding.Finding, sev finding.Severity) []string {
		out := []string{}
		for _, f := range fs {
			if (f.Severity == finding.Warning) == (sev == finding.Warning) {
				out = append(out, f.Text())
			}
		}
		return out
	}

	g := decideNoBaseline()
	renamedRubric(g, e, gate.DefaultPolicy)
	if g.Decision != gate.Block {
		t.Fatalf("decision %s, want block", g.Decision)
	}
	if got := texts(g.Findings, finding.Error); !reflect.DeepEqual(got, g.Reasons) {
		t.Errorf("findings' texts %q, reasons %q", got, g.Reasons)
	}
	if f := g.Findings[0]; f.Severity != finding.Error || f.Kind != finding.RenamedRubric || f.Rubric != "v2" || f.Branch != "main" || f.AcceptLabel != gate.DefaultPolicy.AcceptLabel {
		t.Errorf("first finding %+v: want the renamed rubric, an error", f)
	}
	if want := `rubric "v2" has no baseline on branch "main", but the store holds baselines for v1 there: a renamed rubric is a rubric change that the gate cannot follow; add the label rubricgate:accept-regression to accept it (or pin the slot with baseline-key)`; g.Reasons[0] != want {
		t.Errorf("reason %q, want %q", g.Reasons[0], want)
	}

	g = decideNoBaseline()
	p := gate.DefaultPolicy
	p.Accepted = true
	renamedRubric(g, e, p)
	if got := texts(g.Findings, finding.Warning); !reflect.DeepEqual(got, g.Warnings) {
		t.Errorf("warning findings' texts %q, warnings %q", got, g.Warnings)
	}
	if w := g.Warnings[len(g.Warnings)-1]; w != `rubric "v2" has no baseline on branch "main", but the store holds baselines for v1 there: a renamed rubric is a rubric change; accepted by the label rubricgate:accept-regression: a new baseline starts when this merges` {
		t.Errorf("accepted: warning %q", w)
	}

	g = decideNoBaseline()
	p = gate.DefaultPolicy
	p.BaselineBranchRun = true
	renamedRubric(g, e, p)
	if f := g.Findings[len(g.Findings)-1]; f.Kind != finding.RenamedRubric || !f.NewBaseline || f.Severity != finding.Warning || g.Decision != gate.Pass {
		t.Errorf("baseline branch: %+v, decision %s", f, g.Decision)
	}
}
