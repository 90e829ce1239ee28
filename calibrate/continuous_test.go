package calibrate

import (
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
	h := rep.Criteria[1]
	if !h.Pass || h.N != 0 || h.Exact != nil || !strings.Contains(h.Skipped, "continuous") || len(h.Confusion.Levels) != 0 {
		t.Errorf("continuous criterion: %+v", h)
	}
	var md, txt strings.Builder
	if err := WriteMarkdown(&md, rep); err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&txt, rep); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "- helpfulness: continuous scale") || !strings.Contains(txt.String(), "helpfulness: continuous scale") {
		t.Errorf("the skip is not shown:\n%s\n%s", md.String(), txt.String())
	}
}
