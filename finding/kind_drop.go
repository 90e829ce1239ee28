package finding

import "fmt"

// The kinds of the relative check: the drop, within max-drop, within noise.
const (
	// AggregateDrop: the aggregate score dropped by max-drop or more.
	// Change (relative, negative), Baseline, Current, MaxDrop, and Label
	// when the accept label waived it; Detail, what the paired interval
	// and hard-drop say (appended as it is). When the item sets differ the check
	// compares the items in common: Common (their number; 0 when the full
	// sets were compared), Added, Removed, FullBaseline, FullCurrent (the
	// full sets' scores, shown beside).
	AggregateDrop Kind = "aggregate-drop"
	// WithinMaxDrop: the aggregate change is within max-drop.
	// Change, Baseline, Current, MaxDrop; Common, Added, Removed,
	// FullBaseline, FullCurrent as for AggregateDrop.
	WithinMaxDrop Kind = "within-max-drop"
	// DropWithinNoise: a drop at or above max-drop whose paired interval
	// includes 0 passed under noisy-drop warn. Change, MaxDrop.
	DropWithinNoise Kind = "drop-within-noise"
	// RerunNeeded: a drop at or above max-drop whose paired interval
	// includes 0, under noisy-drop rerun: the run is to be re-run with
	// Count more answers per item and gated on both runs. Change, MaxDrop,
	// Count.
	RerunNeeded Kind = "rerun-needed"
	// AttemptsPooled: this change request's code was gated Attempts
	// times at the same evaluated inputs and rubric; Change is the pooled
	// relative change, PooledLow and PooledHigh its 95% interval, MaxDrop
	// the threshold; Held is set when an earlier attempt blocked and the
	// pooled interval does not lie within max-drop (the attempt is held),
	// Cleared when it does.
	AttemptsPooled Kind = "attempts-pooled"
	// FinalNoRequest: a final gate (--final) whose state shows no re-run
	// asked at these inputs: it is not the gate of a re-run's union.
	FinalNoRequest Kind = "final-no-request"
	// FinalAnswersMissing: the final gate's union does not hold the first
	// run's answers (the first Count answers of every item, in order).
	FinalAnswersMissing Kind = "final-answers-missing"
	// FinalTooFewAnswers: the final gate's union has Count answers for an
	// item where the first run's and the re-run's make Total.
	FinalTooFewAnswers Kind = "final-too-few-answers"
	// FinalUnbound: the final gate cannot read back the first run's
	// request (no state: no comment read back, no local store), so it
	// cannot check that its union holds the first run's answers.
	FinalUnbound Kind = "final-unbound"
	// NoCommonItems: the run shares no item with the baseline, so the
	// relative check compares the full sets.
	NoCommonItems Kind = "no-common-items"
	// NoBlockingFailed: nothing blocked and there was nothing to compare.
	NoBlockingFailed Kind = "no-blocking-failed"
	// BaselineScoreZero: the relative check was skipped. Common > 0 when
	// it was the score of the items in common that was 0.
	BaselineScoreZero Kind = "baseline-score-zero"
)

// dropKinds are the renderers of these kinds (see renderers).
var dropKinds = map[Kind]renderer{
	AggregateDrop:   renderAggregateDrop,
	WithinMaxDrop:   renderWithinMaxDrop,
	DropWithinNoise: renderDropWithinNoise,
	RerunNeeded:     renderRerunNeeded,
	AttemptsPooled:  renderAttemptsPooled,
	FinalNoRequest: func(Finding, escaper) string {
		return "final gate: no re-run was asked at these items, inputs and rubric (the gate's state holds no request), so this is not the gate of a re-run's union; gate the first run without --final"
	},
	FinalAnswersMissing: func(f Finding, e escaper) string {
		return fmt.Sprintf("final gate: the union does not hold the first run's answers (the first %d answer(s) of every item, in order, as the first run's gate saw them): gate the union of the first run and its re-run", f.Count)
	},
	FinalTooFewAnswers: func(f Finding, e escaper) string {
		return fmt.Sprintf("final gate: an item has %d answer(s) where the first run's and the re-run asked for make %d", f.Count, f.Total)
	},
	FinalUnbound: func(Finding, escaper) string {
		return "final gate: the first run's request cannot be read back (no comment of the gate's own, no local store), so the gate cannot check that the union holds the first run's answers"
	},
	NoCommonItems:     renderNoCommonItems,
	NoBlockingFailed:  renderNoBlockingFailed,
	BaselineScoreZero: renderBaselineScoreZero,
}

func renderAggregateDrop(f Finding, e escaper) string {
	what := "aggregate score"
	if f.Common > 0 {
		what = "aggregate score of the items in common with the baseline"
	}
	s := fmt.Sprintf("%s dropped %s%% (%s), at or above max-drop %s", what, DropPct(-f.Change, f.MaxDrop), Scores(f.Baseline, f.Current, f.MaxDrop), Pct(f.MaxDrop)) + e.text(f.Detail) + f.basisNote()
	return accepted(e, f, s)
}

func renderWithinMaxDrop(f Finding, e escaper) string {
	what := "aggregate score"
	if f.Common > 0 {
		what = fmt.Sprintf("aggregate score of the %d items in common", f.Common)
	}
	return fmt.Sprintf("%s %s vs the baseline (%s), within max-drop %s", what, ChangePct(f.Change, f.MaxDrop), Scores(f.Baseline, f.Current, f.MaxDrop), Pct(f.MaxDrop)) + f.basisNote()
}

func renderDropWithinNoise(f Finding, e escaper) string {
	return fmt.Sprintf("the drop of %s%% is within noise: its 95%% interval includes 0 (noisy-drop warn); more answers per item or more items would tell", DropPct(-f.Change, f.MaxDrop))
}

func renderRerunNeeded(f Finding, e escaper) string {
	return fmt.Sprintf("RERUN: the drop of %s%% is within noise (its 95%% interval includes 0) and noisy-drop is rerun: re-run the eval with %d more answer(s) per item and gate on both runs with --final; this run neither passes nor blocks", DropPct(-f.Change, f.MaxDrop), f.Count)
}

func renderAttemptsPooled(f Finding, e escaper) string {
	s := fmt.Sprintf("this code was gated %d times at the same items, inputs and rubric; pooled change %s (95%% CI %+.2f%% … %+.2f%%)", f.Attempts, ChangePct(f.Change, f.MaxDrop), 100*f.PooledLow, 100*f.PooledHigh)
	switch {
	case f.Held:
		return s + fmt.Sprintf("; an earlier attempt was blocked, and a re-run passes only when the pooled interval lies within max-drop %s", Pct(f.MaxDrop))
	case f.Cleared:
		return s + fmt.Sprintf("; an earlier attempt was blocked, and the pooled interval now lies within max-drop %s", Pct(f.MaxDrop))
	}
	return s + ": the decision is on the pooled change"
}

func renderNoCommonItems(f Finding, e escaper) string {
	return "the run shares no item with the baseline: the relative check compares the full sets, which may hold different items"
}

func renderNoBlockingFailed(f Finding, e escaper) string {
	return "no blocking criterion failed"
}

func renderBaselineScoreZero(f Finding, e escaper) string {
	if f.Common > 0 {
		return "the baseline score of the items in common is 0: the relative change is undefined and the relative check was skipped"
	}
	return "the baseline score is 0: the relative change is undefined and the relative check was skipped"
}

// basisNote says, for a check of the items in common, what the full sets did.
func (f Finding) basisNote() string {
	if f.Common <= 0 {
		return ""
	}
	full := "undefined"
	if f.FullBaseline > 0 {
		full = fmt.Sprintf("%+.2f%%", 100*(f.FullCurrent-f.FullBaseline)/f.FullBaseline)
	}
	if f.Unscored > 0 && f.Added == 0 && f.Removed == 0 {
		return fmt.Sprintf(" [%d item(s) of the baseline are unscored in this run and compared at score 0, the worst case; the full scores: %.1f → %.1f (this run's scored items only), %s]", f.Unscored, f.FullBaseline, f.FullCurrent, full)
	}
	unscored := ""
	if f.Unscored > 0 {
		unscored = fmt.Sprintf("; %d of them unscored in this run, compared at score 0", f.Unscored)
	}
	return fmt.Sprintf(" [the item sets differ (%d added, %d removed), so the %d items in common are compared%s; the full sets: %.1f → %.1f, %s]", f.Added, f.Removed, f.Common, unscored, f.FullBaseline, f.FullCurrent, full)
}
