package main

import (
	"context"
	"flag"
	"io"

	"github.com/rubricgate/rubricgate/gaterun"
	"github.com/rubricgate/rubricgate/host"
	ghhost "github.com/rubricgate/rubricgate/host/github"
	glhost "github.com/rubricgate/rubricgate/host/gitlab"
	"github.com/rubricgate/rubricgate/host/local"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/results"
	"github.com/rubricgate/rubricgate/tier"
)

// gateConfig holds the gate's flags: the names are the action inputs.
type gateConfig struct {
	gaterun.Settings
	rubric, format, writeBaseline, jsonOut, mdOut, junitOut string
	results                                                 stringList
	tier                                                    tier.Settings
	judge                                                   judgeConfig // one-step gate: --input and the judge flags
}

// gateFlags declares the gate's flags on fs (see action.yml).
func gateFlags(fs *flag.FlagSet, c *gateConfig) {
	fs.StringVar(&c.rubric, "rubric", "", "rubric file (YAML or JSON)")
	fs.Var(&c.results, "results", "results files or globs (repeatable; whitespace-separated)")
	fs.StringVar(&c.format, "format", "", formatHelp())
	c.Settings.Flags(fs)
	fs.StringVar(&c.writeBaseline, "write-baseline", "", "write a new baseline file here when the run passes")
	fs.StringVar(&c.jsonOut, "json", "", "write the JSON report here (- for stdout)")
	fs.StringVar(&c.mdOut, "markdown", "", "write the markdown report here")
	fs.StringVar(&c.junitOut, "junit", "", "write a JUnit XML report here (a test case per criterion and per blocking item)")
	c.tier.Flags(fs)
	c.judge.GateFlags(fs)
	fs.StringVar(&c.judge.input, "input", "", "answers to judge first (rubricgate judge), instead of --results; the results are written beside them as <name>.judged.jsonl")
}

// cmdGate runs the gate. It returns the exit status; errors are exit 2.
func cmdGate(args []string, e *env) (int, error) {
	var c gateConfig
	fs := newFlags("gate", e)
	gateFlags(fs, &c)
	posArgs, err := parseArgs(fs, args)
	if err != nil {
		return exitError, err
	}
	c.results = append(c.results, posArgs...)
	return runGate(context.Background(), &c, e)
}

// pickHost picks the CI host: GitHub Actions, else GitLab CI, else a local run.
func pickHost(e *env, branch string) (host.Host, error) {
	switch {
	case e.inActions():
		return ghhost.New(e.getenv, e.stdout)
	case glhost.InCI(e.getenv):
		return glhost.NewJob(e.getenv, e.stdout)
	}
	return local.New(local.Options{Branch: branch, Stderr: e.stderr, SkipGit: true})
}

// runGate parses c, picks the host, reads the inputs (judging them first
// for --input) and calls gaterun.Run once, which decides, writes and
// publishes. It returns the exit status (0 pass, 1 blocked, 3 re-run
// asked); an error is exit 2.
func runGate(ctx context.Context, c *gateConfig, e *env) (int, error) {
	h, err := pickHost(e, c.Branch)
	if err != nil {
		return exitError, err
	}
	return runGateOn(ctx, h, c, e)
}

// runGateOn is runGate on the host h.
func runGateOn(ctx context.Context, h host.Host, c *gateConfig, e *env) (int, error) {
	s, err := c.Parse()
	if err != nil {
		return exitError, err
	}
	rb, warns, err := loadRubric(c.rubric, e)
	if err != nil {
		return exitError, err
	}
	if c.judge.input != "" && len(c.results) > 0 {
		return exitError, usage.Errorf("give --input (answers to judge) or --results, not both")
	}
	// The one-step gate's judged results are read from memory and written
	// with the gate's other outputs: an error leaves the old file in place.
	var extra []output
	var src *results.Source
	if c.judge.input != "" {
		out, data, err := judgeForGate(ctx, &c.judge, &c.tier, rb, e)
		if err != nil {
			return exitError, err
		}
		c.results = stringList{out}
		src = results.NewMemorySource(out, data)
		extra = []output{{Path: out, Write: func(w io.Writer) error { _, err := w.Write(data); return err }}}
	} else if src, err = results.NewSource(c.results, c.format, e.stdin); err != nil {
		return exitError, err
	}
	// With the JSON report on stdout (--json -), stdout carries only it:
	// the text report goes to stderr, as score's does not print at all.
	logw := e.stdout
	if c.jsonOut == "-" {
		logw = e.stderr
	}
	res, err := gaterun.Run(ctx, h, gaterun.Input{Settings: s, Tier: c.tier, Rubric: rb, RubricWarnings: warns,
		Results: src, ResultNames: c.results,
		Outputs: gaterun.Outputs{WriteBaseline: c.writeBaseline, JSON: c.jsonOut, Markdown: c.mdOut, JUnit: c.junitOut, Extra: extra, Confine: confineDir(e, h)},
		Getenv:  e.getenv, WorkDir: e.wd, Now: e.clock(),
		Stdout: e.stdout, Stderr: e.stderr, Log: logw, Color: colorOn(logw, e.getenv), Annotate: e.inActions()})
	if err != nil {
		return exitError, err
	}
	if res.Blocked() {
		return exitBlocked, nil
	}
	if res.Rerun() {
		return exitRerun, nil
	}
	return exitPass, nil
}
