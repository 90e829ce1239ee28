package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// F13: a push run on the baseline branch whose GITHUB_OUTPUT cannot be
// written is an error (exit 2, later steps rely on the outputs) and leaves
// nothing behind: no baseline saved into the local store, no report.
func TestOutputsUnwritableSavesNothing(t *testing.T) {
	h := newHarness(t)
	h.vars["GITHUB_EVENT_NAME"] = "push"
	h.vars["GITHUB_REF"] = "refs/heads/main"
	h.writeJSON("event.json", map[string]any{"repository": map[string]any{"id": repoID, "full_name": owner + "/" + repo, "default_branch": "main"}})
	// GITHUB_OUTPUT is a directory: it cannot be appended to.
	h.vars["GITHUB_OUTPUT"] = h.path("outdir")
	if err := os.Mkdir(h.path("outdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	store := h.path("store")
	report := h.path("report.json")
	h.input("rubric", supportRubric)
	h.input("results", "../../examples/support/run.jsonl")
	h.input("baseline-dir", store)
	h.input("json", report)
	h.input("comment", "never")
	if code := h.action(); code != exitError {
		t.Fatalf("exit %d, want 2\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
	if !strings.Contains(h.stderr.String(), "step outputs") {
		t.Errorf("the error does not name the step outputs:\n%s", h.stderr.String())
	}
	if _, err := os.Stat(report); !os.IsNotExist(err) {
		t.Errorf("report written on exit 2: %v", err)
	}
	var saved []string
	filepath.WalkDir(store, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			saved = append(saved, p)
		}
		return nil
	})
	if len(saved) > 0 {
		t.Errorf("baseline saved on exit 2: %v", saved)
	}
	if strings.Contains(h.stdout.String(), "new baseline written") {
		t.Errorf("the log claims a baseline was written:\n%s", h.stdout.String())
	}

	// With a writable GITHUB_OUTPUT the same run saves and says so.
	h.vars["GITHUB_OUTPUT"] = h.path("github_output")
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d, want 0\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(store, "support-answers", "main.json")); err != nil {
		t.Errorf("baseline not saved: %v", err)
	}
	if got := h.outputs()["baseline-file"]; !strings.HasSuffix(got, "main.json") {
		t.Errorf("baseline-file output %q", got)
	}
}

// An unwritable job summary is a warning: the run's outcome stands.
func TestSummaryUnwritableWarns(t *testing.T) {
	h := newHarness(t)
	h.vars["GITHUB_STEP_SUMMARY"] = h.path("sumdir")
	if err := os.Mkdir(h.path("sumdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.input("rubric", supportRubric)
	h.input("results", "../../examples/support/run.jsonl")
	h.input("baseline", h.copyIn("../../examples/support/baseline.json"))
	h.input("comment", "never")
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d, want 0\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
	if !strings.Contains(h.stdout.String(), "job summary not written") {
		t.Errorf("no warning:\n%s", h.stdout.String())
	}
	if h.outputs()["decision"] != "pass" {
		t.Errorf("outputs not written")
	}
}
