package native

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/rubric"
)

// scoredExamples are the example runs made to be scored, per rubric
// (examples/rag-review/rag-review-sheet.csv is a two-reviewer calibration
// sheet: its ids repeat by design).
var scoredExamples = map[string][]string{
	"production": {"run.jsonl"},
	"support":    {"run.jsonl", "run-regressed.jsonl"},
	"rag-review": {"review.csv"},
}

// TestShippedRubricsAndExamples loads every rubric in rubrics/ with
// rubric.Load and scores the example runs made for it in examples/NAME/.
// The review sheet carries a pass column written by people following seed
// 000's rule: the rubric must agree with every row.
func TestShippedRubricsAndExamples(t *testing.T) {
	paths, _ := filepath.Glob("../../rubrics/*.yaml")
	if len(paths) == 0 {
		t.Skip("no rubrics/*.yaml")
	}
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".yaml")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			rb, _, err := rubric.Load(p, data)
			if err != nil {
				t.Fatal(err)
			}
			for _, base := range scoredExamples[name] {
				f := filepath.Join("../../examples", name, base)
				fh, err := os.Open(f)
				if err != nil {
					t.Fatal(err)
				}
				rep, err := Score(rb, []Input{{Name: f, R: fh}}, ScoreOptions{MaxUnscored: 0.05})
				fh.Close()
				if err != nil {
					t.Errorf("%s: %v", f, err)
					continue
				}
				if rep.Items == 0 || rep.Score == nil {
					t.Errorf("%s: no scored items", f)
				}
				if len(rep.Warnings) > 0 {
					t.Errorf("%s: pass column disagrees with the rubric: %q", f, rep.Warnings)
				}
			}
		})
	}
}
