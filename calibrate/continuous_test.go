package calibrate

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// A continuous criterion has no levels to agree on: it is skipped with a
// note (and does not hold the run); a judge's mean of samples on an integer
// criterion counts at the nearest level.
func TestContinuousAndSampleMeans(t *testing.T) {
	rb := &rubric.Rubric{Name: "r", Criteria: []rubric.Criterion{
		{ID: "grounding", Name: "grounding", Weight: 1, Scale: rubric.Scale{Low: 0, High: 2}},
		{ID: "helpfulness", Name: "helpfulness", Weight: 1, Scale: rubric.Scale{Low: 0, High: 1000}, Continuous: true},
	}}
	mk := func(id string, g, h float64) Rating {
		return Rating{ID: id, Values: []gate.Value{{Score: g, State: gate.Scored}, {Score: h, State: gate.Scored}}}
	}
	human := []Rating{mk("a", 2, 0.5), mk("b", 1, 0.1), mk("c", 0, 0.9), mk("d", 1, 0.2)}
	// 1.67 and 0.33 are means of three samples; 1.5 rounds up.
	judge := []Rating{mk("a", 5.0/3, 0.4), mk("b", 1, 0.2), mk("c", 1.0/3, 0.7), mk("d", 1.5, 0.2)}
	rep, err := Compare(rb, human, judge, Options{Metric: "exact", MinAgreement: 0.7})
	if err != nil {
		t.Fatal(err)
	}
	g := rep.Criteria[0]
	if g.N != 4 || g.Exact == nil || *g.Exact != 0.75 || len(g.Disagreements) != 1 || g.Disagreements[0].ID != "d" || g.Disagreements[0].Judge != 2 {
		t.Errorf("grounding: n %d exact %v disagreements %+v", g.N, g.Exact, g.Disagreements)
	}
	// helpfulness is continuous on 0..1000: the tolerance is ±100, every
	// pair is within it.
	h := rep.Criteria[1]
	if !h.Pass || h.N != 4 || h.Exact == nil || *h.Exact != 1 || h.Continuous == nil || h.Continuous.Tolerance != 100 || len(h.Confusion.Levels) != 0 || h.Skipped != "" {
		t.Errorf("continuous criterion: %+v", h)
	}
	var md, txt strings.Builder
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "- helpfulness: continuous scale: exact is the share of pairs within ±100") || !strings.Contains(txt.String(), "helpfulness: continuous scale") {
		t.Errorf("how a continuous criterion reads is not shown:\n%s\n%s", md.String(), txt.String())
	}
}

// continuousRubric has one continuous criterion on lo..hi.
func continuousRubric(lo, hi int) *rubric.Rubric {
	return &rubric.Rubric{Name: "r", Criteria: []rubric.Criterion{
		{ID: "score", Name: "score", Weight: 1, Scale: rubric.Scale{Low: lo, High: hi}, Continuous: true},
	}}
}

// ratings makes one rating per value, ids i00, i01, ...
func ratings(vs ...float64) []Rating {
	out := make([]Rating, len(vs))
	for i, v := range vs {
		out[i] = Rating{ID: fmt.Sprintf("i%02d", i), Values: []gate.Value{{Score: v, State: gate.Scored}}}
	}
	return out
}

// Krippendorff's published two-observer example (K. Krippendorff, 2011,
// "Computing Krippendorff's Alpha-Reliability", section A: binary data, two
// observers, no missing data) gives alpha = 0.095; on 0/1 data the interval
// metric is the nominal one.
func TestContinuousAlphaPublishedExample(t *testing.T) {
	a := ratings(0, 1, 0, 0, 0, 0, 0, 0, 1, 0)
	b := ratings(1, 1, 1, 0, 0, 1, 0, 0, 0, 0)
	rep, err := Compare(continuousRubric(0, 1), a, b, Options{Metric: MetricAlphaInterval, MinAgreement: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Criteria[0]
	if c.AlphaInterval == nil || math.Abs(*c.AlphaInterval-0.095) > 0.0005 || c.N != 10 {
		t.Fatalf("alpha %v (n %d), want the published 0.095", fmtPtr(c.AlphaInterval), c.N)
	}
	if c.Pass || rep.Passed {
		t.Error("alpha 0.095 passed a 0.5 minimum")
	}
	// 6 of 10 pairs agree exactly (within ±0.1).
	if *c.Exact != 0.6 || len(c.Disagreements) != 4 {
		t.Errorf("exact %v, disagreements %+v", *c.Exact, c.Disagreements)
	}
}

// On integer scores, the continuous alpha from the raw values equals the
// interval alpha this package computes from a confusion matrix for an
// integer criterion: two independent computations of one figure.
func TestContinuousAlphaMatchesConfusionAlpha(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for round := 0; round < 50; round++ {
		n := 2 + rng.IntN(60)
		av, bv := make([]float64, n), make([]float64, n)
		for i := range av {
			av[i] = float64(rng.IntN(5))
			bv[i] = min(4, max(0, av[i]+float64(rng.IntN(3)-1)))
		}
		cont, err := Compare(continuousRubric(0, 4), ratings(av...), ratings(bv...), Options{Metric: MetricAlphaInterval})
		if err != nil {
			t.Fatal(err)
		}
		levels := &rubric.Rubric{Name: "r", Criteria: []rubric.Criterion{{ID: "score", Name: "score", Weight: 1, Scale: rubric.Scale{Low: 0, High: 4}}}}
		disc, err := Compare(levels, ratings(av...), ratings(bv...), Options{Metric: MetricAlphaInterval})
		if err != nil {
			t.Fatal(err)
		}
		x, y := cont.Criteria[0].AlphaInterval, disc.Criteria[0].AlphaInterval
		if (x == nil) != (y == nil) || x != nil && math.Abs(*x-*y) > 1e-12 {
			t.Fatalf("round %d: continuous alpha %s, confusion alpha %s", round, fmtPtr(x), fmtPtr(y))
		}
	}
}

// Human and judge disagree on half the items by far more than the
// tolerance: the criterion fails under every metric, with advice naming the
// largest gaps; today's report of it reads back (the gate used to refuse it
// as "confusion matrix is not square"), and a forged figure is refused.
func TestContinuousDisagreementFails(t *testing.T) {
	h := ratings(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
	j := ratings(0.1, 0.2, 0.3, 0.4, 0.5, 0.2, 0.1, 0.3, 0.2, 0.4)
	for _, m := range []Metric{MetricExact, MetricAdjacent, MetricKappa, MetricKappaQuadratic, MetricAlpha, MetricAlphaInterval} {
		rep, err := Compare(continuousRubric(0, 1), h, j, Options{Metric: m})
		if err != nil {
			t.Fatal(err)
		}
		c := &rep.Criteria[0]
		if c.Pass || rep.Passed {
			t.Errorf("%s: passed with figure %s", m, fmtPtr(c.Value(m)))
		}
		if m == MetricExact && (*c.Exact != 0.5 || !strings.Contains(c.Advice, "5 of 10 pairs differ by more than ±0.1") || !strings.Contains(c.Advice, "i09 (human 1 vs judge 0.4)")) {
			t.Errorf("exact %v, advice %q", *c.Exact, c.Advice)
		}
		var buf bytes.Buffer
		if err := WriteJSON(&buf, rep); err != nil {
			t.Fatal(err)
		}
		back, err := ReadReport(bytes.NewReader(buf.Bytes()), 0)
		if err != nil {
			t.Fatalf("%s: the report calibrate wrote is refused: %v", m, err)
		}
		if back.Criteria[0].Continuous == nil || *back.Criteria[0].Exact != *c.Exact {
			t.Errorf("%s: read back %+v", m, back.Criteria[0])
		}
		forged := strings.Replace(buf.String(), `"within": 5,`, `"within": 4,`, 1)
		if forged == buf.String() {
			t.Fatalf("no within count in %s", buf.String())
		}
		if _, err := ReadReport(strings.NewReader(forged), 0); err == nil || !strings.Contains(err.Error(), "exact is") {
			t.Errorf("%s: a forged within count was read: %v", m, err)
		}
	}
}

// Decimal differences right at the tolerance count as within it (0.4-0.3
// is 0.10000000000000003 in binary).
func TestContinuousToleranceBoundary(t *testing.T) {
	rep, err := Compare(continuousRubric(0, 1), ratings(0.3, 0.6), ratings(0.4, 0.71), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := rep.Criteria[0]; c.Continuous.Within != 1 || c.Continuous.Within2 != 2 {
		t.Errorf("within %d, within_2x %d, want 1 and 2", c.Continuous.Within, c.Continuous.Within2)
	}
}
