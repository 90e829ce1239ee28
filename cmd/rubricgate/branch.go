package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

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

// saveBranch decides whether a passing run may save its baseline into the
// local store under the baseline branch base: only a run known to be on
// that branch may. It returns false and why not otherwise.
//
// Inside Actions (gh != nil) only a push run on the baseline branch saves.
// Outside Actions the branch comes from --branch, else the variables of
// other CI systems, else the git checkout's HEAD (a detached HEAD is
// unknown); a merge or pull request's run never saves.
func (c *gateConfig) saveBranch(e *env, gh *ghContext, base string) (bool, string) {
	if gh != nil {
		if c.branch != "" && c.branch != gh.branch() {
			warn(e, "", 0, fmt.Sprintf("branch %q is ignored inside GitHub Actions: the run's branch comes from GITHUB_REF (%q)", c.branch, gh.ref))
		}
		switch b, isBranch := strings.CutPrefix(gh.ref, "refs/heads/"); {
		case gh.eventName != "push":
			return false, fmt.Sprintf("a %s run never updates a baseline (only push runs on the baseline branch %q do)", gh.eventName, base)
		case !isBranch || gh.pr > 0 || b != base:
			return false, fmt.Sprintf("this push is to %q, not the baseline branch %q", gh.ref, base)
		}
		return true, ""
	}
	for _, v := range ciPullRequestVars {
		if val := e.getenv(v); val != "" && !(v == "BUILDKITE_PULL_REQUEST" && val == "false") {
			return false, fmt.Sprintf("this run is for a merge or pull request (%s is set): such a run never updates a baseline", v)
		}
	}
	branch, from := c.branch, "--branch"
	if branch == "" {
		for _, v := range ciBranchVars {
			if val := strings.TrimSpace(e.getenv(v)); val != "" {
				branch, from = val, v
				break
			}
		}
	}
	if branch == "" {
		b, head, err := gitBranch(e.workDir())
		switch {
		case err != nil:
			return false, fmt.Sprintf("the branch this run is on is unknown (%v); give --branch %s to save it", err, base)
		case head == "":
			return false, fmt.Sprintf("the branch this run is on is unknown (not in a git checkout); give --branch %s to save it", base)
		case b == "":
			return false, fmt.Sprintf("the branch this run is on is unknown (%s is a detached HEAD); give --branch %s to save it", head, base)
		}
		branch, from = b, head
	}
	if branch != base {
		return false, fmt.Sprintf("this run is on branch %q (from %s), not the baseline branch %q", branch, from, base)
	}
	return true, ""
}

// workDir is where the git checkout is looked up from.
func (e *env) workDir() string {
	if e.wd != "" {
		return e.wd
	}
	return "."
}

// gitBranch finds the git checkout holding dir (walking up to the root) and
// returns the branch its HEAD names and the HEAD file's path. head is ""
// when dir is not in a checkout; branch is "" for a detached HEAD. A .git
// file (a linked worktree or submodule: "gitdir: PATH") is followed.
func gitBranch(dir string) (branch, head string, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", "", err
	}
	for d := abs; ; {
		dotgit := filepath.Join(d, ".git")
		if fi, err := os.Stat(dotgit); err == nil {
			gitdir := dotgit
			if !fi.IsDir() {
				data, err := readFileLimited(dotgit, 64<<10)
				if err != nil {
					return "", dotgit, err
				}
				p, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
				if !ok || strings.TrimSpace(p) == "" {
					return "", dotgit, fmt.Errorf("%s: expected a line \"gitdir: PATH\"", dotgit)
				}
				gitdir = strings.TrimSpace(p)
				if !filepath.IsAbs(gitdir) {
					gitdir = filepath.Join(d, gitdir)
				}
			}
			head = filepath.Join(gitdir, "HEAD")
			data, err := readFileLimited(head, 64<<10)
			if err != nil {
				return "", head, err
			}
			ref, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref:")
			if !ok {
				return "", head, nil // detached
			}
			b, ok := strings.CutPrefix(strings.TrimSpace(ref), "refs/heads/")
			if !ok || b == "" {
				return "", head, nil
			}
			return b, head, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", "", nil
		}
		d = parent
	}
}
