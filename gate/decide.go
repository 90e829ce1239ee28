package gate

import (
	"time"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/rubric"
)

// Thresholds are the numbers the decision compares against.
type Thresholds struct {
	// MaxDrop is the relative drop of the aggregate score that blocks (0.02 = 2%).
	MaxDrop float64
	// MaxBaselineAge warns when the baseline is older than this (0: never).
	MaxBaselineAge time.Duration
	// WorstItems is how many item regressions the report keeps.
	WorstItems int
	// NoisyDrop is what a drop at or above MaxDrop does when its paired 95%
	// interval includes zero: NoisyBlock (block, the plain rule) or
	// NoisyWarn (pass with a warning that the drop is within noise).
	NoisyDrop NoisyMode
	// HardDrop is the relative drop that blocks whatever the interval says
	// (with NoisyWarn; with NoisyBlock MaxDrop already blocks).
	HardDrop float64
	// Final is set on the last gate of a noisy-drop rerun (the gate on the
	// union of the first run and its re-run): a drop at or above max-drop
	// then blocks as under noisy-drop block, interval or not, and never
	// asks for another rerun. (Decided on about twice the answers, and
	// only after a first run that was not clear, it blocks unchanged pull
	// requests far less often than block mode and misses no more real
	// drops: see docs/gate.md.)
	Final bool
	// RerunMaxRuns bounds what a noisy-drop rerun asks for: at most this
	// many times this run's answers per item (0: DefaultRerunMaxRuns).
	RerunMaxRuns int
	// MaxDrift is the cumulative drop below the branch's anchor that
	// blocks when beyond noise (driftRule; 0: the rule is off).
	MaxDrift float64
}

// DefaultThresholds block on a 2% relative drop of the aggregate score (with
// noisy-drop warn, a 5% drop blocks whatever the interval) and warn on a
// baseline older than 30 days.
var DefaultThresholds = Thresholds{
	MaxDrop:        0.02,
	MaxBaselineAge: 30 * 24 * time.Hour,
	WorstItems:     10,
	NoisyDrop:      NoisyBlock,
	HardDrop:       0.05,
	RerunMaxRuns:   DefaultRerunMaxRuns,
	MaxDrift:       DefaultMaxDrift,
}

// Decision is the gate's verdict: [Pass] or [Block]. It is written in the
// JSON report as the plain word.
type Decision string

// The decisions: Decide is the one place that chooses between them.
const (
	Pass  Decision = "pass"
	Block Decision = "block"
	// Rerun: nothing blocks, but a drop at or above max-drop is within
	// noise under noisy-drop rerun: the run neither passes nor blocks
	// until it is re-run with more answers per item and gated again on
	// both runs (DropCheck.RerunAnswers says how many).
	Rerun Decision = "rerun"
)

// DecideInput is everything the decision needs, already read and scored.
type DecideInput struct {
	// Current is the run under the current rubric.
	Current *Report
	// Rubric is the current rubric (for the gate flags of each criterion).
	Rubric *rubric.Rubric
	// Baseline is the last passing run; nil when none was found.
	Baseline *Baseline
	// NoBaselineNote explains why there is no baseline (not found, store error
	// passed by policy); shown in the report.
	NoBaselineNote string
	// Compared is the run scored under the baseline's rubric when the rubrics
	// differ (nil when they are the same, or when re-scoring was impossible).
	Compared *Report
	// RescoreErr says why re-scoring under the baseline's rubric was impossible.
	RescoreErr error
	// BaselineGates is the check of the baseline rubric's blocking criteria
	// when the rubrics differ (see CheckBlocking); it applies whether or not
	// the run could be re-scored.
	BaselineGates *GateCheck
	// Paired is the item-level comparison (nil without a baseline).
	Paired *Paired
	// Now is the time used for the baseline's age.
	Now time.Time
	// Renamed is set when the baseline store knows this run's rubric on
	// the branch under another name (a renamed rubric, a rubric change):
	// its slot is empty while others are not, or holds another rubric's
	// baseline while another slot holds this rubric. It blocks like a
	// rubric change the gate cannot follow.
	Renamed *RenamedRubric
	// Acceptance is what is known of the accept label's record, used when
	// Policy.Accepted says the label is on.
	Acceptance Acceptance
	// Attempts are the earlier attempts at these inputs (see
	// AttemptsInput; zero: each run is decided alone).
	Attempts AttemptsInput
	Thresholds
	Policy
}

// RenamedRubric says that the rubric's name (which a pull request edits) is
// not the one the baseline branch's store holds: Rubric is the run's name,
// Branch the baseline branch, Others the names the store holds there.
type RenamedRubric struct {
	Rubric, Branch string
	Others         []string
	// Same is true when Others hold this very rubric (name and version
	// aside) while the slot under the new name holds another rubric's
	// baseline.
	Same bool
}

// Decide makes the gate decision. It never fails: every situation maps to a
// pass or a block with reasons; errors in reading belong to the caller.
//
// Decide is pure: in.Current is not changed (the report carries a copy with
// the decision's warnings and the baseline rubric's failures added), so two
// calls with the same input give the same report.
//
// It reads as the list of rules it applies, in order; each rule is a small
// function in a gate/rule_*.go file that takes typed values and returns a
// [ruling] (what it found, by what that does to the decision), sometimes
// with figures for the report. The order matters: it is the order of the
// reasons and warnings.
func Decide(in DecideInput) *GateReport {
	cur := copyReport(in.Current)
	g := &GateReport{Report: cur, Decision: Pass, Reasons: []string{}, MaxDrop: in.MaxDrop, Paired: in.Paired}
	v := &verdict{policy: in.Policy}

	// Safety (rule_safety.go): blocking criteria, never waived.
	safety, extra := safetyRule(cur.BlockingFailures, in.BaselineGates)
	v.apply(safety)
	cur.BlockingFailures = append(cur.BlockingFailures, extra...)
	v.apply(skipDeprecatedRule(in.OnRubricChange))
	g.BlockingCount = len(cur.BlockingFailures)
	// Unscored items (rule_unscored.go): never waived.
	v.apply(unscoredRule(cur.Scored, cur.Items, cur.Unscored))
	// A renamed rubric (rule_rubric.go): waivable.
	v.apply(renamedRule(in.Renamed))

	// A final gate is bound to its first run (rule_attempts.go): never waived.
	v.apply(finalBindingRule(in.Attempts, in.Final))

	b := in.Baseline
	if b == nil {
		// No baseline (rule_baseline.go).
		v.apply(noBaselineRule(in.NoBaselineNote, in.IfNoBaseline, in.Renamed != nil, in.BaselineBranchRun))
	} else {
		g.Baseline = baselineInfo(b)
		// Rubric change (rule_rubric.go): re-scored, or not comparable.
		rc := rubricChangeRule(in, cur)
		v.apply(rc.ruling)
		g.Rescored, g.RubricChange = rc.Rescored, rc.Change
		if c := rc.Compared; c != nil && c.Score != nil {
			score := *c.Score
			g.Comparable, g.ComparedScore = true, &score
			if b.Score > 0 {
				rel := (score - b.Score) / b.Score
				g.RelativeChange = &rel
			}
			// The relative drop (rule_drop.go), and what noisy-drop does
			// with a drop within noise (rule_noise.go).
			drop := dropRule(dropInput{Baseline: b.Score, Current: score, Paired: in.Paired, Thresholds: in.Thresholds})
			// Decided on every attempt at these inputs (rule_attempts.go).
			drop, g.Attempts = attemptsRule(attemptsInput{AttemptsInput: in.Attempts, Drop: drop, Baseline: b.Score, Accepted: in.Accepted, Thresholds: in.Thresholds})
			v.apply(drop.ruling)
			g.DropCheck = drop.Check
			// The cumulative drop below the branch's anchor (rule_drift.go).
			drift := driftRule(driftInputOf(b, drop.Check, in.Paired, in.MaxDrift), drop.Check != nil && drop.Check.Blocks)
			v.apply(drift.ruling)
			g.DriftCheck = drift.Check
			g.Changes = criterionChanges(c, b, gateFlags(in.Rubric, b.Rubric))
		}
		// The baseline's age (rule_baseline.go), the item sets (rule_items.go).
		v.apply(baselineAgeRule(b.Source.CreatedAt, in.Now, in.MaxBaselineAge))
		v.apply(itemSetsRule(in.Paired))
		removed, ri := removedItemsRule(in.Paired)
		v.apply(removed)
		g.RemovedItems = ri
		v.apply(taskRule(in.Paired))
		if p := in.Paired; p != nil && p.CI95 != nil {
			ci := *p.CI95
			g.CI95 = &ci
		}
	}
	if g.Changes == nil {
		g.Changes = criterionChanges(cur, nil, gateFlags(in.Rubric, nil))
	}
	g.Trend = TrendOf(b, g)

	// Acceptance (rule_accept.go): the accept label settles the decision.
	reasons := acceptanceRule(in, g, v)
	if g.Decision == Pass && len(reasons) == 0 {
		reasons = append(reasons, passReason(in, g))
	}
	// The one place the English is derived from the findings.
	g.Reasons = Texts(reasons)
	cur.Warn(v.warns...)
	g.Findings = append(reasons, cur.Findings...)
	return g
}

// copyReport is a copy of r whose warnings, findings and blocking failures
// the decision may add to without changing r.
func copyReport(r *Report) *Report {
	cc := *r
	cc.Warnings = append([]string{}, r.Warnings...)
	cc.Findings = append([]finding.Finding{}, r.Findings...)
	cc.BlockingFailures = append([]BlockingFailure{}, r.BlockingFailures...)
	return &cc
}

// ruling is what one rule found, by what it does to the decision.
type ruling struct {
	// Hard findings block, never waived.
	Hard []finding.Finding
	// Soft findings block unless accepted (the accept label or --accept),
	// on the baseline branch's run too.
	Soft []finding.Finding
	// Waivable findings are one change the accept label waives: a soft
	// block on a change request (its first finding naming the label when
	// it is off), warnings on the baseline branch's run, where a new
	// baseline starts.
	Waivable []finding.Finding
	// Waivers are the kinds of the Soft or Waivable findings, for the
	// accept label's record (none when Waivable turns into warnings).
	Waivers []Waiver
	// Pass findings say why a run passed (notices).
	Pass []finding.Finding
	// Warn findings are warnings; they never change the decision.
	Warn []finding.Finding
	// Rerun findings ask for a re-run (a drop within noise under
	// noisy-drop rerun): the run neither passes nor blocks.
	Rerun []finding.Finding
}

// add appends o's findings to r's.
func (r *ruling) add(o ruling) {
	r.Hard = append(r.Hard, o.Hard...)
	r.Soft = append(r.Soft, o.Soft...)
	r.Waivable = append(r.Waivable, o.Waivable...)
	r.Waivers = append(r.Waivers, o.Waivers...)
	r.Pass = append(r.Pass, o.Pass...)
	r.Warn = append(r.Warn, o.Warn...)
	r.Rerun = append(r.Rerun, o.Rerun...)
}

// verdict gathers the rulings of Decide's rules in the order they apply.
type verdict struct {
	// hard: blocks, never waived; soft: blocks unless accepted; pass:
	// notices that say why a run passed; warns: warnings; rerun: asks for
	// a re-run.
	hard, soft, pass, warns, rerun []finding.Finding
	// waived are the kinds of the soft findings, for the accept label's record.
	waived []Waiver
	policy Policy
}

// apply adds one rule's ruling. Its Waivable findings become warnings on
// the baseline branch's own run (a new baseline starts), else a soft block
// (naming the label that would waive it when it is off).
func (v *verdict) apply(r ruling) {
	v.hard = append(v.hard, r.Hard...)
	v.soft = append(v.soft, r.Soft...)
	v.pass = append(v.pass, r.Pass...)
	v.warn(r.Warn...)
	v.rerun = append(v.rerun, r.Rerun...)
	fs := r.Waivable
	switch {
	case len(fs) == 0:
		v.waived = append(v.waived, r.Waivers...)
		return
	case v.policy.BaselineBranchRun:
		fs[0].NewBaseline = true
		v.warn(fs...)
		return
	case !v.policy.Accepted:
		fs[0].AcceptLabel = v.policy.AcceptLabel
	}
	v.soft = append(v.soft, fs...)
	v.waived = append(v.waived, r.Waivers...)
}

// warn adds warnings.
func (v *verdict) warn(fs ...finding.Finding) {
	for _, f := range fs {
		f.Severity = finding.Warning
		v.warns = append(v.warns, f)
	}
}

// passReason says why a run passed when no rule said so: the drop within
// max-drop (over the items in common when the item sets differ), or that
// no blocking criterion failed when there was nothing to compare.
func passReason(in DecideInput, g *GateReport) finding.Finding {
	switch {
	case g.DropCheck != nil && g.DropCheck.Basis == BasisCommon:
		dc := g.DropCheck
		p := in.Paired
		return finding.Finding{Kind: finding.WithinMaxDrop, Severity: finding.Notice, Params: finding.Params{DropParams: finding.DropParams{Change: (dc.Current - dc.Baseline) / dc.Baseline, Baseline: dc.Baseline, Current: dc.Current, MaxDrop: in.MaxDrop, FullBaseline: in.Baseline.Score, FullCurrent: *g.ComparedScore}, ItemSetParams: finding.ItemSetParams{Common: p.Common, Added: p.Added, Removed: p.Removed, Unscored: p.Unscored}}}
	case g.RelativeChange != nil:
		return finding.Finding{Kind: finding.WithinMaxDrop, Severity: finding.Notice, Params: finding.Params{DropParams: finding.DropParams{Change: *g.RelativeChange, Baseline: in.Baseline.Score, Current: *g.ComparedScore, MaxDrop: in.MaxDrop}}}
	}
	return finding.Finding{Kind: finding.NoBlockingFailed, Severity: finding.Notice}
}
