package github

import (
	"errors"
	"flag"
	"io"
	"slices"
	"testing"

	"github.com/rubricgate/rubricgate/host"
)

// The comment needs the token; the previous comment is read back only
// from a named author and never on a fork's pull request.
func TestCommenting(t *testing.T) {
	h, _ := newHost(t, actionsEnv("pull_request", "refs/pull/2/merge", "testdata/pull_request.opened.json"))
	if c := h.Commenting(host.CommentOptions{Mode: host.CommentAuto, Author: DefaultCommentAuthor}); c.Noun != "comment" || c.Commenter != nil || c.Missing == "" || c.Previous != nil {
		t.Errorf("no token: %+v", c)
	}
	c := h.Commenting(host.CommentOptions{Mode: host.CommentAuto, Token: "t", Author: DefaultCommentAuthor})
	if cm, ok := c.Commenter.(*Commenter); !ok || cm.Token != "t" || cm.PullRequest != h.Build().ChangeRequest || c.Previous == nil {
		t.Errorf("token: %+v", c)
	}
	for _, o := range []host.CommentOptions{{Mode: host.CommentAuto, Token: "t", Author: "*"}, {Mode: host.CommentNever, Token: "t", Author: "bot"}} {
		if c := h.Commenting(o); c.Previous != nil {
			t.Errorf("%+v: reads the previous comment", o)
		}
	}
	h.event.PullRequest.Head.Repo = &RepoRef{ID: 1}
	h.event.PullRequest.Base.Repo = &RepoRef{ID: 2}
	if c := h.Commenting(host.CommentOptions{Mode: host.CommentAuto, Token: "t", Author: "bot"}); c.Previous != nil {
		t.Error("a fork's pull request reads the previous comment")
	}
}

// Action inputs become flags, a path under RUNNER_TEMP as any other (the
// composite action's steps run on the runner host, where it exists).
func TestRunnerArgs(t *testing.T) {
	vars := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/home/runner/work/r/r", "RUNNER_TEMP": "/home/runner/_temp",
		"INPUT_RUBRIC": "r.yaml", "INPUT_MAX-DROP": " 3% ", "INPUT_COMMAND": "gate"}
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("rubric", "", "")
	fs.String("max-drop", "", "")
	fs.String("json", "", "")
	r := Runner{Getenv: env(vars)}
	if args := r.Args(fs); !slices.Equal(args, []string{"--max-drop=3%", "--rubric=r.yaml"}) || r.Input("command") != "gate" {
		t.Errorf("args %q", args)
	}
	vars["INPUT_JSON"] = "/home/runner/_temp/out.json"
	if args := r.Args(fs); !slices.Equal(args, []string{"--json=/home/runner/_temp/out.json", "--max-drop=3%", "--rubric=r.yaml"}) {
		t.Errorf("RUNNER_TEMP path: args %q", args)
	}
}

// The command input picks the flag set (the default when empty); a
// command the action does not run is a configuration error naming them.
func TestRunnerCommand(t *testing.T) {
	vars := map[string]string{"INPUT_REPORT": "r.json"}
	r := Runner{Getenv: env(vars)}
	declare := map[string]func(*flag.FlagSet){
		"gate":    func(fs *flag.FlagSet) { fs.String("rubric", "", "") },
		"comment": func(fs *flag.FlagSet) { fs.String("report", "", "") },
	}
	newFlags := func(name string) *flag.FlagSet { return flag.NewFlagSet(name, flag.ContinueOnError) }
	if c, args, err := r.Command("gate", declare, newFlags); c != "gate" || len(args) != 0 || err != nil {
		t.Errorf("default: %q %q %v", c, args, err)
	}
	vars["INPUT_COMMAND"] = "comment"
	if c, args, err := r.Command("gate", declare, newFlags); c != "comment" || !slices.Equal(args, []string{"--report=r.json"}) || err != nil {
		t.Errorf("comment: %q %q %v", c, args, err)
	}
	vars["INPUT_COMMAND"] = "judge"
	var ce *host.ConfigError
	if _, _, err := r.Command("gate", declare, newFlags); !errors.As(err, &ce) || err.Error() != `input command "judge": expected comment or gate` {
		t.Errorf("judge: %v", err)
	}
}
