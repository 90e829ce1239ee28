package llmfake

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

// The refusal rules, each from the provider's documentation:
//
// OpenAI chat completions (platform.openai.com API reference, reasoning
// models guide): the key as Authorization: Bearer, else 401
// invalid_api_key; an unknown body field is refused ("Unrecognized request
// argument supplied"); the reasoning families (o1, o3, o4-mini, gpt-5*)
// refuse max_tokens (400 unsupported_parameter, "Use
// 'max_completion_tokens' instead") and any temperature or top_p but the
// default 1 (400 unsupported_value, "Only the default (1) value is
// supported"). Every answer carries x-request-id.
//
// Azure OpenAI (learn.microsoft.com, REST reference and the v1 API
// lifecycle page): a classic deployment
// (/openai/deployments/{deployment}/chat/completions) takes the key in the
// api-key header (a bearer token must be a Microsoft Entra token: a key
// there is a 401) and needs an api-version query it knows, else 404
// "Resource not found"; an unknown deployment is 404 DeploymentNotFound;
// max_completion_tokens is an unrecognized argument before api-version
// 2024-09-01-preview. The v1 route (/openai/v1/chat/completions) takes no
// dated api-version, reads the deployment from the body's model, and takes
// the key as api-key or as a bearer token. The deployed model's family
// refuses what it refuses on OpenAI, in OpenAI's error shape. Every answer
// carries apim-request-id.
//
// Anthropic Messages (docs.claude.com API reference, versions, errors): an
// anthropic-version header is required (2023-06-01 or 2026-10-21); the key
// as x-api-key or Authorization: Bearer (x-api-key wins when both are
// sent), else 401 authentication_error; max_tokens is required; an unknown
// body field is refused ("Extra inputs are not permitted"); under
// 2026-10-21 temperature, top_p and top_k are removed and refused at any
// value; under 2023-06-01 temperature must lie in [0, 1], and Claude Opus
// 4.7 and later take none but 1. Errors carry request_id and every answer
// a request-id header.

// refusal is an error answer the rules give.
type refusal struct {
	status      int
	msg         string
	typ         string // the error type ("": the status's)
	param, code string // OpenAI's error.param and error.code
	azureCode   string // Azure's service error code
}

// check applies the kind's rules to a request; nil lets it through.
func (s *Server) check(req *http.Request, rc *Received, bodyErr error) *refusal {
	switch s.kind {
	case Anthropic:
		return s.checkAnthropic(req, rc, bodyErr)
	case Azure:
		return s.checkAzure(req, rc, bodyErr)
	}
	return s.checkOpenAI(req, rc, bodyErr)
}

func (s *Server) checkOpenAI(req *http.Request, rc *Received, bodyErr error) *refusal {
	if req.URL.Path != "/v1/chat/completions" || req.Method != http.MethodPost {
		return &refusal{status: 404, msg: fmt.Sprintf("Invalid URL (%s %s)", req.Method, req.URL.Path)}
	}
	if s.key != "" && req.Header.Get("Authorization") != "Bearer "+s.key {
		// Like the real API, echo (part of) the key that was sent.
		return &refusal{status: 401, msg: "Incorrect API key provided: " + req.Header.Get("Authorization"), code: "invalid_api_key"}
	}
	return checkChatBody(rc, rc.Model, bodyErr, "")
}

// chatFields are the chat completions request's documented fields.
var chatFields = fieldSet("model messages temperature top_p n stream stream_options stop max_tokens max_completion_tokens " +
	"presence_penalty frequency_penalty logit_bias logprobs top_logprobs user response_format seed tools tool_choice " +
	"parallel_tool_calls reasoning_effort store metadata service_tier modalities prediction audio verbosity " +
	"web_search_options prompt_cache_key safety_identifier")

// checkChatBody applies the chat completions body rules for the model that
// answers; azureVersion is a classic Azure deployment's api-version ("":
// not one).
func checkChatBody(rc *Received, model string, bodyErr error, azureVersion string) *refusal {
	if bodyErr != nil || rc.Body == nil {
		return &refusal{status: 400, msg: "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)"}
	}
	for k := range rc.Body {
		if !chatFields[k] {
			return &refusal{status: 400, msg: "Unrecognized request argument supplied: " + k}
		}
	}
	if _, ok := rc.Body["max_completion_tokens"]; ok && azureVersion != "" && azureVersion < "2024-09-01-preview" {
		return &refusal{status: 400, msg: "Unrecognized request argument supplied: max_completion_tokens"}
	}
	if model == "" {
		return &refusal{status: 400, msg: "you must provide a model parameter"}
	}
	if !reasoningModel(model) {
		return nil
	}
	if _, ok := rc.Body["max_tokens"]; ok {
		return &refusal{status: 400, msg: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
			param: "max_tokens", code: "unsupported_parameter"}
	}
	for _, f := range []string{"temperature", "top_p"} {
		if v, ok := rc.Body[f]; ok && v != float64(1) {
			return &refusal{status: 400, msg: fmt.Sprintf("Unsupported value: '%s' does not support %v with this model. Only the default (1) value is supported.", f, v),
				param: f, code: "unsupported_value"}
		}
	}
	return nil
}

// reasoningRE matches OpenAI's reasoning model families.
var reasoningRE = regexp.MustCompile(`^(o[1-9][0-9]*(-|$)|gpt-5)`)

func reasoningModel(model string) bool { return reasoningRE.MatchString(strings.ToLower(model)) }

// azureVersions are the api-version values the Azure fake knows (GA and
// preview data-plane inference versions).
var azureVersions = fieldSet("2024-02-01 2024-06-01 2024-10-21 2024-09-01-preview 2024-12-01-preview 2025-01-01-preview 2025-03-01-preview 2025-04-01-preview")

var azureDeploymentPath = regexp.MustCompile(`^/openai/deployments/([^/]+)/chat/completions$`)

func (s *Server) checkAzure(req *http.Request, rc *Received, bodyErr error) *refusal {
	notFound := &refusal{status: 404, msg: "Resource not found", azureCode: "404"}
	denied := &refusal{status: 401, azureCode: "401", msg: "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}
	noDeployment := &refusal{status: 404, azureCode: "DeploymentNotFound", msg: "The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again."}
	if req.Method != http.MethodPost {
		return notFound
	}
	keyOK := s.key == "" || req.Header.Get("Api-Key") == s.key
	version := req.URL.Query().Get("api-version")
	var deployment string
	switch m := azureDeploymentPath.FindStringSubmatch(req.URL.Path); {
	case m != nil:
		if !azureVersions[version] {
			return notFound
		}
		if !keyOK {
			return denied
		}
		deployment = m[1]
	case req.URL.Path == "/openai/v1/chat/completions":
		if version != "" && version != "preview" && version != "latest" {
			return &refusal{status: 400, azureCode: "BadRequest", msg: "API version not supported"}
		}
		if !keyOK && (s.key == "" || req.Header.Get("Authorization") != "Bearer "+s.key) {
			return denied
		}
		deployment, version = rc.Model, ""
	default:
		return notFound
	}
	model, ok := s.deployments[deployment]
	if !ok {
		return noDeployment
	}
	rc.Model = model
	return checkChatBody(rc, model, bodyErr, version)
}

// anthropicFields are the Messages request's documented fields, per API
// version.
var (
	anthropicFields = fieldSet("model messages max_tokens system metadata stop_sequences stream tools tool_choice " +
		"thinking service_tier container mcp_servers context_management output_config")
	samplingFields = fieldSet("temperature top_p top_k")
)

func (s *Server) checkAnthropic(req *http.Request, rc *Received, bodyErr error) *refusal {
	if req.URL.Path != "/v1/messages" || req.Method != http.MethodPost {
		return &refusal{status: 404, msg: "Not Found"}
	}
	version := req.Header.Get("Anthropic-Version")
	switch version {
	case "":
		return &refusal{status: 400, msg: "anthropic-version: header is required"}
	case "2023-06-01", "2026-10-21":
	default:
		return &refusal{status: 400, msg: fmt.Sprintf("anthropic-version: %q is not a valid version", version)}
	}
	sent := req.Header.Get("X-Api-Key")
	if _, ok := req.Header["X-Api-Key"]; !ok {
		sent = strings.TrimPrefix(req.Header.Get("Authorization"), "Bearer ")
	}
	if s.key != "" && sent != s.key {
		// Like the real APIs, echo (part of) the key that was sent.
		return &refusal{status: 401, msg: "invalid x-api-key: Incorrect API key provided: " + req.Header.Get("Authorization") + req.Header.Get("X-Api-Key")}
	}
	if bodyErr != nil || rc.Body == nil {
		return &refusal{status: 400, msg: "There was an error parsing the body of your request"}
	}
	for k := range rc.Body {
		if !anthropicFields[k] && !(samplingFields[k] && version == "2023-06-01") {
			return &refusal{status: 400, msg: k + ": Extra inputs are not permitted"}
		}
	}
	if _, ok := rc.Body["max_tokens"]; !ok {
		return &refusal{status: 400, msg: "max_tokens: Field required"}
	}
	if t, ok := rc.Body["temperature"].(float64); ok {
		if t < 0 || t > 1 {
			return &refusal{status: 400, msg: "temperature: Input should be less than or equal to 1"}
		}
		if t != 1 && retiredTemperature(rc.Model) {
			return &refusal{status: 400, msg: "`temperature` is deprecated for this model."}
		}
	}
	return nil
}

var opusRE = regexp.MustCompile(`^claude-opus-(\d+)-(\d{1,2})(-|$)`)

// retiredTemperature reports a Claude model that takes no temperature but
// the default under any API version: Claude Opus 4.7 and later.
func retiredTemperature(model string) bool {
	m := opusRE.FindStringSubmatch(model)
	if m == nil {
		return false
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	return major > 4 || major == 4 && minor >= 7
}

func fieldSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(s) {
		m[f] = true
	}
	return m
}
