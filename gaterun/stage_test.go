package gaterun

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/stage"
	"github.com/rubricgate/rubricgate/publish"
)

// Stage adds the baseline file first and the local store's baseline last;
// a blocked run asked for a baseline file gets a note instead.
func TestStage(t *testing.T) {
	dir := t.TempDir()
	bf, _, err := baseline.FileStore{Path: "../examples/support/baseline.json"}.Latest(context.Background(), baseline.Query{})
	if err != nil {
		t.Fatal(err)
	}
	o := &Outcome{Result: publish.Result{Report: &gate.GateReport{Report: &gate.Report{}, Decision: gate.Pass}}, NewBaseline: bf,
		SaveTo: filepath.Join(dir, "store", "r", "main.json")}
	var set stage.Set
	defer set.Abort()
	path, note, err := o.Stage(&set, filepath.Join(dir, "b.json"), stage.Output{Path: filepath.Join(dir, "r.json"), Write: func(w io.Writer) error { return nil }})
	if err != nil || note != "" || path != filepath.Join(dir, "b.json") {
		t.Fatalf("path %q note %q err %v", path, note, err)
	}
	if err := set.Commit(io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"b.json", "r.json", "store/r/main.json"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	o = &Outcome{Result: publish.Result{Report: &gate.GateReport{Report: &gate.Report{}, Decision: gate.Block}}}
	var set2 stage.Set
	defer set2.Abort()
	if path, note, err := o.Stage(&set2, "b.json"); path != "" || err != nil || note != "no baseline written to b.json: the run was blocked" {
		t.Errorf("blocked: %q %q %v", path, note, err)
	}
}
