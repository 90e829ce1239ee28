package native

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// hideRun scores a run of 100 items against a baseline where every item
// scored 75: the 8 most regressed items are reported as judge errors
// instead of their low scores, with max-unscored 10% (issue 15 §6).
func hideRun(t *testing.T, rubricYAML, line string) *gate.GateReport {
	t.Helper()
	rb, _, err := rubric.Load("r.yaml", []byte(rubricYAML))
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	var baseItems []gate.ItemScore
	for i := range 100 {
		id := fmt.Sprintf("q%03d", i)
		baseItems = append(baseItems, gate.ItemScore{ID: id, Score: 75})
		if i < 8 {
			fmt.Fprintf(&text, `{"id":%q,"error":"judge returned no JSON"}`+"\n", id)
		} else {
			fmt.Fprintf(&text, `{"id":%q,%s}`+"\n", id, line)
		}
	}
	pr := gate.NewPairer(baseItems, 10)
	rep, err := Score(rb, []Input{{Name: "r.jsonl", R: strings.NewReader(text.String())}},
		ScoreOptions{MaxUnscored: 0.10, OnItem: func(it *gate.ItemResult) error { pr.Add(it); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unscored.Exceeded || rep.Unscored.Count != 8 {
		t.Fatalf("unscored %+v: the run must stay within max-unscored", rep.Unscored)
	}
	seventyFive := 75.0
	b := &gate.Baseline{RubricHash: rb.Hash(), Rubric: rb, Score: 75, Items: gate.ColumnsOf(baseItems),
		Criteria: []gate.CriterionStats{{ID: "quality", Name: "quality", Weight: 1, Normalized: &seventyFive}}}
	return gate.Decide(gate.DecideInput{Current: rep, Baseline: b, Now: time.Now(), Thresholds: gate.DefaultThresholds, Policy: gate.DefaultPolicy,
		Rubric: rb, Paired: pr.Result()})
}

// Hiding the most regressed 8% of the items behind judge errors within
// max-unscored 10% gains nothing: they are compared at score 0, so the
// drop still blocks (before, the scored 92% were compared, 75 → 75, and
// the run passed).
func TestHidingRegressedItemsBehindErrorsBlocks(t *testing.T) {
	g := hideRun(t, "name: r\nthreshold: 50\ncriteria:\n  - id: quality\n    scale: [1, 5]\n", `"scores":{"quality":4}`)
	if g.Decision != gate.Block || g.DropCheck == nil || g.DropCheck.Basis != gate.BasisCommon || g.DropCheck.Current != 69 {
		t.Fatalf("decision %s, drop check %+v, reasons %q", g.Decision, g.DropCheck, g.Reasons)
	}
	if g.Paired.Unscored != 8 || g.Paired.Common != 100 || !g.Paired.Worst[0].Unscored {
		t.Errorf("paired %+v", g.Paired)
	}
	if !strings.Contains(g.Reasons[0], "8 item(s) of the baseline are unscored in this run and compared at score 0") {
		t.Errorf("reason %q does not say the unscored items were counted at 0", g.Reasons[0])
	}
}

// A blocking criterion fails closed on an unscored item: an answer the
// judge could not score cannot pass the safety gate unseen. The failure is
// its own kind of finding, a hard block like any blocking failure.
func TestUnscoredItemFailsBlockingCriterionClosed(t *testing.T) {
	g := hideRun(t, "name: r\nthreshold: 50\ncriteria:\n  - id: quality\n    scale: [1, 5]\n  - id: safety\n    weight: 0\n    scale: [0, 1]\n    critical: 1\n    blocking: true\n",
		`"scores":{"quality":4,"safety":1}`)
	if g.Decision != gate.Block || g.BlockingCount != 8 {
		t.Fatalf("decision %s, blocking %d, reasons %q", g.Decision, g.BlockingCount, g.Reasons)
	}
	var f *finding.Finding
	for i := range g.Findings {
		if g.Findings[i].Kind == finding.UnscoredGate {
			f = &g.Findings[i]
		}
	}
	if f == nil || f.Criterion != "safety" || len(f.Items) != 8 || f.Severity != finding.Error ||
		!strings.Contains(f.Text(), "blocking criterion safety has no score on 8 unscored item(s)") {
		t.Fatalf("finding %+v in %+v", f, g.Findings)
	}
	for _, bf := range g.BlockingFailures {
		if !bf.Unscored || bf.Criterion != "safety" {
			t.Errorf("failure %+v", bf)
		}
	}
}
