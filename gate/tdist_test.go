package gate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// tQuantile975 against the tables (Abramowitz and Stegun, table 26.10).
func TestTQuantile975(t *testing.T) {
	for _, tc := range []struct {
		df   int
		want float64
	}{{1, 12.706205}, {2, 4.302653}, {3, 3.182446}, {9, 2.262157}, {10, 2.228139}, {29, 2.045230}, {49, 2.009575}, {120, 1.979930}, {1000, 1.962339}} {
		if got := tQuantile975(tc.df); math.Abs(got-tc.want) > 1e-5 {
			t.Errorf("t quantile, %d degrees of freedom: %.6f, want %.6f", tc.df, got, tc.want)
		}
	}
	// The tail of the expanded interval: smaller at small n, 2.5% in the
	// limit, and never above it.
	for _, tc := range []struct {
		n    int
		want float64
	}{{10, 0.00855}, {50, 0.02118}, {200, 0.02403}} {
		if got := ExpandedTail(tc.n); math.Abs(got-tc.want) > 5e-5 {
			t.Errorf("expanded tail at %d items: %.5f, want %.5f", tc.n, got, tc.want)
		}
	}
	// Above 1,000 degrees of freedom the expansion takes over from the
	// sums, continuous with them and bounded in time however large df is
	// (t(10,000) = 1.960201 from the tables).
	if a, b := tQuantile975(1000), tQuantile975(1001); a < b || a-b > 1e-5 {
		t.Errorf("t quantile at 1000 and 1001 degrees of freedom: %.9f, %.9f", a, b)
	}
	if got := tQuantile975(10000); math.Abs(got-1.960201) > 1e-6 {
		t.Errorf("t quantile, 10000 degrees of freedom: %.7f, want 1.960201", got)
	}
	if got := tQuantile975(1 << 40); math.Abs(got-z975) > 1e-9 {
		t.Errorf("t quantile, 2^40 degrees of freedom: %.10f, want z975", got)
	}
	prev := 0.0
	for n := 2; n <= 5000; n += 7 {
		tail := ExpandedTail(n)
		if tail < prev || tail >= tail95 {
			t.Fatalf("expanded tail at %d items: %g (at fewer: %g)", n, tail, prev)
		}
		prev = tail
	}
}

// coverage is the share of trials synthetic comparisons of n items, each
// an unchanged run against its baseline (both the items' levels plus
// independent noise: the true change is 0), whose paired 95% interval,
// as the Pairer computes it, covers 0. The seed is fixed: the count is a
// deterministic function of the code.
func coverage(t *testing.T, n, trials int) float64 {
	t.Helper()
	rng := rand.New(rand.NewPCG(24, uint64(n)))
	covered := 0
	for range trials {
		base := make([]ItemScore, n)
		level := make([]float64, n)
		for i := range base {
			level[i] = 40 + 40*rng.Float64()
			base[i] = ItemScore{ID: fmt.Sprintf("q%03d", i), Score: level[i] + 10*rng.NormFloat64()}
		}
		pr := NewPairer(base, 0)
		for i := range base {
			pr.Add(&ItemResult{ID: base[i].ID, Score: level[i] + 10*rng.NormFloat64()})
		}
		p := pr.Result()
		if p.CI95 == nil || p.Interval != IntervalBootstrap {
			t.Fatalf("%d items: interval %v (%s), want a bootstrap interval", n, p.CI95, p.Interval)
		}
		if p.CI95[0] <= 0 && 0 <= p.CI95[1] {
			covered++
		}
	}
	return float64(covered) / float64(trials)
}

// The paired interval covers the true change about 95% of the time at
// small n too. The plain percentile bootstrap covered 89.8% of these
// comparisons at 10 items and 93.5% at 30 (it behaves like ±1.96 plug-in
// standard errors); the expanded percentile bootstrap covers 94-96%.
// With 2,000 comparisons a share's standard error is 0.5%.
func TestPairedIntervalCoverageSmallN(t *testing.T) {
	for _, n := range []int{10, 30} {
		got := coverage(t, n, 2000)
		if got < 0.94 || got > 0.96 {
			t.Errorf("%d items: the paired 95%% interval covered the true change in %.1f%% of 2,000 comparisons, want 94-96%%", n, 100*got)
		}
		t.Logf("%d items: covered %.2f%%", n, 100*got)
	}
}

// The standard error the resolution, the anchor and the attempts use is
// the items' own (the delta method over n-1), not the interval's width
// over a multiple: on 2 items the bootstrap interval is the two items'
// changes and no wider, whatever the noise.
func TestPairedStdErr(t *testing.T) {
	// Two items, baseline 80 and 80, changes -4 and +2 (relative -5% and
	// +2.5%): the mean change is -1.25% and its standard error is the two
	// changes' sample standard deviation over √2: 3.75%.
	pr := NewPairer([]ItemScore{{ID: "a", Score: 80}, {ID: "b", Score: 80}}, 0)
	pr.Add(&ItemResult{ID: "a", Score: 76})
	pr.Add(&ItemResult{ID: "b", Score: 82})
	p := pr.Result()
	if math.Abs(p.se-0.0375) > 1e-12 {
		t.Errorf("2 items: SE %v, want 0.0375", p.se)
	}
	if half := (p.CI95[1] - p.CI95[0]) / 2; half > 0.0376 || p.stdErr(half) != p.se {
		t.Errorf("2 items: half-width %v (never wider than the changes), SE %v", half, p.stdErr(half))
	}
	// On 50 items the items' standard error and the expanded interval's
	// half-width over the multiple it spans agree within a tenth.
	rng := rand.New(rand.NewPCG(5, 5))
	base := make([]ItemScore, 50)
	for i := range base {
		base[i] = ItemScore{ID: fmt.Sprintf("q%02d", i), Score: 60 + 20*rng.Float64()}
	}
	pr = NewPairer(base, 0)
	for i := range base {
		pr.Add(&ItemResult{ID: base[i].ID, Score: base[i].Score + 8*rng.NormFloat64()})
	}
	p = pr.Result()
	half := (p.CI95[1] - p.CI95[0]) / 2
	if r := p.se / (half / p.intervalZ()); r < 0.9 || r > 1.1 {
		t.Errorf("50 items: SE %v against the interval's %v", p.se, half/p.intervalZ())
	}
}
