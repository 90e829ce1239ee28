package gate

import (
	"reflect"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
)

// The renamed-rubric rule is part of the one decision: from the typed fact
// (RenamedRubric), a pull request's run blocks unless the accept label is
// on, the no-baseline note does not say the run starts the baseline, the
// reasons are the findings' texts, and the baseline branch's own run
// starts a new baseline with a warning.
func TestDecideRenamedRubric(t *testing.T) {
	renamed := &RenamedRubric{Rubric: "v2", Branch: "main", Others: []string{"v1"}}
	decide := func(p Policy, r *RenamedRubric, base *Baseline) *GateReport {
		score := 80.0
		cur := &Report{Items: 1, Scored: 1, Score: &score, Warnings: []string{}, Rubric: RubricRef{Hash: "sha256:x"}}
		in := DecideInput{Current: cur, Baseline: base, Renamed: r, Thresholds: DefaultThresholds, Policy: p, Acceptance: Acceptance{HeadSHA: "h"}}
		if p.Accepted {
			acceptShown(&in)
		}
		return Decide(in)
	}
	errorTexts := func(fs []finding.Finding) []string {
		out := []string{}
		for _, f := range fs {
			if f.Severity != finding.Warning {
				out = append(out, f.Text())
			}
		}
		return out
	}

	if g := decide(DefaultPolicy, nil, nil); g.Decision != Pass {
		t.Fatalf("no baseline, no rename: %s", g.Decision)
	}
	g := decide(DefaultPolicy, renamed, nil)
	if g.Decision != Block {
		t.Fatalf("decision %s, want block", g.Decision)
	}
	if got := errorTexts(g.Findings); !reflect.DeepEqual(got, g.Reasons) {
		t.Errorf("findings' texts %q, reasons %q", got, g.Reasons)
	}
	if len(g.Reasons) != 1 {
		t.Errorf("reasons %q: want only the renamed rubric (no 'this run starts the baseline')", g.Reasons)
	}
	if f := g.Findings[0]; f.Severity != finding.Error || f.Kind != finding.RenamedRubric || f.Rubric != "v2" || f.Branch != "main" || f.AcceptLabel != DefaultPolicy.AcceptLabel {
		t.Errorf("first finding %+v: want the renamed rubric, an error", f)
	}
	if want := `rubric "v2" has no baseline on branch "main", but the store holds baselines for v1 there: a renamed rubric is a rubric change that the gate cannot follow; add the label rubricgate:accept-regression to accept it (or pin the slot with baseline-key)`; g.Reasons[0] != want {
		t.Errorf("reason %q, want %q", g.Reasons[0], want)
	}

	// With if-no-baseline fail, the policy's block stays beside it.
	p := DefaultPolicy
	p.IfNoBaseline = "fail"
	if g := decide(p, renamed, nil); g.Decision != Block || len(g.Reasons) != 2 || g.Findings[0].Kind != finding.NoBaseline || g.Findings[1].Kind != finding.RenamedRubric {
		t.Errorf("if-no-baseline fail: %q", g.Reasons)
	}

	// Accepted by the label: a pass, the rename recorded as a waived kind.
	p = DefaultPolicy
	p.Accepted = true
	g = decide(p, renamed, nil)
	if g.Decision != Pass || !g.Accepted || g.Acceptance == nil || g.Acceptance.Record == nil ||
		!reflect.DeepEqual(g.Acceptance.Record.Kinds, []Waiver{WaiveRenamedRubric}) {
		t.Fatalf("accepted: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	if f := g.Findings[0]; f.Kind != finding.RenamedRubric || f.Severity != finding.Notice || f.Label != DefaultPolicy.AcceptLabel {
		t.Errorf("accepted: first finding %+v", f)
	}

	// The rename check does not depend on what the new slot holds: with a
	// baseline found under the new name, the rename still blocks.
	base := &Baseline{Score: 80, RubricHash: "sha256:x"}
	if g := decide(DefaultPolicy, renamed, base); g.Decision != Block || g.Findings[0].Kind != finding.RenamedRubric {
		t.Errorf("a filled slot: %s %q", g.Decision, g.Reasons)
	}

	// The baseline branch's own run: a warning, a new baseline starts.
	p = DefaultPolicy
	p.BaselineBranchRun = true
	g = decide(p, renamed, nil)
	if g.Decision != Pass {
		t.Fatalf("baseline branch: %s %q", g.Decision, g.Reasons)
	}
	var saw bool
	for _, f := range g.Findings {
		if f.Kind == finding.RenamedRubric {
			saw = f.NewBaseline && f.Severity == finding.Warning
		}
	}
	if !saw {
		t.Errorf("baseline branch: no new-baseline warning in %+v", g.Findings)
	}
}
