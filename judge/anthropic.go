package judge

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// toolName is the tool the Anthropic judge must call with its scores.
const toolName = "record_scores"

// Anthropic is a judge through the Anthropic Messages API. Structured output
// comes through a forced tool call whose input schema is the rubric's.
type Anthropic struct {
	client anthropic.Client
	model  string
}

// NewAnthropic returns an Anthropic provider. The SDK's own retries are off:
// the runner retries.
func NewAnthropic(cfg ProviderConfig) *Anthropic {
	opts := []option.RequestOption{
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
		option.WithBaseURL(cfg.baseURL("https://api.anthropic.com/")),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &Anthropic{client: anthropic.NewClient(opts...), model: cfg.Model}
}

// Complete sends one messages request that forces the scoring tool.
func (p *Anthropic) Complete(ctx context.Context, req *Request) (*Response, error) {
	props := req.Schema["properties"]
	required, _ := req.Schema["required"].([]string)
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(p.model),
		MaxTokens: 1024,
		System:    []anthropic.TextBlockParam{{Text: req.System}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(req.User))},
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{
			Name:        toolName,
			Description: anthropic.String("Record one score per rubric criterion and a short reasoning."),
			InputSchema: anthropic.ToolInputSchemaParam{
				Properties:  props,
				Required:    required,
				ExtraFields: map[string]any{"additionalProperties": false},
			},
		}}},
		ToolChoice: anthropic.ToolChoiceParamOfTool(toolName),
	}
	var hr *http.Response
	msg, err := p.client.Messages.New(ctx, params,
		option.WithJSONSet("temperature", 0),
		option.WithResponseInto(&hr))
	if err != nil {
		var ae *anthropic.Error
		if errors.As(err, &ae) {
			return nil, apiError(ae.StatusCode, ae.RawJSON(), ae.Response)
		}
		return nil, callFailed(ctx, err)
	}
	out := &Response{InputTokens: msg.Usage.InputTokens, OutputTokens: msg.Usage.OutputTokens}
	if hr != nil {
		out.Header = hr.Header
	}
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
	if string(msg.StopReason) == "refusal" {
		out.Refusal = strings.TrimSpace(strings.Join(text, " "))
		if out.Refusal == "" {
			out.Refusal = "the model refused (stop_reason refusal)"
		}
	}
	return out, nil
}
