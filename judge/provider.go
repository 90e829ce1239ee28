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
	// Truncated is set when the answer stopped at the output limit
	// (finish_reason length, stop_reason max_tokens).
	Truncated bool
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
	Msg    string
	Header http.Header
	// Downgraded is set when the provider switched to a simpler output mode
	// after this error (a 400 refusing the JSON schema): the request should
	// be sent again at once.
	Downgraded bool
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("HTTP %d %s", e.Status, http.StatusText(e.Status))
	if e.Msg != "" {
		s += ": " + e.Msg
	}
	return s
}

// retryable reports whether an error is worth another attempt: 408, 409,
// 429, 5xx, timeouts and network errors.
func retryable(err error) bool {
	var ae *APIError
	if errors.As(err, &ae) {
		return ae.Downgraded || ae.Status == 408 || ae.Status == 409 || ae.Status == 429 || ae.Status >= 500
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
// *APIError with the API's message and the rate-limit headers.
func apiError(status int, raw string, resp *http.Response) *APIError {
	out := &APIError{Status: status, Msg: apiMessage(raw)}
	if resp != nil {
		out.Header = resp.Header
	}
	return out
}

// callFailed is a call's error that is not an API answer: the
// context's error when the call was cancelled, else a transport error
// without the URL (see transportMessage).
func callFailed(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
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

// apiMessage extracts error.message (or message) from an API error body.
func apiMessage(raw string) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal([]byte(raw), &v) != nil {
		return ""
	}
	msg := v.Message
	var inner struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(v.Error, &inner) == nil && inner.Message != "" {
		msg = inner.Message
	} else if s := ""; json.Unmarshal(v.Error, &s) == nil && s != "" {
		msg = s
	}
	msg = strings.Join(strings.Fields(msg), " ")
	if len(msg) > 300 {
		msg = clip300(msg)
	}
	return msg
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
	// Model is the judge model.
	Model string
	// BaseURL overrides the API's address ("" keeps the provider's default).
	BaseURL string
	// APIKey authenticates; it is never written anywhere.
	APIKey string
	// HTTPClient is the client to use (nil: a default one).
	HTTPClient *http.Client
}
