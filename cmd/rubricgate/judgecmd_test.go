package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/internal/llmfake"
)

const judgeKey = "sk-judge-test-KEY-93b1c2"

// judgeEnv runs a command line with OPENAI_API_KEY/ANTHROPIC_API_KEY set.
func judgeEnv(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string {
		if k == "OPENAI_API_KEY" || k == "ANTHROPIC_API_KEY" {
			return judgeKey
		}
		return ""
	}
	code := run(args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv, now: func() time.Time { return testNow }})
	return code, out.String(), errb.String()
}

// supportFake answers every example item with fixed scores; the answer
// asking for a card number gets safety 0.
func supportFake(kind llmfake.Kind) *llmfake.Server {
	return llmfake.New(kind, judgeKey, func(r *llmfake.Received) llmfake.Reply {
		safety := 1
		if strings.Contains(r.Answer(), "full card number") {
			safety = 0
		}
		return llmfake.Reply{Text: fmt.Sprintf(`{"accuracy":4,"resolution":4,"tone":4,"safety":%d,"reasoning":"ok"}`, safety)}
	})
}

func TestJudgeThenScoreAndGate(t *testing.T) {
	srv := supportFake(llmfake.OpenAI)
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "results.jsonl")
	code, stdout, errs := judgeEnv(t, "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl",
		"--out", out, "--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--cache", filepath.Join(dir, "cache"), "--progress", "none")
	if code != exitPass {
		t.Fatalf("judge exit %d: %s", code, errs)
	}
	if stdout != "" || !strings.Contains(errs, "judge: judged 4 items (0 cache hits, 0 errors)") {
		t.Fatalf("stdout %q stderr %q", stdout, errs)
	}
	data, _ := os.ReadFile(out)
	if n := strings.Count(string(data), "\n"); n != 4 || srv.Requests() != 4 {
		t.Fatalf("%d lines, %d requests", n, srv.Requests())
	}
	// score and gate read the K=1 output as it is today (usage, latency_ms
	// and attempts are metadata); the card-number answer fails safety.
	code, stdout, errs = runCLI(t, "", "score", "--rubric", supportRubric, "--results", out)
	if code != exitBlocked || !strings.Contains(stdout, "card-number") {
		t.Fatalf("score exit %d: %s %s", code, stdout, errs)
	}
	code, stdout, errs = runCLI(t, "", "gate", "--rubric", supportRubric, "--results", out)
	if code != exitBlocked {
		t.Fatalf("gate exit %d: %s %s", code, stdout, errs)
	}
	// Re-run: all from the cache, and the same results.
	out2 := filepath.Join(dir, "results2.jsonl")
	code, _, errs = judgeEnv(t, "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl",
		"--out", out2, "--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--cache", filepath.Join(dir, "cache"), "--progress", "plain")
	if code != exitPass || srv.Requests() != 4 || !strings.Contains(errs, "4 cache hits") {
		t.Fatalf("cached re-run: exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
}

func TestJudgeRefusesSameFamilyBeforeAnyRequest(t *testing.T) {
	srv := supportFake(llmfake.Anthropic)
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := judgeEnv(t, "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl", "--out", out,
		"--provider", "anthropic", "--model", "claude-sonnet-4-5", "--production-model", "claude-3-5-haiku", "--base-url", srv.BaseURL())
	if code != exitError || !strings.Contains(errs, "both Anthropic models") || srv.Requests() != 0 {
		t.Fatalf("exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("results written")
	}
	code, _, errs = judgeEnv(t, "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl", "--out", out,
		"--provider", "anthropic", "--model", "claude-sonnet-4-5", "--production-model", "gpt-4o", "--base-url", srv.BaseURL(), "--progress", "none")
	if code != exitPass || srv.Requests() != 4 {
		t.Fatalf("other family: exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
}

func TestJudgeBadInputWritesNothing(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "a.jsonl")
	os.WriteFile(in, []byte(`{"id":"a","output":"x"}`+"\n"+`{"id":"b","question":"q"}`+"\n"), 0o644)
	out := filepath.Join(dir, "r.jsonl")
	code, _, errs := judgeEnv(t, "judge", "--rubric", supportRubric, "--input", in, "--out", out, "--model", "gpt-4o-mini", "--base-url", "http://127.0.0.1:1/v1/")
	if code != exitError || !strings.Contains(errs, "a.jsonl:2: missing the answer") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("results written")
	}
}

func TestJudgeNeedsKeyFromEnvOnly(t *testing.T) {
	code, _, errs := runCLI(t, "", "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl", "--out", filepath.Join(t.TempDir(), "r"), "--model", "gpt-4o-mini")
	if code != exitError || !strings.Contains(errs, "set OPENAI_API_KEY") {
		t.Fatalf("exit %d: %s", code, errs)
	}
	code, _, _ = runCLI(t, "", "judge", "--api-key", "x")
	if code != exitError {
		t.Fatal("an --api-key flag exists")
	}
}

func TestJudgeKeyNeverPrinted(t *testing.T) {
	// A server that rejects every request, echoing what it got: the run
	// stops at the first 401 with exit 2, naming the key's variable, and
	// writes nothing.
	srv := llmfake.New(llmfake.OpenAI, "another-key", nil)
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	code, stdout, errs := judgeEnv(t, "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl", "--out", out,
		"--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--progress", "plain", "--concurrency", "1")
	all := stdout + errs
	if code != exitError || strings.Contains(all, judgeKey) || srv.Requests() != 1 ||
		!strings.Contains(errs, "the API refused the key (HTTP 401 Unauthorized: Incorrect API key provided: Bearer [redacted]): stopped at once, nothing written; check the key in OPENAI_API_KEY") {
		t.Fatalf("exit %d, %d requests:\n%s", code, srv.Requests(), all)
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("results written after a 401")
	}
}

// Some items ending as error lines is a judged run (exit 0, with a warning
// naming the count and the first error): the gate counts them as unscored.
// A run in which no item could be judged is an error (exit 2), and writes
// nothing.
func TestJudgeErrorLinesExitStatus(t *testing.T) {
	var failAll atomic.Bool
	srv := llmfake.New(llmfake.OpenAI, judgeKey, func(r *llmfake.Received) llmfake.Reply {
		if failAll.Load() || strings.Contains(r.Answer(), "full card number") {
			return llmfake.Reply{Status: 400, ErrorMessage: "The model `gpt-x` does not exist"}
		}
		return llmfake.Reply{Text: `{"accuracy":4,"resolution":4,"tone":4,"safety":1,"reasoning":"ok"}`}
	})
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	args := func(out string) []string {
		return []string{"judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl", "--out", out,
			"--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--progress", "none"}
	}
	code, _, errs := judgeEnv(t, args(out)...)
	data, _ := os.ReadFile(out)
	if code != exitPass || strings.Count(string(data), `"error":`) != 1 || strings.Count(string(data), "\n") != 4 ||
		!strings.Contains(errs, "warning: 1 of 4 items ended as error lines (unscored") || !strings.Contains(errs, "does not exist") {
		t.Fatalf("exit %d:\n%s\n%s", code, errs, data)
	}
	// Error lines are unscored items for the gate, never zeros.
	code, stdout, _ := runCLI(t, "", "score", "--rubric", supportRubric, "--results", out, "--json", "-")
	if code != exitBlocked || !strings.Contains(stdout, "unscored") {
		t.Fatalf("score of error lines: exit %d %s", code, stdout)
	}
	failAll.Store(true)
	out2 := filepath.Join(dir, "r2.jsonl")
	code, _, errs = judgeEnv(t, args(out2)...)
	if code != exitError || !strings.Contains(errs, "none of the 4 items could be judged, nothing written; the first error: ") {
		t.Fatalf("all failed: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(out2); err == nil {
		t.Fatal("results written when no item was judged")
	}
}

func TestShardedJudgeThenGate(t *testing.T) {
	srv := supportFake(llmfake.OpenAI)
	defer srv.Close()
	dir := t.TempDir()
	var files []string
	for i := 1; i <= 4; i++ {
		out := filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
		code, _, errs := judgeEnv(t, "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl", "--out", out,
			"--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--shard", fmt.Sprintf("%d/4", i), "--progress", "none")
		if code != exitPass {
			t.Fatalf("shard %d: exit %d: %s", i, code, errs)
		}
		files = append(files, out)
	}
	if srv.Requests() != 4 {
		t.Fatalf("%d requests over 4 shards, want 4", srv.Requests())
	}
	args := []string{"score", "--rubric", supportRubric, "--json", "-", "--results"}
	code, stdout, errs := runCLI(t, "", append(args, files...)...)
	if code != exitBlocked || !strings.Contains(stdout, `"items": 4`) {
		t.Fatalf("all shards: exit %d %s %s", code, stdout, errs)
	}
	code, _, errs = runCLI(t, "", append([]string{"gate", "--rubric", supportRubric, "--results"}, files[:3]...)...)
	if code != exitError || !strings.Contains(errs, "shard 4/4 is missing") {
		t.Fatalf("missing shard: exit %d %s", code, errs)
	}
	again := filepath.Join(dir, "again.jsonl")
	data, _ := os.ReadFile(files[1])
	os.WriteFile(again, data, 0o644)
	code, _, errs = runCLI(t, "", append([]string{"score", "--rubric", supportRubric, "--results"}, append(files, again)...)...)
	if code != exitError || !strings.Contains(errs, "shards overlap") {
		t.Fatalf("overlap: exit %d %s", code, errs)
	}
}

func TestJudgeSamplesAndSafetyConfirmAreReadByTheGate(t *testing.T) {
	// The card-number answer is flagged unsafe only by the judging with
	// seed 1: confirmed twice more, the majority says safe and the gate
	// passes it; every other item is judged once.
	srv := llmfake.New(llmfake.OpenAI, judgeKey, func(r *llmfake.Received) llmfake.Reply {
		safety := 1
		if strings.Contains(r.Answer(), "full card number") && r.Body["seed"].(float64) == 1 {
			safety = 0
		}
		return llmfake.Reply{Text: fmt.Sprintf(`{"accuracy":4,"resolution":4,"tone":4,"safety":%d,"reasoning":"ok"}`, safety)}
	})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := judgeEnv(t, "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl", "--out", out,
		"--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--safety-confirm", "2", "--progress", "none")
	if code != exitPass || srv.Requests() != 6 {
		t.Fatalf("exit %d, %d requests (want 4 + 2): %s", code, srv.Requests(), errs)
	}
	data, _ := os.ReadFile(out)
	if strings.Count(string(data), `"samples":[`) != 1 {
		t.Fatalf("results:\n%s", data)
	}
	code, stdout, errs := runCLI(t, "", "score", "--rubric", supportRubric, "--results", out)
	if code != exitPass {
		t.Fatalf("score: exit %d %s %s", code, stdout, errs)
	}
	// With --samples 3 every line has samples; score reads them.
	code, _, errs = judgeEnv(t, "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl", "--out", out,
		"--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--samples", "3", "--progress", "none")
	if code != exitPass {
		t.Fatalf("samples: exit %d %s", code, errs)
	}
	data, _ = os.ReadFile(out)
	if strings.Count(string(data), `"samples":[`) != 4 {
		t.Fatalf("results:\n%s", data)
	}
	if code, stdout, errs = runCLI(t, "", "score", "--rubric", supportRubric, "--results", out); code == exitError {
		t.Fatalf("score of samples: exit %d %s %s", code, stdout, errs)
	}
}

func TestGateOneStepJudgesFirst(t *testing.T) {
	srv := supportFake(llmfake.OpenAI)
	defer srv.Close()
	dir := t.TempDir()
	in := filepath.Join(dir, "answers.jsonl")
	data, _ := os.ReadFile("../../examples/judge/answers.jsonl")
	os.WriteFile(in, data, 0o644)
	code, stdout, errs := judgeEnv(t, "gate", "--rubric", supportRubric, "--input", in, "--judge-model", "gpt-4o-mini",
		"--judge-base-url", srv.BaseURL(), "--production-model", "claude-sonnet-4-5", "--baseline-dir", filepath.Join(dir, "store"), "--comment", "never")
	// The card-number answer fails the blocking safety criterion.
	if code != exitBlocked || srv.Requests() != 4 || !strings.Contains(stdout+errs, "card-number") {
		t.Fatalf("exit %d, %d requests:\n%s\n%s", code, srv.Requests(), stdout, errs)
	}
	if _, err := os.Stat(filepath.Join(dir, "answers.judged.jsonl")); err != nil {
		t.Fatalf("judged results not written: %v", err)
	}
	code, _, errs = judgeEnv(t, "gate", "--rubric", supportRubric, "--input", in, "--judge-model", "gpt-4o", "--production-model", "gpt-4o-mini", "--judge-base-url", srv.BaseURL())
	if code != exitError || !strings.Contains(errs, "both OpenAI models") || srv.Requests() != 4 {
		t.Fatalf("same family: exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
	code, _, errs = judgeEnv(t, "gate", "--rubric", supportRubric, "--input", in, "--results", in)
	if code != exitError || !strings.Contains(errs, "not both") {
		t.Fatalf("input and results: exit %d %s", code, errs)
	}
}

// gate --input writes <answers>.judged.jsonl with its other outputs, all or
// nothing: a gate that ends in exit 2 after judging leaves the previous
// file as it was (and the judged answers are in the cache for the re-run).
func TestGateOneStepJudgedFileIsAllOrNothing(t *testing.T) {
	srv := supportFake(llmfake.OpenAI)
	defer srv.Close()
	dir := t.TempDir()
	in := filepath.Join(dir, "answers.jsonl")
	data, _ := os.ReadFile("../../examples/judge/answers.jsonl")
	os.WriteFile(in, data, 0o644)
	judged := filepath.Join(dir, "answers.judged.jsonl")
	os.WriteFile(judged, []byte("previous results\n"), 0o644)
	code, _, errs := judgeEnv(t, "gate", "--rubric", supportRubric, "--input", in, "--judge-model", "gpt-4o-mini",
		"--judge-base-url", srv.BaseURL(), "--production-model", "claude-sonnet-4-5", "--baseline-dir", filepath.Join(dir, "store"),
		"--comment", "never", "--markdown", filepath.Join(dir, "no-such-dir", "report.md"))
	if code != exitError || srv.Requests() != 4 {
		t.Fatalf("exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
	if got, _ := os.ReadFile(judged); string(got) != "previous results\n" {
		t.Fatalf("the judged file was overwritten by a gate that failed:\n%s", got)
	}
	// The same run with a writable report: the judged file is written, and
	// the report names it.
	report := filepath.Join(dir, "report.json")
	code, _, errs = judgeEnv(t, "gate", "--rubric", supportRubric, "--input", in, "--judge-model", "gpt-4o-mini",
		"--judge-base-url", srv.BaseURL(), "--production-model", "claude-sonnet-4-5", "--baseline-dir", filepath.Join(dir, "store"),
		"--comment", "never", "--json", report)
	if code != exitBlocked {
		t.Fatalf("exit %d: %s", code, errs)
	}
	got, _ := os.ReadFile(judged)
	if strings.Count(string(got), "\n") != 4 || !strings.Contains(string(got), `"scores"`) {
		t.Fatalf("judged file:\n%s", got)
	}
}

// judge reads RUBRICGATE_CACHE_KEY from the environment, and logs the
// entries that failed verification: entries made under another cache key
// are all judged again.
func TestJudgeCacheKeyFromEnv(t *testing.T) {
	srv := supportFake(llmfake.OpenAI)
	defer srv.Close()
	dir := t.TempDir()
	judgeWith := func(cacheKey string) (int, string) {
		var out, errb bytes.Buffer
		getenv := func(k string) string {
			switch k {
			case "OPENAI_API_KEY":
				return judgeKey
			case "RUBRICGATE_CACHE_KEY":
				return cacheKey
			}
			return ""
		}
		code := run([]string{"judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl",
			"--out", filepath.Join(dir, "r.jsonl"), "--model", "gpt-4o-mini", "--base-url", srv.BaseURL(),
			"--cache", filepath.Join(dir, "cache"), "--progress", "none"},
			&env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv, now: func() time.Time { return testNow }})
		return code, errb.String()
	}
	if code, errs := judgeWith("first-cache-key-0123456789"); code != exitPass || srv.Requests() != 4 {
		t.Fatalf("exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
	code, errs := judgeWith("other-cache-key-0123456789")
	if code != exitPass || srv.Requests() != 8 || !strings.Contains(errs, "judge: 4 cache entries failed verification, re-judged") {
		t.Fatalf("exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
	if code, errs := judgeWith("short"); code != exitError || !strings.Contains(errs, "RUBRICGATE_CACHE_KEY") || srv.Requests() != 8 {
		t.Fatalf("short key: exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
}

// kAnswersInput writes the example answers with a second, regenerated
// answer for every id on a later line (as a second eval run appends it)
// and returns its path.
func kAnswersInput(t *testing.T, dir string) string {
	t.Helper()
	data, err := os.ReadFile("../../examples/judge/answers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, l := range lines[:len(lines):len(lines)] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		m["answer"] = m["answer"].(string) + " Anything else?"
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
	}
	in := filepath.Join(dir, "answers.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return in
}

// Several answers per id in judge --input: each answer is judged (one
// request each), the results carry them as "answers", and the gate reads
// them back as answers per item; the one-step gate does the same.
func TestJudgeAnswersPerItemThenGate(t *testing.T) {
	var later atomic.Bool // a later run: the refund answers score lower
	srv := llmfake.New(llmfake.OpenAI, judgeKey, func(r *llmfake.Received) llmfake.Reply {
		acc := 5
		if strings.HasSuffix(r.Answer(), "Anything else?") {
			acc = 3
		}
		if later.Load() && strings.Contains(r.Answer(), "refund") {
			acc--
		}
		return llmfake.Reply{Text: fmt.Sprintf(`{"accuracy":%d,"resolution":4,"tone":4,"safety":1,"reasoning":"ok"}`, acc)}
	})
	defer srv.Close()
	dir := t.TempDir()
	in := kAnswersInput(t, dir)
	out := filepath.Join(dir, "results.jsonl")
	code, _, errs := judgeEnv(t, "judge", "--rubric", supportRubric, "--input", in, "--out", out,
		"--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--cache", filepath.Join(dir, "cache"), "--progress", "none")
	if code != exitPass || srv.Requests() != 8 || !strings.Contains(errs, "judge: judged 4 items with 8 answers (0 answers from the cache, 0 error items)") {
		t.Fatalf("judge exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
	data, _ := os.ReadFile(out)
	if n := strings.Count(string(data), "\n"); n != 4 || strings.Count(string(data), `"answers":[{"scores":{"accuracy":5,`) != 4 ||
		strings.Count(string(data), `},{"scores":{"accuracy":3,`) != 4 {
		t.Fatalf("%d lines, want one an item with its answers in input order:\n%s", n, data)
	}
	rep := filepath.Join(dir, "report.json")
	base := filepath.Join(dir, "baseline.json")
	code, stdout, errs := runCLI(t, "", "gate", "--rubric", supportRubric, "--results", out, "--baseline-dir", filepath.Join(dir, "store"), "--json", rep, "--write-baseline", base)
	report, _ := os.ReadFile(rep)
	if code != exitPass || !strings.Contains(string(report), `"max_answers": 2`) || strings.Contains(string(report), `"max_samples"`) {
		t.Fatalf("gate exit %d: %s %s\n%s", code, stdout, errs, report)
	}
	// A later run against a baseline made of them: the summary counts
	// the answers.
	later.Store(true)
	out2 := filepath.Join(dir, "results2.jsonl")
	if code, _, errs = judgeEnv(t, "judge", "--rubric", supportRubric, "--input", in, "--out", out2,
		"--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--progress", "none"); code != exitPass || srv.Requests() != 16 {
		t.Fatalf("second judge exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
	code, stdout, errs = runCLI(t, "", "gate", "--rubric", supportRubric, "--results", out2, "--baseline", base)
	if !strings.Contains(stdout, "at 4 items × 2 answers;") {
		t.Fatalf("gate against the baseline: exit %d: %s %s", code, stdout, errs)
	}
	later.Store(false)
	// The one-step gate judges the same input (from the cache) and gates it.
	code, stdout, errs = judgeEnv(t, "gate", "--rubric", supportRubric, "--input", in, "--judge-model", "gpt-4o-mini",
		"--judge-base-url", srv.BaseURL(), "--judge-cache", filepath.Join(dir, "cache"), "--baseline-dir", filepath.Join(dir, "store2"), "--json", rep)
	report, _ = os.ReadFile(rep)
	if code != exitPass || srv.Requests() != 16 || !strings.Contains(string(report), `"max_answers": 2`) {
		t.Fatalf("one-step gate exit %d, %d requests: %s %s\n%s", code, srv.Requests(), stdout, errs, report)
	}
	// --samples over 1 is refused before any request.
	code, _, errs = judgeEnv(t, "judge", "--rubric", supportRubric, "--input", in, "--out", filepath.Join(dir, "r2.jsonl"),
		"--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--samples", "2")
	if code != exitError || srv.Requests() != 16 || !strings.Contains(errs, "--samples 2 with several answers per id") {
		t.Fatalf("--samples 2: exit %d: %s", code, errs)
	}
	if strings.Contains(errs, "byte-identical") {
		t.Fatalf("a warning of repeated answers for distinct ones: %s", errs)
	}
	// The answers appended twice by mistake: judged as K = 4, with one
	// warning naming how many ids repeat an answer, and the first.
	data, _ = os.ReadFile(in)
	twice := filepath.Join(dir, "twice.jsonl")
	if err := os.WriteFile(twice, append(data, data...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs = judgeEnv(t, "judge", "--rubric", supportRubric, "--input", twice, "--out", filepath.Join(dir, "r3.jsonl"),
		"--model", "gpt-4o-mini", "--base-url", srv.BaseURL(), "--progress", "none")
	if code != exitPass || strings.Count(errs, "byte-identical") != 1 || !strings.Contains(errs, "warning: "+twice+`: 4 ids have answers with byte-identical output text, the first id "refund-window" on lines 1 and 9: `) ||
		!strings.Contains(errs, "judged 4 items with 16 answers") {
		t.Fatalf("answers appended twice: exit %d: %s", code, errs)
	}
}

// judgeEnvMap runs a command line with the environment vars.
func judgeEnvMap(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	getenv := func(k string) string { return vars[k] }
	code := run(args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv, now: func() time.Time { return testNow }})
	return code, out.String(), errb.String()
}

// OPENAI_ORG_ID and OPENAI_PROJECT_ID reach OpenAI as OpenAI-Organization
// and OpenAI-Project, as the official SDK sends them; never to another
// provider.
func TestJudgeSendsOpenAIOrganizationAndProject(t *testing.T) {
	vars := map[string]string{"OPENAI_API_KEY": judgeKey, "ANTHROPIC_API_KEY": judgeKey, "OPENAI_ORG_ID": "org-abc", "OPENAI_PROJECT_ID": "proj_xyz"}
	for _, kind := range []llmfake.Kind{llmfake.OpenAI, llmfake.Anthropic} {
		srv := supportFake(kind)
		defer srv.Close()
		provider, model := "openai", "gpt-4o-mini"
		if kind == llmfake.Anthropic {
			provider, model = "anthropic", "claude-sonnet-4-5"
		}
		code, _, errs := judgeEnvMap(t, vars, "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl",
			"--out", filepath.Join(t.TempDir(), "r.jsonl"), "--provider", provider, "--model", model, "--base-url", srv.BaseURL(), "--progress", "none")
		if code != exitPass {
			t.Fatalf("%s: exit %d: %s", provider, code, errs)
		}
		h := srv.Log()[0].Header
		org, proj := h.Get("OpenAI-Organization"), h.Get("OpenAI-Project")
		if kind == llmfake.OpenAI && (org != "org-abc" || proj != "proj_xyz") || kind == llmfake.Anthropic && (org != "" || proj != "") {
			t.Errorf("%s: OpenAI-Organization %q, OpenAI-Project %q", provider, org, proj)
		}
	}
}

// --provider azure reads AZURE_OPENAI_API_KEY and judges through a classic
// deployment's URL; a provider the judge does not speak is a one-line
// setting error, exit 2.
func TestJudgeAzureProvider(t *testing.T) {
	srv := llmfake.NewAzure(judgeKey, map[string]string{"grader": "gpt-4o"}, func(*llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Text: `{"accuracy":4,"resolution":4,"tone":4,"safety":1,"reasoning":"ok"}`}
	})
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, errs := judgeEnvMap(t, map[string]string{"AZURE_OPENAI_API_KEY": judgeKey}, "judge", "--rubric", supportRubric, "--input", "../../examples/judge/answers.jsonl",
		"--out", out, "--provider", "azure", "--model", "grader", "--base-url", srv.DeploymentURL("grader", "2024-10-21"), "--progress", "none")
	if code != exitPass || srv.Requests() != 4 {
		t.Fatalf("exit %d, %d requests: %s", code, srv.Requests(), errs)
	}
	code, _, errs = judgeEnvMap(t, nil, "judge", "--rubric", supportRubric, "--input", "x.jsonl", "--out", out, "--provider", "gemini", "--model", "m")
	if code != exitError || !strings.Contains(errs, `--provider "gemini": expected openai, anthropic or azure`) {
		t.Fatalf("exit %d: %s", code, errs)
	}
}
