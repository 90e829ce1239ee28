package formats

import (
	"bytes"
	"errors"
	"github.com/rubricgate/rubricgate/results/native"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestLookupAndNames(t *testing.T) {
	names := Names()
	if !sort.StringsAreSorted(names) || len(names) != len(All()) {
		t.Fatalf("Names() = %v", names)
	}
	for _, n := range names {
		f, ok := Lookup(n)
		if !ok || f.Name != n {
			t.Errorf("Lookup(%q) = %v, %v", n, f, ok)
		}
	}
	if _, ok := Lookup("csv"); ok {
		t.Error("Lookup of an unknown name succeeded")
	}
}

func TestDetectUnknownAndAmbiguous(t *testing.T) {
	cases := map[string]struct {
		name, head, want string
	}{
		"unknown json":  {"r.json", `{"items": []}`, "unknown result format"},
		"unknown ext":   {"r.txt", `{"evalId": "x"}`, "unknown result format"},
		"not json":      {"r.json", `evalId`, "unknown result format"},
		"csv no text":   {"r.csv", "id,score\n", "unknown result format"},
		"ambiguous":     {"r.jsonl", `{"spec": {}, "testCase": {}}`, "could be promptfoo or openai-evals"},
		"eval not zip":  {"r.eval", `{"version": 2}`, "unknown result format"},
		"zip not .eval": {"r.zip", "PK\x03\x04", "unknown result format"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Detect(c.name, []byte(c.head))
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), c.name) {
				t.Errorf("error %v, want one naming %s and containing %q", err, c.name, c.want)
			}
			if c.want == "unknown result format" && !errors.Is(err, ErrUnknownFormat) {
				t.Errorf("error %v does not wrap ErrUnknownFormat", err)
			}
		})
	}
}

// Detection works from a cut head: a JSON document's first keys are enough.
func TestDetectFromCutHead(t *testing.T) {
	for file, want := range map[string]string{
		"promptfoo/results.json":                 "promptfoo",
		"inspect/epochs.json":                    "inspect",
		"deepeval/test_run_20261201_000000.json": "deepeval",
	} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		f, err := Detect(file, data[:200])
		if err != nil || f.Name != want {
			t.Errorf("%s: Detect = %v, %v; want %s", file, f, err, want)
		}
	}
}

// Every reader stops at fn's first error and returns it.
func TestReadStopsAtCallbackError(t *testing.T) {
	stop := errors.New("stop")
	for file, format := range map[string]string{
		"promptfoo/results.json":                 "promptfoo",
		"promptfoo/results.jsonl":                "promptfoo",
		"inspect/epochs.json":                    "inspect",
		"inspect/log_formats.eval":               "inspect",
		"deepeval/test_run_20261201_000000.json": "deepeval",
		"openai-evals/match.jsonl":               "openai-evals",
		"ragas/results.csv":                      "ragas",
	} {
		f, _ := Lookup(format)
		fh, err := os.Open(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = f.Read(file, fh, func(*Record) error { n++; return stop })
		fh.Close()
		if !errors.Is(err, stop) || n != 1 {
			t.Errorf("%s: %d calls, error %v; want 1 call and the callback's error", file, n, err)
		}
	}
}

// Inputs over the limits are refused with an error naming the file, not
// truncated.
func TestSizeLimits(t *testing.T) {
	defer func(f, r int64) { maxFile, maxRecord = f, r }(maxFile, maxRecord)
	for file, format := range map[string]string{
		"promptfoo/results.json":                 "promptfoo",
		"promptfoo/results.jsonl":                "promptfoo",
		"inspect/epochs.json":                    "inspect",
		"inspect/log_formats.eval":               "inspect",
		"deepeval/test_run_20261201_000000.json": "deepeval",
		"openai-evals/match.jsonl":               "openai-evals",
		"ragas/results.csv":                      "ragas",
	} {
		data, err := os.ReadFile(filepath.Join("testdata", file))
		if err != nil {
			t.Fatal(err)
		}
		f, _ := Lookup(format)
		maxFile, maxRecord = int64(len(data))-1, MaxRecordBytes
		_, err = readBytes(f, file, data)
		var ie *native.InputError
		if !errors.As(err, &ie) || ie.File != file || !errors.Is(err, errLimit) {
			t.Errorf("%s one byte over the file limit: error %v, want an *native.InputError wrapping errLimit", file, err)
		}
		maxFile = int64(len(data))
		if _, err := readBytes(f, file, data); err != nil {
			t.Errorf("%s exactly at the file limit: %v", file, err)
		}
	}
	maxFile, maxRecord = MaxFileBytes, 100
	_, err := readBytes(promptfooJSONL, "long.jsonl", append(bytes.Repeat([]byte(" "), 200), '\n'))
	if err == nil || !strings.Contains(err.Error(), "long.jsonl:1: line is longer than 100 bytes") {
		t.Errorf("over-long line: %v", err)
	}
}

// .deepeval/.latest_test_run.json holds the run under "testRunData".
func TestDeepevalWrapped(t *testing.T) {
	data, err := os.ReadFile("testdata/deepeval/test_run_20261201_000000.json")
	if err != nil {
		t.Fatal(err)
	}
	wrapped := append(append([]byte(`{"testRunData": `), data...), '}')
	f, err := Detect(".latest_test_run.json", wrapped)
	if err != nil || f.Name != "deepeval" {
		t.Fatalf("Detect = %v, %v", f, err)
	}
	plain, err := readBytes(deepevalJSON, "a.json", data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := readBytes(deepevalJSON, "a.json", wrapped)
	if err != nil || len(got) != len(plain) || got[2].Error != plain[2].Error || got[0].ID != "refund_policy" {
		t.Fatalf("wrapped: %d records (error %v), plain %d", len(got), err, len(plain))
	}
}

// A .csv is rubricgate's own review sheet unless its header is plainly
// ragas'.
func TestRagasDetectLeavesReviewSheets(t *testing.T) {
	for head, want := range map[string]bool{
		",user_input,faithfulness\n":                                   true,
		"id,question,contexts,answer,ground_truth,faithfulness\n":      true,
		"user_input,response,faithfulness\n":                           true,
		"id,question,G,C,A,U,retrieval_miss,pass,notes,reviewer\n":     false,
		"id,question,accuracy\n":                                       false,
		"id,question,answer,accuracy\n":                                false,
		",user_input,retrieved_contexts,response,faithfulness,notes\n": false,
		"id,accuracy,safety\n":                                         false,
	} {
		if got := ragasCSV.Detect("r.csv", []byte(head)); got != want {
			t.Errorf("Detect(%q) = %v, want %v", head, got, want)
		}
	}
}
