package host

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

func TestSaveBranch(t *testing.T) {
	push := Build{Branch: "main", BaselineEvent: true}
	pr := Build{ChangeRequest: 3, BaseBranch: "main"}
	if push.SaveBranch("") != "main" || push.SaveBranch("other") != "other" {
		t.Errorf("push: %q", push.SaveBranch(""))
	}
	if pr.SaveBranch("") != "" {
		t.Errorf("a change request's run saves under %q", pr.SaveBranch(""))
	}
	if pr.SaveBranch("feature") != "feature" {
		t.Error("--branch does not override")
	}
	if !push.OnBaselineBranch("main") || push.OnBaselineBranch("dev") || pr.OnBaselineBranch("main") || (&Build{Branch: "main"}).OnBaselineBranch("main") {
		t.Error("OnBaselineBranch")
	}
}

func TestShouldComment(t *testing.T) {
	prRun := &Build{ChangeRequest: 4, ChangeRequestEvent: true}
	prData := &Build{ChangeRequest: 4} // e.g. a workflow_run about the pull request
	push := &Build{}
	for _, tt := range []struct {
		mode CommentMode
		b    *Build
		ok   bool
		warn bool
	}{
		{CommentAuto, prRun, true, false},
		{CommentAuto, prData, false, false},
		{CommentAuto, push, false, false},
		{CommentAlways, prData, true, false},
		{CommentAlways, push, false, true},
		{CommentNever, prRun, false, false},
	} {
		ok, w := ShouldComment(tt.mode, tt.b)
		if ok != tt.ok || (w != "") != tt.warn {
			t.Errorf("%s %+v: %v %q", tt.mode, tt.b, ok, w)
		}
	}
}

func TestHasLabelAndConfigError(t *testing.T) {
	b := &Build{Labels: []string{"rubricgate:Accept-Regression"}}
	if !b.HasLabel("rubricgate:accept-regression") || b.HasLabel("rubricgate") {
		t.Error("HasLabel")
	}
	err := fmt.Errorf("wrapped: %w", Configf("need %s", "token"))
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Msg != "need token" {
		t.Errorf("ConfigError: %v", err)
	}
}

func TestRunRecords(t *testing.T) {
	ci := &Build{Host: "github", Repository: "o/r", Event: "pull_request", SHA: "m", HeadSHA: "h", ChangeRequest: 3,
		RunID: 9, RunURL: "https://x/9", Workflow: "evals", Job: "gate", Ref: "refs/pull/3/merge"}
	rc := ci.RunContext("key")
	if rc == nil || rc.Repository != "o/r" || rc.EventName != "pull_request" || rc.SHA != "m" || rc.HeadSHA != "h" ||
		rc.PullRequest != 3 || rc.RunID != 9 || rc.RunURL != "https://x/9" || rc.CommentKey != "key" {
		t.Errorf("RunContext = %+v", rc)
	}
	if (&Build{Host: "local"}).RunContext("k") != nil {
		t.Error("a local run has a run context")
	}
	if got := ci.CommentKey("support", []string{"a.jsonl", "b.jsonl"}); got != "evals/gate/support/a.jsonl,b.jsonl" {
		t.Errorf("CommentKey = %q", got)
	}
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.FixedZone("x", 3600))
	m := ci.BaselineMeta(now, "main")
	if m.Branch != "" || m.SHA != "m" || m.Ref != "refs/pull/3/merge" || m.Repository != "o/r" || m.RunID != 9 || !m.CreatedAt.Equal(now) || m.CreatedAt.Location() != time.UTC {
		t.Errorf("CI pull request meta = %+v", m)
	}
	if m := (&Build{Host: "local"}).BaselineMeta(now, "main"); m.Branch != "main" {
		t.Errorf("local meta branch %q", m.Branch)
	}
	if m := (&Build{Host: "gitlab", Branch: "dev"}).BaselineMeta(now, "main"); m.Branch != "dev" {
		t.Errorf("CI push meta branch %q", m.Branch)
	}
}
