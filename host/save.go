package host

import (
	"fmt"
	"strings"

	"github.com/rubricgate/rubricgate/internal/gitmeta"
)

// SaveInputs are what decides, outside GitHub Actions, which branch a run is
// on.
type SaveInputs struct {
	// Branch is the branch given (--branch); "" to find it.
	Branch string
	// Getenv reads the variables of other CI systems (nil: none set).
	Getenv func(string) string
	// WorkDir is where the git checkout is looked up from ("": ".").
	WorkDir string
}

// ciPullRequestVars are the variables other CI systems set on a merge or
// pull request's run: such a run never updates a baseline, whatever its
// branch variables say.
var ciPullRequestVars = []string{
	"CI_MERGE_REQUEST_IID", // GitLab merge request pipelines
	"CIRCLE_PULL_REQUEST",  // CircleCI
	"BUILDKITE_PULL_REQUEST",
	"BITBUCKET_PR_ID", // Bitbucket Pipelines
	"CHANGE_ID",       // Jenkins multibranch
}

// ciBranchVars name the branch a run is on in other CI systems.
var ciBranchVars = []string{
	"CI_COMMIT_BRANCH", // GitLab (branch pipelines only; unset for tags and merge requests)
	"CIRCLE_BRANCH",
	"BUILDKITE_BRANCH",
	"BITBUCKET_BRANCH",
	"BRANCH_NAME", // Jenkins multibranch
}

// MaySave decides whether a passing run may save its baseline into the
// local store under the baseline branch base: only a run known to be on
// that branch may. It returns false and why not otherwise.
//
// Inside GitHub Actions (b.Host "github") only a push run on the baseline
// branch saves; a --branch that differs from the run's is warned about and
// ignored. Elsewhere (no build, or another host) the branch comes from
// --branch, else the
// variables of other CI systems, else the git checkout's HEAD (a detached
// HEAD is unknown); a merge or pull request's run never saves.
func MaySave(in SaveInputs, b *Build, base string, warn func(string)) (bool, string) {
	if b != nil && b.Host == "github" {
		if in.Branch != "" && in.Branch != b.Branch && warn != nil {
			warn(fmt.Sprintf("branch %q is ignored inside GitHub Actions: the run's branch comes from GITHUB_REF (%q)", in.Branch, b.Ref))
		}
		switch br, isBranch := strings.CutPrefix(b.Ref, "refs/heads/"); {
		case b.Event != "push":
			return false, fmt.Sprintf("a %s run never updates a baseline (only push runs on the baseline branch %q do)", b.Event, base)
		case !isBranch || b.ChangeRequest > 0 || br != base:
			return false, fmt.Sprintf("this push is to %q, not the baseline branch %q", b.Ref, base)
		}
		return true, ""
	}
	branch, from, why, pr := runBranch(in)
	switch {
	case pr:
		return false, why
	case why != "":
		return false, why + fmt.Sprintf("; give --branch %s to save it", base)
	}
	if branch != base {
		// The hint names the flag: on a repository whose main line is not
		// the default's (master, trunk), no baseline is saved without it.
		return false, fmt.Sprintf("this run is on branch %q (from %s), not the baseline branch %q; if %s is where baselines come from, give --baseline-branch %s", branch, from, base, branch, branch)
	}
	return true, ""
}

// runBranch finds the branch a run outside GitHub Actions is on, and its
// source: --branch, else the variables of other CI systems, else the git
// checkout's HEAD. why says why it is unknown, or that the run is for a
// merge or pull request (pr true: such a run never saves).
func runBranch(in SaveInputs) (branch, from, why string, pr bool) {
	getenv := in.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	for _, v := range ciPullRequestVars {
		if val := getenv(v); val != "" && !(v == "BUILDKITE_PULL_REQUEST" && val == "false") {
			return "", "", fmt.Sprintf("this run is for a merge or pull request (%s is set): such a run never updates a baseline", v), true
		}
	}
	branch, from = in.Branch, "--branch"
	if branch == "" {
		for _, v := range ciBranchVars {
			if val := strings.TrimSpace(getenv(v)); val != "" {
				branch, from = val, v
				break
			}
		}
	}
	if branch == "" {
		dir := in.WorkDir
		if dir == "" {
			dir = "."
		}
		b, head, err := GitBranch(dir)
		switch {
		case err != nil:
			return "", "", fmt.Sprintf("the branch this run is on is unknown (%v)", err), false
		case head == "":
			return "", "", "the branch this run is on is unknown (not in a git checkout)", false
		case b == "":
			return "", "", fmt.Sprintf("the branch this run is on is unknown (%s is a detached HEAD)", head), false
		}
		branch, from = b, head
	}
	return branch, from, "", false
}

// GitBranch finds the git checkout holding dir (walking up to the root) and
// returns the branch its HEAD names and the HEAD file's path. head is ""
// when dir is not in a checkout; branch is "" for a detached HEAD. A .git
// file (a linked worktree or submodule: "gitdir: PATH") is followed. It is
// gitmeta.Read's branch and HEAD, the one reader of git metadata.
func GitBranch(dir string) (branch, head string, err error) {
	g, err := gitmeta.Read(dir)
	if err != nil {
		return "", "", err
	}
	return g.Branch, g.Head, nil
}

// CIBranchKnown reports whether another CI system names the run's branch
// (one of the branch variables [MaySave] reads is set).
func CIBranchKnown(getenv func(string) string) bool {
	if getenv == nil {
		return false
	}
	for _, v := range ciBranchVars {
		if strings.TrimSpace(getenv(v)) != "" {
			return true
		}
	}
	return false
}
