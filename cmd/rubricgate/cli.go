package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gaterun"
	"github.com/rubricgate/rubricgate/host"
	ghhost "github.com/rubricgate/rubricgate/host/github"
	glhost "github.com/rubricgate/rubricgate/host/gitlab"
	"github.com/rubricgate/rubricgate/internal/cliflag"
	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/internal/stage"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/internal/version"
	"github.com/rubricgate/rubricgate/rubric"
)

// Exit codes.
const (
	exitPass    = 0
	exitBlocked = 1
	exitError   = 2
	// exitRerun: under noisy-drop rerun, a drop within noise that neither
	// passes nor blocks until the eval is re-run (output rerun=true).
	exitRerun = 3
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
  rubricgate gate --rubric R --results F [F...] [flags]    score, compare with the baseline, pass or block
  rubricgate score --rubric R --results F [F...] [flags]   score a run (no baseline)
  rubricgate judge --rubric R --input ANSWERS --out RESULTS --model M [flags]
  rubricgate comment --report REPORT.json [flags]          post another job's report
  rubricgate calibrate --rubric R [flags] HUMAN JUDGE      judge-human agreement
  rubricgate rubric validate R
  rubricgate rubric export --format json|csv|prompt R
  rubricgate init [--dir DIR] [--branch B]                 a starter rubric, results and workflows
  rubricgate version                                       (also -v, --version)

Run 'rubricgate COMMAND -h' for a command's flags and an example.
Inside GitHub Actions with no arguments, rubricgate runs the gate from the action inputs.
Exit status: 0 pass, 1 blocked, 2 error, 3 re-run asked (noisy-drop rerun: re-run the eval with more answers).
`

// commands are the subcommands by name.
var commands = map[string]func([]string, *env) (int, error){
	"score": cmdScore, "gate": cmdGate, "judge": cmdJudge, "comment": cmdComment, "calibrate": cmdCalibrate, "rubric": cmdRubric,
	"init": cmdInit,
}

// commandNames are the command names a mistyped one is matched against,
// sorted (so that the suggestion does not depend on map order).
func commandNames() []string {
	names := []string{"help", "version"}
	for n := range commands {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// run executes one command line and returns the exit status.
func run(args []string, e *env) int {
	switch {
	case len(args) == 0 && e.inActions():
		return runAction(e)
	case len(args) == 0:
		fmt.Fprint(e.stderr, usageText)
		return exitError
	case args[0] == "help" && len(args) > 1 && commands[args[1]] != nil:
		return run(append(args[1:len(args):len(args)], "-h"), e) // help gate: gate -h
	case args[0] == "help" || args[0] == "-h" || args[0] == "--help":
		fmt.Fprint(e.stdout, usageText)
		return exitPass
	case args[0] == "version" || args[0] == "--version" || args[0] == "-v":
		fmt.Fprintln(e.stdout, "rubricgate", version.String())
		return exitPass
	}
	cmd, ok := commands[args[0]]
	if !ok {
		if s := cliflag.Closest(args[0], commandNames()); s != "" {
			return fail(e, usage.Errorf("unknown command %q (did you mean %s?)", args[0], s))
		}
		return fail(e, usage.Errorf("unknown command %q", args[0]))
	}
	code, err := cmd(args[1:], e)
	if err != nil {
		return failIn(e, args[0], err)
	}
	return code
}

// fail prints an error and returns exit 2, with a hint for a usage error
// (from here or a library). Inside Actions it also makes an error annotation.
func fail(e *env, err error) int { return failIn(e, "", err) }

// failIn is fail for an error of the command named (its hint points at
// the command's -h).
func failIn(e *env, command string, err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return exitPass // -h asked for the usage, which the flag set printed
	}
	fmt.Fprintf(e.stderr, "rubricgate: %s\n", safe.LogLine(err.Error()))
	if gaterun.IsUsage(err) {
		if _, ok := commands[command]; ok {
			fmt.Fprintf(e.stderr, "run 'rubricgate %s -h' for help\n", command)
		} else {
			fmt.Fprintln(e.stderr, "run 'rubricgate help' for usage")
		}
	}
	if e.inActions() {
		_ = ghhost.WriteAnnotation(e.stdout, finding.Annotation{Level: finding.Error, Message: err.Error()})
	}
	return exitError
}

// newFlags makes a flag set that reports errors instead of exiting and
// answers -h with the command's grouped help on stdout.
func newFlags(name string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	if h := helps[name]; h != nil {
		fs.Usage = func() { h.Write(e.stdout, fs) }
	}
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
	rb, warns, err := gaterun.ReadRubric(path)
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

// writeOutputs writes every output (stdout for "-") all or nothing, kept
// inside the workspace on a change request's run (see confineDir).
func writeOutputs(e *env, outs []output) error {
	return stage.WriteAllIn(e.stdout, confineDir(e, nil), outs)
}

// confineDir is the workspace a run's outputs are confined to (stage's
// Set.Confine), "" for none. On a change request's run (host's
// ChangeRequestRun: GitHub's pull_request* events, GitLab's
// merge_request_event) the checkout is the change request's, symbolic
// links included: a committed "reports -> /anywhere" must not redirect
// the workflow's "--markdown reports/x.md". The workspace is
// GITHUB_WORKSPACE, CI_PROJECT_DIR, else the working directory. h is the
// run's host, nil to pick it; a CI host that cannot be picked confines.
func confineDir(e *env, h host.Host) string {
	gitlab := glhost.InCI(e.getenv)
	if !e.inActions() && !gitlab {
		return ""
	}
	if h == nil {
		var err error
		if h, err = pickHost(e, ""); err != nil {
			h = nil
		}
	}
	if h != nil && !host.ChangeRequestRun(host.CIBuild(h)) {
		return ""
	}
	ws := ""
	switch {
	case e.inActions():
		ws = e.getenv("GITHUB_WORKSPACE")
	case gitlab:
		ws = e.getenv("CI_PROJECT_DIR")
	}
	if ws == "" {
		ws = e.wd
	}
	if ws == "" {
		ws, _ = os.Getwd()
	}
	if ws == "" {
		ws = "."
	}
	return ws
}

// colorOn reports whether the log written to w is shown in colour: when
// NO_COLOR is unset or empty (no-color.org) and w is a terminal, or
// FORCE_COLOR is set to anything but 0.
func colorOn(w io.Writer, getenv func(string) string) bool {
	if getenv("NO_COLOR") != "" {
		return false
	}
	if f := getenv("FORCE_COLOR"); f != "" && f != "0" {
		return true
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
