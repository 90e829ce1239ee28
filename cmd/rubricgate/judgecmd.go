package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rubricgate/rubricgate/internal/stage"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/judge"
	"github.com/rubricgate/rubricgate/rubric"
	"github.com/rubricgate/rubricgate/tier"
)

// judgeConfig holds the judge flags: the answers file (input), the results
// file (out) and the run's options.
type judgeConfig struct {
	input, out string
	judge.Options
}

// cmdJudge runs the LLM judge over an answers file and writes results JSON
// lines that score and gate read.
func cmdJudge(args []string, e *env) (int, error) {
	fs := newFlags("judge", e)
	var c judgeConfig
	rubricPath := fs.String("rubric", "", "rubric file (YAML or JSON)")
	fs.StringVar(&c.input, "input", "", "answers file: JSON lines (or .csv) with id, input/query/question, context, output/answer/response, reference")
	fs.StringVar(&c.out, "out", "", "results file to write (JSON lines; - for stdout)")
	c.Flags(fs)
	pos, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return exitError, err
	case len(pos) > 0:
		return exitError, usage.Errorf("judge: unexpected argument %q", pos[0])
	case c.out == "":
		return exitError, usage.Errorf("--out is required")
	}
	rb, _, err := loadRubric(*rubricPath, e)
	if err != nil {
		return exitError, err
	}
	data, err := runJudge(context.Background(), &c, rb, e)
	if err != nil {
		return exitError, err
	}
	if err := writeOutputs(e, []output{{Path: c.out, Write: func(w io.Writer) error { _, err := w.Write(data); return err }}}); err != nil {
		return exitError, err
	}
	return exitPass, nil
}

// runJudge judges c.input and returns the results file's content, and
// prints the run's summary (and how many cache entries failed
// verification). The API key, the cache key and OpenAI's organisation and
// project (OPENAI_ORG_ID, OPENAI_PROJECT_ID) are read from the environment
// only.
func runJudge(ctx context.Context, c *judgeConfig, rb *rubric.Rubric, e *env) ([]byte, error) {
	o := c.Options
	// The cache directory is written too: on a change request's run not
	// through a link the change request committed (see confineDir).
	if ws := confineDir(e, nil); ws != "" && o.Cache != "" {
		if err := stage.CheckConfined(ws, filepath.Join(o.Cache, "entry")); err != nil {
			return nil, fmt.Errorf("--cache %s: %w", o.Cache, err)
		}
	}
	o.ProgressOut, o.InCI = e.stderr, e.inActions()
	o.APIKey = e.getenv(o.KeyEnv())
	o.CacheKey = e.getenv(judge.CacheKeyEnv)
	if o.Provider == judge.ProviderOpenAI || o.Provider == "" {
		// As the official SDK: the organisation and project to bill.
		o.Organization, o.Project = e.getenv("OPENAI_ORG_ID"), e.getenv("OPENAI_PROJECT_ID")
	}
	o.Warn = func(msg string) { warn(e, "", 0, msg) }
	var buf bytes.Buffer
	sum, err := o.Run(ctx, rb, c.input, &buf)
	if sum != nil {
		fmt.Fprintf(e.stderr, "judge: %s\n", sum)
		if note := sum.CacheNote(); note != "" {
			fmt.Fprintf(e.stderr, "judge: %s\n", note)
		}
	}
	if err != nil {
		return nil, err
	}
	if sum.Errors > 0 {
		warn(e, "", 0, fmt.Sprintf("%d of %d items ended as error lines (unscored: the gate compares an item its baseline scored at 0 and fails a blocking criterion on it); the first: %s",
			sum.Errors, sum.Items, sum.FirstError))
	}
	return buf.Bytes(), nil
}

// judgeForGate runs the judge of the one-step gate (gate --input) with the
// gate's judge model, production model and family policy. It returns the
// results file to write, <answers>.judged.jsonl, and its content: the gate
// writes it with its other outputs, all or nothing.
func judgeForGate(ctx context.Context, c *judgeConfig, t *tier.Settings, rb *rubric.Rubric, e *env) (string, []byte, error) {
	jc := *c
	jc.Model, jc.ProductionModel, jc.SameFamily = t.JudgeModel, t.ProductionModel, t.SameFamily
	if strings.TrimSpace(jc.Model) == "" {
		return "", nil, usage.Errorf("--input needs --judge-model (the judge to run)")
	}
	out := strings.TrimSuffix(c.input, filepath.Ext(c.input)) + ".judged.jsonl"
	data, err := runJudge(ctx, &jc, rb, e)
	return out, data, err
}
