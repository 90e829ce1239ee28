package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// actionStep makes the harness look like the composite action's gate step
// as the runner starts it: on the runner host, GITHUB_WORKSPACE and
// RUNNER_TEMP real directories. It returns RUNNER_TEMP.
func (h *harness) actionStep() string {
	temp := filepath.Join(h.t.TempDir(), "_temp")
	if err := os.MkdirAll(temp, 0o755); err != nil {
		h.t.Fatal(err)
	}
	h.vars["GITHUB_WORKSPACE"] = h.dir
	h.vars["RUNNER_TEMP"] = temp
	return temp
}

// readDecision reads a JSON report's decision.
func readDecision(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the report is not there: %v", err)
	}
	var rep struct{ Decision string }
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatalf("report %s: %v", path, err)
	}
	return rep.Decision
}

// With json unset, the action writes its report to
// $RUNNER_TEMP/rubricgate-report.json and the report output names that
// path, which later steps open as it is. (The container action wrote it to
// /github/home and named $RUNNER_TEMP/_github_home/... instead.)
func TestActionDefaultReport(t *testing.T) {
	h := newHarness(t)
	temp := h.actionStep()
	h.gateInputs(goodRun)
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, h.stdout.String(), h.stderr.String())
	}
	out := h.outputs()
	want := filepath.Join(temp, "rubricgate-report.json")
	if out["report"] != want {
		t.Errorf("report output %q, want %q", out["report"], want)
	}
	if d := readDecision(t, want); d != "pass" {
		t.Errorf("report decision %q", d)
	}
	if out["decision"] != "pass" || h.summary() == "" {
		t.Errorf("outputs %v, summary %d bytes", out, len(h.summary()))
	}
}

// A run: step (the CLI on the runner host) keeps the report in RUNNER_TEMP.
func TestRunStepDefaultReport(t *testing.T) {
	h := newHarness(t)
	h.vars["GITHUB_WORKSPACE"] = h.t.TempDir()
	h.gateInputs(goodRun)
	if code := h.run("gate", "--rubric", supportRubric, "--results", h.path("results.jsonl"), "--github-token", "ghs_faketoken123", "--comment", "never"); code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
	want := filepath.Join(h.dir, "rubricgate-report.json")
	if out := h.outputs(); out["report"] != want {
		t.Errorf("report output %q, want %q", out["report"], want)
	}
	if _, err := os.Stat(want); err != nil {
		t.Error(err)
	}
}

// Paths under runner.temp work like any other in the composite action: a
// report written there (json), and one read from there by the comment
// command (an artifact downloaded to ${{ runner.temp }}). The container
// action refused both (exit 2), since the runner does not mount RUNNER_TEMP
// into a container.
func TestActionRunnerTempPaths(t *testing.T) {
	t.Run("gate json", func(t *testing.T) {
		h := newHarness(t)
		temp := h.actionStep()
		h.gateInputs(goodRun)
		want := filepath.Join(temp, "report.json")
		h.input("json", want)
		if code := h.action(); code != exitPass {
			t.Fatalf("exit %d, want 0\n%s", code, h.stderr.String())
		}
		if out := h.outputs(); out["report"] != want {
			t.Errorf("report output %q, want %q", out["report"], want)
		}
		if d := readDecision(t, want); d != "pass" {
			t.Errorf("report decision %q", d)
		}
	})
	t.Run("comment report", func(t *testing.T) {
		h := newHarness(t)
		report := forkReport(t, h)
		temp := h.actionStep()
		moved := filepath.Join(temp, "rubricgate-report", filepath.Base(report))
		if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(report, moved); err != nil {
			t.Fatal(err)
		}
		h.workflowRunEvent(9001, headSHA, []map[string]any{})
		h.input("command", "comment")
		h.input("report", moved)
		if code := h.action(); code != exitPass {
			t.Fatalf("exit %d, want 0\n%s", code, h.stderr.String())
		}
		if len(h.stickyComments()) != 1 {
			t.Errorf("%d comments, want 1", len(h.stickyComments()))
		}
	})
}
