package judge

import (
	"strings"

	"github.com/rubricgate/rubricgate/internal/usage"
)

// ProviderKind is the judge API: openai, anthropic or azure.
type ProviderKind string

// The judge APIs.
const (
	// ProviderOpenAI is OpenAI's chat completions API, or any compatible
	// endpoint (--base-url).
	ProviderOpenAI ProviderKind = "openai"
	// ProviderAnthropic is Anthropic's Messages API.
	ProviderAnthropic ProviderKind = "anthropic"
	// ProviderAzure is Azure OpenAI: a classic deployment's URL with its
	// api-version query, or the resource's /openai/v1/ route; the key goes
	// in the api-key header.
	ProviderAzure ProviderKind = "azure"
)

// ParseProvider reads --provider ("" is openai).
func ParseProvider(s string) (ProviderKind, error) {
	switch k := ProviderKind(strings.ToLower(strings.TrimSpace(s))); k {
	case "":
		return ProviderOpenAI, nil
	case ProviderOpenAI, ProviderAnthropic, ProviderAzure:
		return k, nil
	}
	return "", usage.Errorf("--provider %q: expected openai, anthropic or azure", s)
}

// AnthropicVersion is the anthropic-version header the judge sends.
type AnthropicVersion string

// The Anthropic API versions the judge speaks.
const (
	// AnthropicCurrent (2026-10-21, the default) refuses temperature,
	// top_p and top_k: the judge sends no sampling parameter, so the model
	// samples at its default temperature.
	AnthropicCurrent AnthropicVersion = "2026-10-21"
	// AnthropicPinned (2023-06-01) still takes temperature: the judge
	// sends temperature 0. Models that retired temperature (Claude Opus
	// 4.7 and later) refuse it under either version.
	AnthropicPinned AnthropicVersion = "2023-06-01"
)

// ParseAnthropicVersion reads --anthropic-version ("" is the default).
func ParseAnthropicVersion(s string) (AnthropicVersion, error) {
	switch v := AnthropicVersion(strings.TrimSpace(s)); v {
	case "":
		return AnthropicCurrent, nil
	case AnthropicCurrent, AnthropicPinned:
		return v, nil
	}
	return "", usage.Errorf("--anthropic-version %q: expected %s (the default: no sampling parameters) or %s (temperature 0)", s, AnthropicCurrent, AnthropicPinned)
}

// sendsTemperature reports whether requests under v carry temperature 0.
func (v AnthropicVersion) sendsTemperature() bool { return v == AnthropicPinned }

// KeyHeader is how the Anthropic key is sent.
type KeyHeader string

// The key headers.
const (
	// KeyBearer sends Authorization: Bearer KEY, as the official SDKs do.
	KeyBearer KeyHeader = "bearer"
	// KeyXAPIKey sends x-api-key: KEY, the API's documented key header,
	// for gateways that read only that one.
	KeyXAPIKey KeyHeader = "x-api-key"
)

// ParseKeyHeader reads --anthropic-key-header ("" is bearer).
func ParseKeyHeader(s string) (KeyHeader, error) {
	switch k := KeyHeader(strings.ToLower(strings.TrimSpace(s))); k {
	case "":
		return KeyBearer, nil
	case KeyBearer, KeyXAPIKey:
		return k, nil
	}
	return "", usage.Errorf("--anthropic-key-header %q: expected bearer or x-api-key", s)
}

// ProgressMode is how progress is reported.
type ProgressMode string

// The progress modes.
const (
	ProgressAuto  ProgressMode = "auto"
	ProgressBar   ProgressMode = "bar"
	ProgressPlain ProgressMode = "plain"
	ProgressNone  ProgressMode = "none"
)

// ParseProgress reads --progress ("" is auto).
func ParseProgress(s string) (ProgressMode, error) {
	switch m := ProgressMode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return ProgressAuto, nil
	case ProgressAuto, ProgressBar, ProgressPlain, ProgressNone:
		return m, nil
	}
	return "", usage.Errorf("--progress %q: expected auto, bar, plain or none", s)
}
