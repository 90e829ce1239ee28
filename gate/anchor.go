package gate

import (
	"math"
	"time"
)

// DefaultMaxDrift is the default max-drift: the cumulative drop below the
// branch's anchor that blocks (see [CheckDrift]).
const DefaultMaxDrift = 0.05

// z95 is the 95th percentile of the standard normal distribution: the
// drift rule's one-sided bound.
const z95 = 1.6448536269514722

// AnchorCause says why an anchor is where it is.
type AnchorCause string

// The causes of an anchor.
const (
	// AnchorStart: the branch's first baseline with an anchor (or the first
	// after a change the gate could not follow) set it, measured over the
	// pool's warm-up (its first runs).
	AnchorStart AnchorCause = "start"
	// AnchorAccepted: a run whose regression was accepted (the accept
	// label or --accept) set it, measured over the pool's warm-up.
	AnchorAccepted AnchorCause = "accepted"
	// AnchorImprovement: a baseline resolved above the anchor raised it
	// to the lower one-sided 95% bound of its gain.
	AnchorImprovement AnchorCause = "improvement"
)

// Anchor is the level a branch's score is held to over time: a run more
// than max-drift below it blocks, whatever the steps that led there. It
// moves only by an accepted regression or by an improvement, never by
// drift. Its figures are on the items and rubric of the baseline that
// carries it.
type Anchor struct {
	// Score is the anchor's score (0-100); SE its standard error in
	// points (0: not measured).
	Score float64 `json:"score"`
	SE    float64 `json:"se"`
	// SHA is the commit of the run that set it (hex; "" when unknown), Date
	// when that run was made.
	SHA  string    `json:"sha,omitempty"`
	Date time.Time `json:"date"`
	// Runs is how many runs its score pools.
	Runs int `json:"runs"`
	// Cause says what set it; Reason is the acceptance's reason (the
	// --accept reason, or the label's name) for an accepted anchor.
	Cause  AnchorCause `json:"cause"`
	Reason string      `json:"reason,omitempty"`
}

// DriftInput is what the drift rule reads: the baseline's anchor, the
// baseline's score (on the same items as the anchor), this run's relative
// change from the baseline on the drop check's basis, this run's standard
// error and max-drift.
type DriftInput struct {
	Anchor        *Anchor
	BaselineScore float64
	// Change is (current - baseline) / baseline, on the items compared.
	Change float64
	// RunSE is the standard error of this run's score, in points on the
	// baseline's scale (0: not measured).
	RunSE float64
	// MaxDrift is the cumulative drop that blocks (0: the rule is off).
	MaxDrift float64
}

// DriftCheck is the drift rule's outcome, for the report and the comment.
type DriftCheck struct {
	// Anchor is the anchor compared with.
	Anchor Anchor `json:"anchor"`
	// Current is this run's score on the anchor's scale: the anchor's
	// score moved by Cumulative.
	Current float64 `json:"current"`
	// Cumulative is the relative change since the anchor (negative: a
	// drop): (1 + this run's change) · baseline / anchor - 1.
	Cumulative float64 `json:"cumulative_change"`
	// MaxDrift is the setting; Margin what is left of it (max-drift minus
	// the cumulative drop; negative once beyond it).
	MaxDrift float64 `json:"max_drift"`
	Margin   float64 `json:"margin"`
	// SE is the standard error of Cumulative (this run's and the anchor's
	// noise); Bound its one-sided 95% upper bound, Cumulative + 1.645·SE.
	SE    float64 `json:"se"`
	Bound float64 `json:"bound"`
	// Blocks is true when the run is at least max-drift below the anchor
	// and the one-sided bound lies below 0 (the drop since the anchor is
	// not noise).
	Blocks bool `json:"blocks"`
}

// CheckDrift is the drift rule: a run max-drift or more below the
// branch's anchor blocks, when the drop since the anchor is beyond noise
// too (its one-sided 95% upper bound, from this run's and the anchor's
// standard errors, lies below 0), like the drop rule's interval under
// noisy-drop warn. It returns nil when there is nothing to check (no
// anchor, max-drift 0, figures that are not positive and finite).
func CheckDrift(in DriftInput) *DriftCheck {
	a := in.Anchor
	if a == nil || in.MaxDrift <= 0 || !(a.Score > 0) || !(in.BaselineScore > 0) || math.IsNaN(in.Change) || math.IsInf(in.Change, 0) {
		return nil
	}
	dc := &DriftCheck{Anchor: *a, MaxDrift: in.MaxDrift}
	dc.Current = (1 + in.Change) * in.BaselineScore
	dc.Cumulative = dc.Current/a.Score - 1
	dc.Margin = in.MaxDrift + dc.Cumulative
	dc.SE = math.Sqrt(in.RunSE*in.RunSE+a.SE*a.SE) / a.Score
	dc.Bound = dc.Cumulative + z95*dc.SE
	dc.Blocks = -dc.Cumulative >= in.MaxDrift-dropTolerance && dc.Bound < 0
	return dc
}

// RunNoise splits the noise of a paired comparison between its two sides:
// the standard errors, in points, of this run's score and of the
// baseline's, from the paired interval's width and the answers per item,
// as [NewResolution] splits it (answer noise measured from the answer
// samples when either side has them, else the whole per-item variance
// taken for answer noise). ok is false without a paired interval.
func RunNoise(p *Paired, base float64) (run, baseline float64, ok bool) {
	if p == nil || p.Method != MethodPaired || p.CI95 == nil || p.Common < 2 || !(base > 0) {
		return 0, 0, false
	}
	se := p.stdErr((p.CI95[1] - p.CI95[0]) / 2)
	n := float64(p.Common)
	kc, kb := max(p.Answers, 1), max(p.BaselineAnswers, 1)
	var sc, sb float64 // per-answer variances, relative
	if p.AnswerVarItems > 0 || p.BaselineAnswerVarItems > 0 {
		sc, sb = p.AnswerVar, p.BaselineAnswerVar
		if p.AnswerVarItems == 0 {
			sc = sb
		}
		if p.BaselineAnswerVarItems == 0 {
			sb = sc
		}
		sc, sb = sc/(base*base), sb/(base*base)
	} else {
		s := n * se * se / (1/kc + 1/kb)
		sc, sb = s, s
	}
	run = math.Sqrt(sc/kc/n) * base
	baseline = math.Sqrt(sb/kb/n) * base
	if math.IsNaN(run) || math.IsNaN(baseline) {
		return 0, 0, false
	}
	return run, baseline, true
}
