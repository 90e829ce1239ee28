package gaterun

import (
	"context"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/host"
)

// A new baseline continues the history of the baseline the run was
// compared with, but not that of the default branch's baseline a pull
// request against a branch without one fell back to: "the last baselines
// of its branch". The report shows the trend either way.
func TestGateHistoryContinuesOnlyItsBranch(t *testing.T) {
	rb := loadExample(t)
	store := &baseline.Dir{Root: t.TempDir()}
	o := options(rb, exampleRun, store)
	o.SaveDir, o.Save = store, host.SaveInputs{Branch: "main"}
	for range 3 {
		res, err := Gate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		if err := store.Save(o.Query, res.NewBaseline); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Gate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.NewBaseline.History.Entries); n != 3 {
		t.Errorf("main: %d history entries, want the 3 earlier baselines", n)
	}
	if tr := res.Report.Trend; tr == nil || len(tr.Points) != 3 || tr.Current == nil {
		t.Errorf("main: trend %+v", tr)
	}

	pr := options(rb, exampleRun, store)
	pr.Query.Branch = "release"
	pr.BaselineRef = host.BaselineRef{Branch: "release", From: host.FromTarget, Default: "main"}
	pr.WriteBaseline = true
	res, err = Gate(context.Background(), pr)
	if err != nil {
		t.Fatal(err)
	}
	if res.NewBaseline == nil || len(res.NewBaseline.History.Entries) != 0 {
		t.Errorf("release, compared with main's baseline: the new baseline inherited main's history")
	}
	if tr := res.Report.Trend; tr == nil || len(tr.Points) != 3 {
		t.Errorf("release: trend %+v, want main's", tr)
	}
}
