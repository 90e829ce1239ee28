package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gitCheckout makes a checkout whose HEAD is branch and whose origin's
// default (refs/remotes/origin/HEAD) is def ("" for none).
func gitCheckout(t *testing.T, branch, def string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git", "refs", "remotes", "origin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/"+branch+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if def != "" {
		if err := os.WriteFile(filepath.Join(dir, ".git", "refs", "remotes", "origin", "HEAD"), []byte("ref: refs/remotes/origin/"+def+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// F9: outside Actions the baseline branch follows the CI system's
// variables, else the checkout's origin default, else main;
// --baseline-branch always wins.
func TestResolveBaselineBranch(t *testing.T) {
	plain := gitCheckout(t, "feature", "")
	trunk := gitCheckout(t, "feature", "trunk")
	for _, tt := range []struct {
		name     string
		explicit string
		b        *Build
		vars     map[string]string
		dir      string
		want     string
	}{
		{"gitlab merge request", "", nil, map[string]string{"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "develop", "CI_DEFAULT_BRANCH": "trunk"}, plain, "develop"},
		{"gitlab branch pipeline", "", nil, map[string]string{"CI_DEFAULT_BRANCH": "trunk", "CI_COMMIT_BRANCH": "feature"}, plain, "trunk"},
		{"explicit wins", "release", nil, map[string]string{"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "develop", "CI_DEFAULT_BRANCH": "trunk"}, trunk, "release"},
		{"jenkins change", "", nil, map[string]string{"CHANGE_TARGET": "stable"}, plain, "stable"},
		{"bitbucket pr", "", nil, map[string]string{"BITBUCKET_PR_DESTINATION_BRANCH": "stable"}, plain, "stable"},
		{"buildkite default", "", nil, map[string]string{"BUILDKITE_PIPELINE_DEFAULT_BRANCH": "master"}, plain, "master"},
		{"git origin default", "", nil, nil, trunk, "trunk"},
		{"nothing known", "", nil, nil, plain, "main"},
		{"github pull request", "", &Build{Host: "github", BaseBranch: "develop", DefaultBranch: "main"}, nil, trunk, "develop"},
		{"github push", "", &Build{Host: "github", DefaultBranch: "main", Branch: "feature/x"}, nil, trunk, "main"},
		{"gitlab build", "", &Build{Host: "gitlab", BaseBranch: "develop"}, map[string]string{"CI_DEFAULT_BRANCH": "trunk"}, plain, "develop"},
	} {
		in := SaveInputs{Getenv: func(k string) string { return tt.vars[k] }, WorkDir: tt.dir}
		if got := ResolveBaselineBranch(tt.explicit, tt.b, in); got.Branch != tt.want || got.From == "" {
			t.Errorf("%s: %+v, want %q", tt.name, got, tt.want)
		}
	}
}

// A run on the default branch that is not the baseline branch never saves
// one: said loudly.
func TestDefaultBranchWarning(t *testing.T) {
	vars := map[string]string{"CI_DEFAULT_BRANCH": "main", "CI_COMMIT_BRANCH": "main"}
	in := SaveInputs{Getenv: func(k string) string { return vars[k] }, WorkDir: t.TempDir()}
	ref := ResolveBaselineBranch("release", nil, in)
	if w := DefaultBranchWarning(ref, in, nil); !strings.Contains(w, `default branch "main"`) || !strings.Contains(w, `"release"`) {
		t.Errorf("warning %q", w)
	}
	// The baseline branch is the default branch: nothing to say.
	if w := DefaultBranchWarning(ResolveBaselineBranch("", nil, in), in, nil); w != "" {
		t.Errorf("unexpected warning %q", w)
	}
	// A run on another branch: nothing to say.
	vars["CI_COMMIT_BRANCH"] = "feature"
	if w := DefaultBranchWarning(ref, in, nil); w != "" {
		t.Errorf("unexpected warning %q", w)
	}
	// In Actions: a push to the default branch with another baseline branch.
	b := &Build{Host: "github", Event: "push", Branch: "main", DefaultBranch: "main", BaselineEvent: true}
	if w := DefaultBranchWarning(ResolveBaselineBranch("release", b, SaveInputs{}), SaveInputs{}, b); w == "" {
		t.Error("no warning for a push to the default branch")
	}
}

// Only a change request's target falls back to the default branch: never a
// branch given with --baseline-branch, nor the default branch itself.
func TestFallbackBranch(t *testing.T) {
	noEnv := SaveInputs{Getenv: func(string) string { return "" }, WorkDir: t.TempDir()}
	pr := &Build{Host: "github", BaseBranch: "release", DefaultBranch: "main", ChangeRequest: 3}
	if got := FallbackBranch(ResolveBaselineBranch("", pr, noEnv)); got != "main" {
		t.Errorf("pull request into release: %q, want main", got)
	}
	if got := FallbackBranch(ResolveBaselineBranch("release", pr, noEnv)); got != "" {
		t.Errorf("--baseline-branch release: %q, want none", got)
	}
	intoMain := &Build{Host: "github", BaseBranch: "main", DefaultBranch: "main", ChangeRequest: 3}
	if got := FallbackBranch(ResolveBaselineBranch("", intoMain, noEnv)); got != "" {
		t.Errorf("pull request into main: %q, want none", got)
	}
	gl := SaveInputs{Getenv: func(k string) string {
		return map[string]string{"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "stable", "CI_DEFAULT_BRANCH": "trunk"}[k]
	}, WorkDir: t.TempDir()}
	if got := FallbackBranch(ResolveBaselineBranch("", nil, gl)); got != "trunk" {
		t.Errorf("GitLab merge request into stable: %q, want trunk", got)
	}
}
