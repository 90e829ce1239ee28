package judge

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
)

// Output modes of the OpenAI provider, tried in order.
const (
	modeSchema int32 = iota // response_format json_schema (structured outputs)
	modeJSON                // response_format json_object
	modeText                // plain text, parsed strictly
)

// OpenAI is a judge through an OpenAI-compatible chat completions API
// (OpenAI, Azure OpenAI, Gemini's OpenAI endpoint, vLLM, Ollama, LM Studio,
// OpenRouter). It asks for structured output with the rubric's JSON schema
// and falls back to json_object mode, then to plain text, when the endpoint
// answers 400 to a response format. The output limit goes as max_tokens,
// which every compatible server reads, and as max_completion_tokens after an
// endpoint refuses max_tokens (OpenAI's reasoning models do).
type OpenAI struct {
	api   *apiClient
	model string
	mode  atomic.Int32
	// completionTokens is set once the endpoint refused max_tokens.
	completionTokens atomic.Bool
}

// NewOpenAI returns an OpenAI-compatible provider (default base URL
// https://api.openai.com/v1/, key sent as a bearer token).
func NewOpenAI(cfg ProviderConfig) *OpenAI {
	h := http.Header{"Authorization": {"Bearer " + cfg.APIKey}}
	return &OpenAI{api: newAPIClient(cfg, "https://api.openai.com/v1/", h), model: cfg.Model}
}

// The chat completions request and answer, as far as the judge uses them.
type (
	oaMessage struct {
		Role    string `json:"role"`
		Content string `json:"content"`
	}
	oaJSONSchema struct {
		Name   string         `json:"name"`
		Schema map[string]any `json:"schema"`
		Strict bool           `json:"strict"`
	}
	oaResponseFormat struct {
		Type       string        `json:"type"`
		JSONSchema *oaJSONSchema `json:"json_schema,omitempty"`
	}
	oaRequest struct {
		Model               string            `json:"model"`
		Messages            []oaMessage       `json:"messages"`
		Temperature         float64           `json:"temperature"`
		Seed                int64             `json:"seed"`
		MaxTokens           int               `json:"max_tokens,omitempty"`
		MaxCompletionTokens int               `json:"max_completion_tokens,omitempty"`
		ResponseFormat      *oaResponseFormat `json:"response_format,omitempty"`
	}
	oaAnswer struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content *string `json:"content"`
				Refusal *string `json:"refusal"`
			} `json:"message"`
		} `json:"choices"`
		Usage struct {
			PromptTokens     int64 `json:"prompt_tokens"`
			CompletionTokens int64 `json:"completion_tokens"`
		} `json:"usage"`
	}
)

// Complete sends one chat completion request.
func (p *OpenAI) Complete(ctx context.Context, req *Request) (*Response, error) {
	mode := p.mode.Load()
	completion := p.completionTokens.Load()
	body := oaRequest{
		Model:       p.model,
		Messages:    []oaMessage{{Role: "system", Content: req.System}, {Role: "user", Content: req.User}},
		Temperature: 0,
		Seed:        req.Seed,
	}
	if completion {
		body.MaxCompletionTokens = req.MaxTokens
	} else {
		body.MaxTokens = req.MaxTokens
	}
	switch mode {
	case modeSchema:
		body.ResponseFormat = &oaResponseFormat{Type: "json_schema",
			JSONSchema: &oaJSONSchema{Name: "rubric_scores", Schema: req.Schema, Strict: true}}
	case modeJSON:
		body.ResponseFormat = &oaResponseFormat{Type: "json_object"}
	}
	var ans oaAnswer
	h, err := p.api.post(ctx, "chat/completions", &body, &ans)
	if err != nil {
		if ae, ok := err.(*APIError); ok && ae.Status == http.StatusBadRequest {
			switch {
			case req.MaxTokens > 0 && !completion && refusesMaxTokens(ae.Msg):
				// Sticky for the run, like the output mode.
				p.completionTokens.Store(true)
				ae.Downgraded = true
			case mode < modeText && refusesFormat(ae.Msg):
				p.mode.CompareAndSwap(mode, mode+1)
				ae.Downgraded = true
			}
		}
		return nil, err
	}
	out := &Response{InputTokens: ans.Usage.PromptTokens, OutputTokens: ans.Usage.CompletionTokens, Header: h}
	if len(ans.Choices) == 0 {
		return out, nil
	}
	c := ans.Choices[0]
	if c.Message.Content != nil {
		out.Text = *c.Message.Content
	}
	if c.Message.Refusal != nil {
		out.Refusal = *c.Message.Refusal
	}
	out.Truncated = c.FinishReason == "length"
	return out, nil
}

// refusesMaxTokens reports whether a 400 message refuses the max_tokens
// field, as OpenAI answers for its reasoning models ("Unsupported
// parameter: 'max_tokens' is not supported with this model. Use
// 'max_completion_tokens' instead.").
func refusesMaxTokens(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "max_tokens") && strings.Contains(m, "max_completion_tokens")
}

// refusesFormat reports whether a 400 message is about the response format
// (an endpoint without structured outputs) rather than the request itself.
// An empty message counts: many compatible servers say nothing useful.
func refusesFormat(msg string) bool {
	m := strings.ToLower(msg)
	if m == "" {
		return true
	}
	for _, w := range []string{"response_format", "json_schema", "schema", "json_object", "structured", "format"} {
		if strings.Contains(m, w) {
			return true
		}
	}
	return false
}
