package main

import (
	"context"
	"flag"
	"fmt"

	ghhost "github.com/rubricgate/rubricgate/host/github"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/publish"
)

// actionFlags declare the flags of the commands the action runs.
var actionFlags = map[string]func(*flag.FlagSet){
	"gate":    func(fs *flag.FlagSet) { gateFlags(fs, &gateConfig{}) },
	"comment": func(fs *flag.FlagSet) { (&commentConfig{}).Flags(fs) },
}

// runAction runs inside GitHub Actions with no arguments: the command and
// its flags come from the action inputs (INPUT_<NAME>), with the same names.
func runAction(e *env) int {
	r := ghhost.Runner{Getenv: e.getenv}
	command, args, err := r.Command("gate", actionFlags, func(name string) *flag.FlagSet { return newFlags(name, e) })
	if err != nil {
		return fail(e, err)
	}
	code, err := commands[command](args, e)
	if err != nil {
		return fail(e, err)
	}
	return code
}

// commentConfig holds the flags of `rubricgate comment`.
type commentConfig = publish.PostReportOptions

// cmdComment posts a report another job made, the fork-safe pattern (see
// publish.PostReport): it runs in a workflow_run workflow.
func cmdComment(args []string, e *env) (int, error) {
	var c commentConfig
	fs := newFlags("comment", e)
	c.Flags(fs)
	posArgs, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return exitError, err
	case len(posArgs) > 0:
		return exitError, usage.Errorf("comment: unexpected argument %q", posArgs[0])
	}
	gh, err := ghhost.New(e.getenv, e.stdout)
	if err != nil {
		return exitError, err
	}
	c.Now, c.Warn = e.clock(), func(msg string) { warn(e, "", 0, msg) }
	out, pr, err := publish.PostReport(context.Background(), gh, c)
	if err != nil {
		return exitError, err
	}
	fmt.Fprintf(e.stdout, "comment %s on #%d: %s\n", out.Action, pr, out.URL)
	return exitPass, nil
}
