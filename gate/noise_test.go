package gate

import (
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
	// ±4% over 50 items against 2%: (4/2)² = 4 times the items or judgements.
	r := NewResolution(50, 0.04, 0.02)
	if r.ItemsNeeded != 200 || r.Repeats != 4 {
		t.Errorf("resolution %+v", r)
	}
	r = NewResolution(50, 0.05, 0.02) // (2.5)² = 6.25
	if r.ItemsNeeded != 313 || r.Repeats != 7 {
		t.Errorf("resolution %+v", r)
	}
	if r := NewResolution(1000, 0.01, 0.02); r.ItemsNeeded != 0 || r.Repeats != 0 {
		t.Errorf("already resolved: %+v", r)
	}
	// Decide fills it from the paired interval's half-width.
	g := decide(runReport(79.5), base(80), func(in *DecideInput) { in.Paired = pairedCI(50, -0.05, 0.03) })
	if res := g.DropCheck.Resolution; res == nil || res.Items != 50 || res.HalfWidth != 0.04 || res.Repeats != 4 {
		t.Errorf("resolution %+v", res)
	}
}

func TestParseNoisyMode(t *testing.T) {
	for s, ok := range map[string]bool{"block": true, "warn": true, " warn ": true, "": false, "pass": false} {
		if _, err := ParseNoisyMode(s); (err == nil) != ok {
			t.Errorf("ParseNoisyMode(%q): %v", s, err)
		}
	}
}
