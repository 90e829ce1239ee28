package gate

import (
	"time"

	"github.com/rubricgate/rubricgate/finding"
)

// noBaselineRule is what a run with no baseline does (note says why there
// is none): under if-no-baseline fail it is blocked; otherwise it passes
// and starts the baseline, except on a change request whose rubric was
// renamed (renamed, see renamedRule), which is no first run.
func noBaselineRule(note string, ifNoBaseline NoBaselinePolicy, renamed, baselineBranchRun bool) ruling {
	f := finding.Finding{Kind: finding.NoBaseline, Params: finding.Params{Detail: note}}
	switch {
	case ifNoBaseline == NoBaselineFail:
		f.PolicyFail = true
		return ruling{Hard: []finding.Finding{f}}
	case renamed && !baselineBranchRun:
		// Not a first run: a renamed rubric does not start a baseline on a
		// pull request.
		return ruling{}
	}
	return ruling{Pass: []finding.Finding{f}}
}

// baselineAgeRule warns when the baseline (made at created) is older than
// maxAge at now (0: never).
func baselineAgeRule(created, now time.Time, maxAge time.Duration) ruling {
	if maxAge <= 0 || created.IsZero() || now.Sub(created) <= maxAge {
		return ruling{}
	}
	return ruling{Warn: []finding.Finding{{Kind: finding.BaselineOld, Params: finding.Params{AgeParams: finding.AgeParams{Days: int(now.Sub(created).Hours() / 24), MaxDays: int(maxAge.Hours() / 24)}}}}}
}

// baselineInfo is the baseline as the report shows it.
func baselineInfo(b *Baseline) *BaselineInfo {
	return &BaselineInfo{
		Score: b.Score, Source: b.Source.Location, SHA: b.Source.SHA, RunURL: b.Source.RunURL,
		CreatedAt: b.Source.CreatedAt, Kind: b.Source.Kind, Ref: b.Source.Ref, RubricHash: b.RubricHash,
		PooledRuns: b.PooledRuns,
	}
}
