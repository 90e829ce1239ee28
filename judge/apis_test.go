package judge

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/internal/llmfake"
)

// The judge against the fakes, which refuse what the APIs refuse: a run
// with each model family succeeds with one request an answer.

// runAgainst judges n answers with provider p against srv, valid answers.
func runAgainst(t *testing.T, srv *llmfake.Server, p Provider, model string, n int) ([]map[string]any, error) {
	t.Helper()
	h := newHarness(t, llmfake.OpenAI, valid)
	h.srv = srv
	h.cfg.Provider, h.cfg.Model = p, model
	lines, _, _, err := h.run(answersN(t, n))
	return lines, err
}

func scoredAll(lines []map[string]any) bool {
	for _, l := range lines {
		if l["scores"] == nil {
			return false
		}
	}
	return len(lines) > 0
}

// Under anthropic-version 2026-10-21 (the default) no sampling parameter
// is sent: the API refuses temperature, top_p and top_k at any value.
// Under 2023-06-01 temperature 0 is sent, with the version header; a
// Claude Opus 4.7 refuses it under either version, which ends as error
// lines naming the API's message.
func TestAnthropicVersions(t *testing.T) {
	srv := llmfake.New(llmfake.Anthropic, testKey, valid)
	defer srv.Close()
	pc := ProviderConfig{Model: "claude-sonnet-4-5", BaseURL: srv.BaseURL(), APIKey: testKey, HTTPClient: srv.Client()}
	lines, err := runAgainst(t, srv, NewAnthropic(pc), pc.Model, 2)
	if err != nil || !scoredAll(lines) || srv.Requests() != 2 {
		t.Fatalf("current version: err %v, lines %v, %d requests", err, lines, srv.Requests())
	}
	for _, r := range srv.Log() {
		for _, f := range []string{"temperature", "top_p", "top_k"} {
			if _, ok := r.Body[f]; ok {
				t.Errorf("%s sent under 2026-10-21", f)
			}
		}
	}
	pinned := pc
	pinned.AnthropicVersion = AnthropicPinned
	lines, err = runAgainst(t, srv, NewAnthropic(pinned), pc.Model, 1)
	last := srv.Log()[srv.Requests()-1]
	if err != nil || !scoredAll(lines) || last.Body["temperature"] != 0.0 || last.Header.Get("Anthropic-Version") != "2023-06-01" {
		t.Fatalf("pinned: err %v, lines %v, body %v", err, lines, last.Body)
	}
	opus := pinned
	opus.Model = "claude-opus-4-7"
	lines, _ = runAgainst(t, srv, NewAnthropic(opus), opus.Model, 1)
	if lines[0]["scores"] != nil || !strings.Contains(fmt.Sprint(lines[0]["error"]), "temperature") {
		t.Fatalf("opus 4.7 pinned: %v", lines)
	}
}

// The key goes as Authorization: Bearer by default and as x-api-key (and
// nothing else) on request.
func TestAnthropicKeyHeader(t *testing.T) {
	srv := llmfake.New(llmfake.Anthropic, testKey, valid)
	defer srv.Close()
	pc := ProviderConfig{Model: "claude-sonnet-4-5", BaseURL: srv.BaseURL(), APIKey: testKey, HTTPClient: srv.Client()}
	for _, kh := range []KeyHeader{"", KeyXAPIKey} {
		pc.KeyHeader = kh
		if _, err := NewAnthropic(pc).Complete(context.Background(), wireRequestFor()); err != nil {
			t.Fatal(err)
		}
		h := srv.Log()[srv.Requests()-1].Header
		bearer, xkey := h.Get("Authorization"), h.Get("X-Api-Key")
		if kh == KeyXAPIKey && (xkey != testKey || bearer != "") || kh == "" && (bearer != "Bearer "+testKey || xkey != "") {
			t.Errorf("%q: Authorization %q, x-api-key %q", kh, bearer, xkey)
		}
	}
}

// stop_reason model_context_window_exceeded is a cut answer: re-asked,
// then an error line that says so (not the output limit).
func TestAnthropicContextWindowIsACutAnswer(t *testing.T) {
	h := newHarness(t, llmfake.Anthropic, func(*llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Text: `{"accuracy":4,"resolution":3`, StopReason: "model_context_window_exceeded"}
	})
	lines, _, _, _ := h.run(answersN(t, 1))
	if e := fmt.Sprint(lines[0]["error"]); !strings.Contains(e, "context window") || h.srv.Requests() != 2 {
		t.Fatalf("error %q, %d requests", e, h.srv.Requests())
	}
	r := &Response{}
	body := `{"content":[{"type":"tool_use","name":"record_scores","input":{"accuracy":4}}],"stop_reason":"model_context_window_exceeded","usage":{}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, body) }))
	defer srv.Close()
	r, err := NewAnthropic(ProviderConfig{Model: "m", BaseURL: srv.URL, APIKey: "k"}).Complete(context.Background(), wireRequestFor())
	if err != nil || !r.Truncated || !r.ContextWindow {
		t.Fatalf("%+v %v", r, err)
	}
}

// An error keeps the answer's request id (request-id, x-request-id), for
// a support ticket.
func TestErrorsKeepTheRequestID(t *testing.T) {
	for _, kind := range []llmfake.Kind{llmfake.OpenAI, llmfake.Anthropic} {
		h := newHarness(t, kind, func(*llmfake.Received) llmfake.Reply {
			return llmfake.Reply{Status: 400, ErrorMessage: "bad thing"}
		})
		lines, _, _, _ := h.run(answersN(t, 1))
		if e := fmt.Sprint(lines[0]["error"]); !strings.Contains(e, "bad thing (request-id req_fake000001)") {
			t.Errorf("kind %d: %q", kind, e)
		}
	}
}

// OpenAI's reasoning models take neither max_tokens nor temperature 0: the
// judge sends max_completion_tokens and no temperature, so a run opens
// with no refused request. A chat model on api.openai.com gets
// max_completion_tokens first too, and temperature 0.
func TestOpenAIModelFamilies(t *testing.T) {
	srv := llmfake.New(llmfake.OpenAI, testKey, valid)
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	platform := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}}
	for _, tc := range []struct {
		model, base string
		hc          *http.Client
		temperature bool
		limit       string
		requests    int
	}{
		{"o3-mini", "http://api.openai.com/v1", platform, false, "max_completion_tokens", 3},
		{"gpt-5-mini", "http://api.openai.com/v1/", platform, false, "max_completion_tokens", 3},
		{"gpt-4o-mini", "http://api.openai.com/v1", platform, true, "max_completion_tokens", 3},
		{"gpt-4o-mini", srv.BaseURL(), srv.Client(), true, "max_tokens", 3},
		// A compatible endpoint gets max_tokens first; one that serves a
		// reasoning model refuses it once, then the run switches.
		{"o3-mini", srv.BaseURL(), srv.Client(), false, "max_completion_tokens", 3 + 1},
	} {
		before := srv.Requests()
		p := NewOpenAI(ProviderConfig{Model: tc.model, BaseURL: tc.base, APIKey: testKey, HTTPClient: tc.hc})
		lines, err := runAgainst(t, srv, p, tc.model, 3)
		if err != nil || !scoredAll(lines) || srv.Requests()-before != tc.requests {
			t.Fatalf("%s at %s: err %v, %d requests, lines %v", tc.model, tc.base, err, srv.Requests()-before, lines)
		}
		b := srv.Log()[srv.Requests()-1].Body
		_, temp := b["temperature"]
		if _, ok := b[tc.limit]; !ok || temp != tc.temperature {
			t.Errorf("%s at %s: body %v", tc.model, tc.base, b)
		}
	}
}

// OPENAI_ORG_ID and OPENAI_PROJECT_ID reach the API as OpenAI-Organization
// and OpenAI-Project.
func TestOpenAIOrganizationAndProject(t *testing.T) {
	srv := llmfake.New(llmfake.OpenAI, testKey, valid)
	defer srv.Close()
	p := NewOpenAI(ProviderConfig{Model: "gpt-4o-mini", BaseURL: srv.BaseURL(), APIKey: testKey, HTTPClient: srv.Client(), Organization: "org-1", Project: "proj_2"})
	if _, err := p.Complete(context.Background(), wireRequestFor()); err != nil {
		t.Fatal(err)
	}
	h := srv.Log()[0].Header
	if h.Get("OpenAI-Organization") != "org-1" || h.Get("OpenAI-Project") != "proj_2" {
		t.Errorf("headers %v", h)
	}
}

// Azure OpenAI: a classic deployment's URL keeps its api-version query
// (the path is joined before it), the key goes as api-key; the v1 route
// takes the deployment as the model. A deployment of a reasoning model
// whose name does not say so answers 400 to max_tokens and to temperature:
// the judge switches for the rest of the run.
func TestAzureDeployments(t *testing.T) {
	srv := llmfake.NewAzure(testKey, map[string]string{"judge": "gpt-4o", "thinker": "o4-mini"}, valid)
	defer srv.Close()
	for _, tc := range []struct {
		base, model string
		requests    int
	}{
		{srv.DeploymentURL("judge", "2024-10-21"), "gpt-4o", 3},
		{srv.DeploymentURL("thinker", "2024-12-01-preview"), "my-judge", 3 + 2},
		{srv.BaseURL(), "judge", 3},
		{srv.BaseURL(), "thinker", 3 + 2},
	} {
		before := srv.Requests()
		p := NewAzure(ProviderConfig{Model: tc.model, BaseURL: tc.base, APIKey: testKey, HTTPClient: srv.Client()})
		lines, err := runAgainst(t, srv, p, tc.model, 3)
		if err != nil || !scoredAll(lines) || srv.Requests()-before != tc.requests {
			t.Errorf("%s %s: err %v, %d requests, lines %v", tc.base, tc.model, err, srv.Requests()-before, lines)
		}
		if h := srv.Log()[srv.Requests()-1].Header; h.Get("Api-Key") != testKey || h.Get("Authorization") != "" {
			t.Errorf("%s: headers %v", tc.base, h)
		}
	}
	// Settings Azure would answer 404 to are refused before any request.
	rb := supportRubric(t)
	for _, base := range []string{"", srv.DeploymentURL("judge", ""), srv.URL + "/v1/"} {
		o := goodOptions()
		o.Provider, o.BaseURL = ProviderAzure, base
		if _, err := o.config(rb); err == nil || !strings.Contains(err.Error(), "--") {
			t.Errorf("base %q: %v", base, err)
		}
	}
	if o := (Options{Provider: ProviderAzure}); o.KeyEnv() != "AZURE_OPENAI_API_KEY" {
		t.Error(o.KeyEnv())
	}
}

// x-should-retry overrides the status, as in the official SDKs: false
// stops a 5xx retry, true retries a 4xx.
func TestShouldRetryHeader(t *testing.T) {
	for _, tc := range []struct {
		status   int
		header   string
		requests int
	}{
		{500, "false", 1}, {500, "", 3}, {400, "true", 3}, {400, "", 1},
	} {
		h := newHarness(t, llmfake.OpenAI, func(*llmfake.Received) llmfake.Reply {
			return llmfake.Reply{Status: tc.status, ErrorMessage: "no", Header: map[string]string{"X-Should-Retry": tc.header}}
		})
		h.cfg.MaxRetries = 2
		lines, _, _, _ := h.run(answersN(t, 1))
		if h.srv.Requests() != tc.requests || lines[0]["error"] == nil {
			t.Errorf("%d x-should-retry %q: %d requests, want %d", tc.status, tc.header, h.srv.Requests(), tc.requests)
		}
	}
}

// An answer over the 8 MiB cap is not retried: each attempt is billed.
func TestOversizedAnswerNotRetried(t *testing.T) {
	big := `{"choices":[{"message":{"content":"` + strings.Repeat("x", maxResponseBytes) + `"}}]}`
	h := newHarness(t, llmfake.OpenAI, func(*llmfake.Received) llmfake.Reply { return llmfake.Reply{RawBody: big} })
	lines, _, _, _ := h.run(answersN(t, 1))
	if h.srv.Requests() != 1 || !strings.Contains(fmt.Sprint(lines[0]["error"]), "over 8 MiB") {
		t.Fatalf("%d requests, line %v", h.srv.Requests(), lines[0])
	}
}

// A redirect off the configured origin (another host, or the same host
// over another port, as https to plain http) is refused, not retried, and
// the key reaches nothing but the origin, under any of its headers.
func TestKeyNeverFollowsARedirectOffTheOrigin(t *testing.T) {
	var stolen atomic.Int64
	thief := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stolen.Add(1)
		for _, k := range []string{"Authorization", "X-Api-Key", "Api-Key"} {
			if r.Header.Get(k) != "" {
				t.Errorf("the key reached another origin in %s", k)
			}
		}
	}))
	defer thief.Close()
	// The same host (127.0.0.1), another port.
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, thief.URL+r.URL.Path, http.StatusTemporaryRedirect)
	}))
	defer api.Close()
	providers := map[string]Provider{
		"openai":              NewOpenAI(ProviderConfig{Model: "gpt-4o", BaseURL: api.URL + "/v1/", APIKey: testKey}),
		"anthropic":           NewAnthropic(ProviderConfig{Model: "claude-sonnet-4-5", BaseURL: api.URL, APIKey: testKey}),
		"anthropic x-api-key": NewAnthropic(ProviderConfig{Model: "claude-sonnet-4-5", BaseURL: api.URL, APIKey: testKey, KeyHeader: KeyXAPIKey}),
		"azure":               NewAzure(ProviderConfig{Model: "d", BaseURL: api.URL + "/openai/deployments/d?api-version=2024-10-21", APIKey: testKey}),
	}
	for name, p := range providers {
		_, err := p.Complete(context.Background(), wireRequestFor())
		if !errors.Is(err, errOffOrigin) || retryable(err) || strings.Contains(err.Error(), testKey) {
			t.Errorf("%s: %v (retryable %v)", name, err, retryable(err))
		}
	}
	if stolen.Load() != 0 {
		t.Errorf("%d requests followed the redirect", stolen.Load())
	}
}

// A reasoning model gets a per-request timeout that fits its latency when
// --timeout is not given; a given one is kept.
func TestDefaultTimeoutByFamily(t *testing.T) {
	rb := supportRubric(t)
	for _, tc := range []struct {
		model string
		given time.Duration
		want  time.Duration
	}{
		{"gpt-4o-mini", 0, time.Minute}, {"o3", 0, 5 * time.Minute}, {"openai/gpt-5", 0, 5 * time.Minute}, {"o3", 90 * time.Second, 90 * time.Second},
	} {
		o := goodOptions()
		o.Model, o.Timeout = tc.model, tc.given
		cfg, err := o.config(rb)
		if err != nil || cfg.Timeout != tc.want {
			t.Errorf("%s %s: %s %v", tc.model, tc.given, cfg.Timeout, err)
		}
	}
	for m, want := range map[string]bool{"o1": true, "o3-mini": true, "o4-mini-2025-04-16": true, "gpt-5.1": true,
		"gpt-4o": false, "omni-moderation": false, "o": false, "claude-opus-4-7": false} {
		if ReasoningModel(m) != want {
			t.Errorf("ReasoningModel(%q) = %v", m, !want)
		}
	}
}

// A request that timed out is billed, though no usage came back: it counts
// against --max-cost at its reservation, so a retry cannot spend past the
// limit unseen.
func TestTimedOutRequestCountsAgainstMaxCost(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, func(*llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Text: validJSON, Delay: time.Second}
	})
	h.cfg.Timeout, h.cfg.MaxRetries = 20*time.Millisecond, 1
	h.cfg.Price, h.cfg.MaxCost = Price{In: 1, Out: 1}, 100
	_, sum, _, _ := h.run(answersN(t, 1))
	if sum == nil || sum.Cost <= 0 || sum.Requests != 2 {
		t.Fatalf("summary %+v", sum)
	}
}

// A judging at temperature 0 and one at the model's default are different
// judgings: the cache keeps them apart (Anthropic under each API version,
// and an OpenAI endpoint that turned temperature off mid-run).
func TestCacheKeepsSamplingApart(t *testing.T) {
	srv := llmfake.New(llmfake.Anthropic, testKey, valid)
	defer srv.Close()
	dir := t.TempDir()
	pc := ProviderConfig{Model: "claude-sonnet-4-5", BaseURL: srv.BaseURL(), APIKey: testKey, HTTPClient: srv.Client()}
	pinned := pc
	pinned.AnthropicVersion = AnthropicPinned
	for i, tc := range []struct {
		p    Provider
		want int // requests made by this run
	}{{NewAnthropic(pc), 2}, {NewAnthropic(pc), 0}, {NewAnthropic(pinned), 2}, {NewAnthropic(pinned), 0}} {
		c, err := NewCache(dir, testKey, srv.BaseURL())
		if err != nil {
			t.Fatal(err)
		}
		h := newHarness(t, llmfake.Anthropic, valid)
		h.srv = srv
		h.cfg.Provider, h.cfg.Model, h.cfg.Cache = tc.p, pc.Model, c
		before := srv.Requests()
		if _, _, _, err := h.run(answersN(t, 2)); err != nil || srv.Requests()-before != tc.want {
			t.Errorf("run %d: err %v, %d requests, want %d", i+1, err, srv.Requests()-before, tc.want)
		}
	}
}
