package results

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/results/native"
)

const data = "../formats/testdata/"

// Open picks each file's reader by name and content, and every input can
// be read twice.
func TestOpenDetects(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "run.json")
	os.WriteFile(own, []byte(`{"id":"a","scores":{"x":1}}`+"\n"), 0o644)
	sheet := filepath.Join(dir, "sheet.csv")
	os.WriteFile(sheet, []byte("id,question,x\na,why?,1\n"), 0o644)
	ins, closeAll, err := Open([]string{own, sheet, data + "promptfoo/results.json", data + "promptfoo/results.jsonl",
		data + "inspect/log_formats.eval", data + "deepeval/test_run_sample.json", data + "openai-evals/match.jsonl", data + "ragas/results.csv"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	want := []string{"", "", "promptfoo", "promptfoo", "inspect", "deepeval", "openai-evals", "ragas"}
	for i, in := range ins {
		got := ""
		if in.Records != nil {
			got = in.Records.Format()
			for range 2 {
				n := 0
				if err := in.Records.Each(func(*native.Record) error { n++; return nil }); err != nil || n == 0 {
					t.Errorf("%s: %d records, %v", in.Name, n, err)
				}
			}
		} else if in.Format != native.FormatAuto || in.R == nil {
			t.Errorf("%s: native input %+v", in.Name, in)
		}
		if got != want[i] {
			t.Errorf("%s: format %q, want %q", in.Name, got, want[i])
		}
	}
}

// Stdin needs a format; a tool's reader gets it buffered, readable twice.
func TestOpenStdin(t *testing.T) {
	_, _, err := Open([]string{"-"}, "", strings.NewReader(""))
	var u *UsageError
	if !errors.As(err, &u) || !strings.Contains(err.Error(), "needs --format") {
		t.Fatalf("error %v", err)
	}
	run, _ := os.ReadFile(data + "openai-evals/match.jsonl")
	ins, closeAll, err := Open([]string{"-"}, "openai-evals", strings.NewReader(string(run)))
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	for range 2 {
		n := 0
		if err := ins[0].Records.Each(func(*native.Record) error { n++; return nil }); err != nil || n != 4 {
			t.Fatalf("stdin: %d records, %v", n, err)
		}
	}
	if _, _, err := Open([]string{"a.json"}, "promptfoo-jsonl", nil); !errors.As(err, &u) || !strings.Contains(err.Error(), "expected one of "+strings.Join(Names(), ", ")) {
		t.Errorf("unknown format: %v", err)
	}
}

// Two readers claiming one file is an error that asks for --format.
func TestOpenAmbiguous(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.jsonl")
	os.WriteFile(p, []byte(`{"spec": {}, "testCase": {}}`+"\n"), 0o644)
	_, _, err := Open([]string{p}, "", nil)
	if err == nil || !strings.Contains(err.Error(), "could be promptfoo or openai-evals") {
		t.Fatalf("error %v", err)
	}
}

// promptfoo's YAML, XML and HTML outputs are refused by name, with what to
// write instead (they used to be read as JSON lines: "expected a JSON
// object"); its CSV is promptfoo's, not a review sheet.
func TestOpenPromptfooOutputs(t *testing.T) {
	for _, f := range []string{"results.yaml", "results.xml", "results.html"} {
		_, _, err := Open([]string{data + "promptfoo/" + f}, "", nil)
		var ie *native.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "is not read") || !strings.Contains(err.Error(), "-o results.json instead") {
			t.Errorf("%s: %v", f, err)
		}
	}
	ins, closeAll, err := Open([]string{data + "promptfoo/results.csv"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	if ins[0].Records == nil || ins[0].Records.Format() != "promptfoo" {
		t.Fatalf("results.csv read as %+v", ins[0])
	}
}

// itemIDs reads every input's items and returns their ids, in order.
func itemIDs(t *testing.T, ins []native.Input) []string {
	t.Helper()
	var ids []string
	for _, in := range ins {
		if in.Records == nil {
			t.Fatalf("%s: not a tool's records", in.Name)
		}
		if err := in.Records.Each(func(r *native.Record) error { ids = append(ids, r.ID); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// An Inspect eval-set directory is read as its tasks' logs (the failed
// first attempt of popularity left out), ids qualified by task: both tasks
// have a sample 1.
func TestOpenEvalSetDir(t *testing.T) {
	ins, closeAll, err := Open([]string{data + "inspect/evalset"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	want := []string{"capitals/1", "capitals/q-two", "capitals/3", "popularity/1"}
	if got := itemIDs(t, ins); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ids %q, want %q", got, want)
	}
	if _, _, err := Open([]string{data + "inspect/evalset"}, "promptfoo", nil); err == nil || !strings.Contains(err.Error(), "--format inspect") {
		t.Errorf("--format promptfoo on an eval set: %v", err)
	}
	if _, _, err := Open([]string{data + "promptfoo"}, "", nil); err == nil || !strings.Contains(err.Error(), "not an Inspect eval set") {
		t.Errorf("a plain directory: %v", err)
	}
}

// Several Inspect logs in one run (a glob) keep their tasks' ids apart;
// one log keeps its ids as they were.
func TestOpenInspectLogsQualifiedByTask(t *testing.T) {
	ins, closeAll, err := Open([]string{data + "inspect/evalset/*capitals*.json", data + "inspect/evalset/*popularity_c*.json"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	want := []string{"capitals/1", "capitals/q-two", "capitals/3", "popularity/1"}
	if got := itemIDs(t, ins); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ids %q, want %q", got, want)
	}
	one, closeOne, err := Open([]string{data + "inspect/log_formats.json"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeOne()
	if got := itemIDs(t, one); strings.Join(got, " ") != "1" {
		t.Errorf("one log: ids %q, want [1]", got)
	}
}

// A summary table (metric,score) is named as the aggregate it is, with or
// without --format (it used to be a review sheet "with no id column").
func TestOpenSummaryTable(t *testing.T) {
	sum := filepath.Join(t.TempDir(), "summary.csv")
	os.WriteFile(sum, []byte("metric,score\nfaithfulness,0.9\nanswer_relevancy,0.8\n"), 0o644)
	_, _, err := Open([]string{sum}, "", nil)
	var ie *native.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "a summary table (one row per metric: metric,score)") {
		t.Errorf("%v", err)
	}
}

// A ragas CSV saved with encoding="utf-8-sig" starts with a byte order
// mark: it is still ragas', found by its header, and read by name too.
func TestOpenRagasWithByteOrderMark(t *testing.T) {
	for _, format := range []string{"", "ragas"} {
		ins, closeAll, err := Open([]string{data + "ragas/results_bom.csv"}, format, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(ins) != 1 || ins[0].Records == nil || ins[0].Records.Format() != "ragas" {
			closeAll()
			t.Fatalf("--format %q: not read as ragas: %+v", format, ins)
		}
		n := 0
		if err := ins[0].Records.Each(func(*native.Record) error { n++; return nil }); err != nil || n != 3 {
			t.Errorf("--format %q: %d records, %v; want 3", format, n, err)
		}
		closeAll()
	}
}
