package judge

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
)

// toolName is the tool the Anthropic judge must call with its scores.
const toolName = "record_scores"

// Anthropic is a judge through the Anthropic Messages API. Structured output
// comes through a forced tool call whose input schema is the rubric's.
type Anthropic struct {
	api     *apiClient
	model   string
	version AnthropicVersion
}

// NewAnthropic returns an Anthropic provider (default base URL
// https://api.anthropic.com/). It sends anthropic-version cfg.AnthropicVersion
// (default [AnthropicCurrent]) and the key as a bearer token, as the official
// SDKs send it, or as x-api-key with [KeyXAPIKey].
func NewAnthropic(cfg ProviderConfig) *Anthropic {
	v := cfg.AnthropicVersion
	if v == "" {
		v = AnthropicCurrent
	}
	auth := http.Header{"Authorization": {"Bearer " + cfg.APIKey}}
	if cfg.KeyHeader == KeyXAPIKey {
		auth = http.Header{"X-Api-Key": {cfg.APIKey}}
	}
	h := http.Header{"Anthropic-Version": {string(v)}}
	return &Anthropic{api: newAPIClient(cfg, "https://api.anthropic.com/", h, auth), model: cfg.Model, version: v}
}

// The messages request and answer, as far as the judge uses them.
type (
	anText struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	anMessage struct {
		Role    string   `json:"role"`
		Content []anText `json:"content"`
	}
	anSchema struct {
		Type                 string   `json:"type"`
		Properties           any      `json:"properties,omitempty"`
		Required             []string `json:"required,omitempty"`
		AdditionalProperties bool     `json:"additionalProperties"`
	}
	anTool struct {
		Name        string   `json:"name"`
		Description string   `json:"description"`
		InputSchema anSchema `json:"input_schema"`
	}
	anToolChoice struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	anRequest struct {
		Model      string       `json:"model"`
		MaxTokens  int          `json:"max_tokens"`
		System     []anText     `json:"system"`
		Messages   []anMessage  `json:"messages"`
		Tools      []anTool     `json:"tools"`
		ToolChoice anToolChoice `json:"tool_choice"`
		// Temperature is sent under 2023-06-01 only: 2026-10-21 refuses
		// it (and top_p, top_k) at any value.
		Temperature *float64 `json:"temperature,omitempty"`
	}
	anAnswer struct {
		Content []struct {
			Type  string          `json:"type"`
			Text  string          `json:"text"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		} `json:"content"`
		StopReason string `json:"stop_reason"`
		Usage      struct {
			InputTokens  int64 `json:"input_tokens"`
			OutputTokens int64 `json:"output_tokens"`
		} `json:"usage"`
	}
)

// Complete sends one messages request that forces the scoring tool.
func (p *Anthropic) Complete(ctx context.Context, req *Request) (*Response, error) {
	required, _ := req.Schema["required"].([]string)
	maxTokens := req.MaxTokens
	if maxTokens <= 0 {
		maxTokens = DefaultMaxOutputTokens // the API requires max_tokens
	}
	body := anRequest{
		Model:     p.model,
		MaxTokens: maxTokens,
		System:    []anText{{Type: "text", Text: req.System}},
		Messages:  []anMessage{{Role: "user", Content: []anText{{Type: "text", Text: req.User}}}},
		Tools: []anTool{{
			Name:        toolName,
			Description: "Record one score per rubric criterion and a short reasoning.",
			InputSchema: anSchema{Type: "object", Properties: req.Schema["properties"], Required: required},
		}},
		ToolChoice: anToolChoice{Type: "tool", Name: toolName},
	}
	if p.version.sendsTemperature() {
		body.Temperature = new(float64)
	}
	var msg anAnswer
	h, err := p.api.post(ctx, "v1/messages", &body, &msg)
	if err != nil {
		return nil, err
	}
	out := &Response{InputTokens: msg.Usage.InputTokens, OutputTokens: msg.Usage.OutputTokens, Header: h}
	var text []string
	for _, b := range msg.Content {
		switch b.Type {
		case "tool_use":
			if b.Name == toolName && out.Text == "" {
				out.Text = string(b.Input)
			}
		case "text":
			text = append(text, b.Text)
		}
	}
	if out.Text == "" {
		out.Text = strings.Join(text, "\n")
	}
	switch msg.StopReason {
	case "refusal":
		out.Refusal = strings.TrimSpace(strings.Join(text, " "))
		if out.Refusal == "" {
			out.Refusal = "the model refused (stop_reason refusal)"
		}
	case "max_tokens":
		out.Truncated = true
	case "model_context_window_exceeded":
		out.Truncated, out.ContextWindow = true, true
	}
	return out, nil
}

// Sampling is "default" under the current API version (no temperature is
// sent) and "" under 2023-06-01 (temperature 0); see [Sampler].
func (p *Anthropic) Sampling() string {
	if p.version.sendsTemperature() {
		return ""
	}
	return "default"
}
