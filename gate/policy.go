package gate

import (
	"fmt"
)

// NoBaselinePolicy is the if-no-baseline policy: what a run with no baseline
// does.
type NoBaselinePolicy string

// The if-no-baseline policies.
const (
	// NoBaselinePass: the run passes and starts the baseline.
	NoBaselinePass NoBaselinePolicy = "pass"
	// NoBaselineFail: the run is blocked.
	NoBaselineFail NoBaselinePolicy = "fail"
)

// ParseNoBaseline reads the if-no-baseline setting.
func ParseNoBaseline(s string) (NoBaselinePolicy, error) {
	switch p := NoBaselinePolicy(s); p {
	case NoBaselinePass, NoBaselineFail:
		return p, nil
	}
	return "", fmt.Errorf("if-no-baseline %q: expected pass or fail", s)
}

// RubricChangePolicy is the on-rubric-change policy: what a rubric change the
// gate cannot follow does (see [Policy.OnRubricChange]).
type RubricChangePolicy string

// The on-rubric-change policies.
const (
	// RubricChangeBlock: blocked unless the accept label is on (the default).
	RubricChangeBlock RubricChangePolicy = "block"
	// RubricChangeFail: blocked, the label does not waive it.
	RubricChangeFail RubricChangePolicy = "fail"
	// RubricChangeSkip is the deprecated name of RubricChangeBlock (warned).
	RubricChangeSkip RubricChangePolicy = "skip"
)

// ParseRubricChange reads the on-rubric-change setting.
func ParseRubricChange(s string) (RubricChangePolicy, error) {
	switch p := RubricChangePolicy(s); p {
	case RubricChangeBlock, RubricChangeFail, RubricChangeSkip:
		return p, nil
	}
	return "", fmt.Errorf("on-rubric-change %q: expected block or fail", s)
}

// PairMethod is how a run was compared with its baseline ([Paired.Method]).
type PairMethod string

// The comparison methods.
const (
	// MethodPaired: item by item, on the items both runs scored.
	MethodPaired PairMethod = "paired"
	// MethodUnpaired: the aggregates only (too few shared items).
	MethodUnpaired PairMethod = "unpaired"
)

// IntervalMethod is how a comparison's 95% interval was computed
// ([Paired.Interval]).
type IntervalMethod string

// The interval methods.
const (
	// IntervalBootstrap: a percentile bootstrap with a fixed seed.
	IntervalBootstrap IntervalMethod = "bootstrap"
	// IntervalNormal: a normal interval (the delta method).
	IntervalNormal IntervalMethod = "normal"
)

// Policy says what to do in the situations the numbers alone do not settle.
type Policy struct {
	// IfNoBaseline is NoBaselinePass (the run starts the baseline) or
	// NoBaselineFail.
	IfNoBaseline NoBaselinePolicy
	// OnRubricChange says what a rubric change the gate cannot follow does:
	// the run cannot be re-scored under the baseline's rubric, or it does not
	// carry a blocking criterion of the baseline's rubric. "block" (the
	// default): the run is blocked unless the accept label is on the pull
	// request. "fail": blocked, the label does not waive it. "skip" is the
	// deprecated name of "block" (it used to skip the relative check, which
	// let a renamed criterion switch the drop check and the safety gate off).
	OnRubricChange RubricChangePolicy
	// Accepted is true when the pull request carries the accept label: a
	// relative-drop block, or a rubric change the gate cannot follow (under
	// on-rubric-change block), becomes a recorded, accepted pass.
	Accepted bool
	// AcceptLabel names the label, for the reason text.
	AcceptLabel string
	// AcceptReason, when set, is the reason given with --accept: the run
	// is accepted as with the label (Accepted must be true), for this run
	// only, and the reason is recorded with what it waived.
	AcceptReason string
	// BaselineBranchRun is true for a trusted run on the baseline branch
	// (a push to it): the changes a pull request needs the accept label
	// for were reviewed when it merged, so a rubric change the gate cannot
	// follow and baseline items the run no longer carries are warnings
	// there, and a new baseline starts with this run. Hard gates and the
	// relative drop still block.
	BaselineBranchRun bool
}

// DefaultPolicy is the default of every policy input.
var DefaultPolicy = Policy{IfNoBaseline: NoBaselinePass, OnRubricChange: RubricChangeBlock, AcceptLabel: "rubricgate:accept-regression"}

// Validate checks the policy words.
func (p Policy) Validate() error {
	if _, err := ParseNoBaseline(string(p.IfNoBaseline)); err != nil {
		return err
	}
	_, err := ParseRubricChange(string(p.OnRubricChange))
	return err
}
