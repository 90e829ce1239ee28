package gate

import (
	"math"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/rubric"
)

// maxWarnings caps the pass-column disagreements listed in a report.
const maxWarnings = 20

// Scorer is a rubric prepared for scoring: the weighted-mean arithmetic of
// an item, the thresholds, and the run's aggregate (Tally, Run). The readers
// (results/native) decode and validate items; everything that turns values
// into scores, passes and the report is here.
type Scorer struct {
	rb       *rubric.Rubric
	ids      []string
	weight   []float64
	low      []float64
	span     []float64 // high - low
	min      []float64
	blocking []bool
	cont     []bool // continuous
	// levels is the number of histogram bins: the scale's levels, or
	// rubric.ContinuousBins.
	levels []int
	// free holds the buffers of kept items released by the tallies, for
	// the next ones (see Tally.Release).
	free keptFree
}

// NewScorer prepares rb for scoring. The reader has checked rb (criteria,
// non-empty scales, finite non-negative weights).
func NewScorer(rb *rubric.Rubric) *Scorer {
	n := len(rb.Criteria)
	sc := &Scorer{rb: rb, ids: make([]string, n), weight: make([]float64, n), low: make([]float64, n),
		span: make([]float64, n), min: make([]float64, n), blocking: make([]bool, n),
		cont: make([]bool, n), levels: make([]int, n)}
	for i := range rb.Criteria {
		c := &rb.Criteria[i]
		sc.ids[i] = c.ID
		sc.weight[i] = c.Weight
		sc.low[i] = float64(c.Scale.Low)
		sc.span[i] = float64(c.Scale.High - c.Scale.Low)
		sc.cont[i] = c.Continuous
		sc.levels[i] = c.Scale.Levels()
		if c.Continuous {
			sc.levels[i] = rubric.ContinuousBins
		}
		if c.Critical != nil {
			sc.min[i] = *c.Critical
			sc.blocking[i] = c.Blocking
		}
	}
	return sc
}

// Judged is one decoded, validated item in the form scoring reads it. The
// byte slices may alias the reader's buffers: they are only read during
// Tally.Add, which copies what it keeps.
type Judged struct {
	// ID is the item's id; Line the line it was read from, ItemLine the line
	// an unscored item is reported at (0 when the input has no lines).
	ID             []byte
	Line, ItemLine int
	// Values are indexed like the rubric's criteria.
	Values []Value
	// Unscored is set when the item carries a judge error (Error, not blank).
	Unscored bool
	Error    []byte
	// Reasoning and Notes are the judge's justification and a reviewer's
	// notes; Why, when set, holds the per-criterion reasoning.
	Reasoning, Notes []byte
	Why              [][]byte
	// JudgeModel is the item's judge model (read only when results are kept).
	JudgeModel string
	// Length is the answer length, -1 when unknown.
	Length int
	// Pass is the item's own pass column: 1 yes, 0 no, -1 absent.
	Pass int8
	// RetrievalMiss is the review sheet's retrieval_miss tag.
	RetrievalMiss bool
	// Samples is the number of judgings the values sum up.
	Samples int
	// InputHash binds the item to its task (the results' input_hash);
	// zero when the results carry none.
	InputHash InputHash
	// Answers is the number of answer samples (regenerated answers) the
	// values are the means of (0 or 1: one answer); AnswerVar is the
	// variance of the answers' weighted scores (points², n - 1).
	Answers   int
	AnswerVar float64
	// AnswerScores are the answers' own weighted scores (0-100), in input
	// order, when there are two or more (may alias the reader's buffers).
	AnswerScores []float64
}

// Weighted applies the weighted-mean arithmetic to one item's values:
// norm = (s - low)/(high - low); score = 100 x sum(w x norm) / sum(w) over
// the scored (not na, not missing) criteria. failed reports whether a scored
// critical criterion is below its minimum (na and missing pass their gate).
// Nothing is rounded. The caller has checked that sum(w) > 0.
func (sc *Scorer) Weighted(vals []Value) (score float64, failed bool) {
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
func (sc *Scorer) bin(i int, v float64) int {
	if d := v - sc.low[i]; !sc.cont[i] && d == float64(int(d)) {
		return int(d) // a level: the common case
	}
	if sc.cont[i] {
		b := int(math.Floor(float64(sc.levels[i]) * (v - sc.low[i]) / sc.span[i]))
		return min(max(b, 0), sc.levels[i]-1)
	}
	return min(max(int(math.Floor(v-sc.low[i]+0.5)), 0), sc.levels[i]-1)
}

// Tally is the aggregate of a part of a run (the readers keep one per
// chunk), folded into the Run in input order so the floating-point sums do
// not depend on scheduling.
type Tally struct {
	sc                                   *Scorer
	items, scored, passed, retrievalMiss int
	maxSamples, maxAnswers               int
	scoreSum                             float64
	crit                                 []critAgg
	unscored                             []UnscoredItem
	blocking                             []BlockingFailure
	warnings                             []finding.Finding
	warningsN                            int
	// kept holds the items added with keep (see Each), nil until one is.
	kept *kept
}

// NewTally returns an empty tally.
func (sc *Scorer) NewTally() *Tally {
	p := &Tally{sc: sc, crit: make([]critAgg, len(sc.ids))}
	for i := range p.crit {
		p.crit[i].hist = make([]int, sc.levels[i])
	}
	return p
}

// Add scores one validated item of file into the tally. keep keeps what
// its ItemResult needs, delivered by Each.
func (p *Tally) Add(r *Judged, file string, keep bool) {
	sc := p.sc
	p.items++
	if r.RetrievalMiss {
		p.retrievalMiss++
	}
	if r.Unscored {
		p.unscored = append(p.unscored, UnscoredItem{ID: string(r.ID), Error: string(r.Error), File: file, Line: r.ItemLine})
		// Blocking gates hold on an unscored item too (see decoder.finish),
		// and fail closed when it carries no value for them: an answer the
		// judge could not score must not pass a safety gate unseen.
		for i, v := range r.Values {
			switch {
			case !sc.blocking[i]:
			case v.State == Scored && v.Below:
				p.blocking = append(p.blocking, BlockingFailure{Item: string(r.ID), Criterion: sc.ids[i], Score: v.Score,
					Reasoning: "[the item also carries a judge error: " + string(r.Error) + "] " + string(firstNonBlank(r.Reasoning, r.Notes))})
			case v.State != Scored:
				p.blocking = append(p.blocking, BlockingFailure{Item: string(r.ID), Criterion: sc.ids[i], Unscored: true,
					Reasoning: strings.TrimSpace("[no score: the item carries a judge error: " + string(r.Error) + "] " + string(firstNonBlank(r.Reasoning, r.Notes)))})
			}
		}
		if keep {
			p.keep(r, 0, false, r.Error)
		}
		return
	}
	score, failed := sc.Weighted(r.Values)
	pass := score >= sc.rb.Threshold-thresholdSlack && !failed
	p.scored++
	if r.Samples > p.maxSamples {
		p.maxSamples = r.Samples
	}
	p.maxAnswers = max(p.maxAnswers, r.Answers)
	p.scoreSum += score
	if pass {
		p.passed++
	}
	if keep {
		p.keep(r, score, pass, firstNonBlank(r.Reasoning, r.Notes))
	}
	for i, v := range r.Values {
		c := &p.crit[i]
		switch v.State {
		case NA:
			c.na++
			if keep {
				p.keepCrit(i, true)
			}
		case Scored:
			c.sum += v.Score
			c.scored++
			c.hist[sc.bin(i, v.Score)]++
			if v.N > 1 && r.Answers <= 1 { // the judge's spread: judge samples only
				c.spreadSum += v.Spread
				c.spreadN++
			}
			if v.Outvoted {
				c.outvoted++
				if len(c.outvotedIDs) < listedOutvoted {
					c.outvotedIDs = append(c.outvotedIDs, string(r.ID))
				}
			}
			if v.Below {
				c.below++
				if keep {
					p.keepCrit(i, false)
				}
				if sc.blocking[i] {
					why := r.Reasoning
					if r.Why != nil && r.Why[i] != nil {
						why = r.Why[i]
					}
					if len(why) == 0 {
						why = r.Notes
					}
					p.blocking = append(p.blocking, BlockingFailure{Item: string(r.ID), Criterion: sc.ids[i], Score: v.Score, Reasoning: string(why)})
				}
			}
		}
	}
	if r.Pass >= 0 && (r.Pass == 1) != pass {
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
func disagreement(sc *Scorer, r *Judged, file string, score float64, pass bool) finding.Finding {
	f := finding.Finding{Kind: finding.PassColumnDisagrees, Severity: finding.Warning, Item: string(r.ID), File: file, Line: r.Line,
		Params: finding.Params{RowParams: finding.RowParams{ColumnPass: r.Pass == 1, Score: score, Threshold: sc.rb.Threshold}}}
	if !pass {
		for i, v := range r.Values {
			if v.State == Scored && v.Below {
				f.Below = append(f.Below, finding.Below{Criterion: sc.ids[i], Score: v.Score, Min: sc.min[i]})
			}
		}
	}
	return f
}

// Run is the whole run's aggregate, folded from tallies in input order.
type Run struct {
	sc  *Scorer
	agg *Tally
}

// NewRun returns an empty run.
func (sc *Scorer) NewRun() *Run { return &Run{sc: sc, agg: sc.NewTally()} }

// Items is the number of items folded in so far.
func (u *Run) Items() int { return u.agg.items }

// Fold adds p to the run. Call it in input order only.
func (u *Run) Fold(p *Tally) {
	a := u.agg
	a.items += p.items
	a.scored += p.scored
	a.passed += p.passed
	a.retrievalMiss += p.retrievalMiss
	a.scoreSum += p.scoreSum
	a.maxSamples = max(a.maxSamples, p.maxSamples)
	a.maxAnswers = max(a.maxAnswers, p.maxAnswers)
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

// Report builds the run's report; maxUnscored is the share of unscored
// items the run tolerates (0-1).
func (u *Run) Report(maxUnscored float64) *Report {
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
	if a.maxAnswers > 1 {
		rep.MaxAnswers = a.maxAnswers
	}
	if a.items > 0 {
		rep.RetrievalMiss = RetrievalMiss{Count: a.retrievalMiss, Rate: float64(a.retrievalMiss) / float64(a.items)}
		rate := float64(len(a.unscored)) / float64(a.items)
		rep.Unscored = Unscored{Count: len(a.unscored), Rate: rate, Exceeded: rate > maxUnscored}
	}
	rep.Unscored.List = a.unscored
	if rep.Unscored.List == nil {
		rep.Unscored.List = []UnscoredItem{}
	}
	rep.Warn(warns...)
	return rep
}
