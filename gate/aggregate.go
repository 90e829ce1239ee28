package gate

import (
	"math"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/internal/shardid"
)

// maxWarnings caps the pass-column disagreements listed in a report.
const maxWarnings = 20

// itemScore applies the weighted-mean arithmetic to one item's values:
// norm = (s - low)/(high - low); score = 100 x sum(w x norm) / sum(w) over
// the scored (not na, not missing) criteria. failed reports whether a scored
// critical criterion is below its minimum (na and missing pass their gate).
// Nothing is rounded. The caller has checked that sum(w) > 0.
func (sc *schema) itemScore(vals []Value) (score float64, failed bool) {
	var num, den float64
	for i, v := range vals {
		if v.State != Scored {
			continue
		}
		w := sc.weight[i]
		num += w * ((v.Score - sc.low[i]) / sc.span[i])
		den += w
		failed = failed || v.Below
	}
	return 100 * num / den, failed
}

// thresholdSlack absorbs floating-point error in an item's score when it is
// compared with the threshold: an item whose exact score equals the threshold
// (7/7/7 on 0-10 against 70, computed as 69.99999999999999) passes, as seed
// 002's rule says. Scores are on 0-100, so 1e-9 points is far below any
// difference a rubric can express.
const thresholdSlack = 1e-9

// critAgg is the running sums of one criterion.
type critAgg struct {
	sum    float64 // raw scores (exact for integer scores below 2^53)
	scored int
	na     int
	below  int
	hist   []int // by level - low, or by bin of a continuous scale
	// spreadSum sums the within-item spread of the spreadN items with two
	// or more scored samples.
	spreadSum float64
	spreadN   int
	// outvoted counts the items that meet the minimum by the majority rule
	// with a failing sample; outvotedIDs keeps the first listedOutvoted.
	outvoted    int
	outvotedIDs []string
}

// listedOutvoted caps the item ids an outvoted warning names.
const listedOutvoted = 5

// bin is the histogram slot of a score: its level (a mean of samples that
// is not an integer counts at the nearest level, halves up), or its bin on a
// continuous scale.
func (sc *schema) bin(i int, v float64) int {
	if d := v - sc.low[i]; !sc.cont[i] && d == float64(int(d)) {
		return int(d) // a level: the common case
	}
	if sc.cont[i] {
		b := int(math.Floor(float64(sc.levels[i]) * (v - sc.low[i]) / sc.span[i]))
		return min(max(b, 0), sc.levels[i]-1)
	}
	return min(max(int(math.Floor(v-sc.low[i]+0.5)), 0), sc.levels[i]-1)
}

// partial is the aggregate of one chunk, folded into the run in chunk order
// so the floating-point sums do not depend on scheduling.
type partial struct {
	items, scored, passed, retrievalMiss int
	maxSamples                           int
	scoreSum                             float64
	crit                                 []critAgg
	unscored                             []UnscoredItem
	blocking                             []BlockingFailure
	warnings                             []finding.Finding
	warningsN                            int
	recs                                 []dupRec
	results                              []ItemResult
	err                                  error
	shard                                *ShardHeader // the input's shard header, in the chunk that held it
	// shardIDs and idSum trace the items of a sharded input (see shardIDs).
	shardIDs []shardID
	idSum    shardid.Digest
}

func newPartial(sc *schema) *partial {
	p := &partial{crit: make([]critAgg, len(sc.ids))}
	for i := range p.crit {
		p.crit[i].hist = make([]int, sc.levels[i])
	}
	return p
}

// add scores one validated item into the partial aggregate. keep builds the
// ItemResult for OnItem.
func (p *partial) add(sc *schema, d *decoder, file string, input int, keep bool) {
	r := &d.raw
	p.items++
	p.recs = append(p.recs, newDupRec(r.id, input, r.line))
	if r.retrievalMiss {
		p.retrievalMiss++
	}
	if r.unscored() {
		p.unscored = append(p.unscored, UnscoredItem{ID: string(r.id), Error: string(r.errMsg), File: file, Line: r.itemLine()})
		// Blocking gates hold on an unscored item too (see decoder.finish).
		for i, v := range r.vals {
			if v.State == Scored && sc.blocking[i] && v.Below {
				p.blocking = append(p.blocking, BlockingFailure{Item: string(r.id), Criterion: sc.ids[i], Score: v.Score,
					Reasoning: "[the item also carries a judge error: " + string(r.errMsg) + "] " + string(firstNonBlank(r.reasoning, r.notes))})
			}
		}
		if keep {
			p.results = append(p.results, ItemResult{ID: string(r.id), Unscored: true, Failed: []string{}, NA: []string{}, Reasoning: string(r.errMsg),
				JudgeModel: d.intern(r.judgeModel), Length: r.length})
		}
		return
	}
	score, failed := sc.itemScore(r.vals)
	pass := score >= sc.rb.Threshold-thresholdSlack && !failed
	p.scored++
	if r.nSamples > p.maxSamples {
		p.maxSamples = r.nSamples
	}
	p.scoreSum += score
	if pass {
		p.passed++
	}
	var res *ItemResult
	if keep {
		p.results = append(p.results, ItemResult{ID: string(r.id), Score: score, Pass: pass, Failed: []string{}, NA: []string{},
			JudgeModel: d.intern(r.judgeModel), Length: r.length})
		res = &p.results[len(p.results)-1]
		res.Reasoning = string(r.reasoning)
		if res.Reasoning == "" {
			res.Reasoning = string(r.notes)
		}
	}
	for i, v := range r.vals {
		c := &p.crit[i]
		switch v.State {
		case NA:
			c.na++
			if res != nil {
				res.NA = append(res.NA, sc.ids[i])
			}
		case Scored:
			c.sum += v.Score
			c.scored++
			c.hist[sc.bin(i, v.Score)]++
			if v.N > 1 {
				c.spreadSum += v.Spread
				c.spreadN++
			}
			if v.Outvoted {
				c.outvoted++
				if len(c.outvotedIDs) < listedOutvoted {
					c.outvotedIDs = append(c.outvotedIDs, string(r.id))
				}
			}
			if v.Below {
				c.below++
				if res != nil {
					res.Failed = append(res.Failed, sc.ids[i])
				}
				if sc.blocking[i] {
					why := r.reasoning
					if r.why != nil && r.why[i] != nil {
						why = r.why[i]
					}
					if len(why) == 0 {
						why = r.notes
					}
					p.blocking = append(p.blocking, BlockingFailure{Item: string(r.id), Criterion: sc.ids[i], Score: v.Score, Reasoning: string(why)})
				}
			}
		}
	}
	if r.pass >= 0 && (r.pass == 1) != pass {
		p.warningsN++
		if len(p.warnings) < maxWarnings {
			p.warnings = append(p.warnings, disagreement(sc, r, file, score, pass))
		}
	}
}

func firstNonBlank(a, b []byte) []byte {
	if len(a) > 0 {
		return a
	}
	return b
}

// disagreement describes a review row whose pass column contradicts the rule.
func disagreement(sc *schema, r *rawItem, file string, score float64, pass bool) finding.Finding {
	f := finding.Finding{Kind: finding.PassColumnDisagrees, Severity: finding.Warning, Item: string(r.id), File: file, Line: r.line,
		Params: finding.Params{ColumnPass: r.pass == 1, Score: score, Threshold: sc.rb.Threshold}}
	if !pass {
		for i, v := range r.vals {
			if v.State == Scored && v.Below {
				f.Below = append(f.Below, finding.Below{Criterion: sc.ids[i], Score: v.Score, Min: sc.min[i]})
			}
		}
	}
	return f
}

// run is the whole run's aggregate, folded from partials in chunk order.
type run struct {
	sc  *schema
	agg *partial
}

func newRun(sc *schema) *run { return &run{sc: sc, agg: newPartial(sc)} }

// fold adds p to the run. Called in chunk order only.
func (u *run) fold(p *partial) {
	a := u.agg
	a.items += p.items
	a.scored += p.scored
	a.passed += p.passed
	a.retrievalMiss += p.retrievalMiss
	a.scoreSum += p.scoreSum
	a.maxSamples = max(a.maxSamples, p.maxSamples)
	for i := range a.crit {
		c, d := &a.crit[i], &p.crit[i]
		c.sum += d.sum
		c.spreadSum += d.spreadSum
		c.spreadN += d.spreadN
		c.scored += d.scored
		c.na += d.na
		c.below += d.below
		c.outvoted += d.outvoted
		for _, id := range d.outvotedIDs {
			if len(c.outvotedIDs) < listedOutvoted {
				c.outvotedIDs = append(c.outvotedIDs, id)
			}
		}
		for j := range c.hist {
			c.hist[j] += d.hist[j]
		}
	}
	a.unscored = append(a.unscored, p.unscored...)
	a.blocking = append(a.blocking, p.blocking...)
	for _, w := range p.warnings {
		if len(a.warnings) < maxWarnings {
			a.warnings = append(a.warnings, w)
		}
	}
	a.warningsN += p.warningsN
}

// report builds the final report.
func (u *run) report(opts ScoreOptions) *Report {
	sc, a := u.sc, u.agg
	rep := &Report{
		Rubric:           RubricRef{Name: sc.rb.Name, Hash: sc.rb.Hash()},
		Items:            a.items,
		Scored:           a.scored,
		Criteria:         make([]CriterionStats, len(sc.ids)),
		BlockingFailures: a.blocking,
	}
	// The warnings, typed; rep.Warn renders their text at the end.
	warns := append([]finding.Finding(nil), a.warnings...)
	if rep.BlockingFailures == nil {
		rep.BlockingFailures = []BlockingFailure{}
	}
	if a.warningsN > len(a.warnings) {
		warns = append(warns, finding.Finding{Kind: finding.MorePassDisagreements, Severity: finding.Warning, Params: finding.Params{Count: a.warningsN - len(a.warnings)}})
	}
	if a.scored > 0 {
		s := a.scoreSum / float64(a.scored)
		pr := float64(a.passed) / float64(a.scored)
		rep.Score, rep.PassRate = &s, &pr
	}
	for i := range sc.ids {
		c := &a.crit[i]
		cr := &sc.rb.Criteria[i]
		st := CriterionStats{ID: cr.ID, Name: cr.Name, Weight: cr.Weight, Scored: c.scored, NA: c.na, BelowMin: c.below, Outvoted: c.outvoted, Histogram: make(map[int]int, len(c.hist))}
		if c.outvoted > 0 && sc.blocking[i] {
			// The majority rule must not hide a failing judging silently.
			warns = append(warns, finding.Finding{Kind: finding.OutvotedFailures, Severity: finding.Warning, Criterion: cr.ID,
				Params: finding.Params{Count: c.outvoted, Items: append([]string(nil), c.outvotedIDs...)}})
		}
		if cr.Continuous {
			st.Bins = make([]Bin, len(c.hist))
			for j, n := range c.hist {
				st.Bins[j] = Bin{Low: cr.BinLow(j), High: cr.BinLow(j + 1), Count: n}
			}
		} else {
			for j, n := range c.hist {
				st.Histogram[cr.Scale.Low+j] = n
			}
		}
		if c.scored > 0 {
			mean := c.sum / float64(c.scored)
			norm := 100 * (mean - sc.low[i]) / sc.span[i]
			st.Mean, st.Normalized = &mean, &norm
		}
		if c.spreadN > 0 {
			sp := c.spreadSum / float64(c.spreadN)
			st.Spread = &sp
		}
		rep.Criteria[i] = st
	}
	if a.maxSamples > 1 {
		rep.MaxSamples = a.maxSamples
	}
	if a.items > 0 {
		rep.RetrievalMiss = RetrievalMiss{Count: a.retrievalMiss, Rate: float64(a.retrievalMiss) / float64(a.items)}
		rate := float64(len(a.unscored)) / float64(a.items)
		rep.Unscored = Unscored{Count: len(a.unscored), Rate: rate, Exceeded: rate > opts.MaxUnscored}
	}
	rep.Unscored.List = a.unscored
	if rep.Unscored.List == nil {
		rep.Unscored.List = []UnscoredItem{}
	}
	rep.Warn(warns...)
	return rep
}

// dupRec is the 16-byte trace an item leaves for duplicate-id detection:
// an 80-bit hash of its id and its position.
type dupRec struct {
	h     uint64
	h2    uint16
	input uint16
	line  uint32
}

func newDupRec(id []byte, input, line int) dupRec {
	h1, h2 := idHash(idKey(id))
	if line > math.MaxUint32 {
		line = math.MaxUint32
	}
	return dupRec{h: h1, h2: h2, input: uint16(input), line: uint32(line)}
}

// idKey is the form of an id that duplicate detection compares: its Unicode
// normalisation form C, so that "é" written precomposed (U+00E9) and
// decomposed (e U+0301), which look the same everywhere they are shown, are
// one id. Ids are already trimmed. An all-ASCII id is its own NFC and is
// returned as is, with no allocation.
func idKey(id []byte) []byte {
	for _, c := range id {
		if c >= utf8.RuneSelf {
			if norm.NFC.IsNormal(id) {
				return id
			}
			return norm.NFC.Bytes(id)
		}
	}
	return id
}

// idHash is FNV-1a (64 bits) plus 16 bits of an independent multiplicative
// hash: 80 bits in all, so among n ids a false match has probability about
// n^2/2^81 (4e-13 for a million ids), and is then re-checked against the
// real ids when the inputs can be re-read.
func idHash(id []byte) (uint64, uint16) {
	h := uint64(14695981039346656037)
	g := uint64(0x9E3779B97F4A7C15)
	for _, c := range id {
		h ^= uint64(c)
		h *= 1099511628211
		g = (g ^ uint64(c)) * 0xff51afd7ed558ccd
		g ^= g >> 32
	}
	return h, uint16(g >> 48)
}

// low packs the fields after h, in sort order.
func (a dupRec) low() uint64 {
	return uint64(a.h2)<<48 | uint64(a.input)<<32 | uint64(a.line)
}

func (a dupRec) less(b dupRec) bool {
	if a.h != b.h {
		return a.h < b.h
	}
	return a.low() < b.low()
}

func (a dupRec) sameID(b dupRec) bool { return a.h == b.h && a.h2 == b.h2 }

// posLess orders records by position in the run.
func (a dupRec) posLess(b dupRec) bool {
	if a.input != b.input {
		return a.input < b.input
	}
	return a.line < b.line
}
