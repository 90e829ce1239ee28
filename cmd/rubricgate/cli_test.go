package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runCLI runs a command line outside Actions.
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, now: func() time.Time { return testNow }})
	return code, out.String(), errb.String()
}

func TestScoreCommand(t *testing.T) {
	dir := t.TempDir()
	jsonOut, items := filepath.Join(dir, "r.json"), filepath.Join(dir, "items.jsonl")
	code, out, errs := runCLI(t, "", "score", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--json", jsonOut, "--items", items)
	if code != exitPass {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, "score 81.3") || !strings.Contains(out, "accuracy · Policy accuracy") {
		t.Errorf("table:\n%s", out)
	}
	data, _ := os.ReadFile(items)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 12 || !strings.HasPrefix(lines[0], `{"id":"refund-window","score":89.28571428571429,"pass":true,"failed":[],"na":[]}`) {
		t.Errorf("items: %d lines, first %q", len(lines), lines[0])
	}
	if _, err := os.Stat(jsonOut); err != nil {
		t.Error(err)
	}
	// stdin needs --format; with it, the same run.
	run, _ := os.ReadFile("../../examples/support/run.jsonl")
	if code, _, errs := runCLI(t, string(run), "score", "--rubric", supportRubric, "--results", "-"); code != exitError || !strings.Contains(errs, "--format") {
		t.Errorf("stdin without --format: exit %d %s", code, errs)
	}
	if code, out, _ := runCLI(t, string(run), "score", "--rubric", supportRubric, "--format", "jsonl", "-"); code != exitPass || !strings.Contains(out, "score 81.3") {
		t.Errorf("stdin: exit %d\n%s", code, out)
	}
	// A safety zero: exit 1.
	if code, _, _ := runCLI(t, "", "score", "--rubric", supportRubric, "--results", "../../examples/support/run-regressed.jsonl"); code != exitBlocked {
		t.Errorf("regressed run: exit %d, want 1", code)
	}
}

func TestBadInputWritesNothing(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	os.WriteFile(good, []byte(`{"id":"a","scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1}}`+"\n"), 0o644)
	tests := []struct {
		name    string
		rubric  string
		results string
		want    string
	}{
		{"malformed JSON", "", `{"id":"a","scores":{"accuracy":4,` + "\n", "bad.jsonl:1:"},
		{"out of range", "", `{"id":"a","scores":{"accuracy":7,"resolution":3,"tone":4,"safety":1}}` + "\n", "bad.jsonl:1:"},
		{"NaN", "", `{"id":"a","scores":{"accuracy":"NaN","resolution":3,"tone":4,"safety":1}}` + "\n", "bad.jsonl:1:"},
		// The same id in two shards: both places are named.
		{"duplicate id across shards", "", `{"id":"a","scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1}}` + "\n", `bad.jsonl:1: duplicate id "a" (first at ` + good},
		{"empty run", "", "", "empty"},
		{"rubric unknown key", "name: x\ncriteria:\n  - id: a\n    scale: [1, 5]\n    wieght: 2\n", `{"id":"a","scores":{"a":1}}` + "\n", "rubric.yaml:5:5:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rb := supportRubric
			if tt.rubric != "" {
				rb = filepath.Join(dir, "rubric.yaml")
				os.WriteFile(rb, []byte(tt.rubric), 0o644)
			}
			bad := filepath.Join(dir, "bad.jsonl")
			os.WriteFile(bad, []byte(tt.results), 0o644)
			outDir := t.TempDir()
			files := []string{good, bad}
			if tt.name == "empty run" {
				files = []string{bad}
			}
			code, _, errs := runCLI(t, "", append([]string{"score", "--rubric", rb, "--results"}, append(files,
				"--json", filepath.Join(outDir, "r.json"), "--items", filepath.Join(outDir, "i.jsonl"), "--markdown", filepath.Join(outDir, "r.md"))...)...)
			if code != exitError {
				t.Fatalf("exit %d, want 2", code)
			}
			if !strings.Contains(errs, tt.want) {
				t.Errorf("error %q does not name %q", errs, tt.want)
			}
			if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
				t.Errorf("files were written: %v", entries)
			}
		})
	}
}

func TestGateBlockedWritesNoBaseline(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "baseline.json")
	code, _, errs := runCLI(t, "", "gate", "--rubric", supportRubric, "--results", "../../examples/support/run-regressed.jsonl",
		"--baseline", "../../examples/support/baseline.json", "--write-baseline", out)
	if code != exitBlocked {
		t.Fatalf("exit %d, want 1", code)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Error("a blocked run wrote a baseline")
	}
	if !strings.Contains(errs, "no baseline written") {
		t.Errorf("stderr does not say so: %s", errs)
	}
	// The shipped example passes against its own baseline.
	if code, out, errs := runCLI(t, "", "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--baseline", "../../examples/support/baseline.json"); code != exitPass {
		t.Fatalf("example: exit %d\n%s%s", code, out, errs)
	}
}

func TestRubricCommands(t *testing.T) {
	code, out, _ := runCLI(t, "", "rubric", "validate", supportRubric)
	if code != exitPass || !strings.Contains(out, "ok: rubric \"support-answers\", 4 criteria, 0 warning(s), sha256:") {
		t.Errorf("validate: %d %s", code, out)
	}
	for _, f := range []string{"json", "csv", "prompt"} {
		if code, out, errs := runCLI(t, "", "rubric", "export", "--format", f, supportRubric); code != exitPass || out == "" {
			t.Errorf("export %s: %d %s", f, code, errs)
		}
	}
	if code, _, errs := runCLI(t, "", "rubric", "export", "--format", "xml", supportRubric); code != exitError || !strings.Contains(errs, "expected json, csv or prompt") {
		t.Errorf("bad format: %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "frobnicate"); code != exitError || !strings.Contains(errs, "unknown command") {
		t.Errorf("unknown command: %d %s", code, errs)
	}
	if code, _, errs := runCLI(t, "", "gate", "--rubric", supportRubric, "--results", "x.jsonl", "--max-drop", "two"); code != exitError || !strings.Contains(errs, "max-drop") {
		t.Errorf("bad max-drop: %d %s", code, errs)
	}
}

// A command that fails on its last output leaves none of the others written.
func TestOutputsAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "no-such-dir", "x")
	jsonOut, items := filepath.Join(dir, "r.json"), filepath.Join(dir, "items.jsonl")
	code, _, errs := runCLI(t, "", "score", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl",
		"--json", jsonOut, "--items", items, "--markdown", missing)
	if code != exitError {
		t.Fatalf("score: exit %d, want 2 (%s)", code, errs)
	}
	newBase, store := filepath.Join(dir, "baseline.json"), filepath.Join(dir, "store")
	code, _, errs = runCLI(t, "", "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl",
		"--baseline-dir", store, "--write-baseline", newBase, "--json", missing)
	if code != exitError {
		t.Fatalf("gate: exit %d, want 2 (%s)", code, errs)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("a failed command left files behind: %v", names)
	}
	if code, _, _ := runCLI(t, "", "score", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--items", "-"); code != exitError {
		t.Errorf("--items -: exit %d, want 2", code)
	}
}

// --junit writes the JUnit XML report: a blocked gate run shows the
// blocking items as failed test cases, a passing score run none; the file
// is one of the outputs that land together.
func TestJUnitOutput(t *testing.T) {
	dir := t.TempDir()
	gj := filepath.Join(dir, "gate.xml")
	code, out, errs := runCLI(t, "", "gate", "--rubric", supportRubric, "--results", "../../examples/support/run-regressed.jsonl",
		"--baseline", "../../examples/support/baseline.json", "--junit", gj)
	if code != exitBlocked {
		t.Fatalf("exit %d, want 1\n%s%s", code, out, errs)
	}
	data, err := os.ReadFile(gj)
	if err != nil {
		t.Fatal(err)
	}
	x := string(data)
	if !strings.HasPrefix(x, "<?xml") || !strings.Contains(x, `<testsuite name="rubricgate: support-answers"`) || !strings.Contains(x, `type="blocked"`) {
		t.Errorf("gate --junit:\n%s", x)
	}
	sj := filepath.Join(dir, "score.xml")
	if code, out, errs := runCLI(t, "", "score", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--junit", sj); code != exitPass {
		t.Fatalf("score: exit %d\n%s%s", code, out, errs)
	}
	data, err = os.ReadFile(sj)
	if err != nil {
		t.Fatal(err)
	}
	if x := string(data); !strings.Contains(x, `<property name="decision" value="pass">`) || strings.Contains(x, "<failure") {
		t.Errorf("score --junit:\n%s", x)
	}
	// A --junit that cannot be written is exit 2 with nothing else written.
	js := filepath.Join(dir, "r.json")
	if code, _, _ := runCLI(t, "", "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--json", js, "--junit", dir); code != exitError {
		t.Errorf("--junit naming a directory: exit %d, want 2", code)
	}
	if _, err := os.Stat(js); !os.IsNotExist(err) {
		t.Error("the JSON report was written although --junit failed")
	}
}

// --noisy-drop warn passes a drop beyond max-drop whose paired interval
// includes 0 (two of twelve items a point lower), with a warning; the
// default blocks it; --hard-drop below the drop blocks it again; bad
// values exit 2.
func TestGateNoisyDrop(t *testing.T) {
	data, err := os.ReadFile("../../examples/support/run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i := range 2 {
		lines[i] = strings.Replace(lines[i], `"resolution":4`, `"resolution":2`, 1)
		lines[i] = strings.Replace(lines[i], `"resolution":3`, `"resolution":1`, 1)
	}
	run := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(run, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	gate := func(extra ...string) (int, string, string) {
		return runCLI(t, "", append([]string{"gate", "--rubric", supportRubric, "--results", run, "--baseline", "../../examples/support/baseline.json"}, extra...)...)
	}
	if code, out, _ := gate(); code != exitBlocked || !strings.Contains(out, "includes 0 (noisy-drop is block") || !strings.Contains(out, "  Resolution: with 12 items this gate resolves about ±") {
		t.Fatalf("default: exit %d\n%s", code, out)
	}
	code, out, errs := gate("--noisy-drop", "warn")
	if code != exitPass || !strings.Contains(out, "so it passes (noisy-drop warn)") || !strings.Contains(out+errs, "within noise") {
		t.Fatalf("warn: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ := gate("--noisy-drop", "warn", "--hard-drop", "1%"); code != exitBlocked || !strings.Contains(out, "hard-drop 1%") {
		t.Fatalf("warn, hard-drop 1%%: exit %d\n%s", code, out)
	}
	for _, bad := range [][]string{{"--noisy-drop", "maybe"}, {"--hard-drop", "5 percent"}} {
		if code, _, errs := gate(bad...); code != exitError || !strings.Contains(errs, strings.TrimPrefix(bad[0], "--")) {
			t.Errorf("%v: exit %d, %s", bad, code, errs)
		}
	}
}
