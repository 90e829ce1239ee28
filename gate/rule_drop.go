package gate

import (
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/internal/fraction"
)

// dropInput is what the relative check compares: the baseline's score and
// the run's (the full sets', 0-100), the item-level comparison (nil
// without one) and the thresholds.
type dropInput struct {
	Baseline, Current float64
	Paired            *Paired
	Thresholds
}

// dropOutcome is what the drop rule found, beside its ruling.
type dropOutcome struct {
	ruling
	// Check is the relative check's outcome (nil when it did not run: the
	// baseline score is 0).
	Check *DropCheck
}

// dropRule is the relative check: a drop of the aggregate score at or
// above max-drop blocks unless accepted (on the baseline branch too);
// what a drop within noise does is noisyDropRule's (rule_noise.go).
//
// When the item sets differ, the check compares the items they share:
// added easy items or removed hard ones must not hide a regression of the
// others. Baseline items unscored now are among them at score 0 (see
// Paired.Unscored): an error in place of a regressed item must not lift
// the score.
func dropRule(in dropInput) dropOutcome {
	var out dropOutcome
	base, now, basis := in.Baseline, in.Current, BasisAll
	if p := in.Paired; p != nil && (p.Added > 0 || p.Removed > 0 || p.Unscored > 0) {
		if p.Common > 0 && p.CommonBaseline != nil && p.CommonCurrent != nil {
			base, now, basis = *p.CommonBaseline, *p.CommonCurrent, BasisCommon
		} else if p.Common == 0 {
			out.Warn = append(out.Warn, finding.Finding{Kind: finding.NoCommonItems})
		}
	}
	if base <= 0 {
		f := finding.Finding{Kind: finding.BaselineScoreZero}
		if basis == BasisCommon {
			f.Common = in.Paired.Common
		}
		out.Warn = append(out.Warn, f)
		return out
	}
	dc := checkDrop(base, now, in.Thresholds, in.Paired)
	dc.Basis, dc.Baseline, dc.Current = basis, base, now
	out.Check = dc
	if dc.Case == DropWithin {
		return out
	}
	f := dropFinding(dc, base, now, in.MaxDrop, in.Baseline, in.Current, in.Paired)
	dc.Reason = f.Text()
	if dc.Blocks {
		// A drop blocks on the baseline branch too: never a warning.
		out.Soft, out.Waivers = []finding.Finding{f}, []Waiver{WaiveDrop}
		return out
	}
	out.add(noisyDropRule(dc, f, in.MaxDrop))
	return out
}

// checkDrop classifies the change from base to cur (see DropCase): within
// max-drop, or (classifyDrop) a real drop or one within noise.
func checkDrop(base, cur float64, th Thresholds, p *Paired) *DropCheck {
	dc := &DropCheck{Case: DropWithin, Drop: (base - cur) / base, NoisyDrop: th.NoisyDrop, HardDrop: th.HardDrop}
	if dc.NoisyDrop == "" {
		dc.NoisyDrop = NoisyBlock
	}
	if p != nil && p.Method == MethodPaired && p.CI95 != nil {
		ci := *p.CI95
		dc.CI95, dc.se = &ci, p.stdErr((ci[1]-ci[0])/2)
		if th.MaxDrop > 0 {
			dc.Resolution = NewResolution(p, base, (ci[1]-ci[0])/2, th)
		}
	}
	if !dropBlocks(base, cur, th.MaxDrop) {
		return dc
	}
	dc.BeyondHard = dropBlocks(base, cur, th.HardDrop)
	classifyDrop(dc, th.Final, th.RerunMaxRuns)
	return dc
}

// dropFinding is the finding of a drop at or above max-drop: base → cur
// compared, fullBase → fullCur the full sets' scores (shown beside when the
// check compared the common items). Detail carries what the interval says.
func dropFinding(dc *DropCheck, base, cur, maxDrop, fullBase, fullCur float64, p *Paired) finding.Finding {
	f := finding.Finding{Kind: finding.AggregateDrop, Params: finding.Params{Detail: dropClause(dc), DropParams: finding.DropParams{Change: -dc.Drop, Baseline: base, Current: cur, MaxDrop: maxDrop}}}
	if dc.Basis == BasisCommon && p != nil {
		f.Common, f.Added, f.Removed, f.Unscored = p.Common, p.Added, p.Removed, p.Unscored
		f.FullBaseline, f.FullCurrent = fullBase, fullCur
	}
	return f
}

// dropBlocks reports whether the drop from base to cur reaches maxDrop:
// (base - cur) / base >= maxDrop, with a relative tolerance so that an exact
// drop at the threshold blocks despite rounding in the means.
func dropBlocks(base, cur, maxDrop float64) bool {
	if base <= 0 {
		return false
	}
	return (base-cur)/base >= maxDrop-dropTolerance
}

// DropCase is how the relative check ended.
type DropCase string

// The cases of the relative check.
const (
	// DropWithin: the change is within max-drop (or a rise); it passes.
	DropWithin DropCase = "within"
	// DropReal: a drop at or above max-drop that blocks: its interval lies
	// below zero, or noisy-drop is block, or there is no paired interval, or
	// it reached hard-drop.
	DropReal DropCase = "real"
	// DropNoise: a drop at or above max-drop whose paired interval includes
	// zero. It blocks with noisy-drop block (the interval is then shown as
	// a hint) and passes with a warning with noisy-drop warn.
	DropNoise DropCase = "noise"
)

// DropCheck is the relative check's outcome, for the report and the comment.
type DropCheck struct {
	Case DropCase `json:"case"`
	// Blocks is true when this check blocks the run (before the accept label).
	Blocks bool `json:"blocks"`
	// Drop is the relative drop (positive for a drop).
	Drop float64 `json:"drop"`
	// NoisyDrop and HardDrop are the settings used.
	NoisyDrop NoisyMode `json:"noisy_drop"`
	HardDrop  float64   `json:"hard_drop"`
	// BeyondHard is true when the drop reached hard-drop (in either mode).
	BeyondHard bool `json:"beyond_hard"`
	// CI95 is the paired 95% interval used, nil without one.
	CI95 *[2]float64 `json:"ci95"`
	// Resolution is what the interval's width lets the gate tell apart; nil
	// without an interval.
	Resolution *Resolution `json:"resolution"`
	// se is the change's standard error (Paired.stdErr), 0 without CI95.
	se float64
	// Rerun is true for a drop within noise under noisy-drop rerun (not
	// Final): the decision is Rerun. RerunAnswers is how many more answers
	// per item the re-run should bring (Resolution.RerunAnswers).
	Rerun        bool `json:"rerun"`
	RerunAnswers int  `json:"rerun_answers,omitempty"`
	// RerunBound is the most answers per item a re-run may be asked for
	// (rerun-max-runs times this run's); RerunPlan what the answers asked
	// for can do (resolve max-drop, or not within the bound).
	RerunBound int       `json:"rerun_bound,omitempty"`
	RerunPlan  RerunPlan `json:"rerun_plan,omitempty"`
	// Reason is the reason text of a drop at or above max-drop ("" otherwise).
	Reason string `json:"reason"`
	// Basis says which items were compared: "all" (the full sets: they are
	// the same, or share no item) or "common" (the items of the baseline
	// that this run scored too, when the sets differ).
	Basis string `json:"basis"`
	// Baseline and Current are the scores compared (0-100): the full sets'
	// or the common items' means.
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
}

// The bases of the relative check.
const (
	BasisAll    = "all"
	BasisCommon = "common"
)

// dropTolerance absorbs floating-point error in the relative-drop check, so
// that a drop of exactly MaxDrop (in exact arithmetic) always blocks even when
// the aggregate means carry rounding error in their last bits.
const dropTolerance = 1e-9

// ParseMaxDrop reads a relative drop written as "2%" or as a fraction "0.02".
func ParseMaxDrop(s string) (float64, error) { return ParseDrop("max-drop", s) }

// ParseDrop reads the relative drop setting name, written as "2%" or as a
// fraction "0.02" (the one share parser, internal/fraction).
func ParseDrop(name, s string) (float64, error) { return fraction.Parse(name, s) }

// FormatChange formats a relative change as a signed percentage with the
// digits needed to tell it from max-drop: two decimals, more when two would
// round a change that does not reach max-drop onto it, or one that reaches
// it off it. A passing 1.996% drop prints -1.996%, never -2.00% like the
// blocking 2.000% one.
// (One definition: finding.ChangePct, which the findings' texts use.)
func FormatChange(rel, maxDrop float64) string { return finding.ChangePct(rel, maxDrop) }
