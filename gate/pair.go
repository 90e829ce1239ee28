package gate

import (
	"container/heap"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
)

// Paired is the item-level comparison of a run with its baseline.
type Paired struct {
	// Common, Added and Removed count items by id: in both runs, only in the
	// current run, only in the baseline.
	Common  int `json:"common"`
	Added   int `json:"added"`
	Removed int `json:"removed"`
	// Unscored counts baseline items present in this run with a judge error
	// (or an answer the judge could not score). They are counted among the
	// Common items at score 0, the worst case: hiding a regressed item
	// behind an error can only lower the comparison, never raise it.
	Unscored int `json:"unscored"`
	// AddedIDs and RemovedIDs list the first few of each, in input order.
	AddedIDs   []string `json:"added_ids"`
	RemovedIDs []string `json:"removed_ids"`
	// RemovedDigest is [RemovedDigest] of every removed item's id ("" when
	// none was removed): what an accept label's record binds.
	RemovedDigest string `json:"removed_digest,omitempty"`
	// CommonBaseline and CommonCurrent are the mean scores (0-100) of the
	// common items in the baseline and in this run; nil without common
	// items. When the item sets differ, the relative check compares them.
	CommonBaseline *float64 `json:"common_baseline"`
	CommonCurrent  *float64 `json:"common_current"`
	// Worst are the common items whose score dropped most, largest drop first.
	Worst []ItemDelta `json:"worst"`
	// CI95 is a 95% interval of the relative change of the aggregate; Method
	// says "paired" (over common items) or "unpaired" (each run on its own).
	CI95   *[2]float64 `json:"ci95"`
	Method PairMethod  `json:"method"`
	// Interval says how CI95 was computed: "bootstrap" (with Resamples
	// resamples and a fixed seed; for a paired interval the expanded
	// percentile bootstrap, see [ExpandedTail]) below NormalIntervalItems
	// items, "normal" (the delta method's normal interval, one pass, no
	// resampling) from there on.
	Interval  IntervalMethod `json:"interval"`
	Resamples int            `json:"resamples"`
	// TaskChanged counts items of this run whose id is the baseline's but
	// whose task is not: both carry an InputHash and they differ (the
	// question, context or reference was rewritten under the same id). Each
	// is paired with nothing: the baseline's item counts as Removed, this
	// run's as Added. TaskChangedIDs lists the first few, in input order.
	TaskChanged    int      `json:"task_changed,omitempty"`
	TaskChangedIDs []string `json:"task_changed_ids,omitempty"`
	// UnboundBaseline counts common items compared by id alone because the
	// baseline's item has no InputHash (a baseline made before the hashes)
	// while this run's has one; UnboundCurrent counts those whose baseline
	// item has one and this run's has none.
	UnboundBaseline int `json:"unbound_baseline,omitempty"`
	UnboundCurrent  int `json:"unbound_current,omitempty"`
	// Answers and BaselineAnswers are the mean answer samples per common
	// item (regenerated answers; 1 for one answer each) in this run and the
	// baseline. The interval is over the items' mean scores, so the
	// between-answer variance is in it: it shrinks as answers are added.
	Answers         float64 `json:"answers"`
	BaselineAnswers float64 `json:"baseline_answers"`
	// AnswerVar is the mean, over the AnswerVarItems common items with two
	// or more answers in this run, of the variance of their answers'
	// scores (points²); BaselineAnswerVar and BaselineAnswerVarItems the
	// baseline's. They split the interval's width into answer noise and
	// the rest (see Resolution).
	AnswerVar              float64 `json:"answer_var"`
	AnswerVarItems         int     `json:"answer_var_items"`
	BaselineAnswerVar      float64 `json:"baseline_answer_var"`
	BaselineAnswerVarItems int     `json:"baseline_answer_var_items"`
	// se is the paired relative change's standard error from the items'
	// moments (the delta method, sample variance): what the resolution,
	// the anchor and the attempts project and pool. 0 when not computed
	// (see stdErr).
	se float64
}

// stdErr is the relative change's standard error: from the items' moments
// when the Pairer computed it, else from the interval's half-width over
// the multiple of standard errors it spans ([Paired.intervalZ]). On few
// items the bootstrap interval is never wider than the items' own changes
// (on 2 items it is their range), so only the moments tell its error.
func (p *Paired) stdErr(half float64) float64 {
	if p != nil && p.se > 0 {
		return p.se
	}
	return half / p.intervalZ()
}

// ItemDelta is one item's change against the baseline.
type ItemDelta struct {
	ID        string  `json:"id"`
	Baseline  float64 `json:"baseline"`
	Current   float64 `json:"current"`
	Delta     float64 `json:"delta"`
	Reasoning string  `json:"reasoning"`
	// Unscored is true for an item unscored in this run, compared at 0
	// (Reasoning is then its judge error).
	Unscored bool `json:"unscored,omitempty"`
}

// listedIDs caps the added and removed id lists.
const listedIDs = 20

// bootstrapSeed makes the interval reproducible from run to run.
const bootstrapSeed = 20260101

// NormalIntervalItems is the number of items (common items for a paired
// interval, the larger run for an unpaired one) from which the interval is
// the delta method's normal interval instead of the percentile bootstrap.
// At this size the two agree within a tenth of the interval's half-width
// (TestNormalMatchesBootstrap); the bootstrap's own Monte Carlo error is
// about half that.
const NormalIntervalItems = 10_000

// z975 is the 97.5th percentile of the standard normal distribution.
const z975 = 1.959963984540054

// Pairer builds a Paired view while the current run streams past. The
// baseline's items are pointer-free columns ([ItemColumns]) and found by
// their id index (no map of strings);
// item values are kept for the bootstrap only while the run is smaller than
// NormalIntervalItems, and summarised in one pass (running co-moments)
// for the normal interval.
type Pairer struct {
	worstN int
	items  *ItemColumns
	index  *idIndex
	// next is the position after the last item found: a run in the
	// baseline's order finds each item there without hashing (-1: off, the
	// baseline repeats an id).
	next int
	seen []bool
	p    Paired
	// common pairs (pi: their baseline positions, to put them in id order),
	// and every scored current value, for the bootstrap; nil once past
	// NormalIntervalItems
	pb, pc, curAll []float64
	pi             []int32
	paired         moments2
	cur, base      moments1
	worst          deltaHeap
	// answer sums over the common items: answers per item and the answer
	// variances of the items with two or more, this run's and the baseline's
	ansC, ansB, varC, varB float64
	varCN, varBN           int
	// asked is set when WantsReasoning found askedID at askedAt, for the
	// Add that follows.
	asked   bool
	askedID string
	askedAt int
}

// NewPairer indexes the baseline's items. It keeps its own compact,
// pointer-free copy of them (the collector never rescans a million id
// strings while the run is scored), so the caller may drop items.
// worstN is how many regressions to keep.
func NewPairer(items []ItemScore, worstN int) *Pairer {
	return NewPairerColumns(ColumnsOf(items), worstN)
}

// NewPairerColumns pairs with the baseline's items, kept in columns (which
// the pairer reads and the caller must not append to while it is used); it
// uses their id index, built here unless a duplicate check already did
// (baseline.Read does).
func NewPairerColumns(items *ItemColumns, worstN int) *Pairer {
	if items == nil {
		items = &ItemColumns{}
	}
	index := items.index()
	pr := &Pairer{worstN: worstN, items: items, index: index, seen: make([]bool, items.Len())}
	if !index.unique {
		pr.next = -1
	}
	for _, s := range items.scores {
		pr.base.add(s)
	}
	return pr
}

// Add takes one current item (call it from ScoreOptions.OnItem). An
// unscored item that the baseline scored is compared at score 0 (see
// Paired.Unscored); one the baseline does not have is left out.
func (pr *Pairer) Add(it *ItemResult) {
	i := pr.find(it.ID)
	if i >= 0 && pr.next >= 0 {
		pr.next = i + 1
	}
	if i >= 0 && !pr.seen[i] && pr.taskChanged(i, it) {
		i = -1 // another task under the baseline's id: removed plus added
	}
	if it.Unscored {
		if i >= 0 && !pr.seen[i] {
			pr.p.Unscored++
			pr.common(i, &ItemResult{ID: it.ID, Score: 0, Reasoning: it.Reasoning, Unscored: true})
		}
		return
	}
	pr.cur.add(it.Score)
	pr.curAll = keep(pr.curAll, it.Score, pr.cur.n)
	if i < 0 || pr.seen[i] {
		pr.p.Added++
		if len(pr.p.AddedIDs) < listedIDs {
			pr.p.AddedIDs = append(pr.p.AddedIDs, it.ID)
		}
		return
	}
	pr.common(i, it)
}

// find returns the baseline's position of id (-1: none), where the last
// item found leaves off or by the index; the position WantsReasoning just
// found for id is reused.
func (pr *Pairer) find(id string) int {
	if pr.asked && pr.askedID == id {
		pr.asked = false
		return pr.askedAt
	}
	pr.asked = false
	if n := pr.next; n >= 0 && n < pr.items.Len() && pr.items.ID(n) == id {
		return n
	}
	return pr.index.find(pr.items, id)
}

// WantsReasoning says whether Add needs it.Reasoning (for the scorer's
// ScoreOptions.WantReasoning, asked with Reasoning still empty): only for
// an item of the baseline not yet paired that is unscored or could enter
// the worst regressions as they stand. It may say yes for an item Add then
// leaves out, never no for one it shows. Add, called next with the same
// item, reuses the position found here.
func (pr *Pairer) WantsReasoning(it *ItemResult) bool {
	pr.asked = false
	i := pr.find(it.ID)
	pr.asked, pr.askedID, pr.askedAt = true, it.ID, i
	if i < 0 || pr.seen[i] {
		return false
	}
	if it.Unscored {
		return true
	}
	d := it.Score - pr.items.scores[i]
	if d >= 0 || pr.worstN <= 0 {
		return false
	}
	return pr.worst.Len() < pr.worstN || worse(ItemDelta{ID: it.ID, Delta: d}, pr.worst[0])
}

// common pairs the current item it with the baseline's item i.
func (pr *Pairer) common(i int, it *ItemResult) {
	pr.seen[i] = true
	pr.p.Common++
	b := pr.items.scores[i]
	pr.paired.add(b, it.Score)
	pr.ansC += float64(max(it.Answers, 1))
	if it.Answers > 1 {
		pr.varC += it.AnswerVar
		pr.varCN++
	}
	kb := pr.items.Answers(i)
	pr.ansB += float64(kb)
	if kb > 1 {
		pr.varB += pr.items.AnswerVar(i)
		pr.varBN++
	}
	pr.pb = keep(pr.pb, b, pr.paired.n)
	pr.pc = keep(pr.pc, it.Score, pr.paired.n)
	if pr.paired.n < NormalIntervalItems {
		pr.pi = append(pr.pi, int32(i))
	} else {
		pr.pi = nil
	}
	if d := it.Score - b; d < 0 && pr.worstN > 0 {
		x := ItemDelta{ID: it.ID, Baseline: b, Current: it.Score, Delta: d, Reasoning: it.Reasoning, Unscored: it.Unscored}
		if pr.worst.Len() < pr.worstN {
			heap.Push(&pr.worst, x)
		} else if worse(x, pr.worst[0]) {
			pr.worst[0] = x
			heap.Fix(&pr.worst, 0)
		}
	}
}

// keep appends v to s while n (the count including v) is below
// NormalIntervalItems, and drops s from there on.
func keep(s []float64, v float64, n int) []float64 {
	if n >= NormalIntervalItems {
		return nil
	}
	return append(s, v)
}

// Result finishes the comparison and computes the interval.
func (pr *Pairer) Result() *Paired {
	p := pr.p
	p.AddedIDs = idsOrEmpty(p.AddedIDs)
	p.RemovedIDs = []string{}
	var removed []string
	for i, s := range pr.seen {
		if !s {
			p.Removed++
			id := pr.items.ID(i)
			removed = append(removed, id)
			if len(p.RemovedIDs) < listedIDs {
				p.RemovedIDs = append(p.RemovedIDs, id)
			}
		}
	}
	p.RemovedDigest = RemovedDigest(removed)
	if p.Common > 0 {
		mb, mc := pr.paired.mb, pr.paired.mc
		p.CommonBaseline, p.CommonCurrent = &mb, &mc
		p.Answers, p.BaselineAnswers = pr.ansC/float64(p.Common), pr.ansB/float64(p.Common)
	}
	p.AnswerVarItems, p.BaselineAnswerVarItems = pr.varCN, pr.varBN
	if pr.varCN > 0 {
		p.AnswerVar = pr.varC / float64(pr.varCN)
	}
	if pr.varBN > 0 {
		p.BaselineAnswerVar = pr.varB / float64(pr.varBN)
	}
	p.Worst = append([]ItemDelta{}, pr.worst...)
	sort.Slice(p.Worst, func(i, j int) bool { return worse(p.Worst[i], p.Worst[j]) })
	rng := rand.New(rand.NewPCG(bootstrapSeed, bootstrapSeed))
	switch {
	case p.Common >= 2:
		p.Method = MethodPaired
		p.se = pr.paired.stdErr()
		if p.Common >= NormalIntervalItems {
			p.Interval = IntervalNormal
			p.CI95 = pr.paired.normalCI()
		} else {
			p.Interval = IntervalBootstrap
			p.Resamples = resamples(p.Common)
			pb, pc := pr.idOrder()
			p.CI95 = percentiles(bootstrapPaired(rng, pb, pc, p.Resamples), ExpandedTail(p.Common))
		}
	case pr.cur.n >= 2 && pr.items.Len() >= 2:
		p.Method = MethodUnpaired
		if max(pr.cur.n, pr.items.Len()) >= NormalIntervalItems {
			p.Interval = IntervalNormal
			p.CI95 = normalUnpaired(pr.base, pr.cur)
		} else {
			p.Interval = IntervalBootstrap
			p.Resamples = resamples(max(pr.cur.n, pr.items.Len()))
			// Resampled in value order: the file's row order must not
			// move the interval (the values are a multiset).
			b, c := slices.Clone(pr.items.scores), slices.Clone(pr.curAll)
			slices.Sort(b)
			slices.Sort(c)
			p.CI95 = percentiles(bootstrapUnpaired(rng, b, c, p.Resamples), tail95)
		}
	}
	return &p
}

// idOrder returns the kept pairs in the order of their ids (the baseline's
// position breaking ties of a repeated id), so the bootstrap draws the same
// pairs whatever order the run's rows come in: shuffling a results file
// must not move the interval, let alone flip a decision.
func (pr *Pairer) idOrder() (b, c []float64) {
	perm := make([]int, len(pr.pb))
	for k := range perm {
		perm[k] = k
	}
	sort.Slice(perm, func(x, y int) bool {
		i, j := int(pr.pi[perm[x]]), int(pr.pi[perm[y]])
		if a, b := pr.items.ID(i), pr.items.ID(j); a != b {
			return a < b
		}
		return i < j
	})
	b, c = make([]float64, len(perm)), make([]float64, len(perm))
	for k, x := range perm {
		b[k], c[k] = pr.pb[x], pr.pc[x]
	}
	return b, c
}

// moments1 are the running mean and centred sum of squares of one sample
// (Welford's method: stable in one pass).
type moments1 struct {
	n       int
	mean, m float64
}

func (s *moments1) add(x float64) {
	s.n++
	d := x - s.mean
	s.mean += d / float64(s.n)
	s.m += d * (x - s.mean)
}

// moments2 are the running means and centred co-moments of pairs (b, c).
type moments2 struct {
	n             int
	mb, mc        float64
	sbb, scc, sbc float64
}

func (s *moments2) add(b, c float64) {
	s.n++
	n := float64(s.n)
	db := b - s.mb
	s.mb += db / n
	dc := c - s.mc
	s.mc += dc / n
	s.sbb += db * (b - s.mb)
	s.scc += dc * (c - s.mc)
	s.sbc += db * (c - s.mc)
}

// normalCI is the delta method's 95% normal interval of mc/mb - 1 for
// paired means: the ratio's linearisation z = (c - r·b)/mb has variance
// (Vcc - 2r·Vbc + r²·Vbb)/mb² (plug-in variances, as the bootstrap uses).
func (s *moments2) normalCI() *[2]float64 {
	if s.n < 2 || !(s.mb > 0) {
		return nil
	}
	n := float64(s.n)
	r := s.mc / s.mb
	v := (s.scc - 2*r*s.sbc + r*r*s.sbb) / n / (s.mb * s.mb)
	return normalAround(r-1, v/n)
}

// stdErr is the delta method's standard error of mc/mb - 1 with the
// sample variance (over n-1), 0 when there is none.
func (s *moments2) stdErr() float64 {
	if s.n < 2 || !(s.mb > 0) {
		return 0
	}
	n := float64(s.n)
	r := s.mc / s.mb
	v := (s.scc - 2*r*s.sbc + r*r*s.sbb) / (n - 1) / (s.mb * s.mb)
	return math.Sqrt(max(v, 0) / n)
}

// normalUnpaired is the delta method's 95% normal interval of mc/mb - 1 for
// independent samples.
func normalUnpaired(b, c moments1) *[2]float64 {
	if b.n < 2 || c.n < 2 || !(b.mean > 0) {
		return nil
	}
	r := c.mean / b.mean
	vb := b.m / float64(b.n) / float64(b.n)
	vc := c.m / float64(c.n) / float64(c.n)
	v := vc/(b.mean*b.mean) + r*r*vb/(b.mean*b.mean)
	return normalAround(r-1, v)
}

// normalAround is est ± z975·sqrt(variance).
func normalAround(est, variance float64) *[2]float64 {
	h := z975 * math.Sqrt(max(variance, 0))
	return &[2]float64{est - h, est + h}
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

// bootstrapPaired returns the relative change of reps paired resamples of
// (b, c), for [percentiles].
func bootstrapPaired(rng *rand.Rand, b, c []float64, reps int) []float64 {
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
	return stats
}

// bootstrapUnpaired returns the relative change of reps resamples of b and
// c drawn independently, for [percentiles].
func bootstrapUnpaired(rng *rand.Rand, b, c []float64, reps int) []float64 {
	stats := make([]float64, 0, reps)
	for range reps {
		mb := resampleMean(rng, b)
		mc := resampleMean(rng, c)
		if mb > 0 {
			stats = append(stats, (mc-mb)/mb)
		}
	}
	return stats
}

func resampleMean(rng *rand.Rand, x []float64) float64 {
	var s float64
	for range x {
		s += x[rng.IntN(len(x))]
	}
	return s / float64(len(x))
}

// tail95 is the tail of a plain 95% percentile interval.
const tail95 = 0.025

// percentiles returns the tail-th and (1-tail)-th percentiles of stats
// (nearest rank), or nil when there is nothing to take them from.
func percentiles(stats []float64, tail float64) *[2]float64 {
	if len(stats) == 0 {
		return nil
	}
	sort.Float64s(stats)
	at := func(q float64) float64 {
		i := int(q*float64(len(stats)) + 0.5)
		return stats[min(max(i-1, 0), len(stats)-1)]
	}
	return &[2]float64{at(tail), at(1 - tail)}
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
