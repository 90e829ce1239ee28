package gate

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

// A pairer that gets an item's reasoning only when WantsReasoning asks for
// it ends with the same result, worst items and their reasoning included,
// as one that gets every item's; and it asks for few.
func TestWantsReasoningKeepsTheWorst(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	const n = 3000
	var base []ItemScore
	for i := range n {
		base = append(base, ItemScore{ID: fmt.Sprint("q", i), Score: float64(rng.IntN(101))})
	}
	var run []ItemResult
	for _, i := range rng.Perm(n + 200) { // 200 added, some removed below
		if i%97 == 0 {
			continue
		}
		it := ItemResult{ID: fmt.Sprint("q", i), Score: float64(rng.IntN(101)), Reasoning: fmt.Sprint("why ", i)}
		if i%41 == 0 {
			it = ItemResult{ID: it.ID, Unscored: true, Reasoning: fmt.Sprint("judge error ", i)}
		}
		run = append(run, it)
		if i%53 == 0 {
			run = append(run, it) // a repeated id
		}
	}
	for _, worst := range []int{0, 1, 10, 50} {
		all, asked := NewPairer(base, worst), NewPairer(base, worst)
		wanted := 0
		for _, it := range run {
			full := it
			all.Add(&full)
			bare := it
			bare.Reasoning = ""
			if asked.WantsReasoning(&bare) {
				wanted++
				bare.Reasoning = it.Reasoning
			}
			asked.Add(&bare)
		}
		if got, want := asked.Result(), all.Result(); !reflect.DeepEqual(got, want) {
			t.Errorf("worst %d: with reasoning asked for:\n%+v\nwith every reasoning:\n%+v", worst, got.Worst, want.Worst)
		}
		if wanted > len(run)/4 {
			t.Errorf("worst %d: reasoning asked for %d of %d items", worst, wanted, len(run))
		}
	}
}
