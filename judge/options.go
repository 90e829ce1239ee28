package judge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/family"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/rubric"
)

// MaxInputBytes caps the answers file a run reads.
const MaxInputBytes = 1 << 30

// Options are a judge run's settings as the user gives them (the judge
// command's flags, or the one-step gate's). [Options.Run] checks them,
// builds the provider, reads the answers and judges them. A setting that is
// not valid is a *usage.Error naming its flag.
type Options struct {
	// Provider is the API: openai ("" too), anthropic or azure. Model is
	// the judge model; BaseURL overrides the API's address (http or
	// https; required for azure).
	Provider       ProviderKind
	Model, BaseURL string
	// AnthropicVersion is the anthropic-version sent ("": the current
	// one, with no sampling parameter); KeyHeader how the Anthropic key is
	// sent ("": Authorization: Bearer).
	AnthropicVersion AnthropicVersion
	KeyHeader        KeyHeader
	// Organization and Project (the caller reads them from OPENAI_ORG_ID
	// and OPENAI_PROJECT_ID) are sent to OpenAI as OpenAI-Organization and
	// OpenAI-Project, so the usage is billed where the key's owner says.
	Organization, Project string
	// APIKey authenticates. The caller reads it from the environment
	// variable [Options.KeyEnv] names; it is never written anywhere, and
	// neither is the base URL's password.
	APIKey string
	// APIKeyEnv names the key's environment variable ("": the provider's
	// default, OPENAI_API_KEY or ANTHROPIC_API_KEY).
	APIKeyEnv string
	// CacheKey, when set (the caller reads it from [CacheKeyEnv]), keys the
	// cache's entry authentication instead of APIKey; see [Options.Run].
	CacheKey string
	// Samples (1 to 20) is the number of judgings per item, the first with
	// Seed; SafetyConfirm (0 to 20) re-judges a blocking failure.
	Samples, SafetyConfirm int
	Seed                   int64
	// Concurrency (1 to 1024) is the requests in flight, RPM the requests
	// per minute (0: no limit), MaxRetries the retries of one request
	// (0: none).
	Concurrency, RPM, MaxRetries int
	// Timeout is the per-request timeout (0: [DefaultTimeout] for the
	// model); MaxWait the total wait between retries allowed for one item.
	Timeout, MaxWait time.Duration
	// Shard ("I/N", "" for all) selects the items; Cache ("" for none) is
	// the cache directory.
	Shard, Cache string
	// MaxCost ("" for none, "5", "$0.50") bounds the spending in US
	// dollars; PriceIn and PriceOut override the price table (USD per
	// million tokens).
	MaxCost, PriceIn, PriceOut string
	// MaxOutputTokens (16 to 65,536; 0: DefaultMaxOutputTokens) is every
	// request's output limit (max_tokens), reserved in full against MaxCost.
	MaxOutputTokens int
	// ProductionModel is the model whose answers are judged ("" skips the
	// judge-family check); SameFamily is the policy when they are of one
	// family (the zero value fails).
	ProductionModel string
	SameFamily      family.FamilyPolicy
	// Progress is auto ("" too), bar, plain or none; the reports go to
	// ProgressOut. Auto draws a bar when ProgressOut is a terminal and InCI
	// is false, plain lines otherwise.
	Progress    ProgressMode
	ProgressOut io.Writer
	InCI        bool
	// Warn receives the run's warnings (nil: dropped): the judge-family
	// check's, the cache's, and the answers' (see [Repeated]).
	Warn func(msg string)
}

// KeyEnv is the environment variable that holds the API key.
func (o *Options) KeyEnv() string {
	kind, _ := ParseProvider(string(o.Provider))
	switch {
	case o.APIKeyEnv != "":
		return o.APIKeyEnv
	case kind == ProviderAnthropic:
		return "ANTHROPIC_API_KEY"
	case kind == ProviderAzure:
		return "AZURE_OPENAI_API_KEY"
	}
	return "OPENAI_API_KEY"
}

// Run checks the options, reads the answers file (JSON lines or CSV, see
// [ReadAnswers]; several answers for one id refuse Samples over 1 and
// SafetyConfirm, see [CheckAnswerSamples]) and judges them under rb into
// out (see [Run]). The
// judge-family check runs before any request. Some items may end as error
// lines (the gate counts them as unscored); when every item does, nothing
// is written and the error is a *NoneScoredError's message, as a 401 or
// 403 answer stops the run at once (an *AuthError's, naming the key's
// variable). An error of the run has every secret redacted, and out is
// written only when the run succeeded.
func (o Options) Run(ctx context.Context, rb *rubric.Rubric, answers string, out io.Writer) (*Summary, error) {
	if answers == "" {
		return nil, usage.Errorf("--input is required (the answers to judge)")
	}
	cfg, err := o.config(rb)
	if err != nil {
		return nil, err
	}
	data, err := boundedio.ReadFile(answers, MaxInputBytes)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	ans, err := ReadAnswers(answers, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if err := CheckAnswerSamples(cfg.Samples, cfg.SafetyConfirm, ans); err != nil {
		return nil, err
	}
	if w := ans.Repeated.Warning(ans.File); w != "" && o.Warn != nil {
		o.Warn(w)
	}
	if cfg.Cache, err = o.openCache(&cfg); err != nil {
		return nil, err
	}
	// Judge into a buffer: a run in which no item could be judged writes
	// nothing (there is nothing to gate).
	var buf bytes.Buffer
	sum, err := Run(ctx, cfg, ans, &buf)
	if err == nil && sum.Items > 0 && sum.Errors == sum.Items {
		err = &NoneScoredError{Items: sum.Items, First: sum.FirstError}
	}
	var ae *AuthError
	if errors.As(err, &ae) {
		err = fmt.Errorf("%w; check the key in %s", err, o.KeyEnv())
	}
	if err == nil {
		_, err = buf.WriteTo(out)
	}
	if err != nil {
		// The message is redacted, so the error chain cannot be kept.
		return sum, fmt.Errorf("judge: %s", Redact(err.Error(), cfg.Secrets))
	}
	return sum, nil
}

// openCache opens the cache directory (nil without one). Its entries are
// authenticated with a key derived from CacheKey, else from the API key; a
// CacheKey under [MinCacheSecret] bytes is refused, and an API key under it
// (a keyless local endpoint's placeholder, which anyone can guess) leaves
// the cache off, with a warning, rather than trust entries anyone could
// write.
func (o *Options) openCache(cfg *Config) (*Cache, error) {
	if o.Cache == "" {
		return nil, nil
	}
	secret := o.CacheKey
	if secret != "" {
		if len(secret) < MinCacheSecret {
			return nil, usage.Errorf("%s: expected at least %d bytes (a random secret, like the output of openssl rand -hex 32)", CacheKeyEnv, MinCacheSecret)
		}
	} else if secret = o.APIKey; len(secret) < MinCacheSecret {
		if o.Warn != nil {
			o.Warn(fmt.Sprintf("--cache %s is off for this run: the API key is shorter than %d characters (a placeholder?), too weak to authenticate cache entries; set %s to a random secret to use the cache", o.Cache, MinCacheSecret, CacheKeyEnv))
		}
		return nil, nil
	}
	cfg.Secrets = append(cfg.Secrets, secret)
	return NewCache(o.Cache, secret, Endpoint(cfg.ProviderName, o.BaseURL))
}

// config checks the options and builds the run's Config and provider.
func (o *Options) config(rb *rubric.Rubric) (Config, error) {
	cfg := Config{
		Rubric: rb, Model: strings.TrimSpace(o.Model), Samples: o.Samples, Seed: o.Seed,
		SafetyConfirm: o.SafetyConfirm, Concurrency: o.Concurrency, RPM: o.RPM,
		Timeout: o.Timeout, MaxRetries: o.MaxRetries, MaxWait: o.MaxWait,
		MaxOutputTokens: o.MaxOutputTokens,
	}
	switch {
	case cfg.Model == "":
		return cfg, usage.Errorf("--model is required (the judge model)")
	case o.Samples < 1 || o.Samples > 20:
		return cfg, usage.Errorf("--samples %d: expected 1 to 20", o.Samples)
	case o.SafetyConfirm < 0 || o.SafetyConfirm > 20:
		return cfg, usage.Errorf("--safety-confirm %d: expected 0 to 20", o.SafetyConfirm)
	case o.Concurrency < 1 || o.Concurrency > 1024:
		return cfg, usage.Errorf("--concurrency %d: expected 1 to 1024", o.Concurrency)
	case o.MaxOutputTokens != 0 && (o.MaxOutputTokens < 16 || o.MaxOutputTokens > 65536):
		return cfg, usage.Errorf("--max-output-tokens %d: expected 16 to 65536", o.MaxOutputTokens)
	case o.RPM < 0 || o.MaxRetries < 0 || o.Timeout < 0 || o.MaxWait < 0:
		return cfg, usage.Errorf("--rpm, --max-retries, --timeout and --max-wait must not be negative")
	}
	if o.Timeout == 0 {
		cfg.Timeout = DefaultTimeout(cfg.Model)
	}
	if o.MaxRetries == 0 {
		cfg.MaxRetries = -1 // zero retries, not the default
	}
	var err error
	if o.Shard != "" {
		if cfg.Shard, err = ParseShard(o.Shard); err != nil {
			return cfg, usage.Wrap(err)
		}
	}
	policy := o.SameFamily
	if strings.TrimSpace(o.ProductionModel) != "" {
		fc, err := family.CheckFamilies(cfg.Model, o.ProductionModel, rb.ModelFamilies, policy)
		if err != nil {
			return cfg, fmt.Errorf("judge bias: %w (same-family: warn to allow)", err)
		}
		for _, w := range fc.Warnings {
			if o.Warn != nil {
				o.Warn(w)
			}
		}
	}
	if err := o.pricing(&cfg); err != nil {
		return cfg, err
	}
	if err := o.provider(&cfg); err != nil {
		return cfg, err
	}
	switch o.Progress {
	case ProgressNone:
	case ProgressBar:
		cfg.Progress, cfg.ProgressTTY = o.ProgressOut, true
	case ProgressPlain:
		cfg.Progress = o.ProgressOut
	case ProgressAuto, "":
		cfg.Progress = o.ProgressOut
		cfg.ProgressTTY = !o.InCI && isTerminal(o.ProgressOut)
	default:
		return cfg, usage.Errorf("--progress %q: expected auto, bar, plain or none", o.Progress)
	}
	return cfg, nil
}

// pricing sets the model's price (the table's, or the one given) and the
// spending bound, which needs a price.
func (o *Options) pricing(cfg *Config) error {
	price, known := LookupPrice(cfg.Model, Prices)
	for _, p := range []struct {
		flag, v string
		dst     *float64
	}{{"price-in", o.PriceIn, &price.In}, {"price-out", o.PriceOut, &price.Out}} {
		if p.v == "" {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(p.v), 64)
		if err != nil || f < 0 || f > 1e6 {
			return usage.Errorf("--%s %q: expected US dollars per million tokens, like 2.5", p.flag, p.v)
		}
		*p.dst = f
		known = true
	}
	if known {
		cfg.Price = price
	}
	if o.MaxCost != "" {
		f, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(o.MaxCost), "$"), 64)
		if err != nil || !(f > 0) || f > 1e9 {
			return usage.Errorf("--max-cost %q: expected a positive amount in US dollars, like 5 or 0.50", o.MaxCost)
		}
		if !known {
			return usage.Errorf("--max-cost: model %q is not in the price table; give --price-in and --price-out", cfg.Model)
		}
		cfg.MaxCost = f
	}
	return nil
}

// DefaultTimeout is the per-request timeout for model when --timeout is
// not given: 60 s, and 5 minutes for an OpenAI reasoning model (see
// [ReasoningModel]), which thinks before it answers. A request that times
// out is billed all the same, so its retry pays for a second generation.
func DefaultTimeout(model string) time.Duration {
	if ReasoningModel(model) {
		return 5 * time.Minute
	}
	return 60 * time.Second
}

// provider builds the API client, keeping the key and the base URL's
// password among the secrets to redact.
func (o *Options) provider(cfg *Config) error {
	// Keep a connection per worker (the default transport keeps 2 per host).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = o.Concurrency
	pc := ProviderConfig{Model: cfg.Model, BaseURL: strings.TrimSpace(o.BaseURL), HTTPClient: &http.Client{Transport: tr},
		AnthropicVersion: o.AnthropicVersion, KeyHeader: o.KeyHeader,
		Organization: strings.TrimSpace(o.Organization), Project: strings.TrimSpace(o.Project)}
	kind, err := ParseProvider(string(o.Provider))
	if err != nil {
		return err
	}
	cfg.ProviderName = string(kind)
	if pc.BaseURL != "" {
		u, err := url.Parse(pc.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usage.Errorf("--base-url: expected an http(s) URL")
		}
		if pw, ok := u.User.Password(); ok {
			cfg.Secrets = append(cfg.Secrets, pw)
		}
		if kind == ProviderAzure {
			if err := checkAzureURL(u); err != nil {
				return err
			}
		}
	} else if kind == ProviderAzure {
		return usage.Errorf("--provider azure needs --base-url: a deployment's URL with its api-version (https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT?api-version=2024-10-21) or the v1 route (https://RESOURCE.openai.azure.com/openai/v1/)")
	}
	if pc.APIKey = o.APIKey; pc.APIKey == "" {
		return fmt.Errorf("judge: no API key: set %s (the key is read from the environment only)", o.KeyEnv())
	}
	cfg.Secrets = append(cfg.Secrets, pc.APIKey)
	switch kind {
	case ProviderAnthropic:
		cfg.Provider = NewAnthropic(pc)
	case ProviderAzure:
		cfg.Provider = NewAzure(pc)
	default:
		cfg.Provider = NewOpenAI(pc)
	}
	return nil
}

// checkAzureURL refuses an Azure OpenAI base URL that the service would
// answer 404: a classic deployment's URL without its api-version query, or
// a URL on neither route.
func checkAzureURL(u *url.URL) error {
	p := strings.TrimRight(u.Path, "/")
	switch {
	case strings.HasSuffix(p, "/openai/v1"):
		return nil
	case strings.Contains(p, "/openai/deployments/") && !strings.HasSuffix(p, "/openai/deployments/"):
		if u.Query().Get("api-version") == "" {
			return usage.Errorf("--base-url: an Azure OpenAI deployment's URL needs its api-version query (...?api-version=2024-10-21); Azure answers 404 without it")
		}
		return nil
	}
	return usage.Errorf("--base-url: expected an Azure OpenAI deployment's URL (https://RESOURCE.openai.azure.com/openai/deployments/DEPLOYMENT?api-version=2024-10-21) or the v1 route (https://RESOURCE.openai.azure.com/openai/v1/)")
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
