package main

import (
	"context"
	"flag"
	"fmt"

	ghhost "github.com/rubricgate/rubricgate/host/github"
	"github.com/rubricgate/rubricgate/pipeline"
)

// runAction runs inside GitHub Actions with no arguments: the command and
// its flags come from the action inputs (INPUT_<NAME>), with the same names.
func runAction(e *env) int {
	r := ghhost.Runner{Getenv: e.getenv, Home: e.githubHome}
	command, cmd := r.Input("command"), cmdGate
	if command == "" {
		command = "gate"
	}
	fs := newFlags(command, e)
	switch command {
	case "gate":
		gateFlags(fs, &gateConfig{})
	case "comment":
		commentFlags(fs, &commentConfig{})
		cmd = cmdComment
	default:
		return fail(e, usagef("input command %q: expected gate or comment", command))
	}
	args, err := r.Args(fs)
	if err != nil {
		return fail(e, err)
	}
	code, err := cmd(args, e)
	if err != nil {
		return fail(e, err)
	}
	return code
}

// commentConfig holds the flags of `rubricgate comment`.
type commentConfig = pipeline.PostReportOptions

func commentFlags(fs *flag.FlagSet, c *commentConfig) {
	fs.StringVar(&c.Report, "report", "", "a gate JSON report made by another job (the untrusted pull_request workflow)")
	fs.StringVar(&c.Token, "github-token", "", "token with pull-requests: write; never printed")
	fs.StringVar(&c.Title, "title", "", "heading of the comment (default: rubricgate: <rubric name>)")
	fs.StringVar(&c.MaxReport, "max-report", "10MiB", "largest report accepted")
	fs.StringVar(&c.Author, "comment-author", pipeline.DefaultCommentAuthor, "login whose marker comment is adopted and edited; * for any author")
	fs.StringVar(&c.Key, "comment-key", "", "sticky comment key (default: report: plus the report's own key)")
}

// cmdComment posts a report another job made, the fork-safe pattern (see
// pipeline.PostReport): it runs in a workflow_run workflow.
func cmdComment(args []string, e *env) (int, error) {
	var c commentConfig
	posArgs, err := parseFlags("comment", e, args, func(fs *flag.FlagSet) { commentFlags(fs, &c) })
	switch {
	case err != nil:
		return exitError, err
	case len(posArgs) > 0:
		return exitError, usagef("comment: unexpected argument %q", posArgs[0])
	case c.Report == "":
		return exitError, usagef("comment: --report is required")
	}
	gh, err := ghhost.New(e.getenv, e.stdout)
	if err != nil {
		return exitError, err
	}
	c.Now, c.Warn = e.clock(), func(msg string) { warn(e, "", 0, msg) }
	out, pr, err := pipeline.PostReport(context.Background(), gh, c)
	if err != nil {
		return exitError, err
	}
	fmt.Fprintf(e.stdout, "comment %s on #%d: %s\n", out.Action, pr, out.URL)
	return exitPass, nil
}
