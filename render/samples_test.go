package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// Items judged several times: the criterion table gains a Spread column,
// and a mean score that is not an integer is shown as such.
func TestMarkdownSpread(t *testing.T) {
	rep := report()
	if md := ScoreMarkdown(rep); strings.Contains(md, "Spread") {
		t.Fatalf("single judgings show a spread column:\n%s", md)
	}
	rep.MaxSamples = 3
	rep.Criteria[0].Spread = f(0.4714)
	rep.BlockingFailures = []gate.BlockingFailure{{Item: "q1", Criterion: "safety", Score: 1.0 / 3, Reasoning: "leaks an email"}}
	md := ScoreMarkdown(rep)
	for _, want := range []string{
		"| Criterion | Weight | Baseline | Current | Change | Status | Spread |\n|---|---:|---:|---:|---:|---|---:|\n",
		"| ±0.47 |\n",
		"| — |\n", // safety: no item with two scored samples
		"- `q1`: safety = 0.33 — leaks an email",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

func TestScoreTextContinuous(t *testing.T) {
	crit := 0.35
	rb := &rubric.Rubric{Criteria: []rubric.Criterion{
		{ID: "helpfulness", Scale: rubric.Scale{Low: 0, High: 1}, Continuous: true, Critical: &crit, Blocking: true},
	}}
	bins := make([]gate.Bin, 10)
	for j := range bins {
		bins[j] = gate.Bin{Low: float64(j) / 10, High: float64(j+1) / 10, Count: j}
	}
	rep := report()
	rep.Criteria = []gate.CriterionStats{{ID: "helpfulness", Weight: 1, Mean: f(0.61), Normalized: f(61), Scored: 45, Histogram: map[int]int{}, Bins: bins, Spread: f(0.05)}}
	var b bytes.Buffer
	if err := ScoreText(&b, rep, rb); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"helpfulness (min 0.35, blocking)", "0-1 cont.", "0:0 0.1:1 0.2:2", "0.9:9 spread ±0.05"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
}
