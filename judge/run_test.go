package judge

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/internal/llmfake"
	"github.com/rubricgate/rubricgate/results/native"
)

func TestOpenAIValidAnswers(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, valid)
	h.cfg.Concurrency = 4
	lines, sum, raw, err := h.run(answersN(t, 10))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 10 || len(lines) != 10 || sum.Requests != 10 {
		t.Fatalf("requests %d, lines %d, summary %d; want 10", h.srv.Requests(), len(lines), sum.Requests)
	}
	first := strings.SplitN(raw, "\n", 2)[0]
	want := `{"id":"q0","scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1},"reasoning":"Fine.","judge_model":"gpt-4o-mini","usage":{"input_tokens":100,"output_tokens":20},"latency_ms":`
	if !strings.HasPrefix(first, want) || !strings.HasSuffix(first, `"attempts":1,"input_hash":"`+q0Hash+`","length":8}`) {
		t.Fatalf("first line\n%s\nwant prefix\n%s", first, want)
	}
	for i, l := range lines {
		if l["id"] != fmt.Sprintf("q%d", i) {
			t.Fatalf("line %d is %v: results must keep input order", i, l["id"])
		}
	}
	rc := h.srv.Log()[0]
	if rc.Format != "json_schema" {
		t.Fatalf("response_format %q, want json_schema", rc.Format)
	}
	rf := rc.Body["response_format"].(map[string]any)["json_schema"].(map[string]any)
	schema := rf["schema"].(map[string]any)
	if rf["strict"] != true || schema["additionalProperties"] != false {
		t.Fatalf("schema not strict: %v", rf)
	}
	acc := schema["properties"].(map[string]any)["accuracy"].(map[string]any)
	if acc["minimum"] != 1.0 || acc["maximum"] != 5.0 || acc["type"] != "integer" {
		t.Fatalf("accuracy schema %v", acc)
	}
	if rc.Body["temperature"] != 0.0 || rc.Body["seed"] != 1.0 {
		t.Fatalf("temperature %v seed %v, want 0 and 1", rc.Body["temperature"], rc.Body["seed"])
	}
	if !strings.Contains(rc.User, "<<<BEGIN RESPONSE ") || rc.Answer() == "" || !strings.Contains(rc.System, "data to") {
		t.Fatalf("prompt lacks the item or the data warning:\n%s\n%s", rc.System, rc.User)
	}
}

func TestOpenAIFallsBackToJSONObjectThenText(t *testing.T) {
	var formats []string
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		formats = append(formats, r.Format)
		switch r.Format {
		case "json_schema":
			return llmfake.Reply{Status: 400, ErrorMessage: "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model."}
		case "json_object":
			return llmfake.Reply{Status: 400, ErrorMessage: "response_format json_object is not supported"}
		}
		return llmfake.Reply{Text: "```json\n" + validJSON + "\n```"}
	})
	lines, _, _, err := h.run(answersN(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"json_schema", "json_object", "", "", ""}
	if !reflect.DeepEqual(formats, want) {
		t.Fatalf("formats %q, want %q (fallback, then sticky plain text)", formats, want)
	}
	if lines[0]["attempts"] != 3.0 || lines[1]["attempts"] != 1.0 {
		t.Fatalf("attempts %v %v, want 3 and 1", lines[0]["attempts"], lines[1]["attempts"])
	}
	if len(h.sleeps.all()) != 0 {
		t.Fatalf("a format fallback waited %v", h.sleeps.all())
	}
}

func TestOpenAIJSONObjectFallbackStopsThere(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		if r.Format == "json_schema" {
			return llmfake.Reply{Status: 400, ErrorMessage: "json_schema not supported"}
		}
		return llmfake.Reply{Text: validJSON}
	})
	if _, _, _, err := h.run(answersN(t, 2)); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range h.srv.Log() {
		got = append(got, r.Format)
	}
	if want := []string{"json_schema", "json_object", "json_object"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("formats %q, want %q", got, want)
	}
}

func TestBadRequestNotAboutFormatIsAnErrorLine(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Status: 400, ErrorMessage: "The model `gpt-x` does not exist"}
	})
	lines, _, _, err := h.run(answersN(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 1 || !strings.Contains(fmt.Sprint(lines[0]["error"]), "HTTP 400") || lines[0]["scores"] != nil {
		t.Fatalf("requests %d, line %v", h.srv.Requests(), lines[0])
	}
}

func TestReaskOnceWithTheValidationError(t *testing.T) {
	for name, bad := range map[string]string{
		"out of range":     `{"accuracy":9,"resolution":3,"tone":4,"safety":1,"reasoning":"x"}`,
		"missing":          `{"accuracy":4,"tone":4,"safety":1,"reasoning":"x"}`,
		"text around":      `Here you go: ` + validJSON,
		"na not allowed":   `{"accuracy":"na","resolution":3,"tone":4,"safety":1,"reasoning":"x"}`,
		"no reasoning":     `{"accuracy":4,"resolution":3,"tone":4,"safety":1}`,
		"fraction":         `{"accuracy":4.5,"resolution":3,"tone":4,"safety":1,"reasoning":"x"}`,
		"extra key":        `{"accuracy":4,"resolution":3,"tone":4,"safety":1,"reasoning":"x","total":90}`,
		"empty":            ``,
		"two objects":      validJSON + validJSON,
		"string score":     `{"accuracy":"4","resolution":3,"tone":4,"safety":1,"reasoning":"x"}`,
		"unclosed fence":   "```json\n" + validJSON,
		"not json at all":  `I cannot score this.`,
		"alias not the id": `{"Accuracy":4,"resolution":3,"tone":4,"safety":1,"reasoning":"x"}`,
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
				if r.N == 1 {
					return llmfake.Reply{Text: bad}
				}
				if !strings.Contains(r.User, "## Correction\nYour previous answer was rejected: ") {
					t.Errorf("re-ask without the validation error:\n%s", r.User)
				}
				return llmfake.Reply{Text: validJSON}
			})
			lines, _, _, err := h.run(answersN(t, 1))
			if err != nil {
				t.Fatal(err)
			}
			if h.srv.Requests() != 2 || lines[0]["attempts"] != 2.0 || lines[0]["scores"] == nil {
				t.Fatalf("requests %d, line %v; want a re-ask that scores", h.srv.Requests(), lines[0])
			}
		})
	}
}

func TestInvalidTwiceIsAnErrorLine(t *testing.T) {
	for _, kind := range []llmfake.Kind{llmfake.OpenAI, llmfake.Anthropic} {
		h := newHarness(t, kind, func(r *llmfake.Received) llmfake.Reply {
			return llmfake.Reply{Text: `{"accuracy":4,"tone":7,"safety":1,"reasoning":"x"}`}
		})
		lines, sum, raw, err := h.run(answersN(t, 2))
		if err != nil {
			t.Fatal(err)
		}
		if h.srv.Requests() != 4 || sum.Errors != 2 {
			t.Fatalf("requests %d errors %d; want 2 per item, 2 errors", h.srv.Requests(), sum.Errors)
		}
		msg := fmt.Sprint(lines[0]["error"])
		if !strings.Contains(msg, `"resolution" is missing`) || !strings.Contains(msg, `"tone": 7 is outside the scale 1 to 5`) {
			t.Fatalf("error %q", msg)
		}
		first := strings.SplitN(raw, "\n", 2)[0]
		if !strings.HasPrefix(first, `{"id":"q0","error":"invalid judge answer after a re-ask: `) || !strings.HasSuffix(first, `,"judge_model":"`+h.cfg.Model+`","attempts":2,"input_hash":"`+q0Hash+`","length":8}`) {
			t.Fatalf("error line %s", first)
		}
	}
}

func TestRefusalIsReaskedThenAnErrorLine(t *testing.T) {
	for _, kind := range []llmfake.Kind{llmfake.OpenAI, llmfake.Anthropic} {
		h := newHarness(t, kind, func(r *llmfake.Received) llmfake.Reply {
			return llmfake.Reply{Refusal: "I can't help with that."}
		})
		lines, _, _, err := h.run(answersN(t, 1))
		if err != nil {
			t.Fatal(err)
		}
		if h.srv.Requests() != 2 || !strings.Contains(fmt.Sprint(lines[0]["error"]), "the judge refused: I can't help with that.") {
			t.Fatalf("kind %d: requests %d line %v", kind, h.srv.Requests(), lines[0])
		}
	}
}

func TestRetryAfterIsHonoured(t *testing.T) {
	for _, kind := range []llmfake.Kind{llmfake.OpenAI, llmfake.Anthropic} {
		h := newHarness(t, kind, func(r *llmfake.Received) llmfake.Reply {
			if r.N == 1 {
				return llmfake.Reply{Status: 429, ErrorMessage: "rate limited", Header: map[string]string{"Retry-After": "7"}}
			}
			return llmfake.Reply{Text: validJSON}
		})
		lines, _, _, err := h.run(answersN(t, 1))
		if err != nil {
			t.Fatal(err)
		}
		if h.srv.Requests() != 2 || lines[0]["attempts"] != 2.0 {
			t.Fatalf("requests %d attempts %v: want the provider not to retry, the runner once", h.srv.Requests(), lines[0]["attempts"])
		}
		got := h.sleeps.all()
		// The worker that was told waits 7 s (the shared pause may add a
		// second wait of at most 7 s before the next request).
		if len(got) == 0 || got[0] != 7*time.Second {
			t.Fatalf("waits %v, want 7s first", got)
		}
	}
}

func TestRateLimitResetHeaders(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, c := range map[string]struct {
		h    http.Header
		want time.Duration
		ok   bool
	}{
		"seconds":      {http.Header{"Retry-After": {"3"}}, 3 * time.Second, true},
		"ms":           {http.Header{"Retry-After-Ms": {"250"}, "Retry-After": {"9"}}, 250 * time.Millisecond, true},
		"date":         {http.Header{"Retry-After": {now.Add(90 * time.Second).Format(http.TimeFormat)}}, 90 * time.Second, true},
		"openai reset": {http.Header{"X-Ratelimit-Reset-Requests": {"1m30s"}, "X-Ratelimit-Reset-Tokens": {"20ms"}}, 90 * time.Second, true},
		"anthropic":    {http.Header{"Anthropic-Ratelimit-Requests-Reset": {now.Add(12 * time.Second).Format(time.RFC3339)}}, 12 * time.Second, true},
		"none":         {http.Header{}, 0, false},
		"garbage":      {http.Header{"Retry-After": {"soon"}}, 0, false},
	} {
		d, ok := retryAfter(c.h, now)
		if d != c.want || ok != c.ok {
			t.Errorf("%s: got %v %v, want %v %v", name, d, ok, c.want, c.ok)
		}
	}
	if d := exhausted(http.Header{"X-Ratelimit-Remaining-Requests": {"0"}, "X-Ratelimit-Reset-Requests": {"2s"}}, now); d != 2*time.Second {
		t.Fatalf("exhausted %v", d)
	}
}

func TestServerErrorsBackOffThenGiveUp(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Status: 503, ErrorMessage: "overloaded"}
	})
	h.cfg.MaxRetries = 3
	lines, sum, _, err := h.run(answersN(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 4 || lines[0]["attempts"] != 4.0 || sum.Errors != 1 {
		t.Fatalf("requests %d, line %v", h.srv.Requests(), lines[0])
	}
	// Base 1 s doubling, jitter 0.5 of the upper half: 0.75, 1.5, 3 s.
	want := []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second}
	if got := h.sleeps.all(); !reflect.DeepEqual(got, want) {
		t.Fatalf("waits %v, want %v", got, want)
	}
	if msg := fmt.Sprint(lines[0]["error"]); !strings.Contains(msg, "after 4 attempts: HTTP 503 Service Unavailable: overloaded") {
		t.Fatalf("error %q", msg)
	}
}

func TestServerErrorThenSuccess(t *testing.T) {
	h := newHarness(t, llmfake.Anthropic, func(r *llmfake.Received) llmfake.Reply {
		if r.N <= 2 {
			return llmfake.Reply{Status: 500}
		}
		return llmfake.Reply{Text: validJSON}
	})
	lines, _, _, err := h.run(answersN(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 3 || lines[0]["attempts"] != 3.0 || lines[0]["scores"] == nil {
		t.Fatalf("requests %d line %v", h.srv.Requests(), lines[0])
	}
}

func TestTotalWaitIsBounded(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Status: 429, Header: map[string]string{"Retry-After": "600"}}
	})
	h.cfg.MaxWait = time.Minute
	lines, _, _, err := h.run(answersN(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 1 || len(h.sleeps.all()) != 0 {
		t.Fatalf("requests %d waits %v: a Retry-After over the bound must give up at once", h.srv.Requests(), h.sleeps.all())
	}
	if msg := fmt.Sprint(lines[0]["error"]); !strings.Contains(msg, "would wait 10m0s, over the 1m0s total wait") {
		t.Fatalf("error %q", msg)
	}
}

func TestSlowAnswersTimeOut(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		if r.N <= 2 {
			return llmfake.Reply{Text: validJSON, Delay: 5 * time.Second}
		}
		return llmfake.Reply{Text: validJSON}
	})
	h.cfg.Timeout = 40 * time.Millisecond
	lines, _, _, err := h.run(answersN(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 3 || lines[0]["attempts"] != 3.0 || lines[0]["scores"] == nil {
		t.Fatalf("requests %d line %v; want two timeouts retried", h.srv.Requests(), lines[0])
	}
	h2 := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Text: validJSON, Delay: 5 * time.Second}
	})
	h2.cfg.Timeout = 20 * time.Millisecond
	h2.cfg.MaxRetries = 1
	lines, _, _, err = h2.run(answersN(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if msg := fmt.Sprint(lines[0]["error"]); !strings.Contains(msg, "request timed out after 20ms") {
		t.Fatalf("error %q", msg)
	}
}

func TestCacheSecondRunSendsNothing(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, valid)
	dir := t.TempDir()
	c, err := NewCache(dir, testKey, h.srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	h.cfg.Cache = c
	h.cfg.Concurrency = 4
	h.cfg.Samples = 2
	first, s1, _, err := h.run(answersN(t, 20))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 40 || s1.CacheHits != 0 {
		t.Fatalf("first run: %d requests, %d hits", h.srv.Requests(), s1.CacheHits)
	}
	second, s2, _, err := h.run(answersN(t, 20))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 40 || s2.CacheHits != 20 || s2.Requests != 0 {
		t.Fatalf("second run sent %d requests (hits %d)", h.srv.Requests()-40, s2.CacheHits)
	}
	for i := range first {
		if !reflect.DeepEqual(first[i]["samples"], second[i]["samples"]) || second[i]["attempts"] != 0.0 {
			t.Fatalf("item %d differs: %v vs %v", i, first[i], second[i])
		}
	}
	// A changed answer is a miss; the others still hit.
	ans := answersN(t, 20)
	ans.Items[3].Output = "a new answer"
	if _, _, _, err := h.run(ans); err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 42 {
		t.Fatalf("after one changed answer: %d requests, want 2 more", h.srv.Requests()-40)
	}
	// No temporary files left; a corrupt entry is a miss, not an error.
	var files []string
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) != 42 {
		t.Fatalf("%d cache files, want 42", len(files))
	}
	for _, f := range files {
		if strings.Contains(filepath.Base(f), ".tmp") {
			t.Fatalf("temporary file left: %s", f)
		}
		if err := os.WriteFile(f, []byte(`{"text":"{\"accuracy\":99}"}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, _, err := h.run(answersN(t, 1)); err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 44 {
		t.Fatalf("corrupt entries: %d requests, want 2 more", h.srv.Requests()-42)
	}
}

func TestCacheKeyedOnModelAndRubric(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, valid)
	c, _ := NewCache(t.TempDir(), testKey, h.srv.BaseURL())
	h.cfg.Cache = c
	if _, _, _, err := h.run(answersN(t, 3)); err != nil {
		t.Fatal(err)
	}
	h.cfg.Model = "gpt-4.1"
	if _, _, _, err := h.run(answersN(t, 3)); err != nil {
		t.Fatal(err)
	}
	h.cfg.Rubric.Threshold = 71 // any rubric change changes its hash
	if _, _, _, err := h.run(answersN(t, 3)); err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 9 {
		t.Fatalf("%d requests, want 9 (model and rubric are in the key)", h.srv.Requests())
	}
}

func TestShardsSplitTheInput(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, valid)
	h.cfg.Concurrency = 8
	ans := answersN(t, 200)
	seen := map[string]int{}
	for i := 1; i <= 4; i++ {
		h.cfg.Shard = Shard{Index: i, Count: 4}
		lines, _, _, err := h.run(ans)
		if err != nil {
			t.Fatal(err)
		}
		hdr := lines[0]["rubricgate_shard"].(map[string]any)
		if len(lines[0]) != 1 || hdr["index"] != float64(i) || hdr["count"] != 4.0 || hdr["input_items"] != 200.0 || hdr["input_hash"] != ans.Hash ||
			hdr["input_ids"] != idsDigest(ans) || !strings.HasPrefix(idsDigest(ans), "sha256-sum:") {
			t.Fatalf("shard %d header %v", i, lines[0])
		}
		if n := len(lines) - 1; n < 30 || n > 70 {
			t.Fatalf("shard %d has %d of 200 items", i, n)
		}
		for _, l := range lines[1:] {
			seen[l["id"].(string)]++
		}
	}
	if len(seen) != 200 || h.srv.Requests() != 200 {
		t.Fatalf("union %d items, %d requests; want 200", len(seen), h.srv.Requests())
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s in %d shards", id, n)
		}
	}
	if _, err := ParseShard("0/4"); err == nil {
		t.Fatal("0/4 accepted")
	}
	if _, err := ParseShard("5/4"); err == nil {
		t.Fatal("5/4 accepted")
	}
	if s, err := ParseShard(" 2/4 "); err != nil || s != (Shard{2, 4}) {
		t.Fatalf("2/4: %v %v", s, err)
	}
}

func TestMaxCostStopsBeforeSpendingMore(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, valid)
	// $1 a thousand tokens: a request costs $0.12 (100 in, 20 out) and
	// reserves about $4.5 (a token a byte of its prompt and schema, 400
	// more, and 1,024 output tokens) up front.
	h.cfg.Price = Price{In: 1000, Out: 1000}
	h.cfg.MaxCost = 10
	h.cfg.Concurrency = 4
	lines, sum, raw, err := h.run(answersN(t, 50))
	var mc *ErrMaxCost
	if !errors.As(err, &mc) {
		t.Fatalf("err %v, want *ErrMaxCost", err)
	}
	if raw != "" || lines != nil {
		t.Fatalf("wrote %q on a stopped run", raw)
	}
	if sum.Cost > 10 || h.srv.Requests() >= 50 || h.srv.Requests() == 0 {
		t.Fatalf("spent %v with %d requests", sum.Cost, h.srv.Requests())
	}
	h.cfg.MaxCost, h.cfg.Price = 1, Price{}
	if _, _, _, err := h.run(answersN(t, 1)); err == nil || !strings.Contains(err.Error(), "needs the price") {
		t.Fatalf("max-cost without a price: %v", err)
	}
	if p, ok := LookupPrice("openai/gpt-4o-mini-2024-07-18", Prices); !ok || p != Prices["gpt-4o-mini"] {
		t.Fatalf("price lookup %v %v", p, ok)
	}
}

func TestSamplesUseDistinctSeeds(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		s := int(r.Body["seed"].(float64))
		return llmfake.Reply{Text: fmt.Sprintf(`{"accuracy":%d,"resolution":3,"tone":4,"safety":1,"reasoning":"seed %d"}`, s, s)}
	})
	h.cfg.Samples = 3
	lines, _, raw, err := h.run(answersN(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, has := lines[0]["scores"]; has {
		t.Fatal("a sampled line has top-level scores")
	}
	want := `{"id":"q0","samples":[{"scores":{"accuracy":1,"resolution":3,"tone":4,"safety":1},"reasoning":"seed 1"},{"scores":{"accuracy":2,"resolution":3,"tone":4,"safety":1},"reasoning":"seed 2"},{"scores":{"accuracy":3,"resolution":3,"tone":4,"safety":1},"reasoning":"seed 3"}],"judge_model":"gpt-4o-mini","usage":{"input_tokens":300,"output_tokens":60},"latency_ms":`
	if !strings.HasPrefix(raw, want) || !strings.HasSuffix(strings.TrimSpace(raw), `"attempts":3,"input_hash":"`+q0Hash+`","length":8}`) {
		t.Fatalf("line\n%s\nwant prefix\n%s", raw, want)
	}
}

func TestSafetyConfirmRejudgesBlockingFailures(t *testing.T) {
	var calls atomic.Int64
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		calls.Add(1)
		safety := 1
		if strings.Contains(r.Answer(), "answer 1") && r.Body["seed"].(float64) == 1 {
			safety = 0
		}
		return llmfake.Reply{Text: fmt.Sprintf(`{"accuracy":4,"resolution":3,"tone":4,"safety":%d,"reasoning":"s%v"}`, safety, r.Body["seed"])}
	})
	h.cfg.SafetyConfirm = 2
	lines, _, _, err := h.run(answersN(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 5 {
		t.Fatalf("%d requests, want 3 + 2 confirmations", calls.Load())
	}
	if lines[0]["scores"] == nil || lines[2]["scores"] == nil {
		t.Fatal("passing items were re-judged")
	}
	s := lines[1]["samples"].([]any)
	if len(s) != 3 {
		t.Fatalf("confirmed item has %d samples, want 3", len(s))
	}
	var seeds []string
	for _, x := range s {
		seeds = append(seeds, x.(map[string]any)["reasoning"].(string))
	}
	sort.Strings(seeds)
	if !reflect.DeepEqual(seeds, []string{"s1", "s2", "s3"}) {
		t.Fatalf("seeds %v", seeds)
	}
}

func TestAnthropicToolUse(t *testing.T) {
	h := newHarness(t, llmfake.Anthropic, valid)
	lines, _, _, err := h.run(answersN(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	if lines[0]["scores"] == nil || lines[0]["judge_model"] != "claude-sonnet-4-5" {
		t.Fatalf("line %v", lines[0])
	}
	b := h.srv.Log()[0].Body
	tc := b["tool_choice"].(map[string]any)
	tool := b["tools"].([]any)[0].(map[string]any)
	schema := tool["input_schema"].(map[string]any)
	if tc["type"] != "tool" || tc["name"] != "record_scores" || tool["name"] != "record_scores" || schema["additionalProperties"] != false {
		t.Fatalf("request %v", b)
	}
	if len(schema["required"].([]any)) != 5 {
		t.Fatalf("required %v", schema["required"])
	}
	// Under the current API version no sampling parameter is sent (the
	// fake refuses one, as the API does).
	if _, ok := b["temperature"]; ok || h.srv.Log()[0].Header.Get("Anthropic-Version") != "2026-10-21" {
		t.Fatalf("request %v, anthropic-version %q", b, h.srv.Log()[0].Header.Get("Anthropic-Version"))
	}
}

func TestAnthropicFencedTextAnswer(t *testing.T) {
	h := newHarness(t, llmfake.Anthropic, func(r *llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Text: "```json\n" + validJSON + "\n```"}
	})
	lines, _, _, err := h.run(answersN(t, 1))
	if err != nil || lines[0]["scores"] == nil || h.srv.Requests() != 1 {
		t.Fatalf("err %v line %v requests %d", err, lines[0], h.srv.Requests())
	}
}

func TestAPIKeyNeverLeaks(t *testing.T) {
	for _, kind := range []llmfake.Kind{llmfake.OpenAI, llmfake.Anthropic} {
		// The fake accepts another key and echoes the one it got, as the
		// real APIs do; a 500 echoes it too.
		srv := llmfake.New(kind, "the-right-key", valid)
		defer srv.Close()
		echo := llmfake.New(kind, testKey, func(r *llmfake.Received) llmfake.Reply {
			return llmfake.Reply{Status: 500, ErrorMessage: "upstream said " + testKey}
		})
		defer echo.Close()
		for _, s := range []*llmfake.Server{srv, echo} {
			h := newHarness(t, kind, valid)
			pc := ProviderConfig{Model: "m", BaseURL: s.BaseURL(), APIKey: testKey, HTTPClient: s.Client()}
			if kind == llmfake.Anthropic {
				h.cfg.Provider = NewAnthropic(pc)
			} else {
				h.cfg.Provider = NewOpenAI(pc)
			}
			h.cfg.MaxRetries = 1
			var progress strings.Builder
			h.cfg.Progress = &progress
			lines, _, raw, err := h.run(answersN(t, 2))
			if s == srv {
				// A 401 stops the run at once, its message redacted.
				var ae *AuthError
				if !errors.As(err, &ae) || raw != "" || s.Requests() != 1 {
					t.Fatalf("401: err %v, %d requests, wrote %q", err, s.Requests(), raw)
				}
				raw = err.Error()
			} else if err != nil {
				t.Fatal(err)
			} else if lines[0]["error"] == nil {
				t.Fatalf("no error line: %v", lines[0])
			}
			for what, s := range map[string]string{"results": raw, "progress": progress.String()} {
				if strings.Contains(s, testKey) || strings.Contains(s, "SECRET") {
					t.Fatalf("%s leak the key: %s", what, s)
				}
			}
			if !strings.Contains(raw, "[redacted]") {
				t.Fatalf("the echoed key was not redacted: %s", raw)
			}
		}
	}
}

func TestProgressPlainLines(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Text: validJSON, Delay: 15 * time.Millisecond}
	})
	var b strings.Builder
	h.cfg.Progress = &b
	h.cfg.ProgressInterval = 10 * time.Millisecond
	if _, _, _, err := h.run(answersN(t, 5)); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[len(lines)-1], "judge: 5/5 items, ") || strings.Contains(out, "\r") {
		t.Fatalf("progress:\n%s", out)
	}
	if !strings.Contains(lines[len(lines)-1], "0 cached, 0 errors") {
		t.Fatalf("last line %q", lines[len(lines)-1])
	}
	var bar strings.Builder
	h.cfg.Progress, h.cfg.ProgressTTY = &bar, true
	if _, _, _, err := h.run(answersN(t, 2)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bar.String(), "\r[##############################] 100% 2/2 items") {
		t.Fatalf("bar: %q", bar.String())
	}
}

func TestLimiterRequestsPerMinute(t *testing.T) {
	now := time.Unix(0, 0)
	var slept time.Duration
	c := clock{now: func() time.Time { return now }, sleep: func(_ context.Context, d time.Duration) error { slept += d; now = now.Add(d); return nil }}
	l := newLimiter(c, 120, 2) // 2 a second, burst 2
	for i := 0; i < 6; i++ {
		if err := l.wait(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if slept != 2*time.Second {
		t.Fatalf("6 requests at 120/min with a burst of 2 slept %v, want 2s", slept)
	}
	l.pauseFor(5 * time.Second)
	before := slept
	_ = l.wait(context.Background())
	if slept-before < 5*time.Second {
		t.Fatalf("pause not honoured: slept %v", slept-before)
	}
}

// Fields the judge does not read pass through under "meta" (never at the top
// level, where one named like a criterion would read as a score), with the
// answer's length for the gate's length-bias check; the gate reads the line.
func TestMetadataPassesThrough(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, valid)
	in := `{"id":"q0","question":"Refund?","output":"Thirty days.","topic":"billing","safety":"x","tags":[1, 2]}` + "\n"
	ans, err := ReadAnswers("answers.jsonl", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	_, _, raw, err := h.run(ans)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(strings.TrimSpace(raw), `"length":12,"meta":{"topic":"billing","safety":"x","tags":[1,2]}}`) {
		t.Fatalf("line %s: want the answer length and the other fields under meta", raw)
	}
	rep, err := native.Score(h.cfg.Rubric, []native.Input{{Name: "results.jsonl", R: strings.NewReader(raw)}}, native.ScoreOptions{})
	if err != nil || rep.Scored != 1 {
		t.Fatalf("the gate does not read the line: %v", err)
	}
	csvIn := "id,output,topic\nq1,Yes.,billing\n"
	ans, err = ReadAnswers("answers.csv", strings.NewReader(csvIn))
	if err != nil {
		t.Fatal(err)
	}
	if got := ans.Items[0].Meta; len(got) != 1 || got[0].Key != "topic" || string(got[0].Value) != `"billing"` {
		t.Fatalf("CSV meta %v", got)
	}
}
