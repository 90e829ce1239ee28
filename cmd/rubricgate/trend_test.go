package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
)

// The history grows and caps through the gate's own save path: 33 passing
// runs on main, each saving into the local store, leave a baseline whose
// history holds the 30 before it (seq 2 to 31, chained), and the 33rd
// run's markdown shows the last 31 baselines.
func TestTrendCapsAcrossSavedBaselines(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	results := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(results, []byte(goodRun), 0o644); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(store, "support-answers", "main.json")
	md := filepath.Join(dir, "report.md")
	for k := range 33 {
		code, out, errb := runCLI(t, "", "gate", "--rubric", supportRubric, "--results", results, "--baseline-dir", store, "--branch", "main", "--markdown", md)
		if code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", k, code, out, errb)
		}
		fh, err := os.Open(saved)
		if err != nil {
			t.Fatal(err)
		}
		f, err := baseline.Read(fh, saved, 0)
		fh.Close()
		if err != nil {
			t.Fatalf("run %d: the saved baseline does not read: %v", k, err)
		}
		h := f.History.Entries
		if want := min(k, baseline.MaxHistory); len(h) != want {
			t.Fatalf("run %d: %d history entries, want %d", k, len(h), want)
		}
		if len(h) > 0 && (h[0].Seq != max(0, k-baseline.MaxHistory) || h[len(h)-1].Seq != k-1) {
			t.Fatalf("run %d: seqs %d..%d", k, h[0].Seq, h[len(h)-1].Seq)
		}
	}
	b, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "Score of the last 31 baselines and this run") {
		t.Errorf("the last run's markdown:\n%s", b)
	}
}
