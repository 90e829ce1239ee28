package gate

import "math"

// z80 is the 80th percentile of the standard normal distribution: the
// power the minimum detectable drop is computed at is 80%.
const z80 = 0.8416212335729143

// DetectPower is the power of [Resolution.MinDetectable]: the drop blocks
// with this probability.
const DetectPower = 0.8

// Resolution says what the gate can see at this run's size and noise: the
// smallest real drop it blocks with 80% power, and what it would take to
// tell a drop of max-drop from zero (the interval lying below 0 with 80%
// power: (1.96 + 0.84)·SE <= max-drop, SE the relative change's standard
// error, the 95% half-width / 1.96).
//
// The per-item change's variance is split into answer noise (between the
// answers of one item: regenerated answers score differently) and the rest
// (items that really changed, τ²). Answer noise shrinks as 1/K with K
// answers per item; only more items shrink the rest. It is measured from
// the answer samples when either run has them (the same per-answer
// variance is assumed for a run without); without any, all of the
// variance is taken for answer noise (each run regenerated its single
// answers), which is the case of an unchanged model.
type Resolution struct {
	// Items is the number of common items; Answers and BaselineAnswers the
	// mean answers per item of this run and of the baseline.
	Items           int     `json:"items"`
	Answers         float64 `json:"answers"`
	BaselineAnswers float64 `json:"baseline_answers"`
	// HalfWidth is the 95% interval's half-width; SE = HalfWidth / 1.96,
	// or, for the expanded paired bootstrap, over √(n/(n-1))·t.
	HalfWidth float64 `json:"half_width"`
	SE        float64 `json:"se"`
	// Target is max-drop.
	Target float64 `json:"target"`
	// NoisyDrop is the mode MinDetectable is for.
	NoisyDrop NoisyMode `json:"noisy_drop"`
	// MinDetectable is the smallest real relative drop this run blocks
	// with 80% power: max-drop + 0.84·SE with noisy-drop block (any
	// observed drop at or above max-drop blocks) and rerun (a real drop, or
	// its final gate, blocks likewise; at this run's SE, which the re-run
	// only lowers); with warn the observed drop must also clear the
	// interval, 1.96·SE, or reach hard-drop: min(max(max-drop, 1.96·SE),
	// hard-drop) + 0.84·SE.
	MinDetectable float64 `json:"min_detectable_drop"`
	// Resolves is true when the interval tells a drop of max-drop from
	// zero with 80% power.
	Resolves bool `json:"resolves"`
	// ItemsNeeded is the number of items (at these answers per item) for
	// that; 0 when Resolves.
	ItemsNeeded int `json:"items_needed"`
	// AnswersNeeded is the answers per item, in this run and the
	// baseline, at this many items, for that; 0 when Resolves or when no
	// number of answers can (the items' own changes exceed the target:
	// add items).
	AnswersNeeded int `json:"answers_needed"`
	// AnswerNoise is the share of the per-item change's variance that is
	// answer noise; Measured says whether answer samples measured it.
	AnswerNoise float64 `json:"answer_noise"`
	Measured    bool    `json:"answer_noise_measured"`
	// RerunAnswers is how many more answers per item a re-run of this run
	// needs (the baseline as it is) to resolve max-drop, at least 1; when
	// no number can (the baseline's own noise is too large), this run's
	// answers per item (one more run like it).
	RerunAnswers int `json:"rerun_answers"`
	// rerunResolves is false when no number of answers in a re-run
	// resolves max-drop (RerunAnswers is then one more run like this one).
	rerunResolves bool
	// ownShare is the share of the per-item change's variance that is this
	// run's own answer noise: what a re-run of the same code draws anew
	// (the baseline's noise and the items' own changes are the same for
	// every attempt).
	ownShare float64
}

// NewResolution computes the resolution of the paired interval of p
// (half-width half) against th, base being the compared baseline mean.
func NewResolution(p *Paired, base, half float64, th Thresholds) *Resolution {
	r := &Resolution{Items: p.Common, HalfWidth: half, SE: p.stdErr(half), Target: th.MaxDrop, NoisyDrop: th.NoisyDrop,
		Answers: max(p.Answers, 1), BaselineAnswers: max(p.BaselineAnswers, 1)}
	if r.NoisyDrop == "" {
		r.NoisyDrop = NoisyBlock
	}
	r.MinDetectable = MinDetectable(r.SE, half, th)
	target := th.MaxDrop / (z975 + z80)
	n := float64(r.Items)
	vd := n * r.SE * r.SE // variance of one item's relative change
	// Per-answer variances (relative to the baseline mean), each run's.
	var sc, sb float64
	switch {
	case p.AnswerVarItems > 0 || p.BaselineAnswerVarItems > 0:
		r.Measured = true
		sc, sb = p.AnswerVar, p.BaselineAnswerVar
		if p.AnswerVarItems == 0 {
			sc = sb
		}
		if p.BaselineAnswerVarItems == 0 {
			sb = sc
		}
		if base > 0 {
			sc, sb = sc/(base*base), sb/(base*base)
		}
	default:
		s := vd / (1/r.Answers + 1/r.BaselineAnswers)
		sc, sb = s, s
	}
	wc, wb := sc/r.Answers, sb/r.BaselineAnswers
	tau := max(vd-wc-wb, 0)
	if vd > 0 {
		r.AnswerNoise = min((wc+wb)/vd, 1)
		r.ownShare = min(wc/vd, 1)
	}
	r.Resolves = r.SE <= target
	vt := n * target * target // the per-item variance that resolves max-drop
	if !r.Resolves && th.MaxDrop > 0 {
		r.ItemsNeeded = int(math.Ceil(n * (r.SE / target) * (r.SE / target)))
		if vt > tau && sc+sb > 0 {
			r.AnswersNeeded = int(math.Ceil((sc + sb) / (vt - tau)))
		}
	}
	r.RerunAnswers = int(math.Ceil(r.Answers))
	if room := vt - tau - wb; room > 0 && sc > 0 {
		r.RerunAnswers = max(int(math.Ceil(sc/room-r.Answers)), 1)
		r.rerunResolves = true
	}
	return r
}

// MinDetectable is the smallest real relative drop the gate blocks with
// 80% power when the relative change's standard error is se and its 95%
// interval's half-width is half, under th's noisy-drop mode (see
// Resolution.MinDetectable). The observed drop is taken as normal around
// the real one.
func MinDetectable(se, half float64, th Thresholds) float64 {
	t := th.MaxDrop
	if th.NoisyDrop == NoisyWarn {
		t = max(t, half)
		if th.HardDrop > th.MaxDrop {
			t = min(t, th.HardDrop)
		}
	}
	return t + z80*se
}
