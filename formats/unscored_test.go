package formats

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// A value each tool writes when it failed to score a metric (ragas' NaN or
// empty cell, Inspect's NaN "unscored", deepeval's null score, promptfoo's
// null named score, which is how JSON.stringify writes NaN, openai/evals'
// null metric) is a failure, not a not-applicable verdict: the item is
// unscored and a blocking criterion that allows `na` fails closed on it.
func TestToolFailureIsUnscoredNotNA(t *testing.T) {
	pf, err := os.ReadFile("testdata/promptfoo/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(pf, []byte("\n"))
	nulled := bytes.Replace(first, []byte(`"namedScores":{"accuracy":1,"helpfulness":0.9}`), []byte(`"namedScores":{"accuracy":1,"helpfulness":null}`), -1)
	if bytes.Equal(nulled, first) {
		t.Fatal("the promptfoo fixture changed: no namedScores to null")
	}
	mg, err := os.ReadFile("testdata/openai-evals/modelgraded.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// A metric an eval recorded as null (no model-graded choice beside it).
	mgNull := bytes.Replace(mg, []byte(`{"choice": "Y", "score": 1.0}`), []byte(`{"accuracy": null}`), 1)
	if bytes.Equal(mgNull, mg) {
		t.Fatal("the openai-evals fixture changed: no metrics event to null")
	}
	for _, tc := range []struct {
		name, file, metric, item string
		data                     []byte
	}{
		{"ragas", "testdata/ragas/results_with_id.csv", "", "", nil},
		{"inspect", "testdata/inspect/epochs.json", "", "", nil},
		{"deepeval", "testdata/deepeval/test_run_20261201_000000.json", "", "", nil},
		{"openai-evals", "testdata/openai-evals/modelgraded.jsonl", "", "", mgNull},
		{"promptfoo", "results.jsonl", "helpfulness", "", nulled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := tc.data
			if data == nil {
				if data, err = os.ReadFile(tc.file); err != nil {
					t.Fatal(err)
				}
			}
			f, err := Detect(tc.file, data)
			if err != nil {
				t.Fatal(err)
			}
			src := NewRecords(f, tc.file, func() (io.Reader, error) { return bytes.NewReader(data), nil })
			// Find the first metric the tool failed to score.
			var failedID, metric string
			var all []string
			err = src.Each(func(r *native.Record) error {
				all = append(all, r.ID)
				for _, s := range r.Samples {
					for _, m := range s.Metrics {
						if m.Unscored && failedID == "" && r.Error == "" {
							failedID, metric = r.ID, m.Name
						}
						if m.NA {
							t.Errorf("item %s metric %s: NA set by a reader; a tool's missing value is Unscored", r.ID, m.Name)
						}
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if failedID == "" {
				t.Fatalf("no record with a metric the tool failed to score (ids %v)", all)
			}
			// A blocking criterion that allows na, fed by that metric only.
			rb := &rubric.Rubric{Name: "t", Criteria: []rubric.Criterion{
				{ID: "gated", Name: "gated", Weight: 1, Scale: rubric.Scale{Low: -1000000, High: 1000000}, Continuous: true,
					Critical: ptr(-999999.0), Blocking: true, NA: true, From: map[string]rubric.Source{f.Name: {Metric: metric}}},
			}}
			// The baseline's gate check (the pull request cannot edit it).
			gc, err := native.CheckBlocking(rb, []native.Input{{Name: tc.file, Records: src}})
			if err != nil {
				t.Fatal(err)
			}
			blocked := false
			for _, b := range gc.Failures {
				if b.Item == failedID && b.Unscored && strings.Contains(b.Reasoning, "failed to score metric") {
					blocked = true
				}
			}
			if !blocked {
				t.Errorf("item %s (metric %s): no fail-closed blocking failure: %+v", failedID, metric, gc.Failures)
			}
			// Read under the rubric: the item is unscored and the gate has no
			// value (not na, and not another sample's value).
			items := 0
			err = native.ReadItems(rb, native.Input{Name: tc.file, Records: src}, native.ReadOptions{AllowMissing: true, GatesOnly: true}, func(it *native.Item) error {
				if it.ID == failedID {
					items++
					if it.Error == "" || it.Values[0].State != gate.Missing {
						t.Errorf("item %s: error %q, value %+v; want unscored, not na", it.ID, it.Error, it.Values[0])
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if items != 1 {
				t.Errorf("item %s read %d times", failedID, items)
			}
		})
	}
}

func ptr(f float64) *float64 { return &f }
