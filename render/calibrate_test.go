package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/calibrate"
)

func TestCalibrationTable(t *testing.T) {
	judge := &calibrate.Result{Report: &calibrate.Report{
		Rubric: calibrate.RubricRef{Name: "support", Hash: "sha256:abc"}, Metric: calibrate.MetricExact, MinAgreement: 0.75,
		Criteria: []calibrate.CriterionAgreement{{ID: "tone", Name: "Tone", N: 4, Exact: f(0.5)}},
	}}
	reviewers := &calibrate.Result{Reviewers: &calibrate.ReviewerReport{
		Rubric: calibrate.RubricRef{Name: "rag", Hash: "sha256:def"}, Metric: calibrate.MetricExact, MinAgreement: 0.75,
		Reviewers: [2]string{"dana", "lee"}, Passed: true,
	}}
	table := CalibrationTable()
	for _, name := range []string{"json", "markdown", "text"} {
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
			calibrate.WriteReviewersText(&want, reviewers.Reviewers)
		case "markdown":
			calibrate.WriteReviewersMarkdown(&want, reviewers.Reviewers)
		case "json":
			calibrate.WriteJSON(&want, reviewers.Reviewers)
		}
		if b.String() != want.String() || a.String() == b.String() || !strings.Contains(strings.ToLower(a.String()), "tone") {
			t.Errorf("%s:\njudge:\n%s\nreviewers:\n%s", name, a.String(), b.String())
		}
	}
}
