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
	renamedRubric(g, e, gate.DefaultPolicy, func(string) {})
	if g.Decision != gate.Block {
		t.Fatalf("decision %s, want block", g.Decision)
	}
	if got := texts(g.Findings, finding.Error); !reflect.DeepEqual(got, g.Reasons) {
		t.Errorf("findings' texts %q, reasons %q", got, g.Reasons)
	}
	if g.Findings[0].Severity != finding.Error {
		t.Errorf("first finding %+v: want an error", g.Findings[0])
	}

	g = decideNoBaseline()
	p := gate.DefaultPolicy
	p.Accepted = true
	renamedRubric(g, e, p, func(string) {})
	if got := texts(g.Findings, finding.Warning); !reflect.DeepEqual(got, g.Warnings) {
		t.Errorf("warning findings' texts %q, warnings %q", got, g.Warnings)
	}
}
