package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/host"
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

// The local store inside the checkout and tracked by git warns
// (testdata/script/tracked_store.txtar); without git it cannot be checked,
// and the warning says so.
func TestTrackedStoreWithoutGit(t *testing.T) {
	repo := t.TempDir()
	if err := os.Mkdir(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(repo, ".rubricgate", "baselines")
	noGit := func(string) (string, error) { return "", errors.New("not found") }
	if w := host.TrackedStoreWarning(store, noGit); !strings.Contains(w, "git is not available") {
		t.Errorf("without git: %q", w)
	}
	if w := host.TrackedStoreWarning(t.TempDir(), noGit); w != "" {
		t.Errorf("a store outside any checkout warned: %q", w)
	}
}

// Issue 15 §4: on a merge request's run a store inside the checkout that
// git tracks is refused (exit 2, with the fix), a directory or a file; the
// branch's own push run only warns, and an untracked store is used.
func TestTrackedStoreRefusedOnChangeRequest(t *testing.T) {
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
	file := edit(t, filepath.Join(store, "support-answers"), exampleBaseline, "main.json")
	dotenv := filepath.Join(t.TempDir(), "rubricgate.env")
	mr := map[string]string{"RUBRICGATE_DOTENV": dotenv, "GITLAB_CI": "true", "CI_PROJECT_ID": "42", "CI_DEFAULT_BRANCH": "main", "CI_PIPELINE_SOURCE": "merge_request_event",
		"CI_MERGE_REQUEST_IID": "7", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main", "CI_COMMIT_SHA": strings.Repeat("2", 40)}
	push := map[string]string{"RUBRICGATE_DOTENV": dotenv, "GITLAB_CI": "true", "CI_PROJECT_ID": "42", "CI_DEFAULT_BRANCH": "main", "CI_PIPELINE_SOURCE": "push",
		"CI_COMMIT_BRANCH": "main", "CI_COMMIT_SHA": strings.Repeat("1", 40)}
	gate := func(vars map[string]string, args ...string) (int, string) {
		t.Helper()
		code, out, errs := cliEnv(t, vars, repo, append([]string{"gate", "--rubric", supportRubric, "--results", regressedRun, "--on-baseline-error", "pass"}, args...)...)
		return code, out + errs
	}
	for _, args := range [][]string{{"--baseline-dir", store}, {"--baseline", file}} {
		// Untracked: compared with it and blocked.
		if code, out := gate(mr, args...); code != exitBlocked {
			t.Fatalf("%v untracked: exit %d, want 1\n%s", args, code, out)
		}
	}
	gitC("add", ".rubricgate")
	for _, args := range [][]string{{"--baseline-dir", store}, {"--baseline", file}} {
		code, out := gate(mr, args...)
		if code != exitError || !strings.Contains(out, "cannot use a store the change request can commit (1 file(s) tracked by git") ||
			!strings.Contains(out, "keep the baseline store outside the checkout") {
			t.Errorf("%v tracked, merge request: exit %d, want 2 with the fix\n%s", args, code, out)
		}
	}
	// The branch's own run: warned, not refused.
	if code, out := gate(push, "--baseline-dir", store); code == exitError || !strings.Contains(out, "is tracked by git") {
		t.Errorf("tracked, push: exit %d, want a warning only\n%s", code, out)
	}
	// A pull request on GitHub is a change request's run as well.
	b := &host.Build{Host: "github", Event: "pull_request_target", ChangeRequest: 3}
	if _, err := host.CheckTrackedStore(store, b, exec.LookPath); err == nil {
		t.Error("a pull_request_target run accepted a tracked store")
	}
	// Without git a change request's store inside the checkout is refused.
	noGit := func(string) (string, error) { return "", errors.New("not found") }
	if _, err := host.CheckTrackedStore(store, b, noGit); err == nil || !strings.Contains(err.Error(), "git could not check") {
		t.Errorf("without git: %v", err)
	}
}
