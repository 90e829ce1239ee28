package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/host"
)

// runIn runs a command outside Actions with the given environment and the
// git checkout looked up from wd.
func runIn(t *testing.T, wd string, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return vars[k] }, now: func() time.Time { return testNow }, wd: wd})
	return code, out.String(), errb.String()
}

// checkout makes a directory whose .git/HEAD holds head.
func checkout(t *testing.T, head string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte(head+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// --branch names the branch a run is on; it never chooses the baseline. A
// regressed run on feature/x is compared with main's baseline and blocked,
// and nothing is saved as feature/x's baseline.
func TestBranchFlagDoesNotChooseBaseline(t *testing.T) {
	dir := t.TempDir()
	rb := filepath.Join(dir, "rubric.yaml")
	good, bad := filepath.Join(dir, "good.jsonl"), filepath.Join(dir, "bad.jsonl")
	for p, s := range map[string]string{rb: ratchetRubric, good: ratchetRun(81.25), bad: ratchetRun(70)} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	store := filepath.Join(dir, "store")
	code, out, errs := runIn(t, t.TempDir(), nil, "gate", "--rubric", rb, "--results", good, "--baseline-dir", store, "--branch", "main")
	if code != exitPass {
		t.Fatalf("main's baseline: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runIn(t, t.TempDir(), nil, "gate", "--rubric", rb, "--results", bad, "--baseline-dir", store, "--branch", "feature/x")
	if code != exitBlocked {
		t.Fatalf("regressed run on feature/x: exit %d, want 1 (blocked against main's baseline)\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(store, "ratchet", "feature%2Fx.json")); !os.IsNotExist(err) {
		t.Errorf("feature/x got a baseline of its own: %v", err)
	}
}

// ratchetRubric has one criterion on 0..100: an item's score is its value,
// so a run's aggregate is the mean of its items.
const ratchetRubric = `name: ratchet
version: "1"
threshold: 50
criteria:
  - id: quality
    name: Quality
    description: How good the answer is.
    weight: 1
    scale: [0, 100]
`

// ratchetRun is 100 items whose mean is score (to 0.01).
func ratchetRun(score float64) string {
	total := int(math.Round(score * 100))
	var b strings.Builder
	for i := range 100 {
		v := total / 100
		if i < total%100 {
			v++
		}
		fmt.Fprintf(&b, `{"id":"q-%d","scores":{"quality":%d}}`+"\n", i, v)
	}
	return b.String()
}

// The ratchet: outside Actions, with no --branch, every passing run
// of any branch was saved as main's baseline, so five 1.5% steps took 81.3
// down to 75.3 without a block. A run that is not known to be on main now
// never saves, so the drop is measured against 81.3 and blocks.
func TestLocalStoreRatchet(t *testing.T) {
	dir := t.TempDir()
	rb := filepath.Join(dir, "rubric.yaml")
	if err := os.WriteFile(rb, []byte(ratchetRubric), 0o644); err != nil {
		t.Fatal(err)
	}
	store := filepath.Join(dir, "store")
	gate := func(wd string, score float64, extra ...string) (int, string) {
		t.Helper()
		res := filepath.Join(dir, fmt.Sprintf("run-%.2f.jsonl", score))
		if err := os.WriteFile(res, []byte(ratchetRun(score)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := runIn(t, wd, nil, append([]string{"gate", "--rubric", rb, "--results", res, "--baseline-dir", store}, extra...)...)
		if code == exitError {
			t.Fatalf("exit 2: %s", errs)
		}
		return code, out
	}
	// main's baseline: 81.25, from a checkout of main.
	if code, out := gate(checkout(t, "ref: refs/heads/main"), 81.25); code != exitPass || !strings.Contains(out, "new baseline written") {
		t.Fatalf("main: exit %d\n%s", code, out)
	}
	feature := checkout(t, "ref: refs/heads/feature/x")
	score := 81.25
	blocked := 0
	for step := 1; step <= 5; step++ {
		score *= 0.985
		code, out := gate(feature, score)
		if code == exitBlocked {
			blocked++
		} else if !strings.Contains(out, `baseline not saved: this run is on branch "feature/x"`) {
			t.Errorf("step %d (%.2f): passed without saying why nothing was saved:\n%s", step, score, out)
		}
	}
	if math.Abs(score-75.33) > 0.01 {
		t.Fatalf("the steps end at %.2f, want 75.33", score)
	}
	if blocked == 0 {
		t.Errorf("five 1.5%% steps from 81.3 to %.1f were never blocked", score)
	}
	f, _, err := baseline.Dir{Root: store}.Latest(t.Context(), baseline.Query{Rubric: "ratchet", Branch: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.Score-81.25) > 1e-9 {
		t.Errorf("main's baseline is now %.2f, want 81.25", f.Score)
	}
}

// Which local runs save into the local store: testdata/script/local_store_save.txtar.

// Inside Actions only a push run on the baseline branch saves.
func TestActionLocalStoreOnlyPushOnBaselineBranch(t *testing.T) {
	for _, tt := range []struct {
		event, ref string
		saved      bool
	}{
		{"push", "refs/heads/main", true},
		{"push", "refs/heads/feature", false},
		{"push", "refs/tags/main", false},
		{"workflow_dispatch", "refs/heads/main", false},
		{"workflow_run", "refs/heads/main", false},
	} {
		t.Run(tt.event+" "+tt.ref, func(t *testing.T) {
			h := newHarness(t)
			dir := h.path("baselines")
			h.gateInputs(goodRun)
			h.input("baseline-dir", dir)
			h.input("branch", "main")
			h.input("write-baseline", h.path("wb.json"))
			h.vars["GITHUB_EVENT_NAME"] = tt.event
			h.vars["GITHUB_REF"] = tt.ref
			h.vars["GITHUB_REF_NAME"] = tt.ref[strings.LastIndex(tt.ref, "/")+1:]
			h.writeJSON("event.json", map[string]any{"ref": tt.ref, "repository": map[string]any{"id": repoID, "full_name": owner + "/" + repo, "default_branch": "main"}})
			if code := h.action(); code != exitPass {
				t.Fatalf("exit %d\n%s", code, h.stdout.String())
			}
			_, err := os.Stat(filepath.Join(dir, "support-answers", "main.json"))
			if saved := err == nil; saved != tt.saved {
				t.Errorf("saved %v, want %v\n%s", saved, tt.saved, h.stdout.String())
			}
			if !tt.saved && !strings.Contains(h.stdout.String(), "baseline not saved") {
				t.Errorf("no note:\n%s", h.stdout.String())
			}
			if warned := strings.Contains(h.stdout.String(), "::warning title=rubricgate::write-baseline: the gate uses only baselines uploaded by push runs"); warned == tt.saved {
				t.Errorf("write-baseline warning %v on a run that saves: %v\n%s", warned, tt.saved, h.stdout.String())
			}
		})
	}
}

func TestGitBranch(t *testing.T) {
	if b, head, err := host.GitBranch(checkout(t, "ref: refs/heads/release/1.2")); err != nil || b != "release/1.2" || !strings.HasSuffix(head, filepath.Join(".git", "HEAD")) {
		t.Errorf("got %q %q %v", b, head, err)
	}
	bad := t.TempDir()
	if err := os.WriteFile(filepath.Join(bad, ".git"), []byte("nonsense\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := host.GitBranch(bad); err == nil || !strings.Contains(err.Error(), "gitdir: PATH") {
		t.Errorf("a .git file without gitdir: %v", err)
	}
}
