package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/internal/stage"
	"github.com/rubricgate/rubricgate/judge"
	"github.com/rubricgate/rubricgate/rubric"
)

// judgeConfig holds the judge flags.
type judgeConfig struct {
	input, out, provider, model, baseURL, keyEnv string
	shard, cache, maxCost, priceIn, priceOut     string
	progress, productionModel, sameFamily        string
	samples, concurrency, rpm, retries, confirm  int
	seed                                         int64
	timeout, maxWait                             time.Duration
}

func judgeFlags(fs *flag.FlagSet, c *judgeConfig) {
	fs.StringVar(&c.input, "input", "", "answers file: JSON lines (or .csv) with id, input/query/question, context, output/answer/response, reference")
	fs.StringVar(&c.provider, "provider", "openai", "judge API: openai (any OpenAI-compatible chat completions endpoint) or anthropic")
	fs.StringVar(&c.model, "model", "", "judge model (required)")
	fs.StringVar(&c.baseURL, "base-url", "", "API base URL (Azure OpenAI, Gemini, vLLM, Ollama, LM Studio, OpenRouter, ...)")
	fs.StringVar(&c.keyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY)")
	fs.IntVar(&c.samples, "samples", 1, "judgings per item, each with its own seed")
	fs.Int64Var(&c.seed, "seed", 1, "seed of the first sample (sample k uses seed+k)")
	fs.IntVar(&c.confirm, "safety-confirm", 0, "re-judge an item that fails a blocking criterion this many more times (0: off)")
	fs.IntVar(&c.concurrency, "concurrency", 8, "requests in flight")
	fs.IntVar(&c.rpm, "rpm", 0, "requests per minute (0: no limit)")
	fs.StringVar(&c.shard, "shard", "", "judge only shard I of N (I/N, by a hash of the id)")
	fs.StringVar(&c.cache, "cache", "", "cache directory: a re-run over unchanged answers sends no request")
	fs.StringVar(&c.maxCost, "max-cost", "", "stop before spending more than this many US dollars")
	fs.StringVar(&c.priceIn, "price-in", "", "input price in USD per million tokens (overrides the built-in table)")
	fs.StringVar(&c.priceOut, "price-out", "", "output price in USD per million tokens (overrides the built-in table)")
	fs.DurationVar(&c.timeout, "timeout", 60*time.Second, "per-request timeout")
	fs.IntVar(&c.retries, "max-retries", 6, "retries of one request on 429, 5xx and timeouts")
	fs.DurationVar(&c.maxWait, "max-wait", 5*time.Minute, "total wait between retries allowed for one item")
	fs.StringVar(&c.progress, "progress", "auto", "progress report on stderr: auto, bar, plain or none")
	fs.StringVar(&c.productionModel, "production-model", "", "the production model whose answers are judged (judge-family check)")
	fs.StringVar(&c.sameFamily, "same-family", "fail", "judge and production model of one family: fail or warn")
}

// cmdJudge runs the LLM judge over an answers file and writes results JSON
// lines that score and gate read.
func cmdJudge(args []string, e *env) (int, error) {
	fs := newFlags("judge", e)
	var c judgeConfig
	rubricPath := fs.String("rubric", "", "rubric file (YAML or JSON)")
	fs.StringVar(&c.out, "out", "", "results file to write (JSON lines; - for stdout)")
	judgeFlags(fs, &c)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return exitError, err
	}
	if len(pos) > 0 {
		return exitError, usagef("judge: unexpected argument %q", pos[0])
	}
	if c.out == "" {
		return exitError, usagef("--out is required")
	}
	rb, _, err := loadRubric(*rubricPath, e)
	if err != nil {
		return exitError, err
	}
	var results bytes.Buffer
	sum, err := runJudge(context.Background(), &c, rb, e, &results)
	if sum != nil {
		fmt.Fprintf(e.stderr, "judge: %s\n", sum)
	}
	if err != nil {
		return exitError, err
	}
	if c.out == "-" {
		_, err := e.stdout.Write(results.Bytes())
		return exitPass, err
	}
	if err := stage.WriteAtomic(c.out, func(w io.Writer) error { _, err := w.Write(results.Bytes()); return err }); err != nil {
		return exitError, err
	}
	return exitPass, nil
}

// runJudge checks the judge flags, reads the answers and judges them into
// out. The API key is read from the environment only and never printed.
func runJudge(ctx context.Context, c *judgeConfig, rb *rubric.Rubric, e *env, out io.Writer) (*judge.Summary, error) {
	if c.input == "" {
		return nil, usagef("--input is required (the answers to judge)")
	}
	if strings.TrimSpace(c.model) == "" {
		return nil, usagef("--model is required (the judge model)")
	}
	if c.samples < 1 || c.samples > 20 {
		return nil, usagef("--samples %d: expected 1 to 20", c.samples)
	}
	if c.confirm < 0 || c.confirm > 20 {
		return nil, usagef("--safety-confirm %d: expected 0 to 20", c.confirm)
	}
	if c.concurrency < 1 || c.concurrency > 1024 {
		return nil, usagef("--concurrency %d: expected 1 to 1024", c.concurrency)
	}
	if c.rpm < 0 || c.retries < 0 || c.timeout <= 0 || c.maxWait < 0 {
		return nil, usagef("--rpm, --max-retries, --timeout and --max-wait must not be negative")
	}
	cfg := judge.Config{
		Rubric: rb, Model: strings.TrimSpace(c.model), Samples: c.samples, Seed: c.seed,
		SafetyConfirm: c.confirm, Concurrency: c.concurrency, RPM: c.rpm,
		Timeout: c.timeout, MaxRetries: c.retries, MaxWait: c.maxWait,
	}
	if c.retries == 0 {
		cfg.MaxRetries = -1 // zero retries, not the default
	}
	var err error
	if c.shard != "" {
		if cfg.Shard, err = judge.ParseShard(c.shard); err != nil {
			return nil, usagef("%v", err)
		}
	}
	policy, err := calibrate.ParseFamilyPolicy(c.sameFamily)
	if err != nil {
		return nil, usagef("same-family: %v", err)
	}
	// The judge-family check runs before any request.
	if strings.TrimSpace(c.productionModel) != "" {
		fc, err := calibrate.CheckFamilies(cfg.Model, c.productionModel, rb.ModelFamilies, policy)
		if err != nil {
			return nil, fmt.Errorf("judge bias: %w (same-family: warn to allow)", err)
		}
		for _, w := range fc.Warnings {
			warn(e, "", 0, w)
		}
	}
	price, known := judge.LookupPrice(cfg.Model, judge.Prices)
	for _, p := range []struct {
		flag, v string
		dst     *float64
	}{{"price-in", c.priceIn, &price.In}, {"price-out", c.priceOut, &price.Out}} {
		if p.v == "" {
			continue
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(p.v), 64)
		if err != nil || f < 0 || f > 1e6 {
			return nil, usagef("--%s %q: expected US dollars per million tokens, like 2.5", p.flag, p.v)
		}
		*p.dst = f
		known = true
	}
	if known {
		cfg.Price = price
	}
	if c.maxCost != "" {
		f, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(c.maxCost), "$"), 64)
		if err != nil || !(f > 0) || f > 1e9 {
			return nil, usagef("--max-cost %q: expected a positive amount in US dollars, like 5 or 0.50", c.maxCost)
		}
		if !known {
			return nil, usagef("--max-cost: model %q is not in the price table; give --price-in and --price-out", cfg.Model)
		}
		cfg.MaxCost = f
	}
	keyEnv := c.keyEnv
	// Keep a connection per worker (the default transport keeps 2 per host).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = c.concurrency
	pc := judge.ProviderConfig{Model: cfg.Model, BaseURL: strings.TrimSpace(c.baseURL), HTTPClient: &http.Client{Transport: tr}}
	switch strings.ToLower(strings.TrimSpace(c.provider)) {
	case "openai", "":
		cfg.ProviderName = "openai"
		if keyEnv == "" {
			keyEnv = "OPENAI_API_KEY"
		}
	case "anthropic":
		cfg.ProviderName = "anthropic"
		if keyEnv == "" {
			keyEnv = "ANTHROPIC_API_KEY"
		}
	default:
		return nil, usagef("--provider %q: expected openai or anthropic", c.provider)
	}
	if pc.BaseURL != "" {
		u, err := url.Parse(pc.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, usagef("--base-url: expected an http(s) URL")
		}
		if pw, ok := u.User.Password(); ok {
			cfg.Secrets = append(cfg.Secrets, pw)
		}
	}
	pc.APIKey = e.getenv(keyEnv)
	if pc.APIKey == "" {
		return nil, fmt.Errorf("judge: no API key: set %s (the key is read from the environment only)", keyEnv)
	}
	cfg.Secrets = append(cfg.Secrets, pc.APIKey)
	if cfg.ProviderName == "anthropic" {
		cfg.Provider = judge.NewAnthropic(pc)
	} else {
		cfg.Provider = judge.NewOpenAI(pc)
	}
	data, err := boundedio.ReadFile(c.input, 1<<30)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	ans, err := judge.ReadAnswers(c.input, bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	if c.cache != "" {
		if cfg.Cache, err = judge.NewCache(c.cache); err != nil {
			return nil, err
		}
	}
	switch c.progress {
	case "none":
	case "bar":
		cfg.Progress, cfg.ProgressTTY = e.stderr, true
	case "plain":
		cfg.Progress = e.stderr
	case "auto", "":
		cfg.Progress = e.stderr
		cfg.ProgressTTY = !e.inActions() && isTerminal(e.stderr)
	default:
		return nil, usagef("--progress %q: expected auto, bar, plain or none", c.progress)
	}
	sum, err := judge.Run(ctx, cfg, ans, out)
	if err != nil {
		return sum, fmt.Errorf("judge: %s", judge.Redact(err.Error(), cfg.Secrets))
	}
	return sum, nil
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w any) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// gateJudgeFlags declares the judge flags of the one-step gate (gate
// --input ANSWERS): the judge model, production model and family policy are
// the gate's own --judge-model, --production-model and --same-family.
func gateJudgeFlags(fs *flag.FlagSet, c *judgeConfig) {
	fs.StringVar(&c.input, "input", "", "answers to judge first (rubricgate judge), instead of --results; the results are written beside them as <name>.judged.jsonl")
	fs.StringVar(&c.provider, "judge-provider", "openai", "with --input: judge API, openai or anthropic")
	fs.StringVar(&c.baseURL, "judge-base-url", "", "with --input: judge API base URL")
	fs.StringVar(&c.keyEnv, "judge-api-key-env", "", "with --input: environment variable holding the judge API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY)")
	fs.IntVar(&c.samples, "samples", 1, "with --input: judgings per item")
	fs.IntVar(&c.confirm, "safety-confirm", 0, "with --input: re-judge a blocking-criterion failure this many more times (0: off)")
	fs.IntVar(&c.concurrency, "concurrency", 8, "with --input: judge requests in flight")
	fs.StringVar(&c.cache, "judge-cache", "", "with --input: judge cache directory")
	fs.StringVar(&c.maxCost, "max-cost", "", "with --input: stop before spending more than this many US dollars")
}

// judgeForGate runs the judge of the one-step gate and returns the results
// file it wrote.
func judgeForGate(ctx context.Context, c *judgeConfig, t *tierConfig, rb *rubric.Rubric, e *env) (string, error) {
	jc := *c
	jc.model, jc.productionModel, jc.sameFamily = t.JudgeModel, t.ProductionModel, t.SameFamily
	jc.seed, jc.rpm, jc.retries = 1, 0, 6
	jc.timeout, jc.maxWait, jc.progress = 60*time.Second, 5*time.Minute, "auto"
	if strings.TrimSpace(jc.model) == "" {
		return "", usagef("--input needs --judge-model (the judge to run)")
	}
	var buf bytes.Buffer
	sum, err := runJudge(ctx, &jc, rb, e, &buf)
	if sum != nil {
		fmt.Fprintf(e.stderr, "judge: %s\n", sum)
	}
	if err != nil {
		return "", err
	}
	out := strings.TrimSuffix(c.input, filepath.Ext(c.input)) + ".judged.jsonl"
	if err := stage.WriteAtomic(out, func(w io.Writer) error { _, err := w.Write(buf.Bytes()); return err }); err != nil {
		return "", err
	}
	return out, nil
}
