package judge

import (
	"flag"
	"time"

	"github.com/rubricgate/rubricgate/family"
	"github.com/rubricgate/rubricgate/internal/cliflag"
	"github.com/rubricgate/rubricgate/internal/usage"
)

// DefaultOptions are the judge's defaults: the judge command's flag
// defaults, and the settings the one-step gate does not expose.
func DefaultOptions() Options {
	return Options{Provider: ProviderOpenAI, Samples: 1, Seed: 1, Concurrency: 8, MaxRetries: 6,
		MaxOutputTokens:  DefaultMaxOutputTokens,
		AnthropicVersion: AnthropicCurrent, KeyHeader: KeyBearer,
		MaxWait: 5 * time.Minute, Progress: ProgressAuto, SameFamily: family.FamilyFail}
}

// Flags declares the judge command's settings on fs under their names,
// with the defaults of [DefaultOptions]. The command declares --rubric,
// --input and --out itself.
func (o *Options) Flags(fs *flag.FlagSet) {
	d := DefaultOptions()
	cliflag.Enum(fs, &o.Provider, "provider", d.Provider, ParseProvider, "judge API: openai (any OpenAI-compatible chat completions endpoint), anthropic, or azure (Azure OpenAI: api-key header; --base-url a deployment's URL with ?api-version=, or the resource's /openai/v1/)")
	fs.StringVar(&o.Model, "model", "", "judge model (required; on Azure's /openai/v1/ route, the deployment's name)")
	fs.StringVar(&o.BaseURL, "base-url", "", "API base URL (Gemini, vLLM, Ollama, LM Studio, OpenRouter, ...; required for azure)")
	fs.StringVar(&o.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY, ANTHROPIC_API_KEY or AZURE_OPENAI_API_KEY)")
	cliflag.Enum(fs, &o.AnthropicVersion, "anthropic-version", d.AnthropicVersion, ParseAnthropicVersion,
		"anthropic-version to send: 2026-10-21 (no sampling parameter: the model's default temperature) or 2023-06-01 (temperature 0)")
	cliflag.Enum(fs, &o.KeyHeader, "anthropic-key-header", d.KeyHeader, ParseKeyHeader,
		"how the Anthropic key is sent: bearer (Authorization: Bearer, as the official SDKs) or x-api-key")
	fs.IntVar(&o.Samples, "samples", d.Samples, "judgings per item, each with its own seed")
	fs.Int64Var(&o.Seed, "seed", d.Seed, "seed of the first sample (sample k uses seed+k)")
	fs.IntVar(&o.SafetyConfirm, "safety-confirm", 0, "re-judge an item that fails a blocking criterion this many more times (0: off)")
	fs.IntVar(&o.Concurrency, "concurrency", d.Concurrency, "requests in flight")
	fs.IntVar(&o.RPM, "rpm", 0, "requests per minute (0: no limit)")
	fs.StringVar(&o.Shard, "shard", "", "judge only shard I of N (I/N, by a hash of the id)")
	fs.StringVar(&o.Cache, "cache", "", "cache directory, outside the checkout in CI: a re-run over unchanged answers sends no request; entries are authenticated with the API key, or $RUBRICGATE_CACHE_KEY")
	fs.StringVar(&o.MaxCost, "max-cost", "", "stop before spending more than this many US dollars")
	fs.StringVar(&o.PriceIn, "price-in", "", "input price in USD per million tokens (overrides the built-in table)")
	fs.StringVar(&o.PriceOut, "price-out", "", "output price in USD per million tokens (overrides the built-in table)")
	fs.IntVar(&o.MaxOutputTokens, "max-output-tokens", d.MaxOutputTokens, "output limit of each judge request (max_tokens), reserved in full against --max-cost")
	fs.DurationVar(&o.Timeout, "timeout", d.Timeout, "per-request timeout (0: 60s, 5m for an OpenAI reasoning model; a request that times out is billed, so its retry pays twice)")
	fs.IntVar(&o.MaxRetries, "max-retries", d.MaxRetries, "retries of one request on 429, 5xx and timeouts")
	fs.DurationVar(&o.MaxWait, "max-wait", d.MaxWait, "total wait between retries allowed for one item")
	cliflag.Enum(fs, &o.Progress, "progress", d.Progress, ParseProgress, "progress report on stderr: auto, bar, plain or none")
	fs.StringVar(&o.ProductionModel, "production-model", "", "the production model whose answers are judged (judge-family check)")
	cliflag.Var(fs, &o.SameFamily, "same-family", d.SameFamily.String(), parseSameFamily, "judge and production model of one family: fail or warn")
}

// GateFlags declares the judge settings of the one-step gate (gate
// --input ANSWERS), some under a judge- prefix; the others keep the values
// of [DefaultOptions]. The judge model, the production model and the
// family policy are the gate's own settings (see tier.Settings),
// which the caller copies in.
func (o *Options) GateFlags(fs *flag.FlagSet) {
	*o = DefaultOptions()
	cliflag.Enum(fs, &o.Provider, "judge-provider", o.Provider, ParseProvider, "with --input: judge API, openai, anthropic or azure")
	fs.StringVar(&o.BaseURL, "judge-base-url", "", "with --input: judge API base URL")
	fs.StringVar(&o.APIKeyEnv, "judge-api-key-env", "", "with --input: environment variable holding the judge API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY)")
	fs.IntVar(&o.Samples, "samples", o.Samples, "with --input: judgings per item")
	fs.IntVar(&o.SafetyConfirm, "safety-confirm", 0, "with --input: re-judge a blocking-criterion failure this many more times (0: off)")
	fs.IntVar(&o.Concurrency, "concurrency", o.Concurrency, "with --input: judge requests in flight")
	fs.StringVar(&o.Cache, "judge-cache", "", "with --input: judge cache directory")
	fs.StringVar(&o.MaxCost, "max-cost", "", "with --input: stop before spending more than this many US dollars")
}

// parseSameFamily reads --same-family (fail or warn).
func parseSameFamily(s string) (family.FamilyPolicy, error) {
	p, err := family.ParseFamilyPolicy(s)
	if err != nil {
		return p, usage.Errorf("--same-family: %w", err)
	}
	return p, nil
}
