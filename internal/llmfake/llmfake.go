// Package llmfake is an httptest fake of the OpenAI chat completions, Azure
// OpenAI and Anthropic Messages APIs, for the judge's tests and benchmark.
//
// The fakes refuse what the real APIs refuse, as their documentation says
// (see rules.go): a field an API version or a model family does not take,
// a missing or wrong key header, a missing api-version, an unknown
// deployment, with the APIs' status codes and error bodies. They are not
// a record of what the judge sends: a request the real API would refuse
// fails here too. Past those rules, a handler decides each answer (valid
// JSON, fenced JSON, refusals, errors with headers, slow answers); the fake
// counts requests and keeps them.
package llmfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Kind is the API a fake speaks.
type Kind int

// API kinds.
const (
	// OpenAI is the OpenAI platform's chat completions (api.openai.com/v1).
	OpenAI Kind = iota
	// Anthropic is the Messages API, under the anthropic-version sent.
	Anthropic
	// Azure is Azure OpenAI: classic deployments
	// (/openai/deployments/{name}/chat/completions?api-version=...) and the
	// v1 route (/openai/v1/chat/completions).
	Azure
)

// Received is one request as the fake saw it.
type Received struct {
	// N is the 1-based request number.
	N    int
	Path string
	// Query is the request's raw query.
	Query string
	Body  map[string]any
	// System and User are the prompt's texts.
	System, User string
	// Format is the OpenAI response_format type ("json_schema",
	// "json_object" or "" for plain text); "tool" for Anthropic.
	Format string
	Header http.Header
	// Model is the model that answers: the body's model, or on Azure the
	// deployment's model.
	Model string
}

// Answer returns the judged answer text inside the prompt's RESPONSE markers.
func (r *Received) Answer() string {
	i := strings.Index(r.User, "<<<BEGIN RESPONSE ")
	if i < 0 {
		return ""
	}
	rest := r.User[i:]
	nl := strings.IndexByte(rest, '\n')
	end := strings.Index(rest, "\n<<<END RESPONSE ")
	if nl < 0 || end < nl {
		return ""
	}
	return rest[nl+1 : end]
}

// Reply is the fake's answer to one request.
type Reply struct {
	// Status defaults to 200.
	Status int
	Header map[string]string
	// Text is the message content (OpenAI) or the tool input (Anthropic:
	// sent as a tool_use block when it is a JSON object, else as text).
	Text string
	// Refusal makes the model refuse.
	Refusal string
	// ErrorMessage is the error body's message for a non-200 status.
	ErrorMessage string
	// Delay is waited before answering (cut short when the client leaves).
	Delay time.Duration
	// InputTokens and OutputTokens are reported as usage (defaults 100, 20).
	InputTokens, OutputTokens int
	// Truncated reports the answer as cut at the output limit
	// (finish_reason "length", stop_reason "max_tokens").
	Truncated bool
	// StopReason, when set, is the answer's stop_reason (Anthropic) or
	// finish_reason (OpenAI) as given.
	StopReason string
	// RawBody, when set, is the whole 200 body, sent as it is.
	RawBody string
}

// Server is a running fake.
type Server struct {
	*httptest.Server
	kind        Kind
	key         string
	deployments map[string]string
	handler     func(*Received) Reply
	requests    atomic.Int64
	mu          sync.Mutex
	log         []*Received
}

// New starts a fake of kind that accepts key ("": any key, like a keyless
// local endpoint) and answers with h. An Azure fake made here has no
// deployment: see [NewAzure].
func New(kind Kind, key string, h func(*Received) Reply) *Server {
	s := &Server{kind: kind, key: key, handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// NewAzure starts an Azure OpenAI fake with deployments (deployment name
// to the model it serves) that accepts key.
func NewAzure(key string, deployments map[string]string, h func(*Received) Reply) *Server {
	s := &Server{kind: Azure, key: key, handler: h, deployments: deployments}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the base URL to give the client: /v1/ for OpenAI, the root for
// Anthropic, the v1 route (/openai/v1/) for Azure.
func (s *Server) BaseURL() string {
	switch s.kind {
	case OpenAI:
		return s.Server.URL + "/v1/"
	case Azure:
		return s.Server.URL + "/openai/v1/"
	}
	return s.Server.URL + "/"
}

// DeploymentURL is an Azure classic deployment's base URL with its
// api-version query ("" leaves the query out).
func (s *Server) DeploymentURL(deployment, apiVersion string) string {
	u := s.Server.URL + "/openai/deployments/" + deployment
	if apiVersion != "" {
		u += "?api-version=" + apiVersion
	}
	return u
}

// Requests is the number of requests received.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Log returns the requests received so far.
func (s *Server) Log() []*Received {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Received(nil), s.log...)
}

func (s *Server) serve(w http.ResponseWriter, req *http.Request) {
	n := int(s.requests.Add(1))
	w.Header().Set(s.requestIDHeader(), fmt.Sprintf("req_fake%06d", n))
	raw, _ := io.ReadAll(req.Body)
	rc := &Received{N: n, Path: req.URL.Path, Query: req.URL.RawQuery, Header: req.Header.Clone()}
	bodyErr := json.Unmarshal(raw, &rc.Body)
	s.parse(rc)
	s.mu.Lock()
	s.log = append(s.log, rc)
	s.mu.Unlock()
	if ref := s.check(req, rc, bodyErr); ref != nil {
		s.writeError(w, ref)
		return
	}
	rp := s.handler(rc)
	if rp.Delay > 0 {
		select {
		case <-time.After(rp.Delay):
		case <-req.Context().Done():
			return
		}
	}
	for k, v := range rp.Header {
		w.Header().Set(k, v)
	}
	if rp.Status != 0 && rp.Status != 200 {
		s.writeError(w, &refusal{status: rp.Status, msg: rp.ErrorMessage})
		return
	}
	if rp.InputTokens == 0 {
		rp.InputTokens = 100
	}
	if rp.OutputTokens == 0 {
		rp.OutputTokens = 20
	}
	w.Header().Set("Content-Type", "application/json")
	if rp.RawBody != "" {
		_, _ = io.WriteString(w, rp.RawBody)
		return
	}
	if s.kind == Anthropic {
		s.writeMessage(w, rc, n, &rp)
		return
	}
	s.writeCompletion(w, rc, n, &rp)
}

// requestIDHeader is the header that carries the request id: request-id
// (Anthropic), x-request-id (OpenAI), apim-request-id (Azure).
func (s *Server) requestIDHeader() string {
	switch s.kind {
	case Anthropic:
		return "Request-Id"
	case Azure:
		return "Apim-Request-Id"
	}
	return "X-Request-Id"
}

func (s *Server) writeCompletion(w http.ResponseWriter, rc *Received, n int, rp *Reply) {
	var refusal any
	if rp.Refusal != "" {
		refusal = rp.Refusal
	}
	finish := "stop"
	if rp.Truncated {
		finish = "length"
	}
	if rp.StopReason != "" {
		finish = rp.StopReason
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1, "model": rc.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": rp.Text, "refusal": refusal}}},
		"usage": map[string]any{"prompt_tokens": rp.InputTokens, "completion_tokens": rp.OutputTokens, "total_tokens": rp.InputTokens + rp.OutputTokens},
	})
}

func (s *Server) writeMessage(w http.ResponseWriter, rc *Received, n int, rp *Reply) {
	var content []any
	stop := "tool_use"
	var obj map[string]any
	switch {
	case rp.Refusal != "":
		stop = "refusal"
		content = append(content, map[string]any{"type": "text", "text": rp.Refusal})
	case json.Unmarshal([]byte(rp.Text), &obj) == nil:
		content = append(content, map[string]any{"type": "tool_use", "id": "toolu_1", "name": "record_scores", "input": json.RawMessage(rp.Text)})
	default:
		stop = "end_turn"
		content = append(content, map[string]any{"type": "text", "text": rp.Text})
	}
	if rp.Truncated {
		stop = "max_tokens"
	}
	if rp.StopReason != "" {
		stop = rp.StopReason
	}
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": rc.Model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": rp.InputTokens, "output_tokens": rp.OutputTokens},
	})
}

// writeError writes an error body in the API's shape: OpenAI's
// {"error":{"message","type","param","code"}}, Anthropic's
// {"type":"error","error":{"type","message"},"request_id"}, and Azure's
// service errors {"error":{"code","message"}} (its model errors are
// OpenAI's).
func (s *Server) writeError(w http.ResponseWriter, ref *refusal) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ref.status)
	switch {
	case s.kind == Anthropic:
		typ := ref.typ
		if typ == "" {
			typ = anthropicErrorType(ref.status)
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": ref.msg},
			"request_id": w.Header().Get("Request-Id")})
	case s.kind == Azure && ref.azureCode != "":
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": ref.azureCode, "message": ref.msg}})
	default:
		typ := ref.typ
		if typ == "" {
			typ = "invalid_request_error"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": ref.msg, "type": typ, "param": nullable(ref.param), "code": nullable(ref.code)}})
	}
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// anthropicErrorType is the documented error type of a status.
func anthropicErrorType(status int) string {
	switch status {
	case 401:
		return "authentication_error"
	case 403:
		return "permission_error"
	case 404:
		return "not_found_error"
	case 413:
		return "request_too_large"
	case 429:
		return "rate_limit_error"
	case 500:
		return "api_error"
	case 529:
		return "overloaded_error"
	}
	return "invalid_request_error"
}

func (s *Server) parse(rc *Received) {
	text := func(v any) string {
		switch t := v.(type) {
		case string:
			return t
		case []any:
			var parts []string
			for _, p := range t {
				if m, ok := p.(map[string]any); ok {
					if s, ok := m["text"].(string); ok {
						parts = append(parts, s)
					}
				}
			}
			return strings.Join(parts, "")
		}
		return ""
	}
	rc.Model, _ = rc.Body["model"].(string)
	if s.kind == Anthropic {
		rc.System = text(rc.Body["system"])
		if msgs, ok := rc.Body["messages"].([]any); ok && len(msgs) > 0 {
			if m, ok := msgs[len(msgs)-1].(map[string]any); ok {
				rc.User = text(m["content"])
			}
		}
		if _, ok := rc.Body["tools"]; ok {
			rc.Format = "tool"
		}
		return
	}
	if msgs, ok := rc.Body["messages"].([]any); ok {
		for _, mm := range msgs {
			m, _ := mm.(map[string]any)
			switch m["role"] {
			case "system", "developer":
				rc.System = text(m["content"])
			case "user":
				rc.User = text(m["content"])
			}
		}
	}
	if rf, ok := rc.Body["response_format"].(map[string]any); ok {
		rc.Format, _ = rf["type"].(string)
	}
}
