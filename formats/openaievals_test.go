package formats

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// A model-graded eval records its spec's choice score, the lowest for a
// grade that matched no choice (__invalid__): a score like any other
// (modelgraded.jsonl). One whose spec has no choice_scores (fact) records
// score null on every sample: no failure and no score, so no item is
// unscored, none carries a score, and the file says why
// (modelgraded_fact.jsonl).
func TestOpenAIEvalsModelGradedScores(t *testing.T) {
	scores := map[string]float64{}
	for _, it := range items(t, openaiEvals, "testdata/openai-evals/modelgraded.jsonl", nil) {
		if it.Error != "" || len(it.Samples) != 1 || len(it.Samples[0].Metrics) != 1 || it.Samples[0].Metrics[0].Unscored {
			t.Fatalf("%s: %+v", it.ID, it)
		}
		scores[it.ID] = it.Samples[0].Metrics[0].Value
	}
	if scores["coqa-closedqa.dev.2"] != 0 || scores["coqa-closedqa.dev.0"] != 1 || len(scores) != 3 {
		t.Errorf("scores %v; want __invalid__ (dev.2) at the lowest, 0", scores)
	}

	// fact: refused as a file with no score, at the first null.
	path := "testdata/openai-evals/modelgraded_fact.jsonl"
	data := fixture(t, path)
	_, err := readBytes(openaiEvals, path, data)
	var ie *native.InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "choice_scores") || !strings.Contains(ie.Msg, "no score to gate") || ie.Line != 4 {
		t.Errorf("fact: %v; want refused at line 4 as a file with no score", err)
	}
	// With metascore (metaeval) beside the null score, that is read, and
	// the file says score is not there.
	meta := bytes.ReplaceAll(data, []byte(`"score": null}`), []byte(`"score": null, "metascore": true}`))
	recs := memRecords(openaiEvals, path, meta)
	n := 0
	err = recs.Each(func(r *native.Record) error {
		n++
		if r.Error != "" || len(r.Samples) != 1 || len(r.Samples[0].Metrics) != 1 || r.Samples[0].Metrics[0].Name != "metascore" {
			t.Errorf("%s: %+v; want metascore alone", r.ID, r)
		}
		return nil
	})
	if err != nil || n != 3 {
		t.Fatalf("%d items, %v; want 3", n, err)
	}
	said := false
	for _, f := range recs.Warnings(&rubric.Rubric{}) {
		if strings.Contains(f.Params.Detail, "choice_scores") && f.Line > 0 {
			said = true
		}
	}
	if !said {
		t.Errorf("no warning says the file has no score: %+v", recs.Warnings(&rubric.Rubric{}))
	}

	// null on one sample and a number on another is no file openai/evals
	// writes.
	mixed := bytes.Replace(data, []byte(`{"choice": "A", "score": null}`), []byte(`{"choice": "A", "score": 1.0}`), 1)
	_, err = readBytes(openaiEvals, path, mixed)
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "choice_scores") {
		t.Errorf("mixed null and numeric scores: %v; want refused", err)
	}
}
