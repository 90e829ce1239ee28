package judge

import (
	"context"
	"errors"
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
// answers 400 to a response format.
//
// The output limit goes as max_completion_tokens to api.openai.com and to an
// Azure deployment of a reasoning model (o1, o3, o4, gpt-5 families), as
// max_tokens elsewhere (which every compatible server reads), and as
// max_completion_tokens after an endpoint refuses max_tokens. Temperature 0
// goes to other models; a reasoning model gets none (it takes only the
// default), nor does a deployment whose 400 names temperature (an Azure
// deployment's name need not say its model). Azure OpenAI goes through
// [NewAzure].
type OpenAI struct {
	api    *apiClient
	model  string
	flavor openAIFlavor
	mode   atomic.Int32
	// completionTokens is set once max_tokens is known to be refused (or
	// from the start, see above); noTemperature once temperature is.
	completionTokens, noTemperature atomic.Bool
}

// openAIFlavor is the kind of chat completions endpoint.
type openAIFlavor int

const (
	flavorCompatible openAIFlavor = iota // a compatible server: max_tokens first
	flavorPlatform                       // api.openai.com: max_completion_tokens
	flavorAzure                          // Azure OpenAI: the api-key header
)

// openAIHost is the OpenAI platform's API host.
const openAIHost = "api.openai.com"

// NewOpenAI returns an OpenAI-compatible provider (default base URL
// https://api.openai.com/v1/, key sent as a bearer token, cfg.Organization
// and cfg.Project as OpenAI-Organization and OpenAI-Project).
func NewOpenAI(cfg ProviderConfig) *OpenAI {
	h := http.Header{}
	if cfg.Organization != "" {
		h.Set("OpenAI-Organization", cfg.Organization)
	}
	if cfg.Project != "" {
		h.Set("OpenAI-Project", cfg.Project)
	}
	auth := http.Header{"Authorization": {"Bearer " + cfg.APIKey}}
	p := &OpenAI{api: newAPIClient(cfg, "https://api.openai.com/v1/", h, auth), model: cfg.Model}
	if strings.EqualFold(p.api.base.Hostname(), openAIHost) {
		p.flavor = flavorPlatform
	}
	p.init()
	return p
}

// NewAzure returns an Azure OpenAI provider: cfg.BaseURL is a classic
// deployment's URL with its api-version query
// (https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT?api-version=2024-10-21)
// or the resource's v1 route (https://RESOURCE.openai.azure.com/openai/v1/,
// with the deployment's name as the model). The key goes in the api-key
// header, which both routes read.
func NewAzure(cfg ProviderConfig) *OpenAI {
	auth := http.Header{"Api-Key": {cfg.APIKey}}
	p := &OpenAI{api: newAPIClient(cfg, "", nil, auth), model: cfg.Model, flavor: flavorAzure}
	p.init()
	return p
}

// init sets what the endpoint and the model's family are known to refuse.
// max_completion_tokens goes first to api.openai.com, and to Azure for a
// reasoning model; a compatible server gets max_tokens, which every one
// reads (one that ignored max_completion_tokens would run without a limit,
// past what --max-cost reserved), until it refuses it.
func (p *OpenAI) init() {
	reasoning := ReasoningModel(p.model)
	p.completionTokens.Store(p.flavor == flavorPlatform || p.flavor == flavorAzure && reasoning)
	p.noTemperature.Store(reasoning)
}

// ReasoningModel reports whether model names one of OpenAI's reasoning
// families (o1, o3, o4-mini, gpt-5 and their dated or suffixed names, with
// or without a "openai/" router prefix): they take only the default
// temperature, count reasoning tokens in the output limit, and answer
// slower than chat models.
func ReasoningModel(model string) bool {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	if strings.HasPrefix(m, "gpt-5") {
		return true
	}
	if len(m) < 2 || m[0] != 'o' || m[1] < '1' || m[1] > '9' {
		return false
	}
	rest := strings.TrimLeft(m[1:], "0123456789")
	return rest == "" || rest[0] == '-'
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
		Temperature         *float64          `json:"temperature,omitempty"`
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
	noTemp := p.noTemperature.Load()
	body := oaRequest{
		Model:    p.model,
		Messages: []oaMessage{{Role: "system", Content: req.System}, {Role: "user", Content: req.User}},
		Seed:     req.Seed,
	}
	if !noTemp {
		body.Temperature = new(float64)
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
		var ae *APIError
		if errors.As(err, &ae) && ae.Status == http.StatusBadRequest {
			p.downgrade(ae, req, mode, completion, noTemp)
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

// downgrade switches the run to a simpler request after a 400 that refuses
// a field of this one (sticky for the run, like the output mode) and marks
// the error Downgraded, so the runner sends the request again at once. The
// field comes from error.param where the API gives it (OpenAI and Azure
// do), else from the message.
func (p *OpenAI) downgrade(ae *APIError, req *Request, mode int32, completion, noTemp bool) {
	switch {
	case !noTemp && ae.Param == "temperature":
		p.noTemperature.Store(true)
		ae.Downgraded = true
	case req.MaxTokens > 0 && !completion && (ae.Param == "max_tokens" || refusesMaxTokens(ae.Msg)):
		p.completionTokens.Store(true)
		ae.Downgraded = true
	case mode < modeText && (strings.HasPrefix(ae.Param, "response_format") || ae.Param == "" && refusesFormat(ae.Msg)):
		p.mode.CompareAndSwap(mode, mode+1)
		ae.Downgraded = true
	}
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

// Sampling is "default" once requests carry no temperature, else ""; see
// [Sampler].
func (p *OpenAI) Sampling() string {
	if p.noTemperature.Load() {
		return "default"
	}
	return ""
}
