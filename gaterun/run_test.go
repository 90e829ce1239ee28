package gaterun

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/host/local"
	"github.com/rubricgate/rubricgate/results"
)

// OnHost on a local run: the baseline file named is the store and the
// regressed example blocks; with a directory store and the branch given as
// the baseline branch, a passing run saves into the store.
func TestOnHostLocal(t *testing.T) {
	rb, warns, err := ReadRubric("../rubrics/support.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h, err := local.New(local.Options{SkipGit: true})
	if err != nil {
		t.Fatal(err)
	}
	run := func(s *Settings, res string) (*Outcome, string) {
		t.Helper()
		c, err := s.Parse()
		if err != nil {
			t.Fatal(err)
		}
		src, err := results.NewSource([]string{res}, "", nil)
		if err != nil {
			t.Fatal(err)
		}
		var warned []string
		out, err := OnHost(context.Background(), h, HostOptions{Settings: c, Rubric: rb, RubricWarnings: warns, Results: src,
			ResultNames: []string{res}, Now: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC),
			Warn: func(s string) { warned = append(warned, s) }})
		if err != nil {
			t.Fatal(err)
		}
		return out, strings.Join(warned, "\n")
	}
	s := defaults(t)
	s.BaselineFile = "../examples/support/baseline.json"
	out, _ := run(s, "../examples/support/run-regressed.jsonl")
	if !out.Blocked() || out.Report.Baseline == nil || out.SaveTo != "" || out.Report.Context != nil {
		t.Errorf("regressed: blocked %v, baseline %v, save %q", out.Blocked(), out.Report.Baseline, out.SaveTo)
	}
	s = defaults(t)
	s.BaselineDir, s.Branch = t.TempDir(), "main"
	out, log := run(s, "../examples/support/run.jsonl")
	if out.Blocked() || out.NewBaseline == nil || out.SaveTo != filepath.Join(s.BaselineDir, "support-answers", "main.json") {
		t.Errorf("first run on main: blocked %v, save %q\n%s", out.Blocked(), out.SaveTo, log)
	}
	s.Branch = "feature"
	// Why it was not saved is told by Publish, after the decision
	// (testdata/script/first_run_*.txtar), not logged here before it.
	if out, log := run(s, "../examples/support/run.jsonl"); out.SaveTo != "" || log != "" || !strings.Contains(out.NotSaved, "this run is on branch") {
		t.Errorf("run on a feature branch: save %q, log %q", out.SaveTo, log)
	}
}
