package gaterun

import (
	"context"
	"errors"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
)

// latestOrDefault reads q's baseline from store and, when the branch has
// none at all (not a renamed rubric: see baseline.OtherRubricsError), the
// [host.FallbackBranch]'s; from is the branch the baseline came from when it is
// the fallback ("" else). The fallback's answer, found or not, is the
// result.
func latestOrDefault(ctx context.Context, store baseline.Store, q baseline.Query, ref host.BaselineRef) (f *baseline.File, src gate.BaselineSource, from string, err error) {
	f, src, err = store.Latest(ctx, q)
	var renamed *baseline.OtherRubricsError
	fb := host.FallbackBranch(ref)
	if fb == "" || fb == q.Branch || !errors.Is(err, baseline.ErrNotFound) || errors.As(err, &renamed) {
		return f, src, "", err
	}
	dq := q
	dq.Branch = fb
	f, src, err = store.Latest(ctx, dq)
	if err != nil {
		return f, src, "", err
	}
	return f, src, fb, nil
}

// fallbackFinding is the warning of a run compared with the default
// branch's baseline (finding.BaselineFromDefaultBranch).
func fallbackFinding(target, from string) finding.Finding {
	return finding.Finding{Kind: finding.BaselineFromDefaultBranch, Severity: finding.Warning,
		Params: finding.Params{BranchParams: finding.BranchParams{Branch: target, BaselineBranch: from}}}
}
