package main

import (
	"encoding/json"
	ghhost "github.com/rubricgate/rubricgate/host/github"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// containerStep makes the harness look like a `using: docker` action step as
// the runner starts it: GITHUB_WORKSPACE is the mount point, HOME the mounted
// home, and RUNNER_TEMP the HOST path, which does not exist in the container.
// It returns that host RUNNER_TEMP.
func (h *harness) containerStep() string {
	h.home = h.t.TempDir()
	temp := filepath.Join(h.t.TempDir(), "host-only", "_temp") // not there, as in the container
	h.vars["GITHUB_WORKSPACE"] = ghhost.ContainerWorkspace
	h.vars["HOME"] = ghhost.ContainerHome
	h.vars["RUNNER_TEMP"] = temp
	return temp
}

// With json unset, the container action writes its report to the mounted
// home and names it as the host path later steps open. Before, it wrote
// under RUNNER_TEMP, which the runner does not mount: exit 2, no outputs.
func TestContainerActionDefaultReport(t *testing.T) {
	h := newHarness(t)
	temp := h.containerStep()
	h.gateInputs(goodRun)
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, h.stdout.String(), h.stderr.String())
	}
	out := h.outputs()
	if want := filepath.Join(temp, "_github_home", "rubricgate-report.json"); out["report"] != want {
		t.Errorf("report output %q, want the host path %q", out["report"], want)
	}
	data, err := os.ReadFile(filepath.Join(h.home, "rubricgate-report.json"))
	if err != nil {
		t.Fatalf("the report is not in the mounted home: %v", err)
	}
	var rep struct{ Decision string }
	if err := json.Unmarshal(data, &rep); err != nil || rep.Decision != "pass" {
		t.Errorf("report: %v, decision %q", err, rep.Decision)
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

// A path under RUNNER_TEMP (a report downloaded to ${{ runner.temp }}) does
// not exist in the container: the action says so and why, before anything.
func TestContainerActionRefusesRunnerTempPaths(t *testing.T) {
	t.Run("gate json", func(t *testing.T) {
		h := newHarness(t)
		temp := h.containerStep()
		h.gateInputs(goodRun)
		h.input("json", filepath.Join(temp, "report.json"))
		if code := h.action(); code != exitError {
			t.Fatalf("exit %d, want 2", code)
		}
		if !strings.Contains(h.stderr.String(), "input json: "+temp+"/report.json is under RUNNER_TEMP") {
			t.Errorf("stderr: %s", h.stderr.String())
		}
		if _, err := os.Stat(h.path("github_output")); err == nil {
			t.Error("outputs were written")
		}
	})
	t.Run("comment report", func(t *testing.T) {
		h := newHarness(t)
		report := forkReport(t, h)
		temp := h.containerStep()
		h.workflowRunEvent(9001, headSHA, []map[string]any{})
		h.input("command", "comment")
		h.input("report", filepath.Join(temp, "rubricgate-report", filepath.Base(report)))
		if code := h.action(); code != exitError {
			t.Fatalf("exit %d, want 2", code)
		}
		if !strings.Contains(h.stderr.String(), "input report:") || !strings.Contains(h.stderr.String(), "does not mount") {
			t.Errorf("stderr: %s", h.stderr.String())
		}
		if len(h.stickyComments()) != 0 {
			t.Error("commented")
		}
	})
}
