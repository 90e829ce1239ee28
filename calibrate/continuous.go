package calibrate

import (
	"fmt"
	"math"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// DefaultTolerance is how far apart, as a share of a continuous criterion's
// scale range, two scores may be and still count as agreeing: ±10%.
const DefaultTolerance = 0.1

// ContinuousStats are the sufficient statistics of a continuous criterion's
// joined pairs (first rater a, second rater b), from which every figure of
// the criterion is computed: Compare fills them, and reading a report
// recomputes the figures from them, as it does from an integer criterion's
// confusion matrix.
type ContinuousStats struct {
	// Tolerance is the largest |b-a| that counts as agreement, on the
	// criterion's own scale (Options.Tolerance times the scale's range).
	Tolerance float64 `json:"tolerance"`
	// Within counts pairs with |b-a| <= Tolerance; Within2 those with
	// |b-a| <= 2*Tolerance.
	Within  int `json:"within"`
	Within2 int `json:"within_2x"`
	// SumDiff is Σ(b-a) and SumSqDiff Σ(b-a)² over the pairs.
	SumDiff   float64 `json:"sum_diff"`
	SumSqDiff float64 `json:"sum_sq_diff"`
	// Sum is Σv and SumSq Σv² over all 2n values of both raters.
	Sum   float64 `json:"sum"`
	SumSq float64 `json:"sum_sq"`
}

// withinTol reports whether |d| <= tol, allowing for the rounding of
// differences of decimal scores (0.4-0.3 is 0.10000000000000003): a few
// ulps of the scale's range.
func withinTol(d, tol, span float64) bool {
	return math.Abs(d) <= tol+4*span*0x1p-52
}

// continuousAgreement computes a continuous criterion's figures from its
// pairs: the share within the tolerance (read as "exact") and within twice
// it ("adjacent"), Krippendorff's alpha with the interval metric on the raw
// values, and the mean difference. Disagreements are the pairs outside the
// tolerance with the largest |diff|.
func continuousAgreement(c *rubric.Criterion, ps []pair, opts Options, ca *CriterionAgreement) {
	span := float64(c.Scale.High - c.Scale.Low)
	st := &ContinuousStats{Tolerance: opts.Tolerance * span}
	ca.Confusion = Confusion{Levels: []int{}, Counts: [][]int{}}
	for _, p := range ps {
		if p.a.State == gate.NA && p.b.State == gate.NA {
			ca.NABoth++
		}
		if p.a.State != gate.Scored || p.b.State != gate.Scored {
			ca.NAOrMissing++
			continue
		}
		a, b := p.a.Score, p.b.Score
		ca.N++
		d := b - a
		if withinTol(d, st.Tolerance, span) {
			st.Within++
		} else {
			ca.Disagreements = keepTop(ca.Disagreements, Disagreement{ID: p.id, Human: a, Judge: b, Diff: d}, opts.TopDisagreements)
		}
		if withinTol(d, 2*st.Tolerance, span) {
			st.Within2++
		}
		st.SumDiff += d
		st.SumSqDiff += d * d
		st.Sum += a + b
		st.SumSq += a*a + b*b
	}
	ca.Continuous = st
}

// setContinuousFigures computes a continuous criterion's figures from its
// ContinuousStats and counts; the chance-corrected metrics other than
// alpha_interval are left undefined (Value reads them as alpha_interval).
func setContinuousFigures(ca *CriterionAgreement) {
	st := ca.Continuous
	ca.Exact, ca.Adjacent, ca.Kappa, ca.KappaQuadratic, ca.AlphaOrdinal, ca.AlphaInterval, ca.MeanDiff = nil, nil, nil, nil, nil, nil, nil
	if n := ca.N; n > 0 {
		ca.Exact = finite(float64(st.Within) / float64(n))
		ca.Adjacent = finite(float64(st.Within2) / float64(n))
		ca.MeanDiff = finite(st.SumDiff / float64(n))
		ca.AlphaInterval = alphaIntervalStats(n, st.SumSqDiff, st.Sum, st.SumSq)
	}
}

// alphaIntervalStats is Krippendorff's alpha with the interval metric for
// two raters and n pairs with no missing value inside a pair:
//
//	alpha = 1 - (2n-1) Σ(a-b)² / (2n Σ(v-v̄)²)
//
// over the 2n pooled values v (Krippendorff 2011, "Computing Krippendorff's
// alpha-reliability", with D_o = Σ(a-b)²/n and D_e = 2Σ(v-v̄)²/(2n-1)). It is
// nil when undefined: fewer than two pairs, or no variation at all.
func alphaIntervalStats(n int, sumSqDiff, sum, sumSq float64) *float64 {
	if n < 2 {
		return nil
	}
	m := float64(2 * n)
	ss := sumSq - sum*sum/m
	if !(ss > 0) {
		return nil
	}
	return finite(1 - (m-1)*sumSqDiff/(m*ss))
}

// checkContinuous validates a stored criterion's ContinuousStats.
func checkContinuous(c *CriterionAgreement) error {
	st := c.Continuous
	bad := func(f string, a ...any) error {
		return &ReportError{Msg: fmt.Sprintf("criterion %q: ", c.ID) + fmt.Sprintf(f, a...)}
	}
	if len(c.Confusion.Levels) != 0 || len(c.Confusion.Counts) != 0 {
		return bad("a continuous criterion has no confusion matrix")
	}
	for _, v := range []float64{st.Tolerance, st.SumDiff, st.SumSqDiff, st.Sum, st.SumSq} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return bad("continuous figures must be finite numbers")
		}
	}
	if !(st.Tolerance > 0) || st.SumSqDiff < 0 || st.SumSq < 0 {
		return bad("continuous tolerance must be above 0, and the sums of squares not negative")
	}
	if st.Within < 0 || st.Within > st.Within2 || st.Within2 > c.N {
		return bad("continuous counts within %d and within_2x %d are not 0 <= within <= within_2x <= n (%d)", st.Within, st.Within2, c.N)
	}
	return nil
}

// adviseContinuous says what to fix on a continuous criterion that failed.
func adviseContinuous(ca *CriterionAgreement, opts Options, names [2]string) string {
	st := ca.Continuous
	var b strings.Builder
	if ca.Value(opts.Metric) == nil {
		fmt.Fprintf(&b, "Every paired score is the same value, so %s is undefined: add calibration items that should score differently.", opts.Metric)
		return b.String()
	}
	fmt.Fprintf(&b, "%d of %d pairs differ by more than ±%s", ca.N-st.Within, ca.N, score(st.Tolerance))
	if ca.MeanDiff != nil && *ca.MeanDiff != 0 {
		dir := "higher"
		if *ca.MeanDiff < 0 {
			dir = "lower"
		}
		fmt.Fprintf(&b, "; on average the %s scores %s %s", names[1], score(math.Abs(*ca.MeanDiff)), dir)
	}
	b.WriteString(".")
	if len(ca.Disagreements) > 0 {
		parts := make([]string, 0, 3)
		for _, d := range ca.Disagreements[:min(3, len(ca.Disagreements))] {
			parts = append(parts, fmt.Sprintf("%s (%s %s vs %s %s)", d.ID, names[0], score(d.Human), names[1], score(d.Judge)))
		}
		fmt.Fprintf(&b, " Largest: %s.", strings.Join(parts, ", "))
	}
	b.WriteString(" Write anchors with labelled examples at the scores where they part, then re-run calibration on every criterion.")
	return b.String()
}
