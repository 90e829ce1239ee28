package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/judge"
	"github.com/rubricgate/rubricgate/rubric"
)

// judgeConfig holds the judge flags: the answers file (input), the results
// file (out) and the run's options.
type judgeConfig struct {
	input, out string
	judge.Options
}

func judgeFlags(fs *flag.FlagSet, c *judgeConfig) {
	fs.StringVar(&c.input, "input", "", "answers file: JSON lines (or .csv) with id, input/query/question, context, output/answer/response, reference")
	fs.StringVar(&c.Provider, "provider", "openai", "judge API: openai (any OpenAI-compatible chat completions endpoint) or anthropic")
	fs.StringVar(&c.Model, "model", "", "judge model (required)")
	fs.StringVar(&c.BaseURL, "base-url", "", "API base URL (Azure OpenAI, Gemini, vLLM, Ollama, LM Studio, OpenRouter, ...)")
	fs.StringVar(&c.APIKeyEnv, "api-key-env", "", "environment variable holding the API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY)")
	fs.IntVar(&c.Samples, "samples", 1, "judgings per item, each with its own seed")
	fs.Int64Var(&c.Seed, "seed", 1, "seed of the first sample (sample k uses seed+k)")
	fs.IntVar(&c.SafetyConfirm, "safety-confirm", 0, "re-judge an item that fails a blocking criterion this many more times (0: off)")
	fs.IntVar(&c.Concurrency, "concurrency", 8, "requests in flight")
	fs.IntVar(&c.RPM, "rpm", 0, "requests per minute (0: no limit)")
	fs.StringVar(&c.Shard, "shard", "", "judge only shard I of N (I/N, by a hash of the id)")
	fs.StringVar(&c.Cache, "cache", "", "cache directory: a re-run over unchanged answers sends no request")
	fs.StringVar(&c.MaxCost, "max-cost", "", "stop before spending more than this many US dollars")
	fs.StringVar(&c.PriceIn, "price-in", "", "input price in USD per million tokens (overrides the built-in table)")
	fs.StringVar(&c.PriceOut, "price-out", "", "output price in USD per million tokens (overrides the built-in table)")
	fs.DurationVar(&c.Timeout, "timeout", 60*time.Second, "per-request timeout")
	fs.IntVar(&c.MaxRetries, "max-retries", 6, "retries of one request on 429, 5xx and timeouts")
	fs.DurationVar(&c.MaxWait, "max-wait", 5*time.Minute, "total wait between retries allowed for one item")
	fs.StringVar(&c.Progress, "progress", "auto", "progress report on stderr: auto, bar, plain or none")
	fs.StringVar(&c.ProductionModel, "production-model", "", "the production model whose answers are judged (judge-family check)")
	fs.StringVar(&c.SameFamily, "same-family", "fail", "judge and production model of one family: fail or warn")
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
	switch {
	case err != nil:
		return exitError, err
	case len(pos) > 0:
		return exitError, usagef("judge: unexpected argument %q", pos[0])
	case c.out == "":
		return exitError, usagef("--out is required")
	}
	rb, _, err := loadRubric(*rubricPath, e)
	if err != nil {
		return exitError, err
	}
	if err := runJudge(context.Background(), &c, rb, e); err != nil {
		return exitError, err
	}
	return exitPass, nil
}

// runJudge judges c.input into c.out ("-": stdout), written only when the
// whole run succeeded, and prints the run's summary. The API key is read
// from the environment only.
func runJudge(ctx context.Context, c *judgeConfig, rb *rubric.Rubric, e *env) error {
	o := c.Options
	o.ProgressOut, o.InCI = e.stderr, e.inActions()
	o.APIKey = e.getenv(o.KeyEnv())
	o.Warn = func(msg string) { warn(e, "", 0, msg) }
	var buf bytes.Buffer
	sum, err := o.Run(ctx, rb, c.input, &buf)
	if sum != nil {
		fmt.Fprintf(e.stderr, "judge: %s\n", sum)
	}
	if err != nil {
		return usageOf(err)
	}
	return writeOutputs(e, []output{{Path: c.out, Write: func(w io.Writer) error { _, err := buf.WriteTo(w); return err }}})
}

// gateJudgeFlags declares the judge flags of the one-step gate (gate
// --input ANSWERS): the judge model, production model and family policy are
// the gate's own --judge-model, --production-model and --same-family.
func gateJudgeFlags(fs *flag.FlagSet, c *judgeConfig) {
	fs.StringVar(&c.input, "input", "", "answers to judge first (rubricgate judge), instead of --results; the results are written beside them as <name>.judged.jsonl")
	fs.StringVar(&c.Provider, "judge-provider", "openai", "with --input: judge API, openai or anthropic")
	fs.StringVar(&c.BaseURL, "judge-base-url", "", "with --input: judge API base URL")
	fs.StringVar(&c.APIKeyEnv, "judge-api-key-env", "", "with --input: environment variable holding the judge API key (default OPENAI_API_KEY or ANTHROPIC_API_KEY)")
	fs.IntVar(&c.Samples, "samples", 1, "with --input: judgings per item")
	fs.IntVar(&c.SafetyConfirm, "safety-confirm", 0, "with --input: re-judge a blocking-criterion failure this many more times (0: off)")
	fs.IntVar(&c.Concurrency, "concurrency", 8, "with --input: judge requests in flight")
	fs.StringVar(&c.Cache, "judge-cache", "", "with --input: judge cache directory")
	fs.StringVar(&c.MaxCost, "max-cost", "", "with --input: stop before spending more than this many US dollars")
}

// judgeForGate runs the judge of the one-step gate and returns the results
// file it wrote: <answers>.judged.jsonl.
func judgeForGate(ctx context.Context, c *judgeConfig, t *tierConfig, rb *rubric.Rubric, e *env) (string, error) {
	jc := *c
	o := &jc.Options
	o.Model, o.ProductionModel, o.SameFamily = t.JudgeModel, t.ProductionModel, t.SameFamily
	o.Seed, o.RPM, o.MaxRetries, o.Timeout, o.MaxWait, o.Progress = 1, 0, 6, 60*time.Second, 5*time.Minute, "auto"
	if strings.TrimSpace(o.Model) == "" {
		return "", usagef("--input needs --judge-model (the judge to run)")
	}
	jc.out = strings.TrimSuffix(c.input, filepath.Ext(c.input)) + ".judged.jsonl"
	if err := runJudge(ctx, &jc, rb, e); err != nil {
		return "", err
	}
	return jc.out, nil
}
