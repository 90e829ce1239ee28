package judge

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/rubricgate/rubricgate/internal/llmfake"
)

// A bad or revoked key (401) or a key without access (403) stops the run at
// once: no error line per item, nothing written, and no more requests than
// were in flight.
func TestAuthErrorStopsTheRunAtOnce(t *testing.T) {
	for _, kind := range []llmfake.Kind{llmfake.OpenAI, llmfake.Anthropic} {
		for _, status := range []int{401, 403} {
			h := newHarness(t, kind, func(*llmfake.Received) llmfake.Reply {
				return llmfake.Reply{Status: status, ErrorMessage: "Incorrect API key provided: " + testKey}
			})
			h.cfg.Concurrency = 4
			_, sum, raw, err := h.run(answersN(t, 40))
			var ae *AuthError
			if !errors.As(err, &ae) || ae.Err.Status != status {
				t.Fatalf("kind %d status %d: err %v, want *AuthError", kind, status, err)
			}
			if raw != "" || sum.Requests > 4 || h.srv.Requests() > sum.Requests {
				t.Fatalf("status %d: %d requests (summary %d), wrote %q", status, h.srv.Requests(), sum.Requests, raw)
			}
			if strings.Contains(err.Error(), testKey) || !strings.Contains(err.Error(), "[redacted]") {
				t.Fatalf("the echoed key is not redacted: %v", err)
			}
		}
	}
}

// worstCase answers as expensively as a request allows: every output token
// of its max_tokens, and the input bound (a token for every byte of the
// prompt and schema, plus the framing and tool-use overhead).
func worstCase(t *testing.T, mu *sync.Mutex, limits *[]any) func(*llmfake.Received) llmfake.Reply {
	schema, err := json.Marshal(Schema(supportRubric(t)))
	if err != nil {
		t.Fatal(err)
	}
	return func(r *llmfake.Received) llmfake.Reply {
		mu.Lock()
		*limits = append(*limits, r.Body["max_tokens"])
		mu.Unlock()
		out := 4096 // no limit asked: a long answer
		if f, ok := r.Body["max_tokens"].(float64); ok {
			out = int(f)
		}
		in := len(r.System) + len(r.User) + len(schema) + reserveOverhead
		return llmfake.Reply{Text: validJSON, InputTokens: in, OutputTokens: out}
	}
}

// --max-cost reserves each request's real output limit, which every
// request carries, so concurrent requests cannot take the spending past
// the maximum even when each is billed its whole limit; the stop message
// gives the run's final spending and request count.
func TestMaxCostHoldsAtTheOutputLimit(t *testing.T) {
	for _, kind := range []llmfake.Kind{llmfake.OpenAI, llmfake.Anthropic} {
		var mu sync.Mutex
		var limits []any
		h := newHarness(t, kind, worstCase(t, &mu, &limits))
		h.cfg.Price = Price{In: 1000, Out: 1000} // $0.001 a token
		h.cfg.MaxCost = 40
		h.cfg.Concurrency = 8
		_, sum, raw, err := h.run(answersN(t, 200))
		var mc *ErrMaxCost
		if !errors.As(err, &mc) || raw != "" {
			t.Fatalf("kind %d: err %v, wrote %d bytes", kind, err, len(raw))
		}
		for _, l := range limits {
			if l != float64(DefaultMaxOutputTokens) {
				t.Fatalf("kind %d: a request's max_tokens is %v, want %d", kind, l, DefaultMaxOutputTokens)
			}
		}
		if sum.Cost > h.cfg.MaxCost {
			t.Fatalf("kind %d: spent $%.4f over the $%.0f maximum", kind, sum.Cost, h.cfg.MaxCost)
		}
		if mc.Spent != sum.Cost || mc.Requests != sum.Requests || mc.Requests != h.srv.Requests() || mc.Requests == 0 {
			t.Fatalf("kind %d: stop message says $%.4f on %d requests; the run spent $%.4f on %d (%d received)",
				kind, mc.Spent, mc.Requests, sum.Cost, sum.Requests, h.srv.Requests())
		}
		if !strings.Contains(err.Error(), "requests (") {
			t.Fatalf("message: %v", err)
		}
	}
}

// An endpoint that refuses max_tokens (OpenAI's reasoning models) is asked
// again at once with max_completion_tokens, for the rest of the run.
func TestMaxTokensFallsBackToMaxCompletionTokens(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		if _, ok := r.Body["max_tokens"]; ok {
			return llmfake.Reply{Status: 400, ErrorMessage: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead."}
		}
		return llmfake.Reply{Text: validJSON}
	})
	h.cfg.MaxOutputTokens = 300
	lines, _, _, err := h.run(answersN(t, 3))
	if err != nil || len(lines) != 3 || lines[0]["scores"] == nil {
		t.Fatalf("err %v lines %v", err, lines)
	}
	log := h.srv.Log()
	if len(log) != 4 {
		t.Fatalf("%d requests, want 4 (one refused, then three)", len(log))
	}
	for _, rc := range log[1:] {
		if rc.Body["max_completion_tokens"] != 300.0 || rc.Body["max_tokens"] != nil || rc.Format != "json_schema" {
			t.Fatalf("after the fallback: %v", rc.Body)
		}
	}
	if lines[0]["attempts"] != 2.0 {
		t.Fatalf("attempts %v, want 2", lines[0]["attempts"])
	}
}

// An answer cut at the output limit is re-asked, and the error says which
// limit to raise.
func TestTruncatedAnswerNamesTheLimit(t *testing.T) {
	for _, kind := range []llmfake.Kind{llmfake.OpenAI, llmfake.Anthropic} {
		h := newHarness(t, kind, func(*llmfake.Received) llmfake.Reply {
			return llmfake.Reply{Text: `{"accuracy":4,"resolution":3,"tone":4,"saf`, Truncated: true}
		})
		lines, _, _, err := h.run(answersN(t, 1))
		if err != nil || len(lines) != 1 {
			t.Fatalf("err %v", err)
		}
		if e, _ := lines[0]["error"].(string); !strings.Contains(e, "output limit of 1024 tokens (--max-output-tokens)") {
			t.Fatalf("kind %d: error %q", kind, e)
		}
	}
}
