package gate

import (
	"github.com/rubricgate/rubricgate/finding"
)

// safetyRule is the hard gates of the blocking criteria, never waived: the
// run's failures under its rubric, then those under the baseline's rubric
// (baselineGates, nil when the rubrics are the same) that the current
// rubric dropped or loosened: a pull request cannot switch off a safety
// gate by editing its rubric. extra are those baseline-rubric failures,
// which the report adds to the run's own.
func safetyRule(failures []BlockingFailure, baselineGates *GateCheck) (r ruling, extra []BlockingFailure) {
	r.Hard = blockingFindings(failures, false)
	if baselineGates != nil {
		extra = missingFailures(failures, baselineGates.Failures)
		r.Hard = append(r.Hard, blockingFindings(extra, true)...)
	}
	return r, extra
}

func missingFailures(have, other []BlockingFailure) []BlockingFailure {
	key := func(f BlockingFailure) string { return f.Item + "\x00" + f.Criterion }
	seen := make(map[string]bool, len(have))
	for _, f := range have {
		seen[key(f)] = true
	}
	var out []BlockingFailure
	for _, f := range other {
		if !seen[key(f)] {
			out = append(out, f)
		}
	}
	return out
}

// blockingFindings groups blocking failures by criterion: one finding per
// criterion (and one more for its unscored items, which fail closed), its
// items in the order they failed.
func blockingFindings(fs []BlockingFailure, baselineRubric bool) []finding.Finding {
	idx := map[string]int{}
	var out []finding.Finding
	for _, f := range fs {
		kind := finding.BlockingFailure
		if f.Unscored {
			kind = finding.UnscoredGate
		}
		key := string(kind) + "\x00" + f.Criterion
		k, ok := idx[key]
		if !ok {
			k = len(out)
			idx[key] = k
			out = append(out, finding.Finding{Kind: kind, Criterion: f.Criterion, Params: finding.Params{BaselineRubric: baselineRubric}})
		}
		out[k].Items = append(out[k].Items, f.Item)
	}
	return out
}
