package host

import (
	"errors"
	"fmt"
	"testing"
)

func TestBaselineBranch(t *testing.T) {
	for _, tt := range []struct {
		b        Build
		explicit string
		want     string
	}{
		{Build{BaseBranch: "release", DefaultBranch: "main", Branch: "x"}, "prod", "prod"},
		{Build{BaseBranch: "release", DefaultBranch: "main", Branch: "x"}, "", "release"},
		{Build{DefaultBranch: "trunk", Branch: "x"}, "", "trunk"},
		{Build{Branch: "x"}, "", "x"},
		{Build{}, "", "main"},
	} {
		if got := tt.b.BaselineBranch(tt.explicit); got != tt.want {
			t.Errorf("%+v, %q: %q, want %q", tt.b, tt.explicit, got, tt.want)
		}
	}
}

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
