package calibrate

import (
	"math"
	"testing"

	"github.com/rubricgate/rubricgate/rubric"
)

// confusionOf builds a confusion matrix over scale [lo, hi] from two raters.
func confusionOf(t *testing.T, lo, hi int, a, b []int) *Confusion {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("raters differ in length: %d vs %d", len(a), len(b))
	}
	c := newConfusion(rubric.Scale{Low: lo, High: hi})
	for i := range a {
		if !c.add(a[i], b[i]) {
			t.Fatalf("pair (%d, %d) off scale %d-%d", a[i], b[i], lo, hi)
		}
	}
	return &c
}

// cells builds a confusion matrix from counts over levels lo..
func cells(lo int, counts [][]int) *Confusion {
	c := Confusion{Counts: counts}
	for i := range counts {
		c.Levels = append(c.Levels, lo+i)
	}
	return &c
}

func approx(t *testing.T, name string, got *float64, want float64, tol float64) {
	t.Helper()
	if math.IsNaN(want) {
		if got != nil {
			t.Errorf("%s = %v, want nil (undefined)", name, *got)
		}
		return
	}
	if got == nil {
		t.Errorf("%s = nil, want %v", name, want)
		return
	}
	if math.Abs(*got-want) > tol {
		t.Errorf("%s = %.6f, want %.6f (±%g)", name, *got, want, tol)
	}
}

var undef = math.NaN()

func TestAgreementMetrics(t *testing.T) {
	tests := []struct {
		name   string
		cf     *Confusion
		exact  float64
		adj    float64
		kappa  float64
		kappaQ float64
		alphaO float64
		alphaI float64
	}{
		{
			// Perfect agreement over three levels.
			name: "perfect", cf: confusionOf(t, 1, 5, []int{1, 2, 3, 5}, []int{1, 2, 3, 5}),
			exact: 1, adj: 1, kappa: 1, kappaQ: 1, alphaO: 1, alphaI: 1,
		},
		{
			// Total disagreement on a binary scale: p_o = 0, p_e = 0.5,
			// kappa = -1; alpha: n = 4, o_01 = o_10 = 2, n_0 = n_1 = 2,
			// alpha = 1 - 3*4/8 = -0.5.
			name: "total disagreement", cf: confusionOf(t, 0, 1, []int{0, 1}, []int{1, 0}),
			exact: 0, adj: 1, kappa: -1, kappaQ: -1, alphaO: -0.5, alphaI: -0.5,
		},
		{
			// Both raters used one level only: kappa = 1 by convention,
			// alpha undefined.
			name: "one level only", cf: confusionOf(t, 1, 5, []int{4, 4, 4}, []int{4, 4, 4}),
			exact: 1, adj: 1, kappa: 1, kappaQ: 1, alphaO: undef, alphaI: undef,
		},
		{
			name: "no pairs", cf: confusionOf(t, 1, 5, nil, nil),
			exact: undef, adj: undef, kappa: undef, kappaQ: undef, alphaO: undef, alphaI: undef,
		},
		{
			// Wikipedia "Cohen's kappa" worked example: 50 proposals,
			// yes/yes 20, yes/no 5, no/yes 10, no/no 15: p_o = 0.7,
			// p_e = 0.5, kappa = 0.4. Two levels, so quadratic == unweighted.
			name: "textbook kappa", cf: cells(0, [][]int{{20, 5}, {10, 15}}),
			exact: 0.7, adj: 1, kappa: 0.4, kappaQ: 0.4,
			// alpha: n = 100, o = [[40,15],[15,30]], n0 = 55, n1 = 45,
			// alpha = 1 - 99*30/(2*55*45) = 0.4
			alphaO: 1 - 99.0*30/(2*55*45), alphaI: 1 - 99.0*30/(2*55*45),
		},
		{
			// ml_metrics (Kaggle ASAP) published test: quadratic weighted
			// kappa of [1,2,3,1,2,2,3] vs [1,2,3,1,2,3,2] on 1..3 is 0.75.
			name: "published quadratic kappa", cf: confusionOf(t, 1, 3, []int{1, 2, 3, 1, 2, 2, 3}, []int{1, 2, 3, 1, 2, 3, 2}),
			exact: 5.0 / 7, adj: 1, kappaQ: 0.75,
			// unweighted: rows (2,3,2) cols (2,3,2); p_e = (4+9+4)/49.
			kappa: (5.0/7 - 17.0/49) / (1 - 17.0/49),
			// alpha: n = 14, n_1 = 4, n_2 = 6, n_3 = 4, o_23 = o_32 = 2.
			// Interval: 1 - 13*4 / (2*(4*6*1 + 6*4*1 + 4*4*4)).
			// Ordinal: d_12 = d_23 = (4+6)/2 = 5, d_13 = 14 - 4 = 10:
			// 1 - 13*(4*25) / (2*(24*25 + 24*25 + 16*100)).
			alphaO: 1 - 13.0*100/5600,
			alphaI: 1 - 13.0*4/224,
		},
		{
			// ml_metrics: [1,2,1] vs [1,2,2] on 1..2 gives 0.4.
			name: "published binary kappa", cf: confusionOf(t, 1, 2, []int{1, 2, 1}, []int{1, 2, 2}),
			exact: 2.0 / 3, adj: 1, kappa: 0.4, kappaQ: 0.4,
			// n = 6, o_12 = o_21 = 1, n1 = 3, n2 = 3: 1 - 5*2/18
			alphaO: 1 - 5.0*2/18, alphaI: 1 - 5.0*2/18,
		},
		{
			// Quadratic weights follow the whole scale, unused middle
			// levels included: 1 vs 2 is one level apart, 2 vs 5 three.
			// sum(w*O) = 1/16; sum(w*E) = (2*2*1 + 2*1*16 + 1*1*1 + 1*1*9
			// + 1*1*16 + 1*2*9) / 4 / 16 = 20/16 -> 0.95 (weights over
			// the used levels 1, 2, 5 only would give 0.8).
			name: "unused middle levels", cf: confusionOf(t, 1, 5, []int{1, 2, 5, 1}, []int{2, 2, 5, 1}),
			exact: 0.75, adj: 1, kappaQ: 0.95,
			kappa: (0.75 - 5.0/16) / (1 - 5.0/16),
			// n_1 = 3, n_2 = 3, n_5 = 2, o_12 = o_21 = 1. Interval:
			// 1 - 7*2 / (2*(9*1 + 6*16 + 6*9)). Ordinal: d_12 = 3,
			// d_15 = 8 - 2.5, d_25 = 5 - 2.5: 1 - 7*18 / (2*(9*9 +
			// 6*30.25 + 6*6.25)).
			alphaO: 1 - 126.0/600, alphaI: 1 - 14.0/318,
		},
		{
			// Unused levels at the ends change nothing: (k-1)^2 cancels
			// and they add no expected disagreement.
			name: "unused end levels", cf: confusionOf(t, 1, 5, []int{1, 2, 3, 1, 2, 2, 3}, []int{1, 2, 3, 1, 2, 3, 2}),
			exact: 5.0 / 7, adj: 1, kappaQ: 0.75,
			kappa:  (5.0/7 - 17.0/49) / (1 - 17.0/49),
			alphaO: 1 - 13.0*100/5600,
			alphaI: 1 - 13.0*4/224,
		},
		{
			// Adjacent counts |a-b| <= 1; 1 vs 5 is far in every metric.
			name: "adjacent", cf: confusionOf(t, 1, 5, []int{1, 2, 3, 5}, []int{2, 2, 5, 1}),
			exact: 0.25, adj: 0.5, kappa: undef, kappaQ: undef, alphaO: undef, alphaI: undef,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			approx(t, "exact", exactAgreement(tt.cf), tt.exact, 1e-12)
			approx(t, "adjacent", adjacentAgreement(tt.cf), tt.adj, 1e-12)
			if tt.name == "adjacent" {
				return // only the agreement shares are hand-computed here
			}
			approx(t, "kappa", cohenKappa(tt.cf, unweighted), tt.kappa, 1e-9)
			approx(t, "kappa_quadratic", cohenKappa(tt.cf, quadratic), tt.kappaQ, 1e-9)
			approx(t, "alpha_ordinal", alphaPairs(tt.cf, ordinal), tt.alphaO, 1e-9)
			approx(t, "alpha_interval", alphaPairs(tt.cf, interval), tt.alphaI, 1e-9)
		})
	}
}

// krippendorff2011 is the reliability data of Krippendorff, "Computing
// Krippendorff's Alpha-Reliability" (2011), section C: 4 observers (rows) x
// 12 units (columns), 0 for a missing value.
var krippendorff2011 = [][]int{
	{1, 2, 3, 3, 2, 1, 4, 1, 2, 0, 0, 0},
	{1, 2, 3, 3, 2, 2, 4, 1, 2, 5, 0, 3},
	{0, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 0},
	{1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, 0},
}

// unitsOf turns an observers x units matrix (0 = missing) into units.
func unitsOf(m [][]int) [][]int {
	units := make([][]int, len(m[0]))
	for _, row := range m {
		for u, v := range row {
			if v != 0 {
				units[u] = append(units[u], v)
			}
		}
	}
	return units
}

func TestKrippendorffPublished(t *testing.T) {
	levels := []int{1, 2, 3, 4, 5}
	binA := []int{0, 1, 0, 0, 0, 0, 0, 0, 1, 0}
	binB := []int{1, 1, 1, 0, 0, 1, 0, 0, 0, 0}
	var binary [][]int
	for i := range binA {
		binary = append(binary, []int{binA[i], binB[i]})
	}
	tests := []struct {
		name   string
		units  [][]int
		levels []int
		lv     alphaLevel
		want   float64
	}{
		// Section C: nominal alpha = 0.743; the same data as ordinal
		// 0.815 and as interval 0.849.
		{"4 observers nominal", unitsOf(krippendorff2011), levels, nominal, 0.743},
		{"4 observers ordinal", unitsOf(krippendorff2011), levels, ordinal, 0.815},
		{"4 observers interval", unitsOf(krippendorff2011), levels, interval, 0.849},
		// Section B: two observers, binary data, 10 units: alpha = 0.095.
		{"2 observers binary", binary, []int{0, 1}, nominal, 0.095},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			approx(t, "alpha", krippendorffAlpha(tt.units, tt.levels, tt.lv), tt.want, 0.0005)
		})
	}
	// Exact values from the coincidence matrices: nominal, n = 40 pairable
	// values with n_c = 9, 13, 10, 5, 3 and 8 off-diagonal coincidences:
	// 1 - 39*8 / (40^2 - 384); binary, n = 20, n_0 = 14, n_1 = 6,
	// o_01 = o_10 = 4: 1 - 19*8 / (2*14*6).
	approx(t, "nominal exact", krippendorffAlpha(unitsOf(krippendorff2011), levels, nominal), 1-39.0*8/1216, 1e-12)
	approx(t, "binary exact", krippendorffAlpha(binary, []int{0, 1}, nominal), 1-19.0*8/(2*14*6), 1e-12)
}

func TestSpearman(t *testing.T) {
	tests := []struct {
		name string
		x, y []float64
		want float64
		ok   bool
	}{
		{"perfect", []float64{1, 2, 3, 4}, []float64{10, 20, 30, 40}, 1, true},
		{"reverse", []float64{1, 2, 3, 4}, []float64{4, 3, 2, 1}, -1, true},
		{"monotone non-linear", []float64{1, 2, 3, 4, 5}, []float64{1, 4, 9, 16, 100}, 1, true},
		// Ties: x ranks 1.5,1.5,3,4; y ranks 1,2,3,4 -> Pearson of ranks.
		{"ties", []float64{5, 5, 7, 9}, []float64{1, 2, 3, 4}, 0.9486832980505138, true},
		// No ties: 1 - 6*sum(d^2)/(n(n^2-1)) with sum(d^2) = 4.
		{"hand", []float64{1, 2, 3, 4, 5}, []float64{2, 1, 4, 3, 5}, 1 - 6.0*4/(5*24), true},
		{"no variation", []float64{1, 1, 1}, []float64{1, 2, 3}, 0, false},
		{"too short", []float64{1}, []float64{1}, 0, false},
		{"length mismatch", []float64{1, 2}, []float64{1}, 0, false},
		{"nan", []float64{1, math.NaN()}, []float64{1, 2}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Spearman(tt.x, tt.y)
			if ok != tt.ok {
				t.Fatalf("ok = %v, want %v", ok, tt.ok)
			}
			if ok && math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("rho = %v, want %v", got, tt.want)
			}
		})
	}
}

func scaleOf(levels int) rubric.Scale { return rubric.Scale{Low: 1, High: levels} }

// TestAlphaPairsMatchesGeneralForm checks the confusion-matrix shortcut
// against the general units form on the same pairs.
func TestAlphaPairsMatchesGeneralForm(t *testing.T) {
	a := []int{1, 2, 3, 4, 5, 5, 2, 3, 1, 4, 4}
	b := []int{1, 3, 3, 5, 5, 4, 2, 1, 2, 4, 2}
	cf := confusionOf(t, 1, 5, a, b)
	var units [][]int
	for i := range a {
		units = append(units, []int{a[i], b[i]})
	}
	for _, lv := range []alphaLevel{nominal, ordinal, interval} {
		want := krippendorffAlpha(units, cf.Levels, lv)
		approx(t, "alpha", alphaPairs(cf, lv), *want, 1e-12)
	}
}
