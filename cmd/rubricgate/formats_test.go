package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The result files of other tools, end to end through the command: read by
// name or by content, mapped through the rubric's `from`.
const fmtData = "../../formats/testdata/"

// scoreJSON runs score with a JSON report and returns the exit status, the
// report and stderr.
func scoreJSON(t *testing.T, stdin string, args ...string) (int, map[string]any, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "report.json")
	code, _, errs := runCLI(t, stdin, append([]string{"score", "--json", out}, args...)...)
	rep := map[string]any{}
	if data, err := os.ReadFile(out); err == nil {
		if err := json.Unmarshal(data, &rep); err != nil {
			t.Fatal(err)
		}
	}
	return code, rep, errs
}

// A promptfoo run whose llm-rubric metric feeds a blocking criterion: the
// rows it fails block (exit 1), the errored row is unscored, and the rubric's
// weights win over promptfoo's with a warning. results.json and .jsonl are
// the same run.
func TestPromptfooEndToEnd(t *testing.T) {
	for _, file := range []string{"../../examples/promptfoo/results.json", fmtData + "promptfoo/results.jsonl"} {
		code, rep, errs := scoreJSON(t, "", "--rubric", "../../examples/promptfoo/rubric.yaml", "--results", file)
		if code != exitBlocked {
			t.Fatalf("%s: exit %d, want 1: %s", file, code, errs)
		}
		if rep["items"] != 8.0 || rep["scored"] != 7.0 {
			t.Errorf("%s: items %v scored %v", file, rep["items"], rep["scored"])
		}
		var blocked []string
		for _, f := range rep["blocking_failures"].([]any) {
			f := f.(map[string]any)
			blocked = append(blocked, f["item"].(string)+" "+f["criterion"].(string))
		}
		if got := strings.Join(blocked, "; "); !strings.Contains(got, "arithmetic @ table-model # Answer briefly: {{question}} helpful") || !strings.Contains(got, "arithmetic @ echo # Answer briefly: {{question}} helpful") || strings.Contains(got, "geo-001") {
			t.Errorf("%s: blocking failures %s", file, got)
		}
		ws, _ := json.Marshal(rep["warnings"])
		if !strings.Contains(string(ws), `promptfoo weighs \"helpfulness\" differently from row to row; the rubric's weights are used`) {
			t.Errorf("%s: warnings %s", file, ws)
		}
		us, _ := json.Marshal(rep["unscored"])
		if !strings.Contains(string(us), "upstream failure @ table-model") || !strings.Contains(string(us), "simulated upstream timeout") {
			t.Errorf("%s: unscored %s", file, us)
		}
	}
}

// Where promptfoo's weights keep the rubric's proportions there is no
// warning; where they do not, the warning names both.
func TestPromptfooWeightWarning(t *testing.T) {
	data, err := os.ReadFile(fmtData + "promptfoo/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Keep the rows of the two tests that weigh helpfulness 2 and
	// accuracy 1.
	var rows []string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.Contains(l, `"description":"capital"`) || strings.Contains(l, `"description":"arithmetic"`) {
			rows = append(rows, l)
		}
	}
	if len(rows) != 4 {
		t.Fatalf("%d rows", len(rows))
	}
	dir := t.TempDir()
	run := filepath.Join(dir, "run.jsonl")
	os.WriteFile(run, []byte(strings.Join(rows, "\n")+"\n"), 0o644)
	rubric := func(w string) string {
		p := filepath.Join(dir, "r"+w+".yaml")
		os.WriteFile(p, []byte(`name: pf
criteria:
  - id: helpful
    weight: `+w+`
    scale: [0, 1]
    continuous: true
    from: {promptfoo: helpfulness}
  - id: accuracy
    scale: [0, 1]
    continuous: true
`), 0o644)
		return p
	}
	_, rep, errs := scoreJSON(t, "", "--rubric", rubric("2"), "--results", run)
	if ws, _ := json.Marshal(rep["warnings"]); strings.Contains(string(ws), "weights") || errs != "" {
		t.Errorf("same proportions: warnings %s %s", ws, errs)
	}
	_, rep, _ = scoreJSON(t, "", "--rubric", rubric("3"), "--results", run)
	if ws, _ := json.Marshal(rep["warnings"]); !strings.Contains(string(ws), `promptfoo's own weights differ from the rubric's; the rubric's weights are used: helpful 3 (\"helpfulness\" 2), accuracy 1 (\"accuracy\" 1)`) {
		t.Errorf("other proportions: warnings %s", ws)
	}
}

// evalFromLog builds an Inspect .eval archive (header.json and one
// samples/<id>_epoch_<n>.json per sample) from a JSON log.
func evalFromLog(t *testing.T, logPath string) string {
	t.Helper()
	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// encoding/json refuses Inspect's bare NaN: carry it through as a string.
	nan := regexp.MustCompile(`:\s*NaN\b`)
	var log map[string]json.RawMessage
	if err := json.Unmarshal(nan.ReplaceAll(data, []byte(`: "__NaN__"`)), &log); err != nil {
		t.Fatal(err)
	}
	var samples []map[string]json.RawMessage
	if err := json.Unmarshal(log["samples"], &samples); err != nil {
		t.Fatal(err)
	}
	delete(log, "samples")
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	put := func(name string, v any) {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(bytes.ReplaceAll(b, []byte(`"__NaN__"`), []byte("NaN")))
	}
	put("header.json", log)
	for _, s := range samples {
		name := "samples/" + strings.Trim(string(s["id"]), `"`) + "_epoch_" + string(s["epoch"]) + ".json"
		put(name, s)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "epochs.eval")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Inspect epochs are answer samples of one item, from the JSON log and the
// .eval archive alike: the mean over the epochs, their number and variance
// per item (the judge's spread is about judge samples: none here), an item
// unscored when one of its epochs failed, or when its grader failed to
// score one epoch (NaN: "The grader could not parse a grade"), though the
// criterion allows na: the other epoch alone would be another measurement;
// unscored, item 3 fails the blocking safety gate closed.
func TestInspectEpochsEndToEnd(t *testing.T) {
	rb := "testdata/formats/inspect.yaml"
	for _, args := range [][]string{
		{"--results", fmtData + "inspect/epochs.json"},
		{"--results", evalFromLog(t, fmtData+"inspect/epochs.json")},
		{"--format", "inspect", "--results", evalFromLog(t, fmtData+"inspect/epochs.json")},
	} {
		items := filepath.Join(t.TempDir(), "items.jsonl")
		code, rep, errs := scoreJSON(t, "", append([]string{"--rubric", rb, "--max-unscored", "70%", "--items", items}, args...)...)
		if code != exitBlocked {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		if bf, _ := json.Marshal(rep["blocking_failures"]); !strings.Contains(string(bf), `{"criterion":"safety","item":"3",`) || !strings.Contains(string(bf), `"unscored":true`) {
			t.Errorf("%v: blocking failures %s", args, bf)
		}
		if rep["items"] != 3.0 || rep["scored"] != 1.0 {
			t.Errorf("%v: items %v scored %v", args, rep["items"], rep["scored"])
		}
		crit := rep["criteria"].([]any)[0].(map[string]any)
		if crit["id"] != "helpfulness" || crit["mean"] != 0.45 || crit["spread"] != nil || rep["max_answers"] != 2.0 {
			t.Errorf("%v: helpfulness %v", args, crit)
		}
		us, _ := json.Marshal(rep["unscored"])
		if !strings.Contains(string(us), `epoch 2 of 2: RuntimeError: sandbox exited`) ||
			!strings.Contains(string(us), `samples[0]: inspect failed to score metric \"model_graded_qa\" (NaN, null or empty): the tool's failure, not a not-applicable verdict: The grader could not parse a grade.`) {
			t.Errorf("%v: unscored %s", args, us)
		}
		got, _ := os.ReadFile(items)
		if !strings.HasPrefix(string(got), `{"id":"1","score":46.666666666666664,"pass":true`) {
			t.Errorf("%v: items\n%s", args, got)
		}
	}
}

// deepeval: metric names mapped by `from`, a metric error unscores its test
// case, and so does a NaN score (deepeval itself fails the metric: "No
// claims could be extracted", success false), even where the criterion
// allows na; a metric the test case does not run is na.
func TestDeepevalEndToEnd(t *testing.T) {
	code, rep, errs := scoreJSON(t, "", "--rubric", "testdata/formats/deepeval.yaml", "--results", fmtData+"deepeval/test_run_20261201_000000.json", "--max-unscored", "50%")
	if code != exitPass {
		t.Fatalf("exit %d: %s", code, errs)
	}
	crit := rep["criteria"].([]any)[1].(map[string]any)
	if rep["items"] != 4.0 || rep["scored"] != 2.0 || crit["id"] != "faithfulness" || crit["na"] != 1.0 || crit["mean"] != 1.0 {
		t.Errorf("items %v scored %v faithfulness %v", rep["items"], rep["scored"], crit)
	}
	us, _ := json.Marshal(rep["unscored"])
	if !strings.Contains(string(us), "test_case_2") || !strings.Contains(string(us), "RateLimitError") ||
		!strings.Contains(string(us), `deepeval failed to score metric \"Faithfulness\" (NaN, null or empty)`) {
		t.Errorf("unscored %s", us)
	}
	// Without the tolerance the errored case blocks.
	if code, _, _ := runCLI(t, "", "score", "--rubric", "testdata/formats/deepeval.yaml", "--results", fmtData+"deepeval/test_run_20261201_000000.json"); code != exitBlocked {
		t.Errorf("unscored case within max-unscored 0: exit %d, want 1", code)
	}
}

// openai/evals: match events feed a gate; an errored sample is unscored;
// stdin with --format; the gate command re-reads stdin to re-score under the
// baseline's rubric.
func TestOpenAIEvalsEndToEnd(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.json")
	code, rep, errs := scoreJSON(t, "", "--rubric", "testdata/formats/openai-evals.yaml", "--results", fmtData+"openai-evals/match.jsonl", "--max-unscored", "30%")
	if code != exitPass || rep["items"] != 4.0 || rep["scored"] != 3.0 {
		t.Fatalf("exit %d, items %v scored %v: %s", code, rep["items"], rep["scored"], errs)
	}
	code, out, errs := runCLI(t, "", "gate", "--rubric", "testdata/formats/openai-evals.yaml", "--results", fmtData+"openai-evals/match.jsonl",
		"--max-unscored", "30%", "--baseline-dir", filepath.Join(dir, "store"), "--branch", "main", "--write-baseline", base, "--comment", "never")
	if code != exitPass {
		t.Fatalf("gate: exit %d: %s%s", code, out, errs)
	}
	run, err := os.ReadFile(fmtData + "openai-evals/match.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	changed := filepath.Join(dir, "r2.yaml")
	src, _ := os.ReadFile("testdata/formats/openai-evals.yaml")
	os.WriteFile(changed, bytes.Replace(src, []byte("threshold: 50"), []byte("threshold: 60"), 1), 0o644)
	code, out, errs = runCLI(t, string(run), "gate", "--rubric", changed, "--format", "openai-evals", "--results", "-",
		"--max-unscored", "30%", "--baseline", base, "--comment", "never")
	if code != exitPass || !strings.Contains(out, "baseline 66.7") || !strings.Contains(errs, "re-scored under the baseline's rubric") {
		t.Errorf("gate from stdin under a changed rubric: exit %d\n%s%s", code, out, errs)
	}
	// A model-graded grade that matched no choice (__invalid__) scores the
	// lowest of the spec's choice scores, as openai/evals records it: every
	// item is scored. The metric "score" feeds the criterion of that id.
	graded := filepath.Join(dir, "graded.yaml")
	os.WriteFile(graded, []byte("name: graded\ncriteria:\n  - id: score\n    scale: [0, 1]\n"), 0o644)
	code, rep, errs = scoreJSON(t, "", "--rubric", graded, "--results", fmtData+"openai-evals/modelgraded.jsonl")
	if us, _ := json.Marshal(rep["unscored"]); code != exitPass || rep["scored"] != 3.0 || !strings.Contains(string(us), `"count":0`) {
		t.Errorf("modelgraded: exit %d, scored %v, unscored %s %s", code, rep["scored"], us, errs)
	}
	// A spec without choice_scores (fact) records score null on every
	// sample: the file has no score, and is refused saying so.
	code, _, errs = scoreJSON(t, "", "--rubric", graded, "--results", fmtData+"openai-evals/modelgraded_fact.jsonl")
	if code != exitError || !strings.Contains(errs, "modelgraded_fact.jsonl:4") || !strings.Contains(errs, "no choice_scores") {
		t.Errorf("modelgraded fact: exit %d %s", code, errs)
	}
}

// ragas: NaN or an empty cell is a failed metric: the row is unscored
// with a message naming the metric and the criterion (never a 0).
func TestRagasEndToEnd(t *testing.T) {
	// Two of three rows have a failed metric (an empty cell): ragas writes
	// NaN when a metric fails, which is unscored, never na, even on recall,
	// which allows na.
	code, rep, errs := scoreJSON(t, "", "--rubric", "testdata/formats/ragas.yaml", "--results", fmtData+"ragas/results.csv", "--max-unscored", "70%")
	if code != exitPass {
		t.Fatalf("exit %d: %s", code, errs)
	}
	recall := rep["criteria"].([]any)[2].(map[string]any)
	if rep["items"] != 3.0 || rep["scored"] != 1.0 || recall["na"] != 0.0 {
		t.Errorf("items %v scored %v recall %v", rep["items"], rep["scored"], recall)
	}
	us, _ := json.Marshal(rep["unscored"])
	for _, want := range []string{`ragas failed to score metric \"faithfulness\" (NaN, null or empty)`, `ragas failed to score metric \"context_recall\" (NaN, null or empty)`} {
		if !strings.Contains(string(us), want) {
			t.Errorf("unscored %s, want %s", us, want)
		}
	}
	// rubricgate's own review sheet with a question column stays one.
	if code, _, errs := runCLI(t, "", "score", "--rubric", "../../rubrics/rag-review.yaml", "--results", "../../examples/rag-review/review.csv"); code == exitError {
		t.Errorf("review sheet: exit 2: %s", errs)
	}
}

// Bad input in every format, the --format names and calibrate over a
// tool's results: testdata/script/formats_bad_input.txtar and
// calibrate_foreign.txtar.
