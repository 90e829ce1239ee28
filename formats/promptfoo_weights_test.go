package formats

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// A named metric fed only by a weight-0 assertion: promptfoo writes 0 for
// it (its weights' sum is 0, and it divides only by a sum above 0), though
// the assertion passed on every row (zeroweight.json, see
// make_edited.py). It is read from its assertion's score, never as the 0,
// and the file says so.
func TestPromptfooZeroWeightMetricIsNotAZero(t *testing.T) {
	path := filepath.Join("testdata", "promptfoo", "zeroweight.json")
	recs := memRecords(promptfoo, path, fixture(t, path))
	n := 0
	err := recs.Each(func(r *native.Record) error {
		for _, s := range r.Samples {
			for _, m := range s.Metrics {
				if m.Name != "brief" {
					continue
				}
				n++
				if m.Unscored || m.Value != 1 {
					t.Errorf("%s: brief = %v (unscored %v); want 1, its assertion's score", r.ID, m.Value, m.Unscored)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Fatalf("read brief on %d rows; want 6", n)
	}
	var said bool
	for _, f := range recs.Warnings(&rubric.Rubric{}) {
		if d := f.Params.Detail; strings.Contains(d, `"brief"`) && strings.Contains(d, "weight 0") {
			said = true
		}
	}
	if !said {
		t.Errorf("no warning names the weight-0 metric: %+v", recs.Warnings(&rubric.Rubric{}))
	}
}

// With no assertion result naming it, a weight-0 metric has no score at
// all: unscored, never the 0 promptfoo wrote.
func TestPromptfooZeroWeightWithoutComponentsIsUnscored(t *testing.T) {
	path := filepath.Join("testdata", "promptfoo", "zeroweight.json")
	data := fixture(t, path)
	// Drop the brief assertion's results: the metric is left with its 0.
	cut := bytes.ReplaceAll(data, []byte(`"metric": "brief"`), []byte(`"metric": "other"`))
	for _, it := range items(t, promptfoo, path, cut) {
		for _, s := range it.Samples {
			for _, m := range s.Metrics {
				if m.Name == "brief" && !m.Unscored {
					t.Errorf("%s: brief = %v; want unscored", it.ID, m.Value)
				}
			}
		}
	}
}

// Two tests of one description and vars (no --repeat) are not repeats:
// their testCase differs, and they are refused as duplicates
// (twotests.json, see make_edited.py), naming what differs.
func TestPromptfooTwoTestsOfOneIDAreRefused(t *testing.T) {
	path := filepath.Join("testdata", "promptfoo", "twotests.json")
	err := memRecords(promptfoo, path, fixture(t, path)).Each(func(*native.Record) error { return nil })
	var ie *native.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v; want an input error", err)
	}
	if !strings.Contains(ie.Msg, "duplicate id") || !strings.Contains(ie.Msg, `"assert"`) || ie.Line == 0 {
		t.Errorf("err = %v; want a duplicate id at a line, naming the differing assert", err)
	}
}

// fixture reads a file of testdata.
func fixture(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// memRecords is data read as f's file named path, through Records.
func memRecords(f *Format, path string, data []byte) *Records {
	return NewRecords(f, path, func() (io.Reader, error) { return bytes.NewReader(data), nil })
}
