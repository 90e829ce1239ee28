package gate

import (
	"fmt"
	"reflect"
	"slices"
	"testing"
)

func TestPairer(t *testing.T) {
	baseItems := []ItemScore{{"a", 80}, {"b", 60}, {"c", 90}, {"d", 50}, {"gone", 10}}
	pr := NewPairer(baseItems, 2)
	for _, it := range []ItemResult{
		{ID: "a", Score: 70, Reasoning: "dropped 10"},
		{ID: "b", Score: 65},
		{ID: "c", Score: 60, Reasoning: "dropped 30"},
		{ID: "d", Score: 45, Reasoning: "dropped 5"},
		{ID: "new", Score: 99},
		{ID: "err", Unscored: true},
	} {
		pr.Add(&it)
	}
	p := pr.Result()
	if p.Common != 4 || p.Added != 1 || p.Removed != 1 {
		t.Fatalf("common/added/removed = %d/%d/%d", p.Common, p.Added, p.Removed)
	}
	// An item of the baseline that the judge failed on this time is neither
	// compared nor "removed".
	pr2 := NewPairer(baseItems, 2)
	pr2.Add(&ItemResult{ID: "gone", Unscored: true})
	if p2 := pr2.Result(); p2.Unscored != 1 || p2.Removed != 4 || slices.Contains(p2.RemovedIDs, "gone") {
		t.Errorf("unscored %d removed %d %v", p2.Unscored, p2.Removed, p2.RemovedIDs)
	}
	if !reflect.DeepEqual(p.AddedIDs, []string{"new"}) || !reflect.DeepEqual(p.RemovedIDs, []string{"gone"}) {
		t.Errorf("ids: %v %v", p.AddedIDs, p.RemovedIDs)
	}
	if len(p.Worst) != 2 || p.Worst[0].ID != "c" || p.Worst[1].ID != "a" || p.Worst[0].Reasoning != "dropped 30" {
		t.Fatalf("worst = %+v", p.Worst)
	}
	if p.Method != "paired" || p.CI95 == nil {
		t.Fatalf("method %q ci %v", p.Method, p.CI95)
	}
	// The point estimate over the common items lies inside its interval.
	est := (240.0 - 280.0) / 280.0
	if p.CI95[0] > est || p.CI95[1] < est {
		t.Errorf("ci %v does not contain %v", *p.CI95, est)
	}
}

func TestPairerReproducibleAndUnpaired(t *testing.T) {
	var b []ItemScore
	for i := range 200 {
		b = append(b, ItemScore{ID: fmt.Sprint("b", i), Score: float64(50 + i%40)})
	}
	run := func() *Paired {
		pr := NewPairer(b, 10)
		for i := range 150 {
			pr.Add(&ItemResult{ID: fmt.Sprint("c", i), Score: float64(40 + i%50)})
		}
		return pr.Result()
	}
	p1, p2 := run(), run()
	if p1.Method != "unpaired" || p1.CI95 == nil {
		t.Fatalf("method %q ci %v", p1.Method, p1.CI95)
	}
	if *p1.CI95 != *p2.CI95 {
		t.Errorf("bootstrap not reproducible: %v vs %v", *p1.CI95, *p2.CI95)
	}
	if p1.CI95[0] >= p1.CI95[1] {
		t.Errorf("degenerate interval %v", *p1.CI95)
	}
	if p1.Added != 150 || p1.Removed != 200 || len(p1.AddedIDs) != listedIDs {
		t.Errorf("added %d removed %d listed %d", p1.Added, p1.Removed, len(p1.AddedIDs))
	}
}

func TestResamplesBounded(t *testing.T) {
	if resamples(100) != 1000 || resamples(1_000_000) != 200 {
		t.Errorf("resamples: %d %d", resamples(100), resamples(1_000_000))
	}
}
