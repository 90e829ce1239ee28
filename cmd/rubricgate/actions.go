package main

import (
	"context"
	"flag"
	"fmt"

	ghhost "github.com/rubricgate/rubricgate/host/github"
	"github.com/rubricgate/rubricgate/pipeline"
)

// actionFlags declare the flags of the commands the action runs.
var actionFlags = map[string]func(*flag.FlagSet){
	"gate":    func(fs *flag.FlagSet) { gateFlags(fs, &gateConfig{}) },
	"comment": func(fs *flag.FlagSet) { commentFlags(fs, &commentConfig{}) },
}

// runAction runs inside GitHub Actions with no arguments: the command and
// its flags come from the action inputs (INPUT_<NAME>), with the same names.
func runAction(e *env) int {
	r := ghhost.Runner{Getenv: e.getenv, Home: e.githubHome}
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
	fs := newFlags("comment", e)
	commentFlags(fs, &c)
	posArgs, err := parseArgs(fs, args)
	switch {
	case err != nil:
		return exitError, err
	case len(posArgs) > 0:
		return exitError, usagef("comment: unexpected argument %q", posArgs[0])
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
