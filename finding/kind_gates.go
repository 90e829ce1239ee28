package finding

import (
	"fmt"
	"strings"
)

// The kinds of the hard gates: blocking criteria and unscored items.
const (
	// BlockingFailure: items below a blocking criterion's minimum.
	// Criterion, Items (all of them; Text lists five), BaselineRubric.
	BlockingFailure Kind = "blocking-failure"
	// UnscoredGate: unscored items (judge errors) that carry no value for a
	// blocking criterion, which fails closed on them. Criterion, Items,
	// BaselineRubric.
	UnscoredGate Kind = "unscored-gate"
	// NoItemScored: every item carries a judge error. Count (unscored), Total.
	NoItemScored Kind = "no-item-scored"
	// TooManyUnscored: more unscored items than max-unscored allows.
	// Count, Total, Rate.
	TooManyUnscored Kind = "too-many-unscored"
	// OutvotedFailures: items of a blocking criterion with a failing
	// judging outvoted by the majority of their judgings. Criterion, Count,
	// Items (the first ids).
	OutvotedFailures Kind = "outvoted-failures"
)

// gateKinds are the renderers of these kinds (see renderers).
var gateKinds = map[Kind]renderer{
	BlockingFailure:  renderBlockingFailure,
	UnscoredGate:     renderUnscoredGate,
	NoItemScored:     renderNoItemScored,
	TooManyUnscored:  renderTooManyUnscored,
	OutvotedFailures: renderOutvotedFailures,
}

func renderBlockingFailure(f Finding, e escaper) string {
	ids := make([]string, 0, min(len(f.Items), maxListed))
	for _, id := range f.Items[:min(len(f.Items), maxListed)] {
		ids = append(ids, e.id(id))
	}
	list := strings.Join(ids, ", ")
	if len(f.Items) > maxListed {
		list += fmt.Sprintf(" and %d more", len(f.Items)-maxListed)
	}
	s := fmt.Sprintf("blocking criterion failed: %s on %d item(s): %s", e.id(f.Criterion), len(f.Items), list)
	if f.BaselineRubric {
		s += " (under the baseline's rubric)"
	}
	return s
}

func renderUnscoredGate(f Finding, e escaper) string {
	s := fmt.Sprintf("blocking criterion %s has no score on %d unscored item(s) (judge errors): %s; it fails closed: re-run the judge on them", e.id(f.Criterion), len(f.Items), e.ids(f.Items[:min(len(f.Items), maxListed)], e.id))
	if len(f.Items) > maxListed {
		s += fmt.Sprintf(" and %d more", len(f.Items)-maxListed)
	}
	if f.BaselineRubric {
		s += " (under the baseline's rubric)"
	}
	return s
}

func renderNoItemScored(f Finding, e escaper) string {
	return fmt.Sprintf("no item was scored: %d of %d items carry a judge error", f.Count, f.Total)
}

func renderTooManyUnscored(f Finding, e escaper) string {
	return fmt.Sprintf("%d of %d items (%.1f%%) are unscored (judge errors), more than max-unscored allows", f.Count, f.Total, 100*f.Rate)
}

func renderOutvotedFailures(f Finding, e escaper) string {
	ids := e.ids(f.Items, e.id)
	if f.Count > len(f.Items) {
		ids += fmt.Sprintf(" and %d more", f.Count-len(f.Items))
	}
	return fmt.Sprintf("%s: %d item(s) had a failing judging outvoted by the majority (more than half of their judgings met the minimum): %s", e.id(f.Criterion), f.Count, ids)
}
