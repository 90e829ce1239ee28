// Package llmfake is an httptest fake of the OpenAI chat completions and the
// Anthropic messages APIs, for the judge's tests and benchmark. A handler
// decides each answer (valid JSON, fenced JSON, refusals, errors with
// headers, slow answers); the fake checks the API key and counts requests.
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
	OpenAI Kind = iota
	Anthropic
)

// Received is one request as the fake saw it.
type Received struct {
	// N is the 1-based request number.
	N    int
	Path string
	Body map[string]any
	// System and User are the prompt's texts.
	System, User string
	// Format is the OpenAI response_format type ("json_schema",
	// "json_object" or "" for plain text); "tool" for Anthropic.
	Format string
	Header http.Header
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
}

// Server is a running fake.
type Server struct {
	*httptest.Server
	kind     Kind
	key      string
	handler  func(*Received) Reply
	requests atomic.Int64
	mu       sync.Mutex
	log      []*Received
}

// New starts a fake of kind that accepts key ("": any key, like a keyless
// local endpoint) and answers with h.
func New(kind Kind, key string, h func(*Received) Reply) *Server {
	s := &Server{kind: kind, key: key, handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// URL is the base URL to give the client (with /v1/ for OpenAI).
func (s *Server) BaseURL() string {
	if s.kind == OpenAI {
		return s.Server.URL + "/v1/"
	}
	return s.Server.URL + "/"
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
	body, _ := io.ReadAll(req.Body)
	rc := &Received{N: n, Path: req.URL.Path, Header: req.Header.Clone()}
	_ = json.Unmarshal(body, &rc.Body)
	s.parse(rc)
	s.mu.Lock()
	s.log = append(s.log, rc)
	s.mu.Unlock()
	wantPath := "/v1/chat/completions"
	auth := s.key == "" || req.Header.Get("Authorization") == "Bearer "+s.key
	if s.kind == Anthropic {
		wantPath = "/v1/messages"
		// The judge sends the key as a bearer token (as the official
		// SDK does); x-api-key is the
		// API's other accepted form.
		auth = auth || req.Header.Get("X-Api-Key") == s.key
	}
	if req.URL.Path != wantPath || req.Method != http.MethodPost {
		s.writeError(w, 404, "no such endpoint "+req.URL.Path)
		return
	}
	if !auth {
		// Like the real APIs, echo (part of) the key that was sent.
		s.writeError(w, 401, "Incorrect API key provided: "+req.Header.Get("Authorization")+req.Header.Get("X-Api-Key"))
		return
	}
	if _, ok := rc.Body["max_tokens"]; s.kind == Anthropic && !ok {
		// The Messages API requires an output limit.
		s.writeError(w, 400, "max_tokens: Field required")
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
		s.writeError(w, rp.Status, rp.ErrorMessage)
		return
	}
	if rp.InputTokens == 0 {
		rp.InputTokens = 100
	}
	if rp.OutputTokens == 0 {
		rp.OutputTokens = 20
	}
	w.Header().Set("Content-Type", "application/json")
	model, _ := rc.Body["model"].(string)
	if s.kind == OpenAI {
		var refusal any
		if rp.Refusal != "" {
			refusal = rp.Refusal
		}
		finish := "stop"
		if rp.Truncated {
			finish = "length"
		}
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": fmt.Sprintf("chatcmpl-%d", n), "object": "chat.completion", "created": 1, "model": model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
				"message": map[string]any{"role": "assistant", "content": rp.Text, "refusal": refusal}}},
			"usage": map[string]any{"prompt_tokens": rp.InputTokens, "completion_tokens": rp.OutputTokens, "total_tokens": rp.InputTokens + rp.OutputTokens},
		})
		return
	}
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
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("msg_%d", n), "type": "message", "role": "assistant", "model": model,
		"content": content, "stop_reason": stop, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": rp.InputTokens, "output_tokens": rp.OutputTokens},
	})
}

func (s *Server) writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if s.kind == OpenAI {
		_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "fake_error", "param": nil, "code": nil}})
		return
	}
	typ := "fake_error"
	switch status {
	case 401:
		typ = "authentication_error"
	case 403:
		typ = "permission_error"
	case 429:
		typ = "rate_limit_error"
	case 400:
		typ = "invalid_request_error"
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}})
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
