package formats

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/rubricgate/rubricgate/results/native"
)

// A UTF-8 byte order mark before a CSV or JSON file (pandas'
// to_csv(..., encoding="utf-8-sig"): ragas/results_bom.csv; Windows
// editors) changes nothing: the file is detected as the same tool's and
// read as the same records.
func TestByteOrderMarkIsSkipped(t *testing.T) {
	for _, c := range []struct{ plain, bom string }{
		{"ragas/results.csv", ""},
		{"ragas/results_with_id.csv", ""},
		{"ragas/results_bom.csv", "ragas/results_bom.csv"},
		{"promptfoo/results.json", ""},
		{"promptfoo/results.jsonl", ""},
		{"promptfoo/results.csv", ""},
		{"inspect/log_formats.json", ""},
		{"deepeval/test_run_sample.json", ""},
		{"openai-evals/match.jsonl", ""},
	} {
		t.Run(c.plain, func(t *testing.T) {
			plain, err := os.ReadFile(filepath.Join("testdata", c.plain))
			if err != nil {
				t.Fatal(err)
			}
			withBOM := append([]byte("\xef\xbb\xbf"), plain...)
			if c.bom != "" {
				withBOM = plain
				if plain, err = os.ReadFile(filepath.Join("testdata", c.bom)); err != nil {
					t.Fatal(err)
				}
				plain = bytes.TrimPrefix(plain, []byte("\xef\xbb\xbf"))
			}
			name := filepath.Join("testdata", c.plain)
			want, err := Detect(name, head(plain))
			if err != nil {
				t.Fatal(err)
			}
			got, err := Detect(name, head(withBOM))
			if err != nil || got != want {
				t.Fatalf("with a BOM: Detect = %v, %v; want %s", got, err, want.Name)
			}
			if !reflect.DeepEqual(eachOf(t, want, name, withBOM), eachOf(t, want, name, plain)) {
				t.Error("with a BOM: other records than without")
			}
		})
	}
}

func head(b []byte) []byte {
	if len(b) > HeadSize {
		return b[:HeadSize]
	}
	return b
}

// eachOf reads data as f's file name through Records.
func eachOf(t *testing.T, f *Format, name string, data []byte) []*native.Record {
	t.Helper()
	var out []*native.Record
	err := memRecords(f, name, data).Each(func(r *native.Record) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
