package gate

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// pairedCI is a paired comparison of n common items with the given interval.
func pairedCI(n int, lo, hi float64) *Paired {
	return &Paired{Common: n, Method: "paired", Interval: "bootstrap", Resamples: 1000, CI95: &[2]float64{lo, hi}}
}

func TestDecideNoisyDrop(t *testing.T) {
	tests := []struct {
		name      string
		mode      NoisyMode
		cur       float64 // baseline 80
		paired    *Paired
		accepted  bool
		failures  []BlockingFailure
		want      Decision
		wantCase  DropCase
		wantWarns bool // a within-noise warning
	}{
		{"block mode: a 2.5% drop with 0 in its interval blocks", NoisyBlock, 78, pairedCI(50, -0.06, 0.01), false, nil, Block, DropNoise, false},
		{"warn: 0 in the interval passes with a warning", NoisyWarn, 78, pairedCI(50, -0.06, 0.01), false, nil, Pass, DropNoise, true},
		{"warn: interval touching 0 is not below it", NoisyWarn, 78, pairedCI(50, -0.06, 0), false, nil, Pass, DropNoise, true},
		{"warn: interval below 0 blocks", NoisyWarn, 78, pairedCI(1000, -0.04, -0.01), false, nil, Block, DropReal, false},
		{"warn: at hard-drop always blocks", NoisyWarn, 76, pairedCI(50, -0.10, 0.01), false, nil, Block, DropReal, false},
		{"warn: no interval, plain rule", NoisyWarn, 78, nil, false, nil, Block, DropReal, false},
		{"warn: one common item, plain rule", NoisyWarn, 78, &Paired{Common: 1}, false, nil, Block, DropReal, false},
		{"warn: an unpaired interval is not used", NoisyWarn, 78, &Paired{Common: 0, Method: "unpaired", CI95: &[2]float64{-0.06, 0.01}}, false, nil, Block, DropReal, false},
		{"warn: within max-drop passes", NoisyWarn, 79, pairedCI(50, -0.05, 0.02), false, nil, Pass, DropWithin, false},
		{"warn: the accept label waives a real drop", NoisyWarn, 78, pairedCI(1000, -0.04, -0.01), true, nil, Pass, DropReal, false},
		{"warn: hard gates still block a noisy drop", NoisyWarn, 78, pairedCI(50, -0.06, 0.01), false, []BlockingFailure{{Item: "x", Criterion: "safety"}}, Block, DropNoise, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := decide(runReport(tt.cur, tt.failures...), base(80), func(in *DecideInput) {
				in.NoisyDrop = tt.mode
				in.Paired = tt.paired
				if tt.accepted {
					acceptShown(in)
				}
			})
			if g.Decision != tt.want {
				t.Fatalf("decision %s, want %s (reasons %q)", g.Decision, tt.want, g.Reasons)
			}
			if g.DropCheck == nil || g.DropCheck.Case != tt.wantCase {
				t.Fatalf("drop check %+v, want case %s", g.DropCheck, tt.wantCase)
			}
			warned := false
			for _, w := range g.Warnings {
				warned = warned || strings.Contains(w, "within noise")
			}
			if warned != tt.wantWarns {
				t.Errorf("within-noise warning %v, want %v (%q)", warned, tt.wantWarns, g.Warnings)
			}
			if tt.wantCase != DropWithin && !strings.Contains(strings.Join(g.Reasons, "\n"), g.DropCheck.Reason) {
				t.Errorf("reasons %q lack the drop reason %q", g.Reasons, g.DropCheck.Reason)
			}
		})
	}
}

func TestNoisyDropReasons(t *testing.T) {
	g := decide(runReport(78), base(80), func(in *DecideInput) { in.NoisyDrop = NoisyWarn; in.Paired = pairedCI(50, -0.06, 0.01) })
	if r := g.Reasons[0]; !strings.Contains(r, "includes 0") || !strings.Contains(r, "hard-drop 5%") || !strings.Contains(r, "-6.00% … +1.00%") {
		t.Errorf("noise reason %q", r)
	}
	g = decide(runReport(78), base(80), func(in *DecideInput) { in.NoisyDrop = NoisyWarn; in.Paired = pairedCI(1000, -0.04, -0.01) })
	if r := g.Reasons[0]; !strings.Contains(r, "lies below 0") {
		t.Errorf("real drop reason %q", r)
	}
	g = decide(runReport(76), base(80), func(in *DecideInput) { in.NoisyDrop = NoisyWarn; in.Paired = pairedCI(50, -0.1, 0.01) })
	if r := g.Reasons[0]; !strings.Contains(r, "hard-drop 5%") || !g.DropCheck.BeyondHard {
		t.Errorf("hard drop reason %q", r)
	}
	// Block mode keeps the plain reason first, with the interval as a hint.
	g = decide(runReport(78), base(80), func(in *DecideInput) { in.Paired = pairedCI(50, -0.06, 0.01) })
	if r := g.Reasons[0]; !strings.HasPrefix(r, "aggregate score dropped 2.50%") || !strings.Contains(r, "noisy-drop warn") {
		t.Errorf("block-mode reason %q", r)
	}
}

// In block mode a noisy drop beyond hard-drop says warn would block it too;
// max-drop 0 has no resolution to offer.
func TestNoisyDropBlockModeBeyondHard(t *testing.T) {
	g := decide(runReport(76), base(80), func(in *DecideInput) { in.Paired = pairedCI(50, -0.1, 0.01) })
	if g.Decision != Block || g.DropCheck.Case != DropNoise || !g.DropCheck.BeyondHard || !strings.Contains(g.Reasons[0], "noisy-drop warn would block it too") {
		t.Errorf("%s %+v %q", g.Decision, g.DropCheck, g.Reasons)
	}
	g = decide(runReport(76), base(80), func(in *DecideInput) { in.MaxDrop = 0; in.Paired = pairedCI(50, -0.1, 0.01) })
	if g.DropCheck.Resolution != nil {
		t.Errorf("resolution against max-drop 0: %+v", g.DropCheck.Resolution)
	}
}

func TestResolution(t *testing.T) {
	th := DefaultThresholds // max-drop 2%, block
	// ±4% over 50 single-answer items: SE = 0.04/1.96; the target SE is
	// 0.02/(1.96+0.8416); items scale with SE², and with all of the
	// variance answer noise, answers per item (both runs) scale with it too.
	p := &Paired{Common: 50}
	r := NewResolution(p, 80, 0.04, th)
	se, target := 0.04/1.959963984540054, 0.02/(1.959963984540054+0.8416212335729143)
	wantItems := int(math.Ceil(50 * (se / target) * (se / target)))
	wantK := int(math.Ceil((se / target) * (se / target)))
	if r.ItemsNeeded != wantItems || r.AnswersNeeded != wantK || r.Resolves || r.Measured || r.AnswerNoise != 1 {
		t.Errorf("resolution %+v, want items %d, answers %d", r, wantItems, wantK)
	}
	if math.Abs(r.MinDetectable-(0.02+0.8416212335729143*se)) > 1e-12 {
		t.Errorf("block-mode MDD %v, want max-drop + z80·SE = %v", r.MinDetectable, 0.02+0.8416212335729143*se)
	}
	// Warn: the observed drop must clear 1.96·SE too (0.04 here), capped by hard-drop 5%.
	th.NoisyDrop = NoisyWarn
	if got, want := NewResolution(p, 80, 0.04, th).MinDetectable, 0.04+0.8416212335729143*se; math.Abs(got-want) > 1e-12 {
		t.Errorf("warn MDD %v, want %v", got, want)
	}
	if got, want := NewResolution(p, 80, 0.08, th).MinDetectable, 0.05+0.8416212335729143*0.08/1.959963984540054; math.Abs(got-want) > 1e-12 {
		t.Errorf("warn MDD capped by hard-drop %v, want %v", got, want)
	}
	if r := NewResolution(&Paired{Common: 1000}, 80, 0.005, DefaultThresholds); !r.Resolves || r.ItemsNeeded != 0 || r.AnswersNeeded != 0 {
		t.Errorf("already resolved: %+v", r)
	}
	// Measured answer noise: 4 answers per item on both sides, per-answer
	// variance 400 points² at a baseline mean of 80 (relative 400/6400).
	// Per-item variance of the change = 50·SE²; answer noise is 2·(400/6400)/4.
	pm := &Paired{Common: 50, Answers: 4, BaselineAnswers: 4, AnswerVar: 400, AnswerVarItems: 50, BaselineAnswerVar: 400, BaselineAnswerVarItems: 50}
	half := 1.959963984540054 * math.Sqrt(2*(400.0/6400)/4/50) // all of it answer noise
	r = NewResolution(pm, 80, half, DefaultThresholds)
	if !r.Measured || math.Abs(r.AnswerNoise-1) > 1e-9 {
		t.Errorf("measured noise %+v", r)
	}
	// To resolve: 2σ²/K' <= 50·target² → K' = ceil(2σ²/(50·target²)).
	if want := int(math.Ceil(2 * (400.0 / 6400) / (50 * target * target))); r.AnswersNeeded != want {
		t.Errorf("answers needed %d, want %d", r.AnswersNeeded, want)
	}
	// A re-run adds answers to this run only: σ²/K' + σ²/4 <= 50·target².
	if room := 50*target*target - (400.0/6400)/4; room > 0 {
		t.Fatalf("test setup: the baseline alone must not resolve (room %v)", room)
	}
	if r.RerunAnswers != 4 {
		t.Errorf("rerun answers %d: the baseline's noise alone exceeds the target, so one more run like this one (4)", r.RerunAnswers)
	}
	// Items whose changes are not answer noise: more answers cannot resolve.
	pm2 := *pm
	r = NewResolution(&pm2, 80, 3*half, DefaultThresholds)
	if r.AnswerNoise > 0.12 || r.AnswersNeeded != 0 || r.ItemsNeeded == 0 {
		t.Errorf("item-level change: %+v", r)
	}
	// Decide fills it from the paired interval's half-width. That interval
	// is the expanded percentile bootstrap over 50 items: it spans
	// √(50/49)·t(49) = 2.030 standard errors each side, not 1.96, so its
	// standard error is 0.04/2.030 (t(49) = 2.00957524 from the tables).
	g := decide(runReport(79.5), base(80), func(in *DecideInput) { in.Paired = pairedCI(50, -0.05, 0.03) })
	seB := 0.04 / (math.Sqrt(50.0/49) * 2.0095752344892093)
	wantB := int(math.Ceil(50 * (seB / target) * (seB / target)))
	if res := g.DropCheck.Resolution; res == nil || res.Items != 50 || res.HalfWidth != 0.04 || math.Abs(res.SE-seB) > 1e-8 || res.ItemsNeeded != wantB {
		t.Errorf("resolution %+v, want SE %v, items %d", res, seB, wantB)
	}
}

// TestMinDetectablePower checks the MDD against the decision itself: at
// a real drop of MinDetectable, with the observed drop normal around it
// (SE) and its 95% interval ±1.96·SE, checkDrop blocks 80% of the time, in
// every mode.
func TestMinDetectablePower(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, tc := range []struct {
		mode NoisyMode
		se   float64
	}{{NoisyBlock, 0.02}, {NoisyWarn, 0.02}, {NoisyWarn, 0.005}, {NoisyWarn, 0.04}, {NoisyRerun, 0.02}, {NoisyRerun, 0.005}} {
		th := DefaultThresholds
		th.NoisyDrop, th.Final = tc.mode, true
		mdd := MinDetectable(tc.se, z975*tc.se, th)
		const trials = 20000
		blocked := 0
		for range trials {
			d := mdd + tc.se*rng.NormFloat64()
			p := pairedCI(50, -d-z975*tc.se, -d+z975*tc.se)
			if checkDrop(80, 80*(1-d), th, p).Blocks {
				blocked++
			}
		}
		if got := float64(blocked) / trials; math.Abs(got-DetectPower) > 0.015 {
			t.Errorf("%s, SE %v: a real drop of the MDD %.4f blocks %.3f of the time, want %.2f", tc.mode, tc.se, mdd, got, DetectPower)
		}
	}
}

func TestNoisyRerun(t *testing.T) {
	rerun := func(in *DecideInput) { in.NoisyDrop = NoisyRerun; in.Paired = pairedCI(50, -0.08, 0.02) }
	// A 3% drop within noise: neither pass nor block.
	g := decide(runReport(77.6), base(80), rerun)
	if g.Decision != Rerun || !g.DropCheck.Rerun || g.DropCheck.RerunAnswers < 1 || g.DropCheck.Blocks {
		t.Fatalf("noisy drop under rerun: %s %+v", g.Decision, g.DropCheck)
	}
	if !strings.HasPrefix(g.Reasons[0], "RERUN: ") || !strings.Contains(g.Reasons[0], "re-run the eval with") || !strings.Contains(g.Reasons[1], "noisy-drop rerun decides after a re-run") {
		t.Errorf("reasons %q", g.Reasons)
	}
	// Beyond hard-drop, still within noise: rerun too (not yet final).
	if g := decide(runReport(70), base(80), func(in *DecideInput) { rerun(in); in.Paired = pairedCI(50, -0.25, 0.01) }); g.Decision != Rerun {
		t.Errorf("beyond hard, not final: %s", g.Decision)
	}
	// The final gate decides as block mode: a drop at or above max-drop
	// blocks, interval or not; one within max-drop passes.
	final := func(in *DecideInput) { rerun(in); in.Final = true }
	if g := decide(runReport(77.6), base(80), final); g.Decision != Block || g.DropCheck.Rerun || !strings.Contains(g.Reasons[0], "final gate") {
		t.Errorf("final within noise: %s %+v %q", g.Decision, g.DropCheck, g.Reasons)
	}
	if g := decide(runReport(79), base(80), final); g.Decision != Pass {
		t.Errorf("final within max-drop: %s", g.Decision)
	}
	// A real drop (interval below 0) blocks at once; a safety failure
	// blocks whatever the drop.
	if g := decide(runReport(77.6), base(80), func(in *DecideInput) { rerun(in); in.Paired = pairedCI(50, -0.05, -0.01) }); g.Decision != Block {
		t.Errorf("real drop under rerun: %s", g.Decision)
	}
	if g := decide(runReport(77.6, BlockingFailure{Item: "q", Criterion: "safety"}), base(80), rerun); g.Decision != Block {
		t.Errorf("safety failure under rerun: %s", g.Decision)
	}
	// No drop: a pass.
	if g := decide(runReport(80), base(80), rerun); g.Decision != Pass {
		t.Errorf("no drop under rerun: %s", g.Decision)
	}
}

func TestParseNoisyMode(t *testing.T) {
	for s, ok := range map[string]bool{"block": true, "warn": true, "rerun": true, " warn ": true, "": false, "pass": false} {
		if _, err := ParseNoisyMode(s); (err == nil) != ok {
			t.Errorf("ParseNoisyMode(%q): %v", s, err)
		}
	}
}
