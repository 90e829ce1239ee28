package gate

import (
	"math"
	"time"
)

// TrendPoint is one baseline of a branch as its trend shows it: the
// baseline's score, its per-criterion normalised means, its commit and its
// date.
type TrendPoint struct {
	// Score is the baseline's mean item score (0-100).
	Score float64 `json:"score"`
	// Criteria are the baseline's per-criterion normalised means (0-100),
	// in the order of its rubric.
	Criteria []CriterionMean `json:"criteria"`
	// SHA is the commit the baseline was made on (hex; "" when unknown).
	SHA string `json:"sha,omitempty"`
	// Date is when the baseline was made.
	Date time.Time `json:"date"`
}

// CriterionMean is one criterion's normalised mean (0-100) in a
// [TrendPoint]; Normalized is nil when nothing scored it.
type CriterionMean struct {
	ID         string   `json:"id"`
	Normalized *float64 `json:"normalized"`
}

// Trend is where the score has been and where this run puts it: the
// baselines of the branch, oldest first (the one compared with last), and
// this run's point with its interval.
type Trend struct {
	// Points are the baselines, oldest first; the last is the baseline this
	// run was compared with.
	Points []TrendPoint `json:"points"`
	// Current is this run's compared score, nil when the run is not
	// comparable with the baseline (a rubric change it could not follow).
	Current *float64 `json:"current"`
	// CI95 is the 95% interval of this run's score: the interval of the
	// relative change applied to the baseline's score (nil without one).
	CI95 *[2]float64 `json:"ci95"`
	// Anchor is the branch's anchor score (nil without one), and Floor the
	// score max-drift below it, under which a run blocks (nil when the
	// drift rule did not run).
	Anchor *float64 `json:"anchor,omitempty"`
	Floor  *float64 `json:"floor,omitempty"`
}

// TrendOf is the trend of a report compared with baseline b: b's Trend
// and the report's compared score and interval. It is nil when b is nil
// or carries no trend.
func TrendOf(b *Baseline, g *GateReport) *Trend {
	if b == nil || len(b.Trend) == 0 {
		return nil
	}
	t := &Trend{Points: append([]TrendPoint(nil), b.Trend...)}
	if b.Anchor != nil {
		a := b.Anchor.Score
		t.Anchor = &a
		if dc := g.DriftCheck; dc != nil {
			fl := dc.Anchor.Score * (1 - dc.MaxDrift)
			t.Floor = &fl
		}
	}
	if g.Comparable && g.ComparedScore != nil {
		c := *g.ComparedScore
		t.Current = &c
		if g.CI95 != nil {
			lo, hi := b.Score*(1+g.CI95[0]), b.Score*(1+g.CI95[1])
			if !math.IsNaN(lo) && !math.IsNaN(hi) {
				t.CI95 = &[2]float64{lo, hi}
			}
		}
	}
	return t
}
