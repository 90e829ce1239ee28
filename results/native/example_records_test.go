package native_test

import (
	"fmt"

	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// deepevalRun stands in for a format reader: it yields one Record per test
// case, the metric names as deepeval writes them.
type deepevalRun struct{ cases []native.Record }

func (deepevalRun) Format() string { return "deepeval" }

func (d deepevalRun) Each(fn func(*native.Record) error) error {
	for i := range d.cases {
		rec := d.cases[i]
		if err := fn(&rec); err != nil {
			return err
		}
	}
	return nil
}

// A reader of another tool's output hands gate its records; the rubric's
// `from` maps the tool's metric names onto criteria.
func ExampleRecords() {
	src := []byte(`name: rag
threshold: 50
criteria:
  - id: relevancy
    scale: [0, 1]
    continuous: true
    from: {deepeval: "Answer Relevancy"}
  - id: faithfulness
    scale: [0, 1]
    continuous: true
    critical: 0.5
    blocking: true
    from: {deepeval: Faithfulness}
`)
	rb, _, err := rubric.Load("rag.yaml", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	run := deepevalRun{cases: []native.Record{
		{ID: "refunds", Where: "testCases[0]", JudgeModel: "gpt-4.1", Samples: []native.Sample{{
			Metrics:   []native.Metric{{Name: "Answer Relevancy", Value: 0.92}, {Name: "Faithfulness", Value: 0.4}},
			Reasoning: "claims a 60-day window"}}},
		{ID: "shipping", Where: "testCases[1]", Samples: []native.Sample{{
			Metrics: []native.Metric{{Name: "Answer Relevancy", Value: 0.8}, {Name: "Faithfulness", Value: 1}}}}},
		{ID: "returns", Where: "testCases[2]", Error: "evaluation model timed out"},
	}}
	rep, err := native.Score(rb, []native.Input{{Name: ".deepeval/.latest_run_full.json", Records: run}}, native.ScoreOptions{MaxUnscored: 0.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("items %d, scored %d, score %.1f\n", rep.Items, rep.Scored, *rep.Score)
	for _, f := range rep.BlockingFailures {
		fmt.Printf("blocking: %s %s = %v (%s)\n", f.Item, f.Criterion, f.Score, f.Reasoning)
	}
	// Output:
	// items 3, scored 2, score 78.0
	// blocking: refunds faithfulness = 0.4 (claims a 60-day window)
	// blocking: returns faithfulness = 0 ([no score: the item carries a judge error: evaluation model timed out])
}
