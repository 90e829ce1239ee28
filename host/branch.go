package host

import (
	"slices"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/internal/gitmeta"
)

// ciTargetVars name a merge or pull request's target branch in other CI
// systems (set on such a run only).
var ciTargetVars = []string{
	"CI_MERGE_REQUEST_TARGET_BRANCH_NAME", // GitLab merge request pipelines
	"BUILDKITE_PULL_REQUEST_BASE_BRANCH",
	"BITBUCKET_PR_DESTINATION_BRANCH", // Bitbucket Pipelines
	"CHANGE_TARGET",                   // Jenkins multibranch
}

// ciDefaultVars name the repository's default branch in other CI systems.
var ciDefaultVars = []string{
	"CI_DEFAULT_BRANCH", // GitLab
	"BUILDKITE_PIPELINE_DEFAULT_BRANCH",
}

// FromTarget is [BaselineRef.From] for the change request's target branch
// as the build names it (GitHub's pull request base, GitLab's target).
const FromTarget = "the change request's target branch"

// BaselineRef is the baseline branch and where it came from.
type BaselineRef struct {
	// Branch is the branch whose last passing run is the baseline.
	Branch string
	// From names its source: "--baseline-branch", a variable, "the pull
	// request's base", "refs/remotes/origin/HEAD" or "the default".
	From string
	// Default is the repository's default branch when known ("" else).
	Default string
}

// ResolveBaselineBranch finds the baseline branch: explicit when given
// (--baseline-branch), else the change request's target branch, else the
// repository's default branch; each from the build (b, may be nil), else
// the variables of other CI systems (GitLab's
// CI_MERGE_REQUEST_TARGET_BRANCH_NAME and CI_DEFAULT_BRANCH, and their
// Buildkite, Bitbucket and Jenkins equivalents), else the git checkout's
// origin default (refs/remotes/origin/HEAD), else "main". The branch the
// run is on never chooses it: a run on feature/x would otherwise find no
// baseline, pass, and start its own.
func ResolveBaselineBranch(explicit string, b *Build, in SaveInputs) BaselineRef {
	getenv := in.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	var r BaselineRef
	if b != nil && b.DefaultBranch != "" {
		r.Default = b.DefaultBranch
	}
	for _, v := range ciDefaultVars {
		if r.Default != "" {
			break
		}
		r.Default = strings.TrimSpace(getenv(v))
	}
	gitDefault := ""
	if r.Default == "" {
		dir := in.WorkDir
		if dir == "" {
			dir = "."
		}
		if g, err := gitmeta.Read(dir); err == nil && g.DefaultBranch != "" {
			gitDefault = g.DefaultBranch
			r.Default = gitDefault
		}
	}
	switch {
	case explicit != "":
		r.Branch, r.From = explicit, "--baseline-branch"
		return r
	case b != nil && b.BaseBranch != "":
		r.Branch, r.From = b.BaseBranch, FromTarget
		return r
	}
	for _, v := range ciTargetVars {
		if val := strings.TrimSpace(getenv(v)); val != "" {
			r.Branch, r.From = val, v
			return r
		}
	}
	switch {
	case b != nil && b.DefaultBranch != "":
		r.Branch, r.From = b.DefaultBranch, "the repository's default branch"
	case gitDefault != "":
		r.Branch, r.From = gitDefault, "refs/remotes/origin/HEAD"
	case r.Default != "":
		r.Branch, r.From = r.Default, "the CI default branch variable"
		for _, v := range ciDefaultVars {
			if strings.TrimSpace(getenv(v)) == r.Default {
				r.From = v
				break
			}
		}
	default:
		r.Branch, r.From = "main", "the default (main)"
	}
	return r
}

// DefaultBranchWarning is the text of DefaultBranchFinding, "" when there
// is none.
func DefaultBranchWarning(ref BaselineRef, in SaveInputs, b *Build) string {
	if f, ok := DefaultBranchFinding(ref, in, b); ok {
		return f.Text()
	}
	return ""
}

// DefaultBranchFinding returns a warning (finding.DefaultBranchNotBaseline)
// when the run is on the repository's default branch, could save a baseline
// there, and the baseline branch is another: no run would then ever save
// one. ok is false else.
func DefaultBranchFinding(ref BaselineRef, in SaveInputs, b *Build) (f finding.Finding, ok bool) {
	if ref.Default == "" || ref.Branch == ref.Default {
		return finding.Finding{}, false
	}
	branch := ""
	if b != nil && b.Host == "github" {
		if b.BaselineEvent {
			branch = b.Branch
		}
	} else if br, _, why, _ := runBranch(in); why == "" {
		branch = br
	}
	if branch == "" || branch != ref.Default {
		return finding.Finding{}, false
	}
	return finding.Finding{Kind: finding.DefaultBranchNotBaseline, Severity: finding.Warning,
		Params: finding.Params{BranchParams: finding.BranchParams{Branch: branch, BaselineBranch: ref.Branch, Source: ref.From}}}, true
}

// FallbackBranch is the branch whose baseline a change request's run uses
// when its target branch has none: the repository's default branch, when
// the baseline branch is the change request's target (from the build or a
// CI variable, never --baseline-branch) and another branch; "" else. A pull
// request opened against a branch without a baseline would otherwise pass
// unchecked, and retargeting it to main does not re-run the check.
func FallbackBranch(ref BaselineRef) string {
	if ref.Default == "" || ref.Default == ref.Branch {
		return ""
	}
	if ref.From != FromTarget && !slices.Contains(ciTargetVars, ref.From) {
		return ""
	}
	return ref.Default
}
