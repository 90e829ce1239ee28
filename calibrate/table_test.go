package calibrate

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/render"
)

func TestTable(t *testing.T) {
	judge := &Result{Report: &Report{
		Rubric: RubricRef{Name: "support", Hash: "sha256:abc"}, Metric: MetricExact, MinAgreement: 0.75,
		Criteria: []CriterionAgreement{{ID: "tone", Name: "Tone", N: 4, Exact: intp(0.5)}},
	}}
	reviewers := &Result{Reviewers: &ReviewerReport{
		Rubric: RubricRef{Name: "rag", Hash: "sha256:def"}, Metric: MetricExact, MinAgreement: 0.75,
		Reviewers: [2]string{"dana", "lee"}, Passed: true,
	}}
	table := Table()
	for _, name := range []render.Format{"json", "markdown", "text"} {
		var a, b bytes.Buffer
		if err := table[name](&a, judge); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := table[name](&b, reviewers); err != nil {
			t.Fatalf("%s reviewers: %v", name, err)
		}
		// Each kind of calibration renders through its own writer.
		var want bytes.Buffer
		switch name {
		case "text":
			WriteReviewersText(&want, reviewers.Reviewers)
		case "markdown":
			WriteReviewersMarkdown(&want, reviewers.Reviewers)
		case "json":
			WriteJSON(&want, reviewers.Reviewers)
		}
		if b.String() != want.String() || a.String() == b.String() || !strings.Contains(strings.ToLower(a.String()), "tone") {
			t.Errorf("%s:\njudge:\n%s\nreviewers:\n%s", name, a.String(), b.String())
		}
	}
}
