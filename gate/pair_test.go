package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestPairer(t *testing.T) {
	baseItems := []ItemScore{{ID: "a", Score: 80}, {ID: "b", Score: 60}, {ID: "c", Score: 90}, {ID: "d", Score: 50}, {ID: "gone", Score: 10}}
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
	// An item of the baseline that the judge failed on this time is not
	// "removed": it is compared at score 0, the worst case (issue 15 §6).
	pr2 := NewPairer(baseItems, 2)
	pr2.Add(&ItemResult{ID: "gone", Unscored: true, Reasoning: "judge error"})
	pr2.Add(&ItemResult{ID: "a", Score: 80})
	p2 := pr2.Result()
	if p2.Unscored != 1 || p2.Common != 2 || p2.Removed != 3 || slices.Contains(p2.RemovedIDs, "gone") {
		t.Errorf("unscored %d common %d removed %d %v", p2.Unscored, p2.Common, p2.Removed, p2.RemovedIDs)
	}
	if *p2.CommonBaseline != 45 || *p2.CommonCurrent != 40 || len(p2.Worst) != 1 || p2.Worst[0].ID != "gone" || !p2.Worst[0].Unscored || p2.Worst[0].Current != 0 {
		t.Errorf("common %v → %v, worst %+v", *p2.CommonBaseline, *p2.CommonCurrent, p2.Worst)
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

// latentPairs draws n paired scores: each item has a latent quality, each
// run a noisy judgement of it on the production rubric's 0-100 scale, and the
// current run is shifted by drop (relative).
func latentPairs(n int, seed uint64, drop float64) (b, c []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	for range n {
		q := 40 + 50*rng.Float64()
		j := func(shift float64) float64 {
			return min(100, max(0, q*(1-shift)+12*rng.NormFloat64()))
		}
		b = append(b, j(0))
		c = append(c, j(drop))
	}
	return b, c
}

// At the switch size the delta method's normal interval matches the
// percentile bootstrap's within a tenth of the half-width at either end.
func TestNormalMatchesBootstrap(t *testing.T) {
	for _, drop := range []float64{0, 0.03} {
		b, c := latentPairs(NormalIntervalItems, 11, drop)
		var m moments2
		for i := range b {
			m.add(b[i], c[i])
		}
		nci := m.normalCI()
		rng := rand.New(rand.NewPCG(bootstrapSeed, bootstrapSeed))
		bci := percentiles(bootstrapPaired(rng, b, c, 1000), ExpandedTail(len(b)))
		half := (nci[1] - nci[0]) / 2
		for k := range 2 {
			if d := math.Abs(nci[k] - bci[k]); d > 0.1*half {
				t.Errorf("drop %v: end %d: normal %v bootstrap %v differ by %.3g, over a tenth of the half-width %.3g", drop, k, *nci, *bci, d, half)
			}
		}
		t.Logf("drop %v: normal %v bootstrap %v", drop, *nci, *bci)
	}
	// Unpaired: the same check for independent samples.
	b, _ := latentPairs(NormalIntervalItems, 12, 0)
	_, c := latentPairs(NormalIntervalItems, 13, 0.03)
	var mb, mc moments1
	for i := range b {
		mb.add(b[i])
		mc.add(c[i])
	}
	nci := normalUnpaired(mb, mc)
	bci := percentiles(bootstrapUnpaired(rand.New(rand.NewPCG(bootstrapSeed, bootstrapSeed)), b, c, 1000), tail95)
	half := (nci[1] - nci[0]) / 2
	for k := range 2 {
		if d := math.Abs(nci[k] - bci[k]); d > 0.1*half {
			t.Errorf("unpaired end %d: normal %v bootstrap %v", k, *nci, *bci)
		}
	}
}

// From NormalIntervalItems common items on, the Pairer computes the normal
// interval in one pass and keeps no per-item values for a bootstrap.
func TestPairerSwitchesToNormal(t *testing.T) {
	for _, n := range []int{NormalIntervalItems - 1, NormalIntervalItems} {
		b, c := latentPairs(n, 5, 0.02)
		items := make([]ItemScore, n)
		for i := range b {
			items[i] = ItemScore{ID: fmt.Sprint("q", i), Score: b[i]}
		}
		pr := NewPairer(items, 3)
		for i := range c {
			pr.Add(&ItemResult{ID: fmt.Sprint("q", i), Score: c[i]})
		}
		p := pr.Result()
		want := "bootstrap"
		if n >= NormalIntervalItems {
			want = "normal"
			if pr.pb != nil || pr.pc != nil || pr.curAll != nil {
				t.Errorf("n=%d: per-item values kept past the switch", n)
			}
			var m moments2
			for i := range b {
				m.add(b[i], c[i])
			}
			if *p.CI95 != *m.normalCI() || p.Resamples != 0 {
				t.Errorf("n=%d: ci %v resamples %d", n, *p.CI95, p.Resamples)
			}
		}
		if string(p.Interval) != want || p.Method != "paired" || p.Common != n {
			t.Errorf("n=%d: interval %q method %q common %d", n, p.Interval, p.Method, p.Common)
		}
	}
}

// The id index finds every item, misses absent ids, lets a later duplicate
// win as a map would (also when one id fills a bucket), and finds every one
// of many items at sizes from one bucket to many.
func TestIDIndex(t *testing.T) {
	items := []ItemScore{{ID: "a", Score: 1}, {ID: "b", Score: 2}, {ID: "a", Score: 3}, {ID: "", Score: 4}}
	bi := ColumnsOf(items)
	x := newIDIndex(bi)
	if x.unique || !bi.HasDuplicate() {
		t.Error("a repeated id not noticed")
	}
	for id, want := range map[string]int{"a": 2, "b": 1, "": 3, "c": -1, "aa": -1} {
		if got := x.find(bi, id); got != want {
			t.Errorf("find(%q) = %d, want %d", id, got, want)
		}
	}
	for _, n := range []int{0, 1, 2, 3, 1000, 70_000} {
		var many []ItemScore
		for i := range n {
			many = append(many, ItemScore{ID: fmt.Sprint("id", i)})
		}
		bm := ColumnsOf(many)
		y := newIDIndex(bm)
		if !y.unique || bm.HasDuplicate() {
			t.Errorf("n=%d: unique ids reported as repeated", n)
		}
		for i := range many {
			if got := y.find(bm, many[i].ID); got != i {
				t.Fatalf("n=%d: find(%q) = %d", n, many[i].ID, got)
			}
		}
		if got := y.find(bm, "absent"); got != -1 {
			t.Errorf("n=%d: find(absent) = %d", n, got)
		}
	}
	var same []ItemScore
	for i := range 5000 {
		same = append(same, ItemScore{ID: "x"}, ItemScore{ID: fmt.Sprint("y", i%7)})
	}
	bs := ColumnsOf(same)
	z := newIDIndex(bs)
	if z.unique || len(z.pos) != 8 {
		t.Errorf("repeated ids: unique %v, %d entries kept (want 8)", z.unique, len(z.pos))
	}
	if got := z.find(bs, "x"); got != 9998 {
		t.Errorf("find(x) = %d, want the last, 9998", got)
	}
	if got := z.find(bs, "y3"); got != 9989 {
		t.Errorf("find(y3) = %d, want the last, 9989", got)
	}
	// An append drops the index: a repeat it makes is seen.
	bm := ColumnsOf([]ItemScore{{ID: "p", Score: 1}, {ID: "q", Score: 2}})
	if bm.HasDuplicate() {
		t.Error("p, q: repeated")
	}
	bm.Append("p", 3)
	if !bm.HasDuplicate() || bm.index().find(bm, "p") != 2 {
		t.Error("the index was not rebuilt after an append")
	}
}

// Pairing gives the same result whatever the run's order (in the baseline's
// order items are found without hashing), and with a repeated baseline id
// the later one is paired, as with a map.
func TestPairerOrder(t *testing.T) {
	base := []ItemScore{{ID: "a", Score: 50}, {ID: "b", Score: 60}, {ID: "c", Score: 70}, {ID: "d", Score: 80}, {ID: "e", Score: 90}}
	orders := [][]string{{"a", "b", "c", "d", "e"}, {"e", "d", "c", "b", "a"}, {"a", "x", "c", "b", "e"}, {"b", "c", "a", "e", "d"}}
	var first *Paired
	for _, o := range orders[:2] {
		pr := NewPairer(slices.Clone(base), 5)
		for k, id := range o {
			pr.Add(&ItemResult{ID: id, Score: float64(40 + 10*k)})
		}
		p := pr.Result()
		if p.Common != 5 || p.Added != 0 || p.Removed != 0 {
			t.Errorf("order %v: %d/%d/%d", o, p.Common, p.Added, p.Removed)
		}
		if first == nil {
			first = p
		}
	}
	pr := NewPairer(base, 5)
	for _, id := range orders[2] {
		pr.Add(&ItemResult{ID: id, Score: 10})
	}
	if p := pr.Result(); p.Common != 4 || p.Added != 1 || p.Removed != 1 || p.RemovedIDs[0] != "d" {
		t.Errorf("with a gap: %+v", p)
	}
	// A repeated id: the later baseline item is the one paired, in any order.
	dup := []ItemScore{{ID: "a", Score: 10}, {ID: "b", Score: 20}, {ID: "a", Score: 30}}
	for _, o := range [][]string{{"a", "b"}, {"b", "a"}} {
		pr := NewPairer(dup, 5)
		for _, id := range o {
			pr.Add(&ItemResult{ID: id, Score: 0})
		}
		p := pr.Result()
		if p.Removed != 1 || p.RemovedIDs[0] != "a" || p.Worst[0].Baseline != 30 {
			t.Errorf("dup, order %v: removed %v worst %+v", o, p.RemovedIDs, p.Worst)
		}
	}
}

// The pairer keeps its own copy of the baseline items: the caller may drop
// or reuse its slice.
func TestPairerOwnsItems(t *testing.T) {
	items := []ItemScore{{ID: "a", Score: 50}, {ID: "b", Score: 60}, {ID: "c", Score: 70}}
	pr := NewPairer(items, 3)
	for i := range items {
		items[i] = ItemScore{ID: "zz", Score: 1}
	}
	pr.Add(&ItemResult{ID: "b", Score: 40})
	pr.Add(&ItemResult{ID: "a", Score: 45})
	p := pr.Result()
	if p.Common != 2 || p.Removed != 1 || p.RemovedIDs[0] != "c" || p.Worst[0].ID != "b" || p.Worst[0].Baseline != 60 {
		t.Errorf("%+v", p)
	}
}

// The paired bootstrap resamples in id order: the same rows in any order
// give a bit-identical interval (issue 15 §7; before, the draws followed
// the file's row order and shuffling moved the interval, flipping decisions
// at the edge). The unpaired one likewise.
func TestPairerIntervalIgnoresRowOrder(t *testing.T) {
	var base []ItemScore
	var cur []ItemResult
	for i := range 300 {
		id := fmt.Sprintf("q%03d", i)
		base = append(base, ItemScore{ID: id, Score: float64(40 + (i*37)%60)})
		cur = append(cur, ItemResult{ID: id, Score: float64(35 + (i*53)%65)})
	}
	cur[7] = ItemResult{ID: cur[7].ID, Unscored: true}
	ci := func(rows []ItemResult, b []ItemScore) [2]float64 {
		pr := NewPairer(b, 5)
		for k := range rows {
			pr.Add(&rows[k])
		}
		p := pr.Result()
		if p.CI95 == nil || p.Interval != "bootstrap" {
			t.Fatalf("no bootstrap interval: %+v", p)
		}
		return *p.CI95
	}
	want := ci(cur, base)
	rng := rand.New(rand.NewPCG(1, 2))
	for range 5 {
		rows := slices.Clone(cur)
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		if got := ci(rows, base); got != want {
			t.Fatalf("shuffled rows: interval %v, in file order %v", got, want)
		}
	}
	// Unpaired: no id in common.
	var other []ItemResult
	for i := range 200 {
		other = append(other, ItemResult{ID: fmt.Sprint("new", i), Score: float64(30 + (i*29)%70)})
	}
	want = ci(other, base)
	for range 3 {
		rows := slices.Clone(other)
		rng.Shuffle(len(rows), func(i, j int) { rows[i], rows[j] = rows[j], rows[i] })
		b := slices.Clone(base)
		rng.Shuffle(len(b), func(i, j int) { b[i], b[j] = b[j], b[i] })
		if got := ci(rows, b); got != want {
			t.Fatalf("unpaired, shuffled: interval %v, in order %v", got, want)
		}
	}
}
