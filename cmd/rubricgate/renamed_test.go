package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// A pull request renames its rubric (name: only) and switches its safety
// gate off: the new name must not buy a fresh, empty baseline in the local
// store. The regressed run blocks; the accept label is the way to start a
// new baseline, and the baseline branch's own run starts one (found by the
// hostile review, F1 and F6).
func TestRenamedRubricLocalStore(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	code, out, errs := cli(t, "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--baseline-dir", store, "--branch", "main")
	if code != exitPass {
		t.Fatalf("main run: exit %d\n%s%s", code, out, errs)
	}
	rb := edit(t, dir, supportRubric, "pr.yaml", "name: support-answers", "name: support-answers-v2", "blocking: true", "blocking: false")
	code, out, errs = cli(t, "gate", "--rubric", rb, "--results", regressedRun, "--baseline-dir", store, "--branch", "feature", "--on-baseline-error", "pass")
	if code != exitBlocked {
		t.Fatalf("renamed rubric on the regressed run: exit %d, want 1 (blocked)\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "a renamed rubric is a rubric change") || strings.Contains(out, "nothing to compare with yet") {
		t.Errorf("the block does not say why, or still says a baseline starts:\n%s", out)
	}
	// The same renamed rubric, unchanged otherwise, on the baseline branch's
	// own run (after review and merge): a new baseline starts there.
	rb2 := edit(t, dir, supportRubric, "merged.yaml", "name: support-answers", "name: support-answers-v2")
	code, out, errs = cli(t, "gate", "--rubric", rb2, "--results", "../../examples/support/run.jsonl", "--baseline-dir", store, "--branch", "main")
	if code != exitPass || !strings.Contains(out+errs, "starts a new baseline") {
		t.Fatalf("baseline branch run after the rename: exit %d, want 0 with a new baseline\n%s%s", code, out, errs)
	}
	// From then on the new name has its baseline: a pull request's run on it
	// is compared as usual.
	code, out, errs = cli(t, "gate", "--rubric", rb2, "--results", regressedRun, "--baseline-dir", store, "--branch", "feature")
	if code != exitBlocked || strings.Contains(out, "renamed rubric") {
		t.Fatalf("after the new baseline: exit %d, want an ordinary block\n%s%s", code, out, errs)
	}
}

// --baseline-key pins the local store's slot: renaming the rubric then reads
// the same baseline, as a rubric change.
func TestBaselineKeyPinsSlot(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	if code, out, errs := cli(t, "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--baseline-dir", store, "--baseline-key", "support", "--branch", "main"); code != exitPass {
		t.Fatalf("main run: exit %d\n%s%s", code, out, errs)
	}
	rb := edit(t, dir, supportRubric, "pr.yaml", "name: support-answers", "name: support-answers-v2")
	code, out, errs := cli(t, "gate", "--rubric", rb, "--results", regressedRun, "--baseline-dir", store, "--baseline-key", "support", "--branch", "feature")
	if code != exitBlocked || !strings.Contains(out, "dropped") {
		t.Fatalf("renamed rubric with a pinned key: exit %d, want a block on the drop\n%s%s", code, out, errs)
	}
}
