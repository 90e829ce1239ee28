package finding

import (
	"fmt"
	"strconv"
)

// The kinds of the rubric: a change since the baseline, a renamed rubric, a remark on the file.
const (
	// RubricRescored: the rubric changed and the run was re-scored under
	// the baseline's. From, To (rubric hashes).
	RubricRescored Kind = "rubric-rescored"
	// RubricChange: the rubric changed in a way the gate cannot follow (the
	// run cannot be re-scored under the baseline's rubric, or does not carry
	// one of its blocking criteria); the headline of NotComparable and
	// UncheckedGate. From, To, Criteria (removed), PolicyFail
	// (on-rubric-change is fail), Label (the accept label accepted it) or
	// AcceptLabel (the label that would).
	RubricChange Kind = "rubric-change"
	// NotComparable: the rubric changed and the run could not be re-scored
	// under the baseline's rubric, so the relative check cannot run.
	// Detail (why), Label when the accept label accepted it.
	NotComparable Kind = "not-comparable"
	// UncheckedGate: a blocking criterion of the baseline's rubric that
	// items of the run do not carry. Criterion, Count, Label when the accept
	// label accepted it.
	UncheckedGate Kind = "unchecked-gate"
	// PromptChanged: texts of a criterion that reach the judge prompt differ
	// from the baseline rubric's, so the judge scored this run under other
	// instructions, which re-scoring cannot undo. Criterion, Fields (which
	// texts: "description", "anchor 3", "name", "scale", "na", "position",
	// or "added" / "removed" for a criterion new in or gone from the
	// prompt), Label when the accept label accepted it.
	PromptChanged Kind = "prompt-changed"
	// SkipDeprecated: on-rubric-change is the deprecated skip, read as block.
	SkipDeprecated Kind = "on-rubric-change-skip-deprecated"
	// RenamedRubric: the rubric's name has no baseline on the branch but
	// the store holds others there, or (Renamed) the store holds this very
	// rubric under other names and the slot under this one another
	// rubric's baseline: a rubric change. Rubric (the name),
	// Branch, Rubrics (the names found); NewBaseline on the baseline
	// branch, Label when the accept label accepted it, else AcceptLabel.
	RenamedRubric Kind = "renamed-rubric"
	// RubricWarning: a remark on the rubric file. File, Line, Col,
	// Criterion, Detail.
	RubricWarning Kind = "rubric-warning"
)

// rubricKinds are the renderers of these kinds (see renderers).
var rubricKinds = map[Kind]renderer{
	RubricRescored: renderRubricRescored,
	RubricChange:   renderRubricChange,
	NotComparable:  renderNotComparable,
	UncheckedGate:  renderUncheckedGate,
	PromptChanged:  renderPromptChanged,
	SkipDeprecated: renderSkipDeprecated,
	RenamedRubric:  renderRenamedRubric,
	RubricWarning:  renderRubricWarning,
}

func renderRubricRescored(f Finding, e escaper) string {
	return fmt.Sprintf("the rubric changed (%s → %s): the run was re-scored under the baseline's rubric to compare", e.text(ShortHash(f.From)), e.text(ShortHash(f.To)))
}

func renderRubricChange(f Finding, e escaper) string {
	s := fmt.Sprintf("RUBRIC CHANGE: the rubric changed (%s → %s) in a way the gate cannot follow", e.text(ShortHash(f.From)), e.text(ShortHash(f.To)))
	if len(f.Criteria) > 0 {
		s += "; criteria removed: " + e.ids(f.Criteria, e.id)
	}
	switch {
	case f.NewBaseline:
		s += "; this run is on the baseline branch, where the change was reviewed when it merged: a new baseline starts here"
	case f.PolicyFail:
		s += "; on-rubric-change is fail, so the accept label does not waive it"
	case f.Label == "" && f.AcceptLabel != "":
		s += "; a reviewer who accepts the change adds the " + e.id(f.AcceptLabel) + " label"
	}
	return accepted(e, f, s)
}

func renderNotComparable(f Finding, e escaper) string {
	why := "the results do not carry the baseline rubric's criteria"
	if f.Detail != "" {
		why = e.text(f.Detail)
	}
	return accepted(e, f, "the run cannot be re-scored under the baseline's rubric, so the scores are not comparable and the relative check cannot run: "+why)
}

func renderUncheckedGate(f Finding, e escaper) string {
	return accepted(e, f, fmt.Sprintf("the baseline rubric's blocking criterion %s is not carried by %d item(s), so that gate could not be checked on them", e.id(f.Criterion), f.Count))
}

func renderPromptChanged(f Finding, e escaper) string {
	what := fmt.Sprintf("the judge prompt's text of criterion %s changed: %s", e.id(f.Criterion), e.ids(f.Fields, e.text))
	switch {
	case len(f.Fields) == 1 && f.Fields[0] == "added":
		what = fmt.Sprintf("criterion %s is new in the judge prompt", e.id(f.Criterion))
	case len(f.Fields) == 1 && f.Fields[0] == "removed":
		what = fmt.Sprintf("criterion %s is gone from the judge prompt", e.id(f.Criterion))
	}
	return accepted(e, f, what+"; the judge scored this run under other instructions than the baseline's, which re-scoring under the baseline's rubric cannot undo")
}

func renderSkipDeprecated(f Finding, e escaper) string {
	return "on-rubric-change: skip is deprecated and now means block: a rubric change the gate cannot follow blocks unless the pull request carries the accept label"
}

func renderRenamedRubric(f Finding, e escaper) string {
	s := fmt.Sprintf("rubric %s has no baseline on branch %s, but the store holds baselines for %s there: a renamed rubric is a rubric change",
		e.q(f.Rubric), e.q(f.Branch), e.ids(f.Rubrics, e.id))
	if f.Renamed {
		s = fmt.Sprintf("rubric %s is the rubric the store holds on branch %s as %s, under a new name whose slot holds another rubric's baseline: a renamed rubric is a rubric change",
			e.q(f.Rubric), e.q(f.Branch), e.ids(f.Rubrics, e.id))
	}
	switch {
	case f.NewBaseline:
		return s + "; this run on the baseline branch starts a new baseline"
	case f.AcceptReason != "":
		return s + "; accepted with --accept (" + e.text(f.AcceptReason) + "): a new baseline starts when this merges"
	case f.Label != "":
		return s + "; accepted by the label " + e.id(f.Label) + ": a new baseline starts when this merges"
	}
	return s + " that the gate cannot follow; add the label " + e.id(f.AcceptLabel) + " to accept it (or pin the slot with baseline-key)"
}

func renderRubricWarning(f Finding, e escaper) string {
	loc := ""
	if f.File != "" {
		loc = e.id(f.File)
		if f.Line > 0 {
			loc += ":" + strconv.Itoa(f.Line)
			if f.Col > 0 {
				loc += ":" + strconv.Itoa(f.Col)
			}
		}
		loc += ": "
	}
	return loc + e.text(f.Detail)
}
