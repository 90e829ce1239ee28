package gate

import (
	"math"

	"github.com/rubricgate/rubricgate/finding"
)

// AttemptsInput is what the gate knows of the earlier attempts of this
// change request at the same evaluated inputs.
type AttemptsInput struct {
	// Kept is true when the gate keeps the attempts' state for this run:
	// a change request's run that reads back its own comment, or a local
	// run with an attempts store. Without it each run is decided alone.
	Kept bool
	// Key is this run's [AnswerDigest.Key].
	Key string
	// Prior is the state read back (nil: none); its Key may differ (the
	// inputs or the rubric changed: the attempts start anew).
	Prior *AttemptState
	// Digest is this run's answers (nil: none, nothing is bound).
	Digest *AnswerDigest
}

// AttemptsOutcome says how the attempts rule decided the drop.
type AttemptsOutcome string

// The outcomes of the attempts rule.
const (
	// AttemptFirst: no earlier attempt at these inputs: this run alone.
	AttemptFirst AttemptsOutcome = "first"
	// AttemptPooled: earlier attempts, none blocked: the drop rules apply
	// to the pooled change.
	AttemptPooled AttemptsOutcome = "pooled"
	// AttemptCleared: an earlier attempt blocked; the pooled interval
	// lies within max-drop: the drop passes.
	AttemptCleared AttemptsOutcome = "cleared"
	// AttemptHeld: an earlier attempt blocked; the pooled interval does
	// not lie within max-drop: the drop blocks (under noisy-drop rerun a
	// first gate asks for a re-run, whose answers may clear it).
	AttemptHeld AttemptsOutcome = "held"
	// AttemptAccepted: earlier attempts, but the accept label (or
	// --accept) is on: the acceptance settles the drop on this run's own
	// figures, which the comment shows.
	AttemptAccepted AttemptsOutcome = "accepted"
)

// AttemptsReport is what the attempts rule found, for the report.
type AttemptsReport struct {
	// Key is the digest of the evaluated inputs and rubric.
	Key string `json:"key"`
	// Attempts is how many times this code was gated at Key, this run
	// included (a final gate and its first run count once).
	Attempts int `json:"attempts"`
	// Change and SE are the pooled relative change and its standard
	// error, CI95 its 95% interval; nil without a paired interval.
	Change  *float64        `json:"pooled_change"`
	SE      float64         `json:"pooled_se"`
	CI95    *[2]float64     `json:"pooled_ci95"`
	Outcome AttemptsOutcome `json:"outcome"`
	// BlockedBefore is true when an earlier attempt's drop blocked.
	BlockedBefore bool `json:"blocked_before"`
	// Next is the state to keep for the next attempt.
	Next *AttemptState `json:"-"`
}

// attemptsInput is what the attempts rule reads: the state, this run's
// drop rule outcome and the thresholds.
type attemptsInput struct {
	AttemptsInput
	Drop     dropOutcome
	Baseline float64
	// Accepted is true when the accept label or --accept is on: the
	// acceptance settles a drop on this run's own figures (what the
	// comment showed), so the run is decided alone; it still counts as an
	// attempt.
	Accepted bool
	Thresholds
}

// finalBindingRule binds a final gate (--final) to its first run: the
// state must hold the re-run the first gate asked for at these inputs,
// and the union must hold the first run's answers (the first K of every
// item, in order) and as many more as it asked for. Its findings block,
// never waived; a final gate that cannot read the state back is warned.
func finalBindingRule(in AttemptsInput, final bool) ruling {
	switch {
	case !final:
		return ruling{}
	case !in.Kept || in.Digest == nil:
		return ruling{Warn: []finding.Finding{{Kind: finding.FinalUnbound}}}
	}
	p := in.Prior
	if p == nil || p.Key != in.Key || p.Pending == nil {
		return ruling{Hard: []finding.Finding{{Kind: finding.FinalNoRequest, Severity: finding.Error}}}
	}
	req := p.Pending
	var r ruling
	if in.Digest.Answers(min(req.K, maxDigestAnswers)) != req.Answers {
		r.Hard = append(r.Hard, finding.Finding{Kind: finding.FinalAnswersMissing, Severity: finding.Error, Params: finding.Params{Count: req.K}})
	}
	if got, want := in.Digest.MinAnswers(), req.K+req.Asked; got < want {
		r.Hard = append(r.Hard, finding.Finding{Kind: finding.FinalTooFewAnswers, Severity: finding.Error, Params: finding.Params{Count: got, Total: want}})
	}
	return r
}

// attemptsRule decides the drop on the evidence of every attempt at these
// inputs: this run's relative change and its standard error are pooled
// (inverse-variance) with the earlier attempts', and the drop rules apply
// to the pooled change. Once an attempt was blocked, a later one passes
// only when the pooled 95% interval lies within max-drop, so that
// re-running a blocked change until one draw comes in under the
// threshold passes no more often than its first attempt did. A first
// gate of noisy-drop rerun that asks for a re-run records its request
// (its answers' digest and the answers asked for), which binds the final
// gate, and its own estimate, which counts as an attempt if no final gate
// follows.
func attemptsRule(in attemptsInput) (dropOutcome, *AttemptsReport) {
	drop := in.Drop
	if !in.Kept || in.Key == "" {
		return drop, nil
	}
	rep := &AttemptsReport{Key: in.Key, Outcome: AttemptFirst}
	var prior AttemptState
	if in.Prior != nil && in.Prior.Key == in.Key {
		prior = *in.Prior
	}
	// The settled attempts: a first run whose re-run never came to a final
	// gate counts as an attempt; under a final gate its union supersedes it.
	base := prior.Pool
	if prior.Pending != nil && !in.Final {
		base = base.Add(prior.Pending.First)
	}
	rep.BlockedBefore = prior.Blocked
	next := &AttemptState{Key: in.Key, Pool: base, Blocked: prior.Blocked}
	rep.Next = next
	dc := drop.Check
	own, ok := attemptEstimate(dc)
	if !ok {
		// No paired interval: counted, decided alone.
		rep.Attempts = base.N + 1
		next.Pool.N++
		next.Blocked = next.Blocked || dc != nil && dc.Blocks
		return drop, rep
	}
	pooled := base.Add(own)
	rep.Attempts = pooled.N
	ch, ci := pooled.Change, pooled.CI95()
	rep.Change, rep.SE, rep.CI95 = &ch, pooled.SE, &ci
	switch {
	case base.N > 0 && in.Accepted:
		rep.Outcome = AttemptAccepted
	case base.N > 0:
		drop = pooledDrop(in, dc, pooled, prior.Blocked, rep)
		dc = drop.Check
	}
	next.Blocked = next.Blocked || dc.Blocks
	if dc.Rerun && in.Digest != nil {
		// The re-run's final gate is bound to this run; its own estimate
		// waits there.
		k := in.Digest.MinAnswers()
		next.Pending = &RerunRequest{Answers: in.Digest.Answers(min(k, maxDigestAnswers)), K: k, Asked: dc.RerunAnswers, First: own}
	} else {
		next.Pool = pooled
	}
	return drop, rep
}

// attemptEstimate is the attempt's own relative change and the standard
// error of what a re-run draws anew: the part of the paired interval's
// variance that is this run's own answer noise (Resolution's split; half
// without one, as for two runs alike). The baseline's noise and the items'
// own changes are the same for every attempt against this baseline: no
// re-run can average them away, and none can re-draw them. ok is false
// without an interval.
func attemptEstimate(dc *DropCheck) (Estimate, bool) {
	if dc == nil || dc.CI95 == nil || !(dc.CI95[1] > dc.CI95[0]) {
		return Estimate{}, false
	}
	se := dc.se
	if se == 0 {
		se = (dc.CI95[1] - dc.CI95[0]) / 2 / z975
	}
	share := 0.5
	if r := dc.Resolution; r != nil && r.ownShare > 0 {
		share = r.ownShare
	}
	// At least a tenth of the interval: a run with no answer noise
	// measured must not outweigh every other attempt.
	return Estimate{N: 1, Change: -dc.Drop, SE: se * max(math.Sqrt(share), 0.1)}, true
}

// pooledDrop decides the drop on the pooled change: the drop rules as for
// one run, or, once an attempt was blocked, held unless the pooled
// interval lies within max-drop.
func pooledDrop(in attemptsInput, own *DropCheck, pooled Estimate, blocked bool, rep *AttemptsReport) dropOutcome {
	ci := pooled.CI95()
	dc := &DropCheck{Case: DropWithin, Drop: -pooled.Change, NoisyDrop: own.NoisyDrop, HardDrop: own.HardDrop, CI95: &ci,
		Resolution: own.Resolution, Basis: own.Basis, Baseline: own.Baseline, Current: own.Baseline * (1 + pooled.Change)}
	th := in.Thresholds
	f := finding.Finding{Kind: finding.AttemptsPooled, Params: finding.Params{DropParams: finding.DropParams{Change: pooled.Change, MaxDrop: th.MaxDrop},
		AttemptParams: finding.AttemptParams{Attempts: pooled.N, PooledLow: ci[0], PooledHigh: ci[1]}}}
	var out dropOutcome
	out.Check = dc
	switch {
	case !blocked:
		rep.Outcome = AttemptPooled
		if dropBlocks(dc.Baseline, dc.Current, th.MaxDrop) {
			dc.BeyondHard = dropBlocks(dc.Baseline, dc.Current, th.HardDrop)
			classifyDrop(dc, th.Final, th.RerunMaxRuns)
		}
	case -ci[0] < th.MaxDrop-dropTolerance:
		rep.Outcome, f.Cleared = AttemptCleared, true
	default:
		rep.Outcome, f.Held = AttemptHeld, true
		dc.Case = DropNoise
		switch {
		case ci[1] < 0:
			// A real drop: it blocks at once, as for one run.
			dc.Case, dc.Blocks = DropReal, true
		case th.NoisyDrop == NoisyRerun && !th.Final:
			askRerun(dc, th.RerunMaxRuns)
		default:
			dc.Blocks = true
		}
	}
	if dc.Case == DropWithin {
		// The pooled change passes: the reason it does.
		out.Pass = []finding.Finding{f}
		return out
	}
	if f.Held {
		dc.Reason = f.Text()
		if dc.Rerun {
			out.Rerun = []finding.Finding{{Kind: finding.RerunNeeded, Params: finding.Params{Count: dc.RerunAnswers, DropParams: finding.DropParams{Change: -dc.Drop, MaxDrop: th.MaxDrop}}}, f}
			return out
		}
		out.Soft, out.Waivers = []finding.Finding{f}, []Waiver{WaiveDrop}
		return out
	}
	df := dropFinding(dc, dc.Baseline, dc.Current, th.MaxDrop, in.Baseline, dc.Current, nil)
	dc.Reason = df.Text()
	if dc.Blocks {
		out.Soft, out.Waivers = []finding.Finding{df}, []Waiver{WaiveDrop}
	} else {
		out.add(noisyDropRule(dc, df, th.MaxDrop))
	}
	out.Warn = append(out.Warn, f)
	return out
}
