package judge

import (
	"errors"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/formats"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// The judge's answers, a tool's results and rubricgate's own results fail
// with one error type: a caller's errors.As on *native.InputError names the
// file and line of all three.
func TestOneInputErrorType(t *testing.T) {
	_, jerr := ReadAnswers("answers.jsonl", strings.NewReader(`{"id":"a","question":"q","answer":"x"}`+"\n"+`{"id":"a","question":"p","answer":"y"}`+"\n"))
	f, _ := formats.Lookup("promptfoo")
	ferr := f.Read("results.json", strings.NewReader("{"), func(*formats.Record) error { return nil })
	rb := &rubric.Rubric{Name: "r", Threshold: 50, Criteria: []rubric.Criterion{{ID: "x", Weight: 1, Scale: rubric.Scale{Low: 0, High: 1}}}}
	_, nerr := native.Score(rb, []native.Input{{Name: "run.jsonl", R: strings.NewReader("{\n")}}, native.ScoreOptions{})
	for _, c := range []struct {
		err  error
		file string
	}{{jerr, "answers.jsonl"}, {ferr, "results.json"}, {nerr, "run.jsonl"}} {
		var ie *native.InputError
		if !errors.As(c.err, &ie) || ie.File != c.file || ie.Line == 0 {
			t.Errorf("error %v (%T): want a *native.InputError at %s with a line", c.err, c.err, c.file)
		}
	}
}
