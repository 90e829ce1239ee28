package gate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
)

// NoisyMode is the noisy-drop setting.
type NoisyMode string

// The noisy-drop settings.
const (
	NoisyBlock NoisyMode = "block"
	NoisyWarn  NoisyMode = "warn"
	// NoisyRerun neither passes nor blocks a drop within noise: the
	// decision is [Rerun], asking for more answers per item; the gate on
	// the union of both runs (Thresholds.Final) decides as NoisyBlock.
	NoisyRerun NoisyMode = "rerun"
)

// ParseNoisyMode reads the noisy-drop setting.
func ParseNoisyMode(s string) (NoisyMode, error) {
	switch m := NoisyMode(strings.TrimSpace(s)); m {
	case NoisyBlock, NoisyWarn, NoisyRerun:
		return m, nil
	}
	return "", fmt.Errorf("noisy-drop %q: expected block, warn or rerun", s)
}

// classifyDrop settles a drop at or above max-drop (dc.BeyondHard set):
// real (it blocks) when there is no paired interval, the interval lies
// below 0, or it reaches hard-drop under noisy-drop warn; otherwise within
// noise, which blocks under noisy-drop block (and on the final gate of
// noisy-drop rerun), asks for a re-run under noisy-drop rerun, and passes
// under noisy-drop warn.
func classifyDrop(dc *DropCheck, final bool, maxRuns int) {
	switch {
	case dc.CI95 == nil || dc.CI95[1] < 0:
		// No paired interval: the plain rule. Below zero: a real drop.
		dc.Case, dc.Blocks = DropReal, true
	case dc.BeyondHard && dc.NoisyDrop == NoisyWarn:
		dc.Case, dc.Blocks = DropReal, true
	default:
		dc.Case = DropNoise
		dc.Blocks = dc.NoisyDrop == NoisyBlock || dc.NoisyDrop == NoisyRerun && final
		if dc.NoisyDrop == NoisyRerun && !final {
			askRerun(dc, maxRuns)
		}
	}
}

// RerunPlan says what the answers a re-run is asked for can do.
type RerunPlan string

// The re-run plans.
const (
	// RerunResolves: the answers asked for are expected to resolve a drop
	// of max-drop (tell it from zero with 80% power).
	RerunResolves RerunPlan = "resolves"
	// RerunCapped: resolving it takes more answers per item than
	// rerun-max-runs allows; the re-run brings the bound, and the final
	// gate decides on what it has (a drop at or above max-drop blocks).
	RerunCapped RerunPlan = "capped"
	// RerunUnresolvable: no number of answers resolves it (the baseline's
	// own noise, or the items' own changes, are too large): the re-run
	// brings one more run like this one, within the bound, and the final
	// gate decides as for RerunCapped.
	RerunUnresolvable RerunPlan = "unresolvable"
)

// DefaultRerunMaxRuns is the default bound of a re-run: at most 4 times
// this run's answers per item.
const DefaultRerunMaxRuns = 4

// MaxRerunMaxRuns is the largest rerun-max-runs accepted.
const MaxRerunMaxRuns = 16

// askRerun sets the re-run dc asks for: the answers per item that resolve
// max-drop (Resolution.RerunAnswers), at most maxRuns (0: the default)
// times this run's answers per item, and what they can do.
func askRerun(dc *DropCheck, maxRuns int) {
	if maxRuns <= 0 {
		maxRuns = DefaultRerunMaxRuns
	}
	dc.Rerun = true
	want, k, plan := 1, 1.0, RerunResolves
	if r := dc.Resolution; r != nil {
		want, k = r.RerunAnswers, max(r.Answers, 1)
		if !r.rerunResolves {
			plan = RerunUnresolvable
		}
	}
	dc.RerunBound = int(math.Ceil(float64(maxRuns) * k))
	if want > dc.RerunBound {
		want = dc.RerunBound
		if plan == RerunResolves {
			plan = RerunCapped
		}
	}
	dc.RerunAnswers, dc.RerunPlan = max(want, 1), plan
}

// noisyDropRule is what a drop at or above max-drop that does not block
// (dc) does: under noisy-drop rerun the run is to be re-run (f, the drop's
// finding, goes with the request); a drop within noise under noisy-drop
// warn passes with a warning.
func noisyDropRule(dc *DropCheck, f finding.Finding, maxDrop float64) ruling {
	drop := finding.DropParams{Change: -dc.Drop, MaxDrop: maxDrop}
	switch {
	case dc.Rerun:
		return ruling{Rerun: []finding.Finding{{Kind: finding.RerunNeeded, Params: finding.Params{Count: dc.RerunAnswers, DropParams: drop}}, f}}
	case dc.Case == DropNoise:
		return ruling{Pass: []finding.Finding{f}, Warn: []finding.Finding{{Kind: finding.DropWithinNoise, Params: finding.Params{Detail: string(dc.NoisyDrop), DropParams: drop}}}}
	}
	return ruling{}
}

// dropClause words what the paired interval and hard-drop say about a drop
// at or above max-drop ("" when there is nothing to add).
func dropClause(dc *DropCheck) string {
	ci := ""
	if dc.CI95 != nil {
		ci = fmt.Sprintf("95%% CI %s … %s", fmtSignedPct(dc.CI95[0]), fmtSignedPct(dc.CI95[1]))
	}
	switch {
	case dc.Case == DropReal && dc.BeyondHard && ci != "" && dc.CI95[1] >= 0:
		return fmt.Sprintf(" and hard-drop %s (%s)", fmtPct(dc.HardDrop), ci)
	case dc.Case == DropReal && ci != "":
		return "; " + ci + " lies below 0"
	case dc.Case == DropReal:
		return ""
	case dc.Rerun:
		return ", but its " + ci + " includes 0: noisy-drop rerun decides after a re-run with more answers per item (on both runs, a drop at or above max-drop blocks)"
	case dc.Blocks && dc.NoisyDrop == NoisyRerun:
		return "; " + ci + " includes 0 on both runs' answers too (noisy-drop rerun, final gate: a drop at or above max-drop blocks)"
	case dc.Blocks && dc.BeyondHard:
		return "; " + ci + " includes 0, but the drop reaches hard-drop " + fmtPct(dc.HardDrop) + ", so noisy-drop warn would block it too"
	case dc.Blocks:
		return "; " + ci + " includes 0 (noisy-drop is block; with noisy-drop warn it would pass unless it reached hard-drop " + fmtPct(dc.HardDrop) + ")"
	}
	return ", but its " + ci + " includes 0, so it passes (noisy-drop warn); it would block if the interval lay below 0 or the drop reached hard-drop " + fmtPct(dc.HardDrop)
}

func fmtPct(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }

func fmtSignedPct(f float64) string {
	return fmt.Sprintf("%+.2f%%", 100*f)
}
