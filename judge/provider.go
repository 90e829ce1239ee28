package judge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Request is one judge request.
type Request struct {
	System string
	User   string
	// Schema is the JSON schema of the answer (see Schema).
	Schema map[string]any
	// Seed is the sampling seed, where the API has one.
	Seed int64
	// MaxTokens is the output limit sent with the request (max_tokens):
	// what the runner reserves against --max-cost. 0 sends none where the
	// API allows it (Anthropic requires one: DefaultMaxOutputTokens).
	MaxTokens int
}

// DefaultMaxOutputTokens is the default output limit of a judge request.
// A judge answer (one integer per criterion and a few sentences) takes a
// few hundred tokens.
const DefaultMaxOutputTokens = 1024

// Response is a judge's answer.
type Response struct {
	// Text is the answer: the JSON object as text (a tool call's input for
	// Anthropic).
	Text string
	// Refusal is set when the model refused to answer.
	Refusal string
	// InputTokens and OutputTokens are the usage the API reported.
	InputTokens, OutputTokens int64
	// Header is the HTTP response header (rate-limit headers), if any.
	Header http.Header
	// Truncated is set when the answer was cut: at the output limit
	// (finish_reason length, stop_reason max_tokens), or at the model's
	// context window (stop_reason model_context_window_exceeded, which
	// also sets ContextWindow).
	Truncated, ContextWindow bool
}

// Provider sends one judge request. It must not retry: the runner does, so
// that its bounds hold and requests can be counted.
type Provider interface {
	Complete(ctx context.Context, req *Request) (*Response, error)
}

// APIError is an HTTP error answer of a provider's API.
type APIError struct {
	Status int
	// Msg is the API's error message, clipped.
	Msg string
	// Param and Code are OpenAI's error.param and error.code ("temperature",
	// "unsupported_value"): the field a 400 refuses, as a value, not text.
	Param, Code string
	// RequestID is the answer's request id (the request-id or
	// x-request-id header, else the body's request_id), for a support
	// ticket; "" when the API sent none.
	RequestID string
	Header    http.Header
	// Downgraded is set when the provider switched to a simpler request
	// after this error (a 400 refusing the JSON schema, max_tokens or
	// temperature): the request should be sent again at once.
	Downgraded bool
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	if e.RequestID != "" {
		s += " (request-id " + e.RequestID + ")"
	}
	return s
}

// shouldRetry is the answer's x-should-retry header, which both official
// SDKs obey over the status: "true" retries any status, "false" none.
// ok is false without the header (or with another value).
func shouldRetry(h http.Header) (retry, ok bool) {
	switch strings.ToLower(strings.TrimSpace(h.Get("X-Should-Retry"))) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// retryable reports whether an error is worth another attempt: 408, 409,
// 429, 5xx, timeouts and network errors; an answer's x-should-retry
// header overrides the status either way. An answer over the size cap and
// a redirect off the API's origin are not retried.
func retryable(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		if ae.Downgraded {
			return true
		}
		if retry, ok := shouldRetry(ae.Header); ok {
			return retry
		}
		return ae.Status == 408 || ae.Status == 409 || ae.Status == 429 || ae.Status >= 500
	}
	if errors.Is(err, errTooLarge) || errors.Is(err, errOffOrigin) {
		return false
	}
	var te *timeoutError
	if errors.As(err, &te) || errors.Is(err, context.DeadlineExceeded) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) || errors.Is(err, errTransport)
}

var errTransport = errors.New("transport error")

// apiError is an error answer (status, body, HTTP response) as an
// *APIError with the API's message, OpenAI's param and code, the request
// id and the answer's headers.
func apiError(status int, raw []byte, resp *http.Response) *APIError {
	out := &APIError{Status: status}
	out.Msg, out.Param, out.Code, out.RequestID = apiMessage(raw)
	if resp != nil {
		out.Header = resp.Header
		if id := headerRequestID(resp.Header); id != "" {
			out.RequestID = id
		}
	}
	return out
}

// headerRequestID is Anthropic's request-id or OpenAI's x-request-id.
func headerRequestID(h http.Header) string {
	for _, k := range []string{"Request-Id", "X-Request-Id", "Apim-Request-Id"} {
		if v := strings.TrimSpace(h.Get(k)); v != "" {
			return clip300(v)
		}
	}
	return ""
}

// requestIDNote is ", request-id ID" when the header carries one (else
// fallback's), for an error message.
func requestIDNote(h http.Header, fallback string) string {
	if id := headerRequestID(h); id != "" {
		return ", request-id " + id
	}
	if fallback != "" {
		return ", request-id " + fallback
	}
	return ""
}

// callFailed is a call's error that is not an API answer: the
// context's error when the call was cancelled, a refused redirect as it is,
// else a transport error without the URL (see transportMessage).
func callFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, errOffOrigin) {
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err
		}
		return err
	}
	return fmt.Errorf("%w: %s", errTransport, transportMessage(err))
}

// baseURL is the configured base URL, else the API's default.
func (c *ProviderConfig) baseURL(def string) string {
	if c.BaseURL != "" {
		return c.BaseURL
	}
	return def
}

// transportMessage keeps the cause of a transport error but not the URL the
// http package puts in front of it (a base URL may carry credentials).
func transportMessage(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + ": " + ue.Err.Error()
	}
	return err.Error()
}

// apiMessage extracts error.message (or message), OpenAI's error.param
// and error.code, and the body's request_id from an API error body.
func apiMessage(raw []byte) (msg, param, code, requestID string) {
	var v struct {
		Error     json.RawMessage `json:"error"`
		Message   string          `json:"message"`
		RequestID string          `json:"request_id"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return "", "", "", ""
	}
	msg = v.Message
	var inner struct {
		Message string `json:"message"`
		Param   any    `json:"param"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(v.Error, &inner) == nil && inner.Message != "" {
		msg = inner.Message
		param, _ = inner.Param.(string)
		code, _ = inner.Code.(string)
	} else if s := ""; json.Unmarshal(v.Error, &s) == nil && s != "" {
		msg = s
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 300 {
		msg = clip300(msg)
	}
	return msg, clip300(param), clip300(code), clip300(strings.TrimSpace(v.RequestID))
}

func clip300(s string) string {
	r := []rune(s)
	if len(r) > 300 {
		return string(r[:300]) + "..."
	}
	return s
}

// ProviderConfig configures a provider.
type ProviderConfig struct {
	// Model is the judge model (on Azure OpenAI's v1 route, the
	// deployment's name).
	Model string
	// BaseURL overrides the API's address ("" keeps the provider's default).
	BaseURL string
	// APIKey authenticates; it is never written anywhere.
	APIKey string
	// HTTPClient is the client to use (nil: a default one). It is copied,
	// not changed.
	HTTPClient *http.Client
	// AnthropicVersion is the anthropic-version sent ("": the default,
	// [AnthropicCurrent]); KeyHeader how the Anthropic key is sent
	// ("": Authorization: Bearer).
	AnthropicVersion AnthropicVersion
	KeyHeader        KeyHeader
	// Organization and Project are sent to OpenAI as OpenAI-Organization
	// and OpenAI-Project ("": not sent).
	Organization, Project string
}
