package gate

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
)

// The drift rule: a run max-drift or more below the anchor blocks when
// the drop since the anchor is beyond noise too; the figures say how far
// the run is from the anchor and what is left of max-drift.
func TestCheckDrift(t *testing.T) {
	anchor := &Anchor{Score: 80, SE: 0.5, Runs: 4, Cause: AnchorStart}
	for _, tc := range []struct {
		name           string
		base, change   float64
		runSE, maxDrft float64
		blocks         bool
		cumulative     float64
	}{
		{"within max-drift", 78, -0.02, 1, 0.05, false, 78*0.98/80 - 1},
		{"beyond max-drift, beyond noise", 78, -0.05, 1, 0.05, true, 78*0.95/80 - 1},
		{"beyond max-drift, within noise", 78, -0.05, 6, 0.05, false, 78*0.95/80 - 1},
		{"exactly max-drift", 80, -0.05, 1, 0.05, true, -0.05},
		{"a rise", 80, 0.03, 1, 0.05, false, 0.03},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dc := CheckDrift(DriftInput{Anchor: anchor, BaselineScore: tc.base, Change: tc.change, RunSE: tc.runSE, MaxDrift: tc.maxDrft})
			if dc == nil {
				t.Fatal("no drift check")
			}
			if dc.Blocks != tc.blocks || math.Abs(dc.Cumulative-tc.cumulative) > 1e-12 {
				t.Errorf("blocks %v cumulative %.5f; want %v %.5f", dc.Blocks, dc.Cumulative, tc.blocks, tc.cumulative)
			}
			if math.Abs(dc.Margin-(tc.maxDrft+dc.Cumulative)) > 1e-12 || math.Abs(dc.Current-tc.base*(1+tc.change)) > 1e-9 {
				t.Errorf("margin %v current %v", dc.Margin, dc.Current)
			}
			se := math.Sqrt(tc.runSE*tc.runSE+0.25) / 80
			if math.Abs(dc.SE-se) > 1e-12 || math.Abs(dc.Bound-(dc.Cumulative+z95*se)) > 1e-12 {
				t.Errorf("SE %v bound %v; want %v and the cumulative change + 1.645 SE", dc.SE, dc.Bound, se)
			}
		})
	}
	for name, in := range map[string]DriftInput{
		"no anchor":   {BaselineScore: 80, Change: -0.1, MaxDrift: 0.05},
		"rule off":    {Anchor: anchor, BaselineScore: 80, Change: -0.1},
		"zero anchor": {Anchor: &Anchor{Runs: 1, Cause: AnchorStart}, BaselineScore: 80, Change: -0.1, MaxDrift: 0.05},
	} {
		if dc := CheckDrift(in); dc != nil {
			t.Errorf("%s: a drift check %+v, want none", name, dc)
		}
	}
}

// RunNoise splits the paired interval's variance between the run and the
// baseline by their answers per item: the two standard errors add up (in
// quadrature) to the interval's, and a baseline pooling 4 runs' answers
// carries a quarter of a run's variance.
func TestRunNoise(t *testing.T) {
	p := &Paired{Common: 200, Method: MethodPaired, CI95: &[2]float64{-0.04, 0.04}, Answers: 1, BaselineAnswers: 4}
	run, base, ok := RunNoise(p, 80)
	if !ok {
		t.Fatal("no split")
	}
	se := 0.04 / z975 * 80
	if got := math.Hypot(run, base); math.Abs(got-se) > 1e-9 {
		t.Errorf("run %v and baseline %v add up to %v, want the interval's %v", run, base, got, se)
	}
	if math.Abs(run*run/(base*base)-4) > 1e-9 {
		t.Errorf("run variance / baseline variance = %v, want 4", run*run/(base*base))
	}
	p.Method = MethodUnpaired
	if _, _, ok := RunNoise(p, 80); ok {
		t.Error("an unpaired comparison was split")
	}
}

// In Decide: a run within max-drop of its baseline but max-drift below
// the anchor is blocked by the drift rule, and the accept label waives it
// as kind "drift"; a run the drop check already blocks has one reason,
// the drop's, with the drift figures beside it in the report; without an
// anchor nothing changes.
func TestDecideDrift(t *testing.T) {
	anchored := func(score float64) *Baseline {
		b := base(score)
		b.Anchor = &Anchor{Score: 80, SE: 0.3, Runs: 4, Cause: AnchorStart}
		return b
	}
	// 76 → 75: -1.3%, within max-drop; 6.25% below the anchor.
	g := decide(runReport(75), anchored(76), nil)
	if g.Decision != Block || g.DriftCheck == nil || !g.DriftCheck.Blocks || len(g.Reasons) != 1 || g.Findings[0].Kind != finding.CumulativeDrift {
		t.Fatalf("slide: decision %s, drift %+v, reasons %q", g.Decision, g.DriftCheck, g.Reasons)
	}
	if !strings.Contains(g.Reasons[0], "6.25% below the branch's anchor (80.0 → 75.0)") {
		t.Errorf("reason %q", g.Reasons[0])
	}
	if g.Waivable == nil || !reflect.DeepEqual(g.Waivable.Kinds, []Waiver{WaiveDrift}) {
		t.Errorf("waivable %+v, want the drift kind", g.Waivable)
	}
	g = decide(runReport(75), anchored(76), func(in *DecideInput) { in.Accepted, in.AcceptReason = true, "new model" })
	if g.Decision != Pass || !g.Accepted {
		t.Errorf("accepted: decision %s accepted %v", g.Decision, g.Accepted)
	}
	// 80 → 70: the drop check blocks; one reason.
	g = decide(runReport(70), anchored(80), nil)
	if g.Decision != Block || len(g.Reasons) != 1 || g.Findings[0].Kind != finding.AggregateDrop || !g.DriftCheck.Blocks {
		t.Errorf("drop and drift: reasons %q, drift %+v", g.Reasons, g.DriftCheck)
	}
	// Within max-drift: a pass that carries the figures.
	g = decide(runReport(78), anchored(78.5), nil)
	if g.Decision != Pass || g.DriftCheck == nil || g.DriftCheck.Blocks || g.DriftCheck.Margin <= 0 {
		t.Errorf("within: decision %s drift %+v", g.Decision, g.DriftCheck)
	}
	if g := decide(runReport(75), base(76), nil); g.Decision != Pass || g.DriftCheck != nil {
		t.Errorf("no anchor: decision %s drift %+v", g.Decision, g.DriftCheck)
	}
	if g := decide(runReport(75), anchored(76), func(in *DecideInput) { in.MaxDrift = 0 }); g.Decision != Pass || g.DriftCheck != nil {
		t.Errorf("max-drift 0: decision %s drift %+v", g.Decision, g.DriftCheck)
	}
}
