package calibrate

import (
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

func points(n int, score func(i int) float64) []LengthPoint {
	ps := make([]LengthPoint, n)
	for i := range ps {
		ps[i] = LengthPoint{ID: string(rune('a' + i)), Length: 100 + 10*i, Score: score(i)}
	}
	return ps
}

func TestCheckLengthBias(t *testing.T) {
	th := DefaultThresholds
	tests := []struct {
		name string
		pts  []LengthPoint
		th   Thresholds
		n    int
		rho  float64 // NaN: nil
		warn bool
	}{
		{"longer scores higher", points(20, func(i int) float64 { return float64(i / 4) }), th, 20, 0.981023, true}, // rho checked with Python statistics.correlation on average ranks
		{"too few items", points(19, func(i int) float64 { return float64(i) }), th, 19, 1, false},
		{"weak", points(20, func(i int) float64 { return float64(i % 5) }), th, 20, 0.245256, false}, // likewise
		{"negative does not warn", points(20, func(i int) float64 { return float64(-i) }), th, 20, -1, false},
		{"custom thresholds", points(5, func(i int) float64 { return float64(i) }), Thresholds{MinN: 5, MaxRho: 0.9}, 5, 1, true},
		{"constant score", points(30, func(int) float64 { return 3 }), th, 30, undef, false},
		{"unknown lengths left out", append(points(20, func(i int) float64 { return float64(i) }), LengthPoint{ID: "x", Length: -1, Score: -5}), th, 20, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lb := CheckLengthBias("faithfulness", tt.pts, tt.th)
			if lb.N != tt.n || lb.Warn != tt.warn {
				t.Errorf("n = %d warn = %v, want %d %v", lb.N, lb.Warn, tt.n, tt.warn)
			}
			approx(t, "rho", lb.Rho, tt.rho, 1e-6)
			if tt.warn != (lb.Message != "") {
				t.Errorf("message %q with warn %v", lb.Message, lb.Warn)
			}
			if lb.Warn && !strings.Contains(lb.Message, "faithfulness scores rise with answer length") {
				t.Errorf("message %q", lb.Message)
			}
		})
	}
}

func TestLengthBiasOf(t *testing.T) {
	rb := testRubric()
	var rs []Rating
	for i := 0; i < 24; i++ {
		// faithfulness rises with length; citation is flat; safety na-free.
		r := rating(string(rune('a'+i)), i+1, sv(1+i/6), sv(1), sv(i%2))
		r.Length = 50 * (i + 1)
		rs = append(rs, r)
	}
	rs = append(rs, Rating{ID: "err", Error: "timeout", Length: 5}, Rating{ID: "nolen", Values: []gate.Value{sv(1)}, Length: -1})
	out := LengthBiasOf(rb, rs, DefaultThresholds)
	if len(out) != 4 || out[0].Criterion != "" || out[1].Criterion != "faithfulness" {
		t.Fatalf("out = %+v", out)
	}
	if !out[0].Warn || !out[1].Warn || out[2].Warn || out[3].Warn {
		t.Errorf("warn = %v %v %v %v, want true true false false", out[0].Warn, out[1].Warn, out[2].Warn, out[3].Warn)
	}
	if out[0].N != 24 || out[2].Rho != nil {
		t.Errorf("item n = %d, citation rho = %v", out[0].N, out[2].Rho)
	}
}
