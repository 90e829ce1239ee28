package judge

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"
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
// answers 400 to a response format.
type OpenAI struct {
	client openai.Client
	model  string
	mode   atomic.Int32
}

// NewOpenAI returns an OpenAI-compatible provider. The SDK's own retries are
// off: the runner retries.
func NewOpenAI(cfg ProviderConfig) *OpenAI {
	opts := []option.RequestOption{
		option.WithAPIKey(cfg.APIKey),
		option.WithMaxRetries(0),
		option.WithBaseURL(cfg.baseURL("https://api.openai.com/v1/")),
	}
	if cfg.HTTPClient != nil {
		opts = append(opts, option.WithHTTPClient(cfg.HTTPClient))
	}
	return &OpenAI{client: openai.NewClient(opts...), model: cfg.Model}
}

// Complete sends one chat completion request.
func (p *OpenAI) Complete(ctx context.Context, req *Request) (*Response, error) {
	mode := p.mode.Load()
	params := openai.ChatCompletionNewParams{
		Model: shared.ChatModel(p.model),
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(req.System),
			openai.UserMessage(req.User),
		},
		Temperature: openai.Float(0),
		Seed:        openai.Int(req.Seed),
	}
	switch mode {
	case modeSchema:
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
				JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{
					Name:   "rubric_scores",
					Schema: req.Schema,
					Strict: openai.Bool(true),
				},
			},
		}
	case modeJSON:
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONObject: &shared.ResponseFormatJSONObjectParam{},
		}
	}
	var hr *http.Response
	resp, err := p.client.Chat.Completions.New(ctx, params, option.WithResponseInto(&hr))
	if err != nil {
		var ae *openai.Error
		if errors.As(err, &ae) {
			out := apiError(ae.StatusCode, ae.RawJSON(), ae.Response)
			if ae.StatusCode == http.StatusBadRequest && mode < modeText && refusesFormat(out.Msg) {
				// Sticky for the run: every later request uses the simpler mode.
				p.mode.CompareAndSwap(mode, mode+1)
				out.Downgraded = true
			}
			return nil, out
		}
		return nil, callFailed(ctx, err)
	}
	out := &Response{InputTokens: resp.Usage.PromptTokens, OutputTokens: resp.Usage.CompletionTokens}
	if hr != nil {
		out.Header = hr.Header
	}
	if len(resp.Choices) == 0 {
		return out, nil
	}
	m := resp.Choices[0].Message
	out.Text = m.Content
	out.Refusal = m.Refusal
	return out, nil
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
