package gate

import (
	"container/heap"
	"math/rand/v2"
	"sort"
)

// Paired is the item-level comparison of a run with its baseline.
type Paired struct {
	// Common, Added and Removed count items by id: in both runs, only in the
	// current run, only in the baseline.
	Common  int `json:"common"`
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Unscored counts baseline items present in this run with a judge error:
	// neither compared nor removed.
	Unscored int `json:"unscored"`
	// AddedIDs and RemovedIDs list the first few of each, in input order.
	AddedIDs   []string `json:"added_ids"`
	RemovedIDs []string `json:"removed_ids"`
	// Worst are the common items whose score dropped most, largest drop first.
	Worst []ItemDelta `json:"worst"`
	// CI95 is a 95% percentile-bootstrap interval of the relative change of
	// the aggregate; Method says "paired" (resampling common items) or
	// "unpaired" (resampling each run on its own).
	CI95      *[2]float64 `json:"ci95"`
	Method    string      `json:"method"`
	Resamples int         `json:"resamples"`
}

// ItemDelta is one item's change against the baseline.
type ItemDelta struct {
	ID        string  `json:"id"`
	Baseline  float64 `json:"baseline"`
	Current   float64 `json:"current"`
	Delta     float64 `json:"delta"`
	Reasoning string  `json:"reasoning"`
}

// listedIDs caps the added and removed id lists.
const listedIDs = 20

// bootstrapSeed makes the interval reproducible from run to run.
const bootstrapSeed = 20260101

// Pairer builds a Paired view while the current run streams past.
type Pairer struct {
	worstN  int
	base    map[string]int // id -> index in baseScore
	baseIDs []string
	baseVal []float64
	seen    []bool
	p       Paired
	// common pairs, and every scored current value, for the bootstrap
	pb, pc []float64
	curAll []float64
	worst  deltaHeap
}

// NewPairer indexes the baseline's items. worstN is how many regressions to keep.
func NewPairer(items []ItemScore, worstN int) *Pairer {
	pr := &Pairer{worstN: worstN, base: make(map[string]int, len(items)), baseVal: make([]float64, len(items)), baseIDs: make([]string, len(items)), seen: make([]bool, len(items))}
	for i, it := range items {
		pr.base[it.ID] = i
		pr.baseVal[i] = it.Score
		pr.baseIDs[i] = it.ID
	}
	return pr
}

// Add takes one current item (call it from ScoreOptions.OnItem). Unscored
// items are left out of the comparison.
func (pr *Pairer) Add(it *ItemResult) {
	if it.Unscored {
		if i, ok := pr.base[it.ID]; ok && !pr.seen[i] {
			pr.seen[i] = true
			pr.p.Unscored++
		}
		return
	}
	pr.curAll = append(pr.curAll, it.Score)
	i, ok := pr.base[it.ID]
	if !ok || pr.seen[i] {
		pr.p.Added++
		if len(pr.p.AddedIDs) < listedIDs {
			pr.p.AddedIDs = append(pr.p.AddedIDs, it.ID)
		}
		return
	}
	pr.seen[i] = true
	pr.p.Common++
	b := pr.baseVal[i]
	pr.pb = append(pr.pb, b)
	pr.pc = append(pr.pc, it.Score)
	if d := it.Score - b; d < 0 && pr.worstN > 0 {
		x := ItemDelta{ID: it.ID, Baseline: b, Current: it.Score, Delta: d, Reasoning: it.Reasoning}
		if pr.worst.Len() < pr.worstN {
			heap.Push(&pr.worst, x)
		} else if worse(x, pr.worst[0]) {
			pr.worst[0] = x
			heap.Fix(&pr.worst, 0)
		}
	}
}

// Result finishes the comparison and computes the bootstrap interval.
func (pr *Pairer) Result() *Paired {
	p := pr.p
	p.AddedIDs = idsOrEmpty(p.AddedIDs)
	p.RemovedIDs = []string{}
	for i, s := range pr.seen {
		if !s {
			p.Removed++
			if len(p.RemovedIDs) < listedIDs {
				p.RemovedIDs = append(p.RemovedIDs, pr.baseIDs[i])
			}
		}
	}
	p.Worst = append([]ItemDelta{}, pr.worst...)
	sort.Slice(p.Worst, func(i, j int) bool { return worse(p.Worst[i], p.Worst[j]) })
	rng := rand.New(rand.NewPCG(bootstrapSeed, bootstrapSeed))
	switch {
	case p.Common >= 2:
		p.Method = "paired"
		p.Resamples = resamples(p.Common)
		p.CI95 = bootstrapPaired(rng, pr.pb, pr.pc, p.Resamples)
	case len(pr.curAll) >= 2 && len(pr.baseVal) >= 2:
		p.Method = "unpaired"
		p.Resamples = resamples(max(len(pr.curAll), len(pr.baseVal)))
		p.CI95 = bootstrapUnpaired(rng, pr.baseVal, pr.curAll, p.Resamples)
	}
	return &p
}

// resamples bounds the bootstrap's work: 1,000 resamples up to 20,000 items,
// fewer (at least 200) for larger runs, where the interval is narrow anyway.
func resamples(n int) int {
	const work = 20_000_000
	r := 1000
	if n*r > work {
		r = max(200, work/n)
	}
	return r
}

func bootstrapPaired(rng *rand.Rand, b, c []float64, reps int) *[2]float64 {
	n := len(b)
	stats := make([]float64, 0, reps)
	for range reps {
		var sb, sc float64
		for range n {
			k := rng.IntN(n)
			sb += b[k]
			sc += c[k]
		}
		if sb > 0 {
			stats = append(stats, (sc-sb)/sb)
		}
	}
	return percentiles(stats)
}

func bootstrapUnpaired(rng *rand.Rand, b, c []float64, reps int) *[2]float64 {
	stats := make([]float64, 0, reps)
	for range reps {
		mb := resampleMean(rng, b)
		mc := resampleMean(rng, c)
		if mb > 0 {
			stats = append(stats, (mc-mb)/mb)
		}
	}
	return percentiles(stats)
}

func resampleMean(rng *rand.Rand, x []float64) float64 {
	var s float64
	for range x {
		s += x[rng.IntN(len(x))]
	}
	return s / float64(len(x))
}

// percentiles returns the 2.5th and 97.5th percentiles (nearest rank), or nil
// when there is nothing to take them from.
func percentiles(stats []float64) *[2]float64 {
	if len(stats) == 0 {
		return nil
	}
	sort.Float64s(stats)
	at := func(q float64) float64 {
		i := int(q*float64(len(stats)) + 0.5)
		return stats[min(max(i-1, 0), len(stats)-1)]
	}
	return &[2]float64{at(0.025), at(0.975)}
}

// worse orders deltas: bigger drop first, then id.
func worse(a, b ItemDelta) bool {
	if a.Delta != b.Delta {
		return a.Delta < b.Delta
	}
	return a.ID < b.ID
}

// deltaHeap is a heap whose root is the least bad of the kept regressions.
type deltaHeap []ItemDelta

func (h deltaHeap) Len() int           { return len(h) }
func (h deltaHeap) Less(i, j int) bool { return worse(h[j], h[i]) }
func (h deltaHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *deltaHeap) Push(x any)        { *h = append(*h, x.(ItemDelta)) }
func (h *deltaHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func idsOrEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
