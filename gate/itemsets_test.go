package gate

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// pairedRun pairs a run with a baseline through the Pairer, as the gate
// command does, and returns the current report and the baseline.
func pairedRun(baseItems, curItems map[string]float64) (*Report, *Baseline, *Paired) {
	mean := func(m map[string]float64) float64 {
		s := 0.0
		for _, v := range m {
			s += v
		}
		return s / float64(len(m))
	}
	var bi []ItemScore
	for i := 0; i < 100; i++ {
		id := fmt.Sprintf("i%02d", i)
		if v, ok := baseItems[id]; ok {
			bi = append(bi, ItemScore{ID: id, Score: v})
		}
	}
	pr := NewPairer(bi, 10)
	for i := 0; i < 100; i++ {
		id := fmt.Sprintf("i%02d", i)
		if v, ok := curItems[id]; ok {
			pr.Add(&ItemResult{ID: id, Score: v})
		}
	}
	b := base(mean(baseItems))
	cur := runReport(mean(curItems))
	return cur, b, pr.Result()
}

func items(from, to int, score func(i int) float64) map[string]float64 {
	m := map[string]float64{}
	for i := from; i < to; i++ {
		m[fmt.Sprintf("i%02d", i)] = score(i)
	}
	return m
}

func merge(ms ...map[string]float64) map[string]float64 {
	out := map[string]float64{}
	for _, m := range ms {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// h11 F3: easy items added to the run must not hide a regression of the
// items it shares with the baseline: the check compares the common items.
func TestDecidePaddedItemSetComparesCommonItems(t *testing.T) {
	// Every common item drops 80 -> 74 (-7.5%, the same each: the paired
	// interval lies below 0); 10 new items at 100 lift the full set to 87.
	baseItems := items(0, 10, func(int) float64 { return 80 })
	curItems := merge(items(0, 10, func(int) float64 { return 74 }), items(10, 20, func(int) float64 { return 100 }))
	cur, b, p := pairedRun(baseItems, curItems)
	if *cur.Score <= b.Score {
		t.Fatalf("set-up: the full set should rise (%v -> %v)", b.Score, *cur.Score)
	}
	g := decide(cur, b, func(in *DecideInput) { in.Paired = p })
	if g.Decision != Block || g.DropCheck == nil || g.DropCheck.Basis != BasisCommon || g.DropCheck.Baseline != 80 || g.DropCheck.Current != 74 {
		t.Fatalf("padded run: %s %+v %q", g.Decision, g.DropCheck, g.Reasons)
	}
	if !strings.Contains(g.Reasons[0], "items in common") || !strings.Contains(g.Reasons[0], "the full sets: 80.0 → 87.0, +8.75%") {
		t.Errorf("the reason does not show the common items and the full sets beside: %q", g.Reasons)
	}
	if g.RemovedItems != nil {
		t.Errorf("added items are not removed ones: %+v", g.RemovedItems)
	}
	// New items never block by themselves: the same run without the drop.
	cur, b, p = pairedRun(baseItems, merge(baseItems, items(10, 20, func(int) float64 { return 10 })))
	if g := decide(cur, b, func(in *DecideInput) { in.Paired = p }); g.Decision != Pass || g.DropCheck.Basis != BasisCommon ||
		!strings.Contains(g.Reasons[0], "items in common +0.00% vs the baseline") {
		t.Errorf("hard new items, common items unchanged: %s %q", g.Decision, g.Reasons)
	}
}

// h11 F3: a run that no longer carries baseline items blocks unless the
// accept label is on (recorded), even when what remains did not drop; on the
// baseline branch it is a warning (F6).
func TestDecideRemovedItemsBlock(t *testing.T) {
	// The two hard items removed: the rest did not move, the full set rises.
	baseItems := merge(items(0, 2, func(int) float64 { return 20 }), items(2, 10, func(int) float64 { return 80 }))
	cur, b, p := pairedRun(baseItems, items(2, 10, func(int) float64 { return 80 }))
	g := decide(cur, b, func(in *DecideInput) { in.Paired = p })
	if g.Decision != Block || g.RemovedItems == nil || g.RemovedItems.Count != 2 || strings.Join(g.RemovedItems.IDs, ",") != "i00,i01" ||
		!strings.Contains(g.Reasons[0], "ITEMS REMOVED: 2 item(s) of the baseline are missing from this run: i00, i01") ||
		!strings.Contains(g.Reasons[0], "rubricgate:accept-regression") {
		t.Fatalf("removed items: %s %+v %q", g.Decision, g.RemovedItems, g.Reasons)
	}
	g = decide(cur, b, func(in *DecideInput) { in.Paired = p; acceptShown(in) })
	if g.Decision != Pass || !g.Accepted || !g.RemovedItems.Accepted || !strings.HasPrefix(g.Reasons[0], "accepted by the rubricgate:accept-regression label: ITEMS REMOVED") {
		t.Fatalf("accepted removal: %s %+v %q", g.Decision, g.RemovedItems, g.Reasons)
	}
	g = decide(cur, b, func(in *DecideInput) { in.Paired = p; in.BaselineBranchRun = true })
	if g.Decision != Pass || g.Accepted || g.RemovedItems.Accepted || !hasWarning(g, "a new baseline starts here") {
		t.Fatalf("baseline branch: %s %+v %q %q", g.Decision, g.RemovedItems, g.Reasons, g.Warnings)
	}
	// An unscored item is not removed: it is compared at score 0, the
	// worst case (issue 15 §6), so the drop blocks.
	pr := NewPairer([]ItemScore{{ID: "a", Score: 50}, {ID: "b", Score: 50}}, 10)
	pr.Add(&ItemResult{ID: "a", Score: 50})
	pr.Add(&ItemResult{ID: "b", Unscored: true})
	if g := decide(runReport(50), base(50), func(in *DecideInput) { in.Paired = pr.Result() }); g.Decision != Block || g.RemovedItems != nil ||
		g.DropCheck == nil || g.DropCheck.Basis != BasisCommon || g.DropCheck.Current != 25 ||
		!strings.Contains(g.Reasons[0], "1 item(s) of the baseline are unscored in this run and compared at score 0") {
		t.Errorf("unscored item: %s %+v %q", g.Decision, g.RemovedItems, g.Reasons)
	}
}

// With no item in common the full sets are compared, with a warning.
func TestDecideNoCommonItems(t *testing.T) {
	cur, b, p := pairedRun(items(0, 5, func(int) float64 { return 80 }), items(5, 10, func(int) float64 { return 70 }))
	g := decide(cur, b, func(in *DecideInput) { in.Paired = p; acceptShown(in) })
	if g.DropCheck == nil || g.DropCheck.Basis != BasisAll || g.DropCheck.Baseline != 80 || !hasWarning(g, "shares no item with the baseline") {
		t.Fatalf("no common items: %+v %q", g.DropCheck, g.Warnings)
	}
}

// h11 F6: on the baseline branch a rubric change the gate cannot follow is a
// warning (a new baseline starts there); hard gates and the drop still block.
func TestDecideBaselineBranchRun(t *testing.T) {
	b := base(80)
	b.RubricHash = "sha256:bbbb"
	g := decide(runReport(10), b, func(in *DecideInput) {
		in.RescoreErr = errors.New(`missing criterion "tone"`)
		in.BaselineBranchRun = true
	})
	if g.Decision != Pass || g.Accepted || g.RubricChange == nil || g.RubricChange.Accepted || !hasWarning(g, "a new baseline starts here") {
		t.Fatalf("rubric change on the baseline branch: %s %+v %q %q", g.Decision, g.RubricChange, g.Reasons, g.Warnings)
	}
	g = decide(runReport(10), b, func(in *DecideInput) {
		in.RescoreErr = errors.New("x")
		in.OnRubricChange = "fail"
		in.BaselineBranchRun = true
	})
	if g.Decision != Pass {
		t.Errorf("on-rubric-change fail must not lock the baseline branch: %s %q", g.Decision, g.Reasons)
	}
	gates := &GateCheck{Failures: []BlockingFailure{{Item: "q-9", Criterion: "safety"}}, Unchecked: map[string]int{}}
	g = decide(runReport(10), b, func(in *DecideInput) {
		in.BaselineGates = gates
		in.RescoreErr = errors.New("x")
		in.BaselineBranchRun = true
	})
	if g.Decision != Block {
		t.Errorf("a blocking failure under the baseline's rubric passed on the baseline branch: %q", g.Reasons)
	}
	if g := decide(runReport(70), base(80), func(in *DecideInput) { in.BaselineBranchRun = true }); g.Decision != Block {
		t.Errorf("a drop passed on the baseline branch: %q", g.Reasons)
	}
}
