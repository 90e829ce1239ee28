package formats

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/testgolden"
)

// readFile reads a fixture with its format, as records.
func readFile(t *testing.T, f *Format, path string) ([]*Record, error) {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []*Record
	err = f.Read(path, fh, func(r *Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// goldenRecords renders records as indented JSON, one fixture per golden.
func goldenRecords(t *testing.T, recs []*Record) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(recs); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestGolden reads every fixture with the format its name and content say
// (through Detect) and compares the records with testdata/golden/.
func TestGolden(t *testing.T) {
	cases := []struct{ file, format string }{
		{"promptfoo/results.json", "promptfoo"},
		{"promptfoo/results.jsonl", "promptfoo"},
		{"promptfoo/results.csv", "promptfoo"},
		{"promptfoo/repeat.json", "promptfoo"},
		{"promptfoo/repeat.jsonl", "promptfoo"},
		{"promptfoo/repeat.csv", "promptfoo"},
		{"inspect/epochs.json", "inspect"},
		{"inspect/log_formats.json", "inspect"},
		{"inspect/log_formats.eval", "inspect"},
		{"inspect/log_read_sample.json", "inspect"},
		{"deepeval/test_run_sample.json", "deepeval"},
		{"deepeval/test_run_20261201_000000.json", "deepeval"},
		{"deepeval/test_run_directions.json", "deepeval"},
		{"openai-evals/match.jsonl", "openai-evals"},
		{"openai-evals/modelgraded.jsonl", "openai-evals"},
		{"ragas/results.csv", "ragas"},
		{"ragas/results_with_id.csv", "ragas"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join("testdata", c.file)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			head := data
			if len(head) > HeadSize {
				head = head[:HeadSize]
			}
			f, err := Detect(path, head)
			if err != nil {
				t.Fatal(err)
			}
			if f.Name != c.format {
				t.Fatalf("Detect says %s, want %s", f.Name, c.format)
			}
			recs, err := readFile(t, f, path)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", strings.ReplaceAll(c.file, "/", "_")+".golden.json")
			testgolden.Check(t, golden, goldenRecords(t, recs))
		})
	}
}
