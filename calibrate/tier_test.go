package calibrate

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseTiers(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		err  string
	}{
		{"10,25,50,75,90", []int{10, 25, 50, 75, 90}, ""},
		{" 5, 100 ", []int{5, 100}, ""},
		{"10%,50%", []int{10, 50}, ""},
		{"", nil, "empty list"},
		{"10,10", nil, "strictly increase"},
		{"50,25", nil, "not above the previous tier 50"},
		{"0,10", nil, "want 1..100"},
		{"10,101", nil, "item 2 is 101"},
		{"10,x", nil, `item 2 "x" is not an integer`},
		{"10,,20", nil, "item 2"},
		{"2.5", nil, "not an integer"},
	}
	for _, tt := range tests {
		got, err := ParseTiers(tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseTiers(%q) err = %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseTiers(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}

// calReport builds a calibration report with exact agreement per criterion.
func calReport(hash string, exact ...float64) *Report {
	rep := &Report{Rubric: RubricRef{Name: "r", Hash: hash}, Metric: MetricExact, MinAgreement: 0.75}
	for i, e := range exact {
		c := CriterionAgreement{ID: string(rune('a' + i)), N: 10}
		if e >= 0 {
			c.Exact = &e
		} else {
			c.N = 0
		}
		rep.Criteria = append(rep.Criteria, c)
	}
	return rep
}

func TestDecideTier(t *testing.T) {
	tiers := DefaultTiers
	const h = "sha256:cur"
	tests := []struct {
		name    string
		current int
		gate    bool
		cal     *Report
		min     float64
		advance bool
		next    int
		last    bool
		held    []string
	}{
		{"advance", 25, true, calReport(h, 0.9, 0.8), 0, true, 50, false, nil},
		{"gate failed", 25, false, calReport(h, 0.9), 0, false, 50, false, []string{"gate failed"}},
		{"no calibration", 10, true, nil, 0, false, 25, false, []string{"no calibration given"}},
		{"stale", 10, true, calReport("sha256:old", 0.9), 0, false, 25, false,
			[]string{"calibration is stale: it was made with rubric sha256:old, the rubric in use is sha256:cur"}},
		{"low agreement", 50, true, calReport(h, 0.72, 0.95, 0.7999), 0, false, 75, false,
			[]string{"criterion a agreement 0.72 < 0.8 on metric exact", "criterion c agreement 0.7999 < 0.8 on metric exact"}},
		{"undefined agreement", 50, true, calReport(h, -1), 0, false, 75, false, []string{"criterion a agreement is undefined (n=0) on metric exact"}},
		{"custom minimum", 50, true, calReport(h, 0.85), 0.9, false, 75, false, []string{"criterion a agreement 0.85 < 0.9"}},
		{"last tier", 90, true, calReport(h, 0.9), 0, false, 90, true, nil},
		{"not a tier", 30, true, calReport(h, 0.9), 0, false, 30, false, []string{"current tier 30% is not one of the tiers 10,25,50,75,90"}},
		{"everything", 10, false, nil, 0, false, 25, false, []string{"gate failed", "no calibration given"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := DecideTier(tiers, tt.current, tt.gate, tt.cal, h, tt.min)
			if d.MayAdvance != tt.advance || d.Next != tt.next || d.Current != tt.current || d.Last != tt.last {
				t.Errorf("decision = %+v, want advance %v next %d last %v", d, tt.advance, tt.next, tt.last)
			}
			if len(d.HeldBy) != len(tt.held) {
				t.Fatalf("held by %q, want %d reasons", d.HeldBy, len(tt.held))
			}
			for i, w := range tt.held {
				if !strings.Contains(d.HeldBy[i], w) {
					t.Errorf("held_by[%d] = %q, want %q", i, d.HeldBy[i], w)
				}
			}
		})
	}
}
