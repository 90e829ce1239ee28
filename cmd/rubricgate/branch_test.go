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
