package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/pipeline"
)

// A local baseline whose stored score disagrees with its items is refused
// (exit 2, naming the file): "score": 0 used to skip the relative check and
// let a run far below the baseline pass (issue 8, 2.5).
func TestTamperedBaselineRefused(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	if err := os.MkdirAll(filepath.Join(store, "support-answers"), 0o755); err != nil {
		t.Fatal(err)
	}
	doctored := edit(t, filepath.Join(store, "support-answers"), exampleBaseline, "main.json", `"score": 81.25000000000001,`, `"score": 0,`)
	// A run scoring 25.6: every answer at the bottom of every scale but safe.
	var run strings.Builder
	for i := range 12 {
		run.WriteString(line("q-"+string(rune('a'+i)), 1, 1, 1, 1, "poor"))
	}
	res := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(res, []byte(run.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--baseline-dir", store}, {"--baseline", doctored}} {
		code, out, errs := cli(t, append([]string{"gate", "--rubric", supportRubric, "--results", res}, args...)...)
		if code != exitError {
			t.Fatalf("%v: exit %d, want 2\n%s%s", args, code, out, errs)
		}
		if !strings.Contains(errs, doctored) || !strings.Contains(errs, `field "score" is 0 but the 12 items average 81.25`) {
			t.Errorf("%v: the error does not name the file and the disagreement:\n%s", args, errs)
		}
	}
}

// The local store inside the checkout and tracked by git: a pull request can
// edit it, so the gate warns.
func TestTrackedStoreWarns(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	repo := t.TempDir()
	gitC := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(git, append([]string{"-C", repo}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	gitC("init", "-q")
	store := filepath.Join(repo, ".rubricgate", "baselines")
	if err := os.MkdirAll(filepath.Join(store, "support-answers"), 0o755); err != nil {
		t.Fatal(err)
	}
	edit(t, filepath.Join(store, "support-answers"), exampleBaseline, "main.json")
	res := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(res, []byte(goodRun), 0o644); err != nil {
		t.Fatal(err)
	}
	gate := func() string {
		t.Helper()
		code, out, errs := cli(t, "gate", "--rubric", supportRubric, "--results", res, "--baseline-dir", store)
		if code == exitError {
			t.Fatalf("exit 2\n%s%s", out, errs)
		}
		return errs
	}
	if errs := gate(); strings.Contains(errs, "baseline store") {
		t.Errorf("an untracked store warned:\n%s", errs)
	}
	gitC("add", ".rubricgate")
	if errs := gate(); !strings.Contains(errs, "warning: the local baseline store "+store+" is tracked by git (1 file(s) committed") {
		t.Errorf("a tracked store did not warn:\n%s", errs)
	}
	// Without git the store inside a checkout cannot be checked: say so.
	noGit := func(string) (string, error) { return "", errors.New("not found") }
	if w := pipeline.TrackedStoreWarning(store, noGit); !strings.Contains(w, "git is not available") {
		t.Errorf("without git: %q", w)
	}
	if w := pipeline.TrackedStoreWarning(t.TempDir(), noGit); w != "" {
		t.Errorf("a store outside any checkout warned: %q", w)
	}
}
