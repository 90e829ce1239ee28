package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rubricgate/rubricgate/internal/llmfake"
	"github.com/rubricgate/rubricgate/rubric"
)

// The wire record: what the providers send for a scripted series of answers
// (status, headers, body) and what they make of each answer, per target (a
// provider, API version and model family). The golden files in
// testdata/wire are the requests as reviewed; the test holds the client to
// them, and holds each of them to the API's documented refusal rules
// (internal/llmfake): a recorded request the real API would refuse (a
// temperature under anthropic-version 2026-10-21, max_tokens to a reasoning
// model, an Azure deployment without its api-version) fails the test, even
// when the record and the client agree. The first record was taken from
// the official SDKs (openai-go v3.98.0, anthropic-sdk-go v2.15.0); it is
// no longer the reference, since it carried a field the current API
// refuses. Client telemetry headers (User-Agent, X-Stainless-*) are not
// asserted (see wireSDKOnly).

var wireSDKSeen sync.Map

var updateWire = flag.Bool("update-wire", false, "rewrite testdata/wire from the current providers")

// wireSDKOnly are request headers of the SDKs' own that the judge does not
// need on the wire: client telemetry and a per-request idempotency key for
// the SDKs' retries, which are off.
func wireSDKOnly(k string) bool {
	k = http.CanonicalHeaderKey(k)
	return strings.HasPrefix(k, "X-Stainless-") || k == "User-Agent" || k == "Idempotency-Key"
}

// wireStep is one scripted answer.
type wireStep struct {
	Status int               `json:"status"`
	Header map[string]string `json:"header,omitempty"`
	Body   string            `json:"body"`
	// Location redirects (3xx) to this path.
	Location string `json:"location,omitempty"`
}

// wireRequest is one request as the server saw it.
type wireRequest struct {
	Method string              `json:"method"`
	Path   string              `json:"path"`
	Query  string              `json:"query,omitempty"`
	Header map[string][]string `json:"header"`
	Body   json.RawMessage     `json:"body,omitempty"`
}

// wireResult is what Complete returned.
type wireResult struct {
	Text       string            `json:"text,omitempty"`
	Refusal    string            `json:"refusal,omitempty"`
	In         int64             `json:"input_tokens,omitempty"`
	Out        int64             `json:"output_tokens,omitempty"`
	Status     int               `json:"error_status,omitempty"`
	Msg        string            `json:"error_msg,omitempty"`
	Downgraded bool              `json:"downgraded,omitempty"`
	Retryable  bool              `json:"retryable,omitempty"`
	Other      string            `json:"other_error,omitempty"`
	RateHeader map[string]string `json:"rate_header,omitempty"`
}

type wireCase struct {
	Name     string         `json:"name"`
	Steps    []wireStep     `json:"steps"`
	Requests []*wireRequest `json:"requests"`
	Results  []wireResult   `json:"results"`
}

// wireRecorder serves the steps in order (a redirect consumes one step and
// the request it leads to the next) and records every request.
type wireRecorder struct {
	mu    sync.Mutex
	steps []wireStep
	reqs  []*wireRequest
}

func (wr *wireRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	h := map[string][]string{}
	for k, v := range r.Header {
		if k == "Content-Length" || k == "Accept-Encoding" {
			continue
		}
		if wireSDKOnly(k) {
			if *updateWire {
				wireSDKSeen.Store(k, v[0])
			} else if k != "User-Agent" || !strings.HasPrefix(v[0], "rubricgate/") {
				wireSDKSeen.Store(k, v[0]) // only our own User-Agent is expected
			}
			continue
		}
		h[k] = v
	}
	if ua := r.Header.Get("User-Agent"); !*updateWire && !strings.HasPrefix(ua, "rubricgate/") {
		wireSDKSeen.Store("User-Agent", ua+" (want rubricgate/VERSION)")
	}
	rec := &wireRequest{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: h}
	if len(body) > 0 {
		var buf bytes.Buffer
		if json.Indent(&buf, body, "", " ") == nil {
			rec.Body = canonJSON(body)
		} else {
			rec.Body, _ = json.Marshal(string(body))
		}
	}
	wr.mu.Lock()
	wr.reqs = append(wr.reqs, rec)
	var st wireStep
	if len(wr.steps) > 0 {
		st, wr.steps = wr.steps[0], wr.steps[1:]
	} else {
		st = wireStep{Status: 599, Body: `{"error":{"message":"script exhausted"}}`}
	}
	wr.mu.Unlock()
	for k, v := range st.Header {
		w.Header().Set(k, v)
	}
	if st.Location != "" {
		w.Header().Set("Location", st.Location)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(st.Status)
	_, _ = io.WriteString(w, st.Body)
}

// canonJSON re-encodes a JSON document with sorted keys (json.Marshal of a
// decoded value), keeping numbers as written.
func canonJSON(b []byte) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return b
	}
	out, _ := json.Marshal(v)
	return out
}

const (
	wireKey   = "sk-wire-KEY-0123456789"
	wireModel = "judge-model-1"
)

func wireRequestFor() *Request {
	return &Request{
		System:    "You are a strict grader.\nAnswer with JSON.",
		User:      "## Item\n<<<BEGIN RESPONSE x>>>\nanswer \"quoted\" <tag> & é\n<<<END RESPONSE x>>>",
		Schema:    Schema(wireRubric),
		Seed:      42,
		MaxTokens: DefaultMaxOutputTokens,
	}
}

var wireRubric = func() *rubric.Rubric {
	data, err := os.ReadFile("../rubrics/support.yaml")
	if err != nil {
		panic(err)
	}
	rb, _, err := rubric.Load("support.yaml", data)
	if err != nil {
		panic(err)
	}
	return rb
}()

const (
	oaOK = `{"id":"c1","object":"chat.completion","created":1,"model":"judge-model-1","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"{\"a\":1}","refusal":null}}],"usage":{"prompt_tokens":11,"completion_tokens":7,"total_tokens":18}}`
	anOK = `{"id":"m1","type":"message","role":"assistant","model":"judge-model-1","content":[{"type":"text","text":"Scoring."},{"type":"tool_use","id":"toolu_1","name":"record_scores","input":{"accuracy":4,"reasoning":"ok"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":13,"output_tokens":9}}`
)

// wireCases are the scripts, per provider kind ("openai", "anthropic").
func wireCases(kind string) []wireCase {
	switch kind {
	case "ok":
		return []wireCase{{Name: "ok", Steps: []wireStep{{Status: 200, Body: oaOK}}}}
	case "ok-anthropic":
		return []wireCase{{Name: "ok", Steps: []wireStep{{Status: 200, Body: anOK}}}}
	case "deployment-refuses-temperature":
		// A deployment's name need not say its model: the first request
		// carries max_tokens and temperature 0, which a reasoning model
		// refuses one after the other (in the fake's order).
		return []wireCase{{Name: "max_tokens and temperature refused", Steps: []wireStep{
			{Status: 400, Body: `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.","type":"invalid_request_error","param":"max_tokens","code":"unsupported_parameter"}}`},
			{Status: 400, Body: `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`},
			{Status: 200, Body: oaOK},
		}}}
	}
	rate := map[string]string{"Retry-After": "3", "X-Ratelimit-Reset-Requests": "1s", "X-Ratelimit-Remaining-Requests": "0",
		"Anthropic-Ratelimit-Requests-Reset": "2026-01-01T00:00:05Z", "Retry-After-Ms": "2500"}
	if kind == "openai" {
		return []wireCase{
			{Name: "ok", Steps: []wireStep{{Status: 200, Body: oaOK, Header: map[string]string{"X-Ratelimit-Remaining-Requests": "0", "X-Ratelimit-Reset-Requests": "6m0s"}}}},
			{Name: "format fallback", Steps: []wireStep{
				{Status: 400, Body: `{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.","type":"invalid_request_error","param":"response_format","code":null}}`},
				{Status: 400, Body: `{"error":{"message":"json_object unsupported","type":"invalid_request_error"}}`},
				{Status: 400, Body: `{"error":{"message":"The model does not exist"}}`},
				{Status: 200, Body: `{"choices":[{"message":{"content":"plain"}}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`},
			}},
			{Name: "refusal and empty", Steps: []wireStep{
				{Status: 200, Body: `{"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I cannot grade this."}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}`},
				{Status: 200, Body: `{"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":0}}`},
			}},
			{Name: "errors", Steps: []wireStep{
				{Status: 429, Header: rate, Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`},
				{Status: 500, Body: `<html>Internal Server Error</html>`, Header: map[string]string{"Content-Type": "text/html"}},
				{Status: 503, Body: `{"error":"overloaded   now\n"}`},
				{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: sk-wire-***6789.","type":"invalid_request_error","code":"invalid_api_key"}}`},
				{Status: 403, Body: `{"message":"forbidden region"}`},
				{Status: 404, Body: ``},
				{Status: 200, Body: `not json`},
			}},
			{Name: "redirects", Steps: []wireStep{
				{Status: 307, Location: "/moved/chat/completions", Body: ``},
				{Status: 200, Body: oaOK},
				{Status: 308, Location: "/again/chat/completions", Body: ``},
				{Status: 200, Body: oaOK},
				{Status: 302, Location: "/found/chat/completions", Body: ``},
				{Status: 405, Body: `{"error":{"message":"method not allowed"}}`},
			}},
		}
	}
	return []wireCase{
		{Name: "ok", Steps: []wireStep{{Status: 200, Body: anOK, Header: map[string]string{"Anthropic-Ratelimit-Requests-Remaining": "0"}}}},
		{Name: "text and refusal", Steps: []wireStep{
			{Status: 200, Body: `{"content":[{"type":"text","text":"{\"accuracy\":2}"},{"type":"text","text":"more"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":4}}`},
			{Status: 200, Body: `{"content":[{"type":"text","text":"  I won't.  "}],"stop_reason":"refusal","usage":{"input_tokens":3,"output_tokens":1}}`},
			{Status: 200, Body: `{"content":[],"stop_reason":"refusal","usage":{"input_tokens":3,"output_tokens":0}}`},
			{Status: 200, Body: `{"content":[{"type":"tool_use","name":"other_tool","input":{"x":1}},{"type":"tool_use","name":"record_scores","input":{"y":2}},{"type":"tool_use","name":"record_scores","input":{"z":3}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":5}}`},
		}},
		{Name: "errors", Steps: []wireStep{
			{Status: 429, Header: rate, Body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`},
			{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`},
			{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"tools.0.input_schema: JSON schema is invalid"}}`},
			{Status: 401, Body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`},
			{Status: 502, Body: `bad gateway`, Header: map[string]string{"Content-Type": "text/plain"}},
		}},
		{Name: "redirects", Steps: []wireStep{
			{Status: 307, Location: "/moved/v1/messages", Body: ``},
			{Status: 200, Body: anOK},
		}},
	}
}

// wireTarget is one provider configuration under test.
type wireTarget struct {
	name  string // the golden file's name
	cases string // the scripts' kind: "openai" or "anthropic"
	model string
	// base is the base URL's form: "platform" (http://api.openai.com/v1/,
	// dialled to the recorder), "anthropic", "azure" (a classic
	// deployment's URL) or "azure-v1".
	base    string
	version AnthropicVersion
	header  KeyHeader
	fake    llmfake.Kind
}

// wireTargets cover a model of each family: a gpt-4o-class and a reasoning
// model on the OpenAI platform, a Claude model under each Anthropic API
// version (and each key header), and an Azure deployment on each route.
var wireTargets = []wireTarget{
	{name: "openai", cases: "openai", model: "gpt-4o-mini", base: "platform", fake: llmfake.OpenAI},
	{name: "openai-reasoning", cases: "ok", model: "o3-mini", base: "platform", fake: llmfake.OpenAI},
	{name: "anthropic", cases: "anthropic", model: "claude-sonnet-4-5", base: "anthropic", fake: llmfake.Anthropic},
	{name: "anthropic-2023-06-01", cases: "ok-anthropic", model: "claude-sonnet-4-5", base: "anthropic", version: AnthropicPinned, header: KeyXAPIKey, fake: llmfake.Anthropic},
	{name: "azure", cases: "ok", model: "judge-deployment", base: "azure", fake: llmfake.Azure},
	{name: "azure-v1", cases: "deployment-refuses-temperature", model: "reasoner", base: "azure-v1", fake: llmfake.Azure},
}

// wireDeployments are the Azure fake's deployments.
var wireDeployments = map[string]string{"judge-deployment": "gpt-4o", "reasoner": "o4-mini"}

// wireProvider builds the provider under test against the recorder at addr.
func (wt *wireTarget) provider(srvURL string, c *http.Client) Provider {
	pc := ProviderConfig{Model: wt.model, APIKey: wireKey, HTTPClient: c, AnthropicVersion: wt.version, KeyHeader: wt.header}
	switch wt.base {
	case "platform":
		addr := strings.TrimPrefix(srvURL, "http://")
		pc.BaseURL = "http://" + openAIHost + "/v1/"
		pc.Organization, pc.Project = "org-wire", "proj_wire"
		pc.HTTPClient = &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}}}
		return NewOpenAI(pc)
	case "azure":
		pc.BaseURL = srvURL + "/openai/deployments/judge-deployment?api-version=2024-10-21"
		return NewAzure(pc)
	case "azure-v1":
		pc.BaseURL = srvURL + "/openai/v1/"
		return NewAzure(pc)
	}
	pc.BaseURL = srvURL + "/"
	return NewAnthropic(pc)
}

// path is the API's endpoint path for the target.
func (wt *wireTarget) path() string {
	switch wt.base {
	case "platform":
		return "/v1/chat/completions"
	case "azure":
		return "/openai/deployments/judge-deployment/chat/completions"
	case "azure-v1":
		return "/openai/v1/chat/completions"
	}
	return "/v1/messages"
}

func runWire(t *testing.T, wt *wireTarget) []wireCase {
	t.Helper()
	var out []wireCase
	for _, wc := range wireCases(wt.cases) {
		rec := &wireRecorder{steps: append([]wireStep(nil), wc.Steps...)}
		srv := httptest.NewServer(rec)
		p := wt.provider(srv.URL, srv.Client())
		n := len(wc.Steps)
		for _, st := range wc.Steps {
			if st.Location != "" {
				n-- // the redirect and the request it leads to are one call
			}
		}
		for i := 0; i < n; i++ {
			resp, err := p.Complete(context.Background(), wireRequestFor())
			var r wireResult
			if err != nil {
				r.Retryable = retryable(err)
				var ae *APIError
				if errors.As(err, &ae) {
					r.Status, r.Msg, r.Downgraded = ae.Status, ae.Msg, ae.Downgraded
					r.RateHeader = rateHeaders(ae.Header)
				} else {
					r.Other = strings.ReplaceAll(err.Error(), srv.URL, "SERVER")
				}
			} else {
				r.Text, r.Refusal, r.In, r.Out = resp.Text, resp.Refusal, resp.InputTokens, resp.OutputTokens
				r.RateHeader = rateHeaders(resp.Header)
			}
			wc.Results = append(wc.Results, r)
		}
		srv.Close()
		wc.Requests = rec.reqs
		for _, rq := range wc.Requests {
			for k, v := range rq.Header {
				for i := range v {
					v[i] = strings.ReplaceAll(v[i], srv.URL, "SERVER")
				}
				rq.Header[k] = v
			}
		}
		out = append(out, wc)
	}
	return out
}

// checkWireAccepted sends every recorded request that the script answered
// 200 to the fake of the target's API, which refuses what the real API
// refuses. A request the script refused (the client learns from the
// refusal) or redirected elsewhere is not the API's to accept.
func checkWireAccepted(t *testing.T, wt *wireTarget, cases []wireCase) {
	t.Helper()
	ok := func(*llmfake.Received) llmfake.Reply { return llmfake.Reply{Text: `{"accuracy":4}`} }
	var fake *llmfake.Server
	if wt.fake == llmfake.Azure {
		fake = llmfake.NewAzure(wireKey, wireDeployments, ok)
	} else {
		fake = llmfake.New(wt.fake, wireKey, ok)
	}
	defer fake.Close()
	for _, wc := range cases {
		for j, rq := range wc.Requests {
			if rq.Path != wt.path() || j >= len(wc.Steps) || wc.Steps[j].Status != http.StatusOK {
				continue
			}
			u := fake.URL + rq.Path
			if rq.Query != "" {
				u += "?" + rq.Query
			}
			req, err := http.NewRequest(rq.Method, u, bytes.NewReader(rq.Body))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range rq.Header {
				req.Header[k] = v
			}
			resp, err := fake.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("case %q request %d: the API refuses it: HTTP %d %s", wc.Name, j+1, resp.StatusCode, bytes.TrimSpace(body))
			}
		}
	}
}

// rateHeaders keeps the headers the runner reads from an answer.
func rateHeaders(h http.Header) map[string]string {
	m := map[string]string{}
	for k := range h {
		lk := strings.ToLower(k)
		if strings.Contains(lk, "ratelimit") || strings.HasPrefix(lk, "retry-after") {
			m[k] = h.Get(k)
		}
	}
	if len(m) == 0 {
		return nil
	}
	return m
}

func TestWireMatchesTheRecord(t *testing.T) {
	for i := range wireTargets {
		wt := &wireTargets[i]
		t.Run(wt.name, func(t *testing.T) {
			got := runWire(t, wt)
			checkWireAccepted(t, wt, got)
			b, err := json.MarshalIndent(got, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, '\n')
			path := filepath.Join("testdata", "wire", wt.name+".json")
			if *updateWire {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				wireSDKSeen.Range(func(k, v any) bool { t.Logf("SDK-only header %s: %v", k, v); return true })
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			var wantCases []wireCase
			if err := json.Unmarshal(want, &wantCases); err != nil {
				t.Fatal(err)
			}
			if len(wantCases) != len(got) {
				t.Fatalf("%d cases, recorded %d", len(got), len(wantCases))
			}
			wireSDKSeen.Range(func(k, v any) bool { t.Errorf("unexpected header %s: %v", k, v); return true })
			for i := range got {
				g, w := got[i], wantCases[i]
				if len(g.Requests) != len(w.Requests) || len(g.Results) != len(w.Results) {
					t.Errorf("case %q: %d requests and %d results, recorded %d and %d", g.Name, len(g.Requests), len(g.Results), len(w.Requests), len(w.Results))
				}
				for j := range min(len(g.Requests), len(w.Requests)) {
					gb, _ := json.MarshalIndent(g.Requests[j], "", "  ")
					wb, _ := json.MarshalIndent(w.Requests[j], "", "  ")
					if !bytes.Equal(gb, wb) {
						t.Errorf("case %q request %d differs from the record:\n%s", g.Name, j+1, lineDiff(string(wb), string(gb)))
					}
				}
				for j := range min(len(g.Results), len(w.Results)) {
					gb, _ := json.Marshal(g.Results[j])
					wb, _ := json.Marshal(w.Results[j])
					if !bytes.Equal(gb, wb) {
						t.Errorf("case %q result %d differs from the record:\n  recorded: %s\n  now:      %s", g.Name, j+1, wb, gb)
					}
				}
			}
		})
	}
}

// lineDiff lists the lines of want and got that differ (a short report).
func lineDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			fmt.Fprintf(&b, "line %d\n  recorded: %s\n  now:      %s\n", i+1, w, g)
		}
	}
	return b.String()
}
