package formats

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// promptfooRubric weighs helpfulness w and accuracy 1, both read from
// promptfoo's named scores.
func promptfooRubric(t *testing.T, w string) *rubric.Rubric {
	t.Helper()
	rb, _, err := rubric.Load("r.yaml", []byte(`name: pf
criteria:
  - id: helpful
    weight: `+w+`
    scale: [0, 1]
    continuous: true
    from: {promptfoo: helpfulness}
  - id: accuracy
    scale: [0, 1]
    continuous: true
`))
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

// scorePromptfoo scores the promptfoo rows of the fixture that contain one
// of keep (all rows when keep is empty) under rb.
func scorePromptfoo(t *testing.T, rb *rubric.Rubric, keep ...string) *gate.Report {
	t.Helper()
	data, err := os.ReadFile("testdata/promptfoo/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		for _, k := range keep {
			if strings.Contains(l, k) {
				rows = append(rows, l)
				break
			}
		}
		if len(keep) == 0 {
			rows = append(rows, l)
		}
	}
	body := []byte(strings.Join(rows, "\n") + "\n")
	f, _ := Lookup("promptfoo")
	recs := NewRecords(f, "run.jsonl", func() (io.Reader, error) { return bytes.NewReader(body), nil })
	rep, err := native.Score(rb, []native.Input{{Name: "run.jsonl", Records: recs}}, native.ScoreOptions{MaxUnscored: 1})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// A tool whose weights differ from the rubric's, or vary from row to row,
// gives a typed warning naming the file, the format and the weights; its
// text is the warning the report always carried.
func TestToolWeightFindings(t *testing.T) {
	rep := scorePromptfoo(t, promptfooRubric(t, "3"), `"description":"capital"`, `"description":"arithmetic"`)
	var got *finding.Finding
	for i, f := range rep.Findings {
		if f.Kind == finding.ToolWeightsDiffer {
			got = &rep.Findings[i]
		}
	}
	if got == nil {
		t.Fatalf("no %s finding in %+v", finding.ToolWeightsDiffer, rep.Findings)
	}
	want := []finding.Weight{{Criterion: "helpful", Rubric: 3, Metric: "helpfulness", Tool: 2}, {Criterion: "accuracy", Rubric: 1, Metric: "accuracy", Tool: 1}}
	if got.File != "run.jsonl" || got.Format != "promptfoo" || len(got.Weights) != 2 || got.Weights[0] != want[0] || got.Weights[1] != want[1] {
		t.Errorf("finding %+v", *got)
	}
	if text := `run.jsonl: promptfoo's own weights differ from the rubric's; the rubric's weights are used: helpful 3 ("helpfulness" 2), accuracy 1 ("accuracy" 1)`; got.Text() != text {
		t.Errorf("text %q, want %q", got.Text(), text)
	}

	// The whole fixture weighs helpfulness differently from row to row.
	data, err := os.ReadFile("../examples/promptfoo/rubric.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rb, _, err := rubric.Load("rubric.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	rep = scorePromptfoo(t, rb)
	got = nil
	for i, f := range rep.Findings {
		if f.Kind == finding.ToolWeightsVary {
			got = &rep.Findings[i]
		}
	}
	if got == nil || got.File != "run.jsonl" || got.Format != "promptfoo" || len(got.Metrics) != 1 || got.Metrics[0] != "helpfulness" {
		t.Fatalf("vary finding %+v in %+v", got, rep.Findings)
	}
	if text := `run.jsonl: promptfoo weighs "helpfulness" differently from row to row; the rubric's weights are used`; got.Text() != text {
		t.Errorf("text %q, want %q", got.Text(), text)
	}
}
