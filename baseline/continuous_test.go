package baseline

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// A baseline of a run with a continuous criterion and judged samples reads
// back: its per-criterion figures come from binned means, not levels, and
// the consistency check must not refuse them.
func TestContinuousAndSampledBaselineReadsBack(t *testing.T) {
	rb, _, err := rubric.Load("r.yaml", []byte(`name: mixed
threshold: 50
criteria:
  - id: helpful
    scale: [0, 1]
    continuous: true
    weight: 2
    critical: 0.25
  - id: tone
    scale: [1, 5]
    anchors: {1: bad, 3: ok, 5: good}
`))
	if err != nil {
		t.Fatal(err)
	}
	run := `{"id":"a","scores":{"helpful":0.35,"tone":4}}
{"id":"b","samples":[{"scores":{"helpful":0.9,"tone":3},"reasoning":"x"},{"scores":{"helpful":0.8,"tone":4},"reasoning":"y"}]}
{"id":"c","scores":{"helpful":0.1,"tone":5}}
`
	var items []gate.ItemScore
	rep, err := native.Score(rb, []native.Input{{Name: "run.jsonl", R: strings.NewReader(run)}}, native.ScoreOptions{OnItem: func(it *gate.ItemResult) error {
		items = append(items, gate.ItemScore{ID: it.ID, Score: it.Score})
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	f, err := New(rb, rep, items, Meta{Branch: "main", CreatedAt: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bytes.NewReader(buf.Bytes()), "baseline.json", 1<<20); err != nil {
		t.Fatalf("a baseline rubricgate wrote is refused: %v", err)
	}
}
