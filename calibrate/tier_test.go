package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/rubric"
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

// tierRubric has three 0-1 criteria a, b, c.
func tierRubric() *rubric.Rubric {
	rb := &rubric.Rubric{Name: "r", Threshold: 50}
	for _, id := range []string{"a", "b", "c"} {
		rb.Criteria = append(rb.Criteria, rubric.Criterion{ID: id, Name: id, Weight: 1, Scale: rubric.Scale{Low: 0, High: 1}})
	}
	return rb
}

// calCriterion is a criterion whose figures come from a real confusion
// matrix of 10,000 pairs with the given exact agreement (< 0: no pairs).
func calCriterion(id string, exact float64) CriterionAgreement {
	c := CriterionAgreement{ID: id, Name: id, Confusion: newConfusion(rubric.Scale{Low: 0, High: 1}), Disagreements: []Disagreement{}}
	if exact >= 0 {
		diag := int(math.Round(exact * 10000))
		c.Confusion.Counts[0][0], c.Confusion.Counts[0][1], c.N = diag, 10000-diag, 10000
	}
	setFigures(&c, MetricExact, 0.75)
	return c
}

// calReport builds a calibration report for tierRubric (hash "": its
// hash) with the given exact agreement for a, b, c in order; criteria not
// given get 0.95.
func calReport(hash string, exact ...float64) *Report {
	if hash == "" {
		hash = tierRubric().Hash()
	}
	rep := &Report{Rubric: RubricRef{Name: "r", Hash: hash}, Metric: MetricExact, MinAgreement: 0.75, Passed: true}
	for i, id := range []string{"a", "b", "c"} {
		e := 0.95
		if i < len(exact) {
			e = exact[i]
		}
		rep.Criteria = append(rep.Criteria, calCriterion(id, e))
	}
	rep.Passed = passedOf(rep)
	return rep
}

func passedOf(rep *Report) bool {
	p := true
	for _, c := range rep.Criteria {
		p = p && c.Pass
	}
	return p
}

func TestDecideTier(t *testing.T) {
	tiers := DefaultTiers
	h := ""
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
			[]string{"calibration is stale: it was made with rubric sha256:old, the rubric in use is " + tierRubric().Hash()}},
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
			d := DecideTier(tiers, tt.current, tt.gate, tt.cal, tierRubric(), tt.min)
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

// A calibration file is the pull request's to edit: the tier decision
// iterates the rubric's criteria, and every figure it reads is recomputed
// from the stored confusion matrix and counts.
func TestDecideTierForgedCalibration(t *testing.T) {
	rb := tierRubric()
	decide := func(cal *Report) TierDecision { return DecideTier(DefaultTiers, 25, true, cal, rb, 0.8) }
	if d := decide(calReport("", 0.9, 0.9, 0.9)); !d.MayAdvance {
		t.Fatalf("honest passing calibration held: %v", d.HeldBy)
	}
	tests := []struct {
		name   string
		forge  func(r *Report)
		held   string
		readAs string // the ReadReport error, "" when the file reads
	}{
		{"failing criterion marked not applicable", func(r *Report) {
			r.Criteria[0].NotApplicable, r.Criteria[0].Pass = true, true
		}, "criteria[0] (a): not_applicable is true, but its counts give false (n 10000", "not_applicable"},
		{"not applicable with na counts that are not na", func(r *Report) {
			c := &r.Criteria[0]
			c.Confusion = newConfusion(rubric.Scale{Low: 0, High: 1})
			c.N, c.NAOrMissing = 0, 8
			setFigures(c, MetricExact, 0.75)
			c.NotApplicable, c.Pass = true, true
		}, "not_applicable is true, but its counts give false (n 0, na_both 0, na_or_missing 8", "not_applicable"},
		{"figure raised", func(r *Report) {
			v := 0.99
			r.Criteria[0].Exact, r.Criteria[0].Pass = &v, true
		}, "criteria[0] (a): exact is 0.99, but its confusion matrix gives 0.5", "exact"},
		{"failing criterion dropped", func(r *Report) {
			r.Criteria = r.Criteria[1:]
		}, "criterion a of the rubric is not in the calibration", ""},
		{"criterion on another scale", func(r *Report) {
			c := &r.Criteria[0]
			c.Confusion = newConfusion(rubric.Scale{Low: 0, High: 2})
			c.Confusion.Counts[2][2], c.N = 10, 10
			setFigures(c, MetricExact, 0.75)
		}, "criterion a: the calibration's levels [0 1 2] are not the rubric's scale [0 1]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cal := calReport("", 0.5, 0.9, 0.9)
			tt.forge(cal)
			cal.Passed = passedOf(cal)
			d := decide(cal)
			if d.MayAdvance || len(d.HeldBy) != 1 || !strings.Contains(d.HeldBy[0], tt.held) {
				t.Errorf("held by %q, want one reason containing %q", d.HeldBy, tt.held)
			}
			data, err := json.Marshal(cal)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ReadReport(bytes.NewReader(data), 0)
			var re *ReportError
			switch {
			case tt.readAs == "" && err != nil:
				t.Errorf("ReadReport: %v", err)
			case tt.readAs != "" && (!errors.As(err, &re) || !strings.Contains(err.Error(), tt.readAs)):
				t.Errorf("ReadReport = %v, want a *ReportError naming %s", err, tt.readAs)
			}
		})
	}
	// A stored passed that its criteria contradict is refused too.
	cal := calReport("", 0.5)
	cal.Passed = true
	if err := VerifyFigures(cal); err == nil || !strings.Contains(err.Error(), "passed is true, but its criteria give false") {
		t.Errorf("forged passed: %v", err)
	}
}

// A criterion both raters said na on for every item is not applicable and
// does not hold the tier; a continuous criterion is measured like the others
// and holds the tier when the calibration lacks it.
func TestDecideTierNotApplicableAndContinuous(t *testing.T) {
	rb := tierRubric()
	rb.Criteria = append(rb.Criteria, rubric.Criterion{ID: "score", Name: "score", Weight: 1, Scale: rubric.Scale{Low: 0, High: 1}, Continuous: true})
	cal := calReport(rb.Hash(), 0.9, 0.9, 0.9)
	c := &cal.Criteria[2]
	c.Confusion = newConfusion(rubric.Scale{Low: 0, High: 1})
	c.N, c.NAOrMissing, c.NABoth = 0, 6, 6
	setFigures(c, MetricExact, 0.75)
	cal.Passed = passedOf(cal)
	if !c.NotApplicable {
		t.Fatal("all-na criterion not marked not applicable")
	}
	// A continuous criterion must be in the calibration now: one an older
	// report left out, or skipped, holds the tier.
	if d := DecideTier(DefaultTiers, 25, true, cal, rb, 0.8); d.MayAdvance || len(d.HeldBy) != 1 || !strings.Contains(d.HeldBy[0], "criterion score of the rubric is not in the calibration") {
		t.Errorf("continuous criterion missing: held by %q", d.HeldBy)
	}
	old := CriterionAgreement{ID: "score", Name: "score", Pass: true, Confusion: Confusion{Levels: []int{}, Counts: [][]int{}},
		Skipped: "continuous scale: calibration compares integer levels, so this criterion is not calibrated"}
	cal.Criteria = append(cal.Criteria, old)
	if d := DecideTier(DefaultTiers, 25, true, cal, rb, 0.8); d.MayAdvance || len(d.HeldBy) != 1 || !strings.Contains(d.HeldBy[0], "re-run calibrate") {
		t.Errorf("continuous criterion skipped by an older report: held by %q", d.HeldBy)
	}
	st := &ContinuousStats{Tolerance: 0.1}
	cal.Criteria[len(cal.Criteria)-1] = CriterionAgreement{ID: "score", Name: "score", N: 3, Confusion: old.Confusion, Continuous: st}
	for _, p := range [][2]float64{{0.2, 0.25}, {0.5, 0.55}, {0.9, 0.85}} {
		d := p[1] - p[0]
		st.Within, st.Within2 = st.Within+1, st.Within2+1
		st.SumDiff, st.SumSqDiff = st.SumDiff+d, st.SumSqDiff+d*d
		st.Sum, st.SumSq = st.Sum+p[0]+p[1], st.SumSq+p[0]*p[0]+p[1]*p[1]
	}
	setFigures(&cal.Criteria[len(cal.Criteria)-1], MetricExact, 0.75)
	cal.Passed = passedOf(cal)
	if d := DecideTier(DefaultTiers, 25, true, cal, rb, 0.8); !d.MayAdvance {
		t.Errorf("continuous criterion measured: held by %q", d.HeldBy)
	}
}
