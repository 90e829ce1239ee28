package calibrate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// Metric names the agreement figure a criterion must reach to pass.
type Metric string

// Metrics.
const (
	// MetricExact is the share of pairs with the same score (the default).
	MetricExact Metric = "exact"
	// MetricAdjacent is the share of pairs at most one level apart.
	MetricAdjacent Metric = "adjacent"
	// MetricKappa is Cohen's kappa, unweighted.
	MetricKappa Metric = "kappa"
	// MetricKappaQuadratic is Cohen's kappa with quadratic weights.
	MetricKappaQuadratic Metric = "kappa_quadratic"
	// MetricAlpha is Krippendorff's alpha with the ordinal metric.
	MetricAlpha Metric = "alpha"
	// MetricAlphaInterval is Krippendorff's alpha with the interval metric.
	MetricAlphaInterval Metric = "alpha_interval"
)

// DefaultMinAgreement is the calibration target per criterion: at least
// 75% agreement on each dimension.
const DefaultMinAgreement = 0.75

// DefaultTopDisagreements is how many disagreements a criterion lists.
const DefaultTopDisagreements = 10

// ParseMetric parses a metric name: exact, adjacent, kappa,
// kappa_quadratic, alpha (or alpha_ordinal) and alpha_interval.
func ParseMetric(s string) (Metric, error) {
	switch m := Metric(strings.ToLower(strings.TrimSpace(s))); m {
	case MetricExact, MetricAdjacent, MetricKappa, MetricKappaQuadratic, MetricAlpha, MetricAlphaInterval:
		return m, nil
	case "alpha_ordinal":
		return MetricAlpha, nil
	}
	return "", fmt.Errorf("unknown agreement metric %q: want exact, adjacent, kappa, kappa_quadratic, alpha (ordinal) or alpha_interval", s)
}

// Rating is one item's scores from one rater (a human review sheet, a judge
// run, or one reviewer's row), as read from results.
type Rating struct {
	ID string
	// File and Line locate the item in its input.
	File string
	Line int
	// Values are indexed like the rubric's Criteria; a short or nil slice
	// leaves the remaining criteria Missing.
	Values []gate.Value
	// Reviewer names the reviewer of a review-sheet row.
	Reviewer string
	// Notes are a reviewer's notes or, for a judge, its reasoning.
	Notes string
	// JudgeModel is the item's judge_model field, if any.
	JudgeModel string
	// Length is the answer length in characters, -1 when unknown.
	Length int
	// Error is the judge's error for an unscored item (all criteria Missing).
	Error string
}

// value returns the rating's value for criterion i.
func (r *Rating) value(i int) gate.Value {
	if r.Error != "" || i >= len(r.Values) {
		return gate.Value{State: gate.Missing}
	}
	return r.Values[i]
}

// where is "file:line" for messages.
func (r *Rating) where() string {
	if r.Line > 0 {
		return fmt.Sprintf("%s:%d", r.File, r.Line)
	}
	return r.File
}

// Options tune Compare and CompareReviewers.
type Options struct {
	// Metric decides whether a criterion passes (default MetricExact).
	Metric Metric
	// MinAgreement is the minimum the metric must reach (default 0.75).
	MinAgreement float64
	// TopDisagreements caps each criterion's disagreement list (default 10).
	TopDisagreements int
}

// check rejects options no report could honour.
func (o Options) check() error {
	if _, err := ParseMetric(string(o.Metric)); err != nil {
		return err
	}
	if o.MinAgreement > 1 {
		return fmt.Errorf("minimum agreement %g is above 1: give a share such as 0.75", o.MinAgreement)
	}
	return nil
}

func (o Options) withDefaults() Options {
	if o.Metric == "" {
		o.Metric = MetricExact
	}
	if o.MinAgreement <= 0 {
		o.MinAgreement = DefaultMinAgreement
	}
	if o.TopDisagreements <= 0 {
		o.TopDisagreements = DefaultTopDisagreements
	}
	return o
}

// RubricRef names a rubric and its hash.
type RubricRef = gate.RubricRef

// Report is a calibration report: what `rubricgate calibrate --json` prints.
// Numbers are unrounded; undefined metrics are null.
type Report struct {
	Rubric       RubricRef `json:"rubric"`
	Metric       Metric    `json:"metric"`
	MinAgreement float64   `json:"min_agreement"`
	// Criteria are per-criterion figures, in rubric order.
	Criteria []CriterionAgreement `json:"criteria"`
	// OnlyInHuman and OnlyInJudge list ids found on one side only, sorted.
	OnlyInHuman []string `json:"only_in_human"`
	OnlyInJudge []string `json:"only_in_judge"`
	// Passed is true when every criterion passes.
	Passed bool `json:"passed"`
}

// CriterionAgreement is the agreement of two raters on one criterion. The
// first rater (human, or reviewer A) gives the rows of the confusion matrix,
// the second (judge, or reviewer B) its columns.
type CriterionAgreement struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// N counts pairs where both sides have an integer score.
	N int `json:"n"`
	// NAOrMissing counts joined items left out because a side is `na`, has
	// no value, or is a judge error.
	NAOrMissing int `json:"na_or_missing"`
	// NABoth counts joined items both raters scored `na` (part of
	// NAOrMissing); NotApplicable is recomputed from it.
	NABoth         int      `json:"na_both"`
	Exact          *float64 `json:"exact"`
	Adjacent       *float64 `json:"adjacent"`
	Kappa          *float64 `json:"kappa"`
	KappaQuadratic *float64 `json:"kappa_quadratic"`
	AlphaOrdinal   *float64 `json:"alpha_ordinal"`
	AlphaInterval  *float64 `json:"alpha_interval"`
	// MeanDiff is the mean signed difference, second minus first rater
	// (judge minus human).
	MeanDiff  *float64  `json:"mean_diff"`
	Confusion Confusion `json:"confusion"`
	// Disagreements are the pairs with the largest |diff| (ties by id).
	Disagreements []Disagreement `json:"disagreements"`
	Pass          bool           `json:"pass"`
	// NotApplicable is true when both raters said `na` on every joined item
	// (citation in a system that does not cite): there is nothing to agree
	// on, so the criterion passes with null metrics instead of failing.
	NotApplicable bool `json:"not_applicable"`
	// Advice says what to fix when the criterion fails; empty when it passes.
	Advice string `json:"advice"`
	// Skipped says why the criterion was not calibrated (a continuous
	// scale has no levels to agree on); it then passes with null metrics.
	Skipped string `json:"skipped,omitempty"`
}

// Value returns the criterion's figure for metric m (nil when undefined).
func (c *CriterionAgreement) Value(m Metric) *float64 {
	switch m {
	case MetricExact:
		return c.Exact
	case MetricAdjacent:
		return c.Adjacent
	case MetricKappa:
		return c.Kappa
	case MetricKappaQuadratic:
		return c.KappaQuadratic
	case MetricAlpha:
		return c.AlphaOrdinal
	case MetricAlphaInterval:
		return c.AlphaInterval
	}
	return nil
}

// Disagreement is one item scored differently by the two raters.
type Disagreement struct {
	ID    string `json:"id"`
	Human int    `json:"human"`
	Judge int    `json:"judge"`
	// Diff is Judge - Human.
	Diff int `json:"diff"`
}

// LevelPair is one off-diagonal cell of a confusion matrix.
type LevelPair struct {
	Human, Judge, Count int
}

// DuplicateError is an id found twice on one side (or, for a review sheet,
// scored twice by the same reviewer).
type DuplicateError struct {
	ID string
	// Reviewer is set in reviewers mode.
	Reviewer string
	// First and Second are "file:line" of both occurrences.
	First, Second string
}

func (e *DuplicateError) Error() string {
	if e.Reviewer != "" {
		return fmt.Sprintf("%s: item %q scored twice by reviewer %q (first at %s)", e.Second, e.ID, e.Reviewer, e.First)
	}
	return fmt.Sprintf("%s: duplicate item id %q (first at %s)", e.Second, e.ID, e.First)
}

// humanJudge names the two sides of a calibration in advice.
var humanJudge = [2]string{"human", "judge"}

// pair is one joined item's two values on one criterion.
type pair struct {
	id   string
	a, b gate.Value
}

// Compare joins human and judge ratings of the same items on id and measures
// their agreement per criterion. A duplicate id on either side is a
// *DuplicateError naming both places; ids found on one side only are
// reported, not errors.
func Compare(rb *rubric.Rubric, human, judge []Rating, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	if err := opts.check(); err != nil {
		return nil, err
	}
	if rb == nil {
		return nil, fmt.Errorf("calibrate: no rubric")
	}
	hIdx, err := indexByID(human)
	if err != nil {
		return nil, fmt.Errorf("human ratings: %w", err)
	}
	jIdx, err := indexByID(judge)
	if err != nil {
		return nil, fmt.Errorf("judge ratings: %w", err)
	}
	rep := &Report{
		Rubric:       RubricRef{Name: rb.Name, Hash: rb.Hash()},
		Metric:       opts.Metric,
		MinAgreement: opts.MinAgreement,
		OnlyInHuman:  []string{},
		OnlyInJudge:  []string{},
	}
	type joined struct{ h, j *Rating }
	var both []joined
	for i := range human {
		h := &human[i]
		if k, ok := jIdx[h.ID]; ok {
			both = append(both, joined{h, &judge[k]})
		} else {
			rep.OnlyInHuman = append(rep.OnlyInHuman, h.ID)
		}
	}
	for i := range judge {
		if _, ok := hIdx[judge[i].ID]; !ok {
			rep.OnlyInJudge = append(rep.OnlyInJudge, judge[i].ID)
		}
	}
	sort.Strings(rep.OnlyInHuman)
	sort.Strings(rep.OnlyInJudge)
	rep.Passed = true
	for ci := range rb.Criteria {
		ps := make([]pair, len(both))
		for k, p := range both {
			ps[k] = pair{id: p.h.ID, a: p.h.value(ci), b: p.j.value(ci)}
		}
		ca := agreement(&rb.Criteria[ci], ps, opts, humanJudge)
		rep.Passed = rep.Passed && ca.Pass
		rep.Criteria = append(rep.Criteria, ca)
	}
	return rep, nil
}

// indexByID maps ids to their index, failing on a duplicate.
func indexByID(rs []Rating) (map[string]int, error) {
	idx := make(map[string]int, len(rs))
	for i := range rs {
		if k, ok := idx[rs[i].ID]; ok {
			return nil, &DuplicateError{ID: rs[i].ID, First: rs[k].where(), Second: rs[i].where()}
		}
		idx[rs[i].ID] = i
	}
	return idx, nil
}

// level is the scale level of a score: the nearest integer, halves up.
func level(s float64) int { return int(math.Floor(s + 0.5)) }

// agreement computes every figure of one criterion over its pairs.
func agreement(c *rubric.Criterion, ps []pair, opts Options, names [2]string) CriterionAgreement {
	ca := CriterionAgreement{ID: c.ID, Name: c.Name, Disagreements: []Disagreement{}}
	if c.Continuous {
		// Agreement statistics here compare levels; a continuous score has
		// none. Binning it would invent levels the raters never chose.
		ca.Skipped = "continuous scale: calibration compares integer levels, so this criterion is not calibrated"
		ca.Confusion = Confusion{Levels: []int{}, Counts: [][]int{}}
		ca.Pass = true
		return ca
	}
	ca.Confusion = newConfusion(c.Scale)
	var naBoth int
	for _, p := range ps {
		if p.a.State == gate.NA && p.b.State == gate.NA {
			naBoth++
		}
		// An item judged several times has the mean of its samples, which
		// counts at the nearest level (halves up).
		a, b := level(p.a.Score), level(p.b.Score)
		if p.a.State != gate.Scored || p.b.State != gate.Scored ||
			!ca.Confusion.add(a, b) {
			ca.NAOrMissing++
			continue
		}
		ca.N++
		d := b - a
		if d != 0 {
			ca.Disagreements = keepTop(ca.Disagreements, Disagreement{ID: p.id, Human: a, Judge: b, Diff: d}, opts.TopDisagreements)
		}
	}
	ca.NABoth = naBoth
	setFigures(&ca, opts.Metric, opts.MinAgreement)
	if !ca.Pass {
		ca.Advice = advise(c, &ca, opts, names)
	}
	return ca
}

// setFigures computes every figure of a criterion from its confusion
// matrix and counts (N, NAOrMissing, NABoth): the metrics, the mean
// difference, NotApplicable and Pass. Compare uses it, and reading a report
// uses it to check the stored figures.
func setFigures(ca *CriterionAgreement, m Metric, minAgreement float64) {
	cf := &ca.Confusion
	ca.Exact = exactAgreement(cf)
	ca.Adjacent = adjacentAgreement(cf)
	ca.Kappa = cohenKappa(cf, unweighted)
	ca.KappaQuadratic = cohenKappa(cf, quadratic)
	ca.AlphaOrdinal = alphaPairs(cf, ordinal)
	ca.AlphaInterval = alphaPairs(cf, interval)
	ca.MeanDiff = nil
	if n := cf.total(); n > 0 {
		sum := 0
		for i, row := range cf.Counts {
			for j, v := range row {
				sum += v * (cf.Levels[j] - cf.Levels[i])
			}
		}
		ca.MeanDiff = finite(float64(sum) / float64(n))
	}
	v := ca.Value(m)
	ca.NotApplicable = ca.N == 0 && ca.NABoth > 0 && ca.NABoth == ca.NAOrMissing
	ca.Pass = ca.NotApplicable || (v != nil && *v >= minAgreement)
}

// worse orders disagreements: larger |diff| first, then id ascending (ids
// are unique on each side, so the order is total).
func worse(a, b Disagreement) bool {
	if abs(a.Diff) != abs(b.Diff) {
		return abs(a.Diff) > abs(b.Diff)
	}
	return a.ID < b.ID
}

// keepTop inserts d into top, kept sorted by worse and capped at n.
func keepTop(top []Disagreement, d Disagreement, n int) []Disagreement {
	if len(top) == n {
		if !worse(d, top[n-1]) {
			return top
		}
		top = top[:n-1]
	}
	i := len(top)
	top = append(top, d)
	for ; i > 0 && worse(d, top[i-1]); i-- {
		top[i] = top[i-1]
	}
	top[i] = d
	return top
}

// TopPairs returns the n off-diagonal cells of a confusion matrix with the
// most pairs, ties broken by the larger distance then by levels ascending.
func TopPairs(cf *Confusion, n int) []LevelPair {
	var out []LevelPair
	for i, row := range cf.Counts {
		for j, v := range row {
			if i != j && v > 0 {
				out = append(out, LevelPair{Human: cf.Levels[i], Judge: cf.Levels[j], Count: v})
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool {
		x, y := out[a], out[b]
		if x.Count != y.Count {
			return x.Count > y.Count
		}
		if dx, dy := abs(x.Human-x.Judge), abs(y.Human-y.Judge); dx != dy {
			return dx > dy
		}
		if x.Human != y.Human {
			return x.Human < y.Human
		}
		return x.Judge < y.Judge
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// ambiguousLevels are the levels next to each end of a scale of five or more
// levels (2 and 4 on a 1-5 scale): the most ambiguous score points, to be
// fixed by anchors and labelled examples.
func ambiguousLevels(s rubric.Scale) []int {
	if s.Levels() < 5 {
		return nil
	}
	return []int{s.Low + 1, s.High - 1}
}

// advise explains a failing criterion: the level pairs that disagree most
// and what to change in the rubric.
func advise(c *rubric.Criterion, ca *CriterionAgreement, opts Options, names [2]string) string {
	if ca.N == 0 {
		if ca.NAOrMissing > 0 {
			return "No item has a score from both sides (every pair is na or missing): nothing to calibrate. Score this criterion on the calibration items, or drop it from the rubric if it never applies."
		}
		return "No item was scored by both sides: nothing to calibrate."
	}
	if ca.Value(opts.Metric) == nil {
		return fmt.Sprintf("Every paired score is the same level, so %s is undefined: add calibration items that should score at other levels.", opts.Metric)
	}
	top := TopPairs(&ca.Confusion, 3)
	parts := make([]string, len(top))
	involved := map[int]bool{}
	for i, p := range top {
		parts[i] = fmt.Sprintf("%s %d vs %s %d (%d)", names[0], p.Human, names[1], p.Judge, p.Count)
		involved[p.Human] = true
		involved[p.Judge] = true
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Most disagreement: %s.", strings.Join(parts, ", "))
	amb := ambiguousLevels(c.Scale)
	hit := false
	for _, l := range amb {
		hit = hit || involved[l]
	}
	if hit {
		fmt.Fprintf(&b, " Write anchors and labelled examples for levels %d and %d (the most ambiguous score points) into the rubric and the judge prompt.", amb[0], amb[1])
	} else {
		ls := make([]int, 0, len(involved))
		for l := range involved {
			ls = append(ls, l)
		}
		sort.Ints(ls)
		strs := make([]string, len(ls))
		for i, l := range ls {
			strs[i] = fmt.Sprint(l)
		}
		fmt.Fprintf(&b, " Sharpen the anchors of levels %s and add a labelled example for each.", strings.Join(strs, ", "))
	}
	b.WriteString(" Then re-run calibration on every criterion.")
	return b.String()
}
