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

// A rubric renamed onto another rubric's slot does not escape the rename
// check by a tweak outside the judge prompt (found by the hostile review):
// the store holds support-answers and, under support-easy, the same rubric
// with threshold 60 over a worse run. A pull request renaming support to
// support-easy with threshold 65 (or another weight, or without the
// safety gate's blocking flag) compared with the easy baseline passed,
// where the real name blocks. What identifies a rubric for the check is
// what the judge is asked: criteria ids, scales and prompt texts.
func TestRenamedRubricTweakedOntoAnOccupiedSlot(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "st")
	run := "../../examples/support/run.jsonl"
	if code, out, errs := cli(t, "gate", "--rubric", supportRubric, "--results", run, "--baseline-dir", store, "--branch", "main"); code != exitPass {
		t.Fatalf("support-answers on main: exit %d\n%s%s", code, out, errs)
	}
	easy := edit(t, dir, supportRubric, "easy.yaml", "name: support-answers", "name: support-easy", "threshold: 70", "threshold: 60")
	worse := edit(t, dir, run, "worse.jsonl", `"accuracy":5`, `"accuracy":3`)
	if code, out, errs := cli(t, "gate", "--rubric", easy, "--results", worse, "--baseline-dir", store, "--branch", "main"); code != exitPass {
		t.Fatalf("support-easy on main: exit %d\n%s%s", code, out, errs)
	}
	mid := edit(t, dir, run, "mid.jsonl", `"accuracy":5`, `"accuracy":4`)
	// The real name blocks on the drop.
	if code, out, errs := cli(t, "gate", "--rubric", supportRubric, "--results", mid, "--baseline-dir", store, "--branch", "feature"); code != exitBlocked || !strings.Contains(out, "dropped") {
		t.Fatalf("the real name: exit %d, want a block on the drop\n%s%s", code, out, errs)
	}
	for _, tweak := range [][]string{
		{"threshold: 70", "threshold: 65"},
		{"weight: 3", "weight: 4"},
		{"threshold: 70", "threshold: 60", "weight: 3", "weight: 4"},
		{"blocking: true", "blocking: false"},
	} {
		pr := edit(t, dir, supportRubric, "pr.yaml", append([]string{"name: support-answers", "name: support-easy"}, tweak...)...)
		code, out, errs := cli(t, "gate", "--rubric", pr, "--results", mid, "--baseline-dir", store, "--branch", "feature")
		if code != exitBlocked || !strings.Contains(out, `rubric "support-easy" is the rubric the store holds on branch "main" as support-answers`) {
			t.Errorf("renamed onto support-easy with %q: exit %d, want blocked as a renamed rubric\n%s%s", tweak, code, out, errs)
		}
	}
	// support-easy under its own name, exactly as its slot holds it, is its
	// own (one rubric kept under two names).
	if code, out, errs := cli(t, "gate", "--rubric", easy, "--results", mid, "--baseline-dir", store, "--branch", "feature"); code != exitPass || strings.Contains(out, "renamed") {
		t.Errorf("support-easy under its own name: exit %d\n%s%s", code, out, errs)
	}
	// A rubric whose prompt differs from every other slot's is no rename:
	// changing support-answers' anchor is a rubric change of its own slot.
	own := edit(t, dir, supportRubric, "own.yaml", "Fully correct, including every condition", "Entirely correct, including every condition")
	if code, out, _ := cli(t, "gate", "--rubric", own, "--results", mid, "--baseline-dir", store, "--branch", "feature"); strings.Contains(out, "renamed rubric") {
		t.Errorf("an anchor change under its own name read as renamed: exit %d\n%s", code, out)
	}
}
