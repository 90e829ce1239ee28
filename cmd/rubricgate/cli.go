package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/rubricgate/rubricgate/finding"
	ghhost "github.com/rubricgate/rubricgate/host/github"
	"github.com/rubricgate/rubricgate/internal/cliflag"
	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/internal/stage"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/internal/version"
	"github.com/rubricgate/rubricgate/pipeline"
	"github.com/rubricgate/rubricgate/rubric"
)

// Exit codes.
const (
	exitPass    = 0
	exitBlocked = 1
	exitError   = 2
)

// env is everything the commands take from the process, injected so tests
// run the real command without a runner.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	now            func() time.Time // the clock (nil: time.Now)
	// wd is where the git checkout is looked up from ("": the working
	// directory). Tests point it at a temp dir.
	wd string
}

func (e *env) clock() time.Time {
	if e.now != nil {
		return e.now()
	}
	return time.Now()
}

// inActions reports whether the process runs as a GitHub Actions step.
func (e *env) inActions() bool { return e.getenv("GITHUB_ACTIONS") == "true" }

const usageText = `rubricgate: a CI regression gate for LLM outputs

Usage:
  rubricgate score --rubric R --results F [F...] [--json OUT] [--items OUT] [--markdown OUT]
  rubricgate gate --rubric R --results F [F...] [options]     (see rubricgate gate -h)
  rubricgate judge --rubric R --input ANSWERS --out RESULTS --model M [options]
  rubricgate comment --report REPORT.json [options]            (post another job's report)
  rubricgate calibrate --rubric R [options] HUMAN JUDGE
  rubricgate calibrate --rubric R --reviewers SHEET
  rubricgate rubric validate R
  rubricgate rubric export --format json|csv|prompt R

Inside GitHub Actions with no arguments, rubricgate runs the gate from the action inputs.
Exit status: 0 pass, 1 blocked, 2 error.
`

// commands are the subcommands by name.
var commands = map[string]func([]string, *env) (int, error){
	"score": cmdScore, "gate": cmdGate, "judge": cmdJudge, "comment": cmdComment, "calibrate": cmdCalibrate, "rubric": cmdRubric,
}

// run executes one command line and returns the exit status.
func run(args []string, e *env) int {
	switch {
	case len(args) == 0 && e.inActions():
		return runAction(e)
	case len(args) == 0:
		fmt.Fprint(e.stderr, usageText)
		return exitError
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		fmt.Fprint(e.stdout, usageText)
		return exitPass
	case args[0] == "version" || args[0] == "--version":
		fmt.Fprintln(e.stdout, "rubricgate", version.String())
		return exitPass
	}
	cmd, ok := commands[args[0]]
	if !ok {
		return fail(e, usage.Errorf("unknown command %q", args[0]))
	}
	code, err := cmd(args[1:], e)
	if err != nil {
		return fail(e, err)
	}
	return code
}

// fail prints an error and returns exit 2, with a hint for a usage error
// (from here or a library). Inside Actions it also makes an error annotation.
func fail(e *env, err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitPass // -h asked for the usage, which the flag set printed
	}
	fmt.Fprintf(e.stderr, "rubricgate: %s\n", safe.LogLine(err.Error()))
	if pipeline.IsUsage(err) {
		fmt.Fprintln(e.stderr, "run 'rubricgate help' for usage")
	}
	if e.inActions() {
		_ = ghhost.WriteAnnotation(e.stdout, finding.Annotation{Level: finding.Error, Message: err.Error()})
	}
	return exitError
}

// newFlags makes a flag set that reports errors instead of exiting.
func newFlags(name string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// parseArgs parses flags among the positional arguments (cliflag.Parse);
// stringList is a repeatable flag of whitespace-separated entries.
var parseArgs = cliflag.Parse

type stringList = cliflag.List

// loadRubric reads and validates a rubric file, printing its warnings.
func loadRubric(path string, e *env) (*rubric.Rubric, []rubric.Warning, error) {
	if path == "" {
		return nil, nil, usage.Errorf("--rubric is required")
	}
	rb, warns, err := pipeline.ReadRubric(path)
	if err != nil {
		return nil, nil, err
	}
	for _, w := range warns {
		warn(e, w.File, w.Line, w.String())
	}
	return rb, warns, nil
}

// warn prints a warning; inside Actions as a ::warning annotation, on the
// file and line when given.
func warn(e *env, file string, line int, msg string) {
	if e.inActions() {
		_ = ghhost.WriteAnnotation(e.stdout, finding.Annotation{Level: finding.Warning, File: file, Line: line, Message: msg})
		return
	}
	fmt.Fprintf(e.stderr, "warning: %s\n", safe.LogLine(msg))
}

// output is one file a command writes once everything is computed; staged
// holds them until they are renamed into place together (internal/stage:
// all or nothing).
type (
	output = stage.Output
	staged = stage.Set
)

// writeOutputs writes every output (stdout for "-") all or nothing.
func writeOutputs(e *env, outs []output) error { return stage.WriteAll(e.stdout, outs) }
