package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 15 §7: a pull request against a branch without a baseline (here
// release) is compared with the default branch's baseline, with a warning,
// instead of passing unchecked; against a branch with its own baseline, that
// one is used and nothing is said.
func TestActionTargetWithoutBaselineFallsBackToDefault(t *testing.T) {
	// A 10% drop and nothing else: it passes only when no baseline is found.
	good, regressed := pctRun("i", repeat(80, 30)...), pctRun("i", repeat(72, 30)...)
	retarget := func(h *harness, base string) {
		h.writeJSON("event.json", map[string]any{
			"action":  "edited",
			"number":  prNum,
			"changes": map[string]any{"base": map[string]any{"ref": map[string]any{"from": "main"}}},
			"pull_request": map[string]any{
				"number": prNum,
				"head":   map[string]any{"sha": headSHA, "ref": "feature"},
				"base":   map[string]any{"ref": base},
				"labels": []any{},
			},
			"repository": map[string]any{"id": repoID, "full_name": owner + "/" + repo, "default_branch": "main"},
		})
	}
	h := newHarness(t)
	rb := h.write("pct.yaml", pctRubric)
	h.addBaseline(77, rb, good, testNow.Add(-48*time.Hour))
	retarget(h, "release")
	h.gateInputs(regressed)
	h.input("rubric", rb)
	if code := h.action(); code != exitBlocked {
		t.Fatalf("against release (no baseline): exit %d, want 1 (compared with main's)\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
	want := "no baseline on the target branch `release`: compared with the default branch `main`'s baseline instead"
	if s := h.summary(); !strings.Contains(s, want) {
		t.Errorf("the summary does not say where the baseline came from:\n%s", s)
	}
	if out := h.outputs(); out["baseline-score"] == "" {
		t.Errorf("no baseline score: %v", out)
	}

	// Against main itself: main's baseline, no note.
	h2 := newHarness(t)
	rb2 := h2.write("pct.yaml", pctRubric)
	h2.addBaseline(77, rb2, good, testNow.Add(-48*time.Hour))
	h2.gateInputs(regressed)
	h2.input("rubric", rb2)
	if code := h2.action(); code != exitBlocked {
		t.Fatalf("against main: exit %d, want 1", code)
	}
	if strings.Contains(h2.summary(), "no baseline on the target branch") {
		t.Errorf("a note against the default branch itself:\n%s", h2.summary())
	}
}

// The same outside Actions, with the local store: a merge request into
// stable, which has no baseline, is compared with trunk's (the default
// branch); with --baseline-branch stable it is not.
func TestMergeRequestTargetWithoutBaselineFallsBack(t *testing.T) {
	dir := t.TempDir()
	rb := filepath.Join(dir, "pct.yaml")
	if err := os.WriteFile(rb, []byte(pctRubric), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good, regressed := write("good.jsonl", pctRun("i", repeat(80, 30)...)), write("regressed.jsonl", pctRun("i", repeat(72, 30)...))
	store := filepath.Join(dir, "store")
	push := map[string]string{"CI_DEFAULT_BRANCH": "trunk", "CI_COMMIT_BRANCH": "trunk", "CI_PIPELINE_SOURCE": "push"}
	if code, out, errs := cliEnv(t, push, dir, "gate", "--rubric", rb, "--results", good, "--baseline-dir", store); code != exitPass {
		t.Fatalf("trunk run: exit %d\n%s%s", code, out, errs)
	}
	mr := map[string]string{"CI_DEFAULT_BRANCH": "trunk", "CI_MERGE_REQUEST_IID": "3", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "stable", "CI_PIPELINE_SOURCE": "merge_request_event"}
	code, out, errs := cliEnv(t, mr, dir, "gate", "--rubric", rb, "--results", regressed, "--baseline-dir", store)
	if code != exitBlocked || !strings.Contains(errs, `no baseline on the target branch "stable": compared with the default branch "trunk"'s baseline instead`) {
		t.Errorf("merge request into stable: exit %d, want 1 with the warning\n%s%s", code, out, errs)
	}
	if code, out, errs := cliEnv(t, mr, dir, "gate", "--rubric", rb, "--results", regressed, "--baseline-dir", store, "--baseline-branch", "stable"); code != exitPass {
		t.Errorf("--baseline-branch stable: exit %d, want 0 (no fallback for a branch given)\n%s%s", code, out, errs)
	}
}
