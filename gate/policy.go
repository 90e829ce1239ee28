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
