package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/llmfake"
)

// taskFake scores an answer by what the prompt holds: any question marked
// EASY gets full marks (the judge grades the question the pull request
// wrote), a wrong answer gets the lowest, the others 4 out of 5.
func taskFake() *llmfake.Server {
	return llmfake.New(llmfake.OpenAI, judgeKey, func(r *llmfake.Received) llmfake.Reply {
		s := 4
		switch {
		case strings.Contains(r.User, "EASY"):
			s = 5
		case strings.Contains(r.Answer(), "WRONG"):
			s = 1
		}
		return llmfake.Reply{Text: fmt.Sprintf(`{"accuracy":%d,"resolution":%d,"tone":%d,"safety":1,"reasoning":"ok"}`, s, s, s)}
	})
}

// answersFile writes an answers file of n items; edit changes item i's
// question and answer.
func answersFile(t *testing.T, dir, name string, n int, edit func(i int, q, a *string)) string {
	t.Helper()
	var b strings.Builder
	for i := range n {
		q, a := fmt.Sprintf("What is the refund window for order type %d?", i), fmt.Sprintf("Thirty days for type %d.", i)
		if edit != nil {
			edit(i, &q, &a)
		}
		fmt.Fprintf(&b, `{"id":"item-%d","question":%q,"context":["policy %d"],"answer":%q,"reference":"30 days"}`+"\n", i, q, i, a)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A pull request that regresses an item and rewrites its question under
// the same id (the one-step gate --input: the PR's script writes the
// answers, questions included) is blocked: the item's task changed, so it
// is the baseline's item removed plus a new one, and the removed-items
// rule holds. Without the input hash it passed at the new, higher score.
func TestGateInputSwappedQuestionBlocked(t *testing.T) {
	srv := taskFake()
	defer srv.Close()
	dir := t.TempDir()
	gate := func(input string, extra ...string) (int, string, string) {
		args := append([]string{"gate", "--rubric", supportRubric, "--input", input, "--judge-model", "gpt-4o-mini",
			"--judge-base-url", srv.BaseURL(), "--judge-cache", filepath.Join(dir, "cache")}, ownStore(dir, extra)...)
		return judgeEnv(t, args...)
	}
	const n = 10
	base := filepath.Join(dir, "baseline.json")
	code, out, errs := gate(answersFile(t, dir, "main.jsonl", n, nil), "--write-baseline", base)
	if code != exitPass {
		t.Fatalf("baseline run: exit %d: %s %s", code, out, errs)
	}
	data, err := os.ReadFile(base)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"input_hashes": "`) {
		t.Fatalf("the baseline keeps no input hashes:\n%s", data)
	}

	// The same answers again: nothing changed, it passes.
	code, out, errs = gate(answersFile(t, dir, "same.jsonl", n, nil), "--baseline", base)
	if code != exitPass || strings.Contains(out+errs, "TASK CHANGED") || strings.Contains(out+errs, "by id alone") {
		t.Fatalf("unchanged run: exit %d: %s %s", code, out, errs)
	}

	// An honest regression of item-3 blocks on the drop.
	wrong := func(i int, q, a *string) {
		if i == 3 {
			*a = "WRONG: no refunds, ever."
		}
	}
	if code, out, errs = gate(answersFile(t, dir, "regressed.jsonl", n, wrong), "--baseline", base); code != exitBlocked {
		t.Fatalf("regressed run: exit %d: %s %s", code, out, errs)
	}

	// The same regression with item-3's question swapped for an easy one.
	swapped := func(i int, q, a *string) {
		wrong(i, q, a)
		if i == 3 {
			*q = "EASY: say hello."
		}
	}
	swappedFile := answersFile(t, dir, "swapped.jsonl", n, swapped)
	code, out, errs = gate(swappedFile, "--baseline", base, "--json", filepath.Join(dir, "swapped.json"))
	if code != exitBlocked {
		t.Fatalf("swapped run: exit %d, want blocked: %s %s", code, out, errs)
	}
	for _, want := range []string{"ITEMS REMOVED: 1 item(s) of the baseline are missing from this run: item-3", "TASK CHANGED: 1 item(s)"} {
		if !strings.Contains(out+errs, want) {
			t.Errorf("swapped run: no %q in\n%s\n%s", want, out, errs)
		}
	}
	rep, _ := os.ReadFile(filepath.Join(dir, "swapped.json"))
	if !strings.Contains(string(rep), `"kind": "item-task-changed"`) || !regexp.MustCompile(`"task_changed_ids": \[\s*"item-3"\s*\]`).Match(rep) {
		t.Errorf("swapped run: the JSON report lacks the typed finding or the ids:\n%s", rep)
	}

	// A reviewer who means the new question accepts the removal, as for any
	// removed item.
	if code, out, errs = gate(swappedFile, "--baseline", base, "--accept", "item-3 now asks another question"); code != exitPass {
		t.Fatalf("swapped run accepted: exit %d: %s %s", code, out, errs)
	}

	// A baseline made before the hashes still compares, by id, and says so
	// once: the honest regression still blocks.
	old := filepath.Join(dir, "old.json")
	stripped := regexp.MustCompile(`,\n\s*"input_hashes": "[^"]*"`).ReplaceAll(data, nil)
	if len(stripped) == len(data) {
		t.Fatal("could not strip the hashes")
	}
	if err := os.WriteFile(old, stripped, 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs = gate(answersFile(t, dir, "regressed2.jsonl", n, wrong), "--baseline", old)
	if code != exitBlocked || strings.Count(out+errs, "compared with the baseline by id alone") < 1 {
		t.Fatalf("old baseline, regressed run: exit %d: %s %s", code, out, errs)
	}
	code, out, errs = gate(answersFile(t, dir, "same2.jsonl", n, nil), "--baseline", old)
	if code != exitPass || !strings.Contains(out+errs, fmt.Sprintf("%d item(s) were compared with the baseline by id alone: the baseline records no input hash", n)) {
		t.Fatalf("old baseline, unchanged run: exit %d: %s %s", code, out, errs)
	}
}

// The sharded judge workflow: the shards' results carry the hashes, so a
// question rewritten under a regressed item's id blocks there too.
func TestShardedJudgeSwappedQuestionBlocked(t *testing.T) {
	srv := taskFake()
	defer srv.Close()
	dir := t.TempDir()
	const n = 8
	judgeShards := func(input, tag string) []string {
		var outs []string
		for i := 1; i <= 2; i++ {
			out := filepath.Join(dir, fmt.Sprintf("%s-shard-%d.jsonl", tag, i))
			code, _, errs := judgeEnv(t, "judge", "--rubric", supportRubric, "--input", input, "--out", out, "--model", "gpt-4o-mini",
				"--base-url", srv.BaseURL(), "--shard", fmt.Sprintf("%d/2", i), "--progress", "none", "--cache", filepath.Join(dir, "cache"))
			if code != exitPass {
				t.Fatalf("shard %d: exit %d: %s", i, code, errs)
			}
			outs = append(outs, out)
		}
		return outs
	}
	gate := func(results []string, extra ...string) (int, string, string) {
		args := []string{"gate", "--rubric", supportRubric}
		for _, r := range results {
			args = append(args, "--results", r)
		}
		return runCLI(t, "", append(args, ownStore(dir, extra)...)...)
	}
	base := filepath.Join(dir, "baseline.json")
	if code, out, errs := gate(judgeShards(answersFile(t, dir, "main.jsonl", n, nil), "main"), "--write-baseline", base); code != exitPass {
		t.Fatalf("baseline: exit %d: %s %s", code, out, errs)
	}
	if code, out, errs := gate(judgeShards(answersFile(t, dir, "same.jsonl", n, nil), "same"), "--baseline", base); code != exitPass {
		t.Fatalf("unchanged: exit %d: %s %s", code, out, errs)
	}
	swapped := func(i int, q, a *string) {
		if i == 5 {
			*q, *a = "EASY: say hello.", "WRONG: no refunds, ever."
		}
	}
	code, out, errs := gate(judgeShards(answersFile(t, dir, "swapped.jsonl", n, swapped), "swapped"), "--baseline", base)
	if code != exitBlocked || !strings.Contains(out+errs, "TASK CHANGED: 1 item(s)") || !strings.Contains(out+errs, "ITEMS REMOVED: 1 item(s) of the baseline are missing from this run: item-5") {
		t.Fatalf("swapped: exit %d, want blocked: %s %s", code, out, errs)
	}
}

// ownStore adds a local store in dir to a gate's arguments unless they name
// a baseline: a gate without one would read and save the package
// directory's default store, which later tests (and runs) would then see.
func ownStore(dir string, args []string) []string {
	for _, a := range args {
		if a == "--baseline" {
			return args
		}
	}
	return append(args, "--baseline-dir", filepath.Join(dir, "store"))
}
