package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A rubric warning is printed once, with its file and line, not again from
// the report (issue 8, section 3); it stays in the report and the summary.
func TestRubricWarningPrintedOnce(t *testing.T) {
	const msg = "can move the score by only"
	dir := t.TempDir()
	rb := edit(t, dir, supportRubric, "support.yaml", "    weight: 1\n    scale: [1, 5]", "    weight: 0.01\n    scale: [1, 5]")
	res := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(res, []byte(goodRun), 0o644); err != nil {
		t.Fatal(err)
	}

	h := newHarness(t)
	h.input("rubric", rb)
	h.input("results", res)
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	log := h.stdout.String() + h.stderr.String()
	if n := strings.Count(log, msg); n != 1 {
		t.Errorf("the warning is printed %d times, want once:\n%s", n, log)
	}
	if !strings.Contains(log, "::warning file="+rb+",line=") {
		t.Errorf("the warning does not carry its location:\n%s", log)
	}
	if !strings.Contains(h.summary(), msg) {
		t.Errorf("the summary lost the warning:\n%s", h.summary())
	}

	for _, args := range [][]string{
		{"gate", "--rubric", rb, "--results", res, "--baseline-dir", t.TempDir()},
		{"score", "--rubric", rb, "--results", res},
	} {
		_, out, errs := cli(t, args...)
		if n := strings.Count(out+errs, msg); n != 1 {
			t.Errorf("%s: the warning is printed %d times, want once:\n%s%s", args[0], n, out, errs)
		}
	}
}
