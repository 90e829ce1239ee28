package finding

import "fmt"

// The kinds of the baseline: none, too old, another branch's.
const (
	// NoBaseline: no baseline was used. Detail (why: not found in a store,
	// unreadable), PolicyFail (if-no-baseline is fail).
	NoBaseline Kind = "no-baseline"
	// BaselineOld: the baseline is older than max-baseline-age. Days, MaxDays.
	BaselineOld Kind = "baseline-old"
	// DefaultBranchNotBaseline: the run is on the default branch, which is
	// not the baseline branch. Branch, BaselineBranch, Source (where the
	// baseline branch came from).
	DefaultBranchNotBaseline Kind = "default-branch-not-baseline"
	// BaselineFromDefaultBranch: the change request's target branch has no
	// baseline, so the run was compared with the default branch's. Branch
	// (the target), BaselineBranch (the default branch).
	BaselineFromDefaultBranch Kind = "baseline-from-default-branch"
)

// baselineKinds are the renderers of these kinds (see renderers).
var baselineKinds = map[Kind]renderer{
	NoBaseline:                renderNoBaseline,
	BaselineOld:               renderBaselineOld,
	DefaultBranchNotBaseline:  renderDefaultBranchNotBaseline,
	BaselineFromDefaultBranch: renderBaselineFromDefaultBranch,
}

func renderNoBaseline(f Finding, e escaper) string {
	note := "no baseline found"
	if f.Detail != "" {
		note = e.text(f.Detail)
	}
	if f.PolicyFail {
		return note + " and if-no-baseline is fail"
	}
	return note + ": nothing to compare with yet"
}

func renderBaselineOld(f Finding, e escaper) string {
	return fmt.Sprintf("the baseline is %d days old (max-baseline-age %d days)", f.Days, f.MaxDays)
}

func renderDefaultBranchNotBaseline(f Finding, e escaper) string {
	br, base := e.q(f.Branch), e.q(f.BaselineBranch)
	return fmt.Sprintf("this run is on the default branch %s but the baseline branch is %s (from %s): no run on %s ever saves a baseline, and runs compared with %s find none unless one is saved there; set --baseline-branch %s or run the gate on %s",
		br, base, e.text(f.Source), br, base, e.id(f.Branch), base)
}

func renderBaselineFromDefaultBranch(f Finding, e escaper) string {
	return fmt.Sprintf("no baseline on the target branch %s: compared with the default branch %s's baseline instead (save one on %s to compare with its own)",
		e.q(f.Branch), e.q(f.BaselineBranch), e.q(f.Branch))
}
