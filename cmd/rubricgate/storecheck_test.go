package main

import (
	"errors"
	"os"
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
	if w := pipeline.TrackedStoreWarning(store, noGit); !strings.Contains(w, "git is not available") {
		t.Errorf("without git: %q", w)
	}
	if w := pipeline.TrackedStoreWarning(t.TempDir(), noGit); w != "" {
		t.Errorf("a store outside any checkout warned: %q", w)
	}
}
