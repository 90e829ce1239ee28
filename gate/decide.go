package gate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/internal/fraction"
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
}

// NoisyMode is the noisy-drop setting.
type NoisyMode string

// The noisy-drop settings.
const (
	NoisyBlock NoisyMode = "block"
	NoisyWarn  NoisyMode = "warn"
	// NoisyRerun neither passes nor blocks a drop within noise: the
	// decision is [Rerun], asking for more answers per item; the gate on
	// the union of both runs (Thresholds.Final) decides as NoisyBlock.
	NoisyRerun NoisyMode = "rerun"
)

// ParseNoisyMode reads the noisy-drop setting.
func ParseNoisyMode(s string) (NoisyMode, error) {
	switch m := NoisyMode(strings.TrimSpace(s)); m {
	case NoisyBlock, NoisyWarn, NoisyRerun:
		return m, nil
	}
	return "", fmt.Errorf("noisy-drop %q: expected block, warn or rerun", s)
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
}

// DropCase is how the relative check ended.
type DropCase string

// The cases of the relative check.
const (
	// DropWithin: the change is within max-drop (or a rise); it passes.
	DropWithin DropCase = "within"
	// DropReal: a drop at or above max-drop that blocks: its interval lies
	// below zero, or noisy-drop is block, or there is no paired interval, or
	// it reached hard-drop.
	DropReal DropCase = "real"
	// DropNoise: a drop at or above max-drop whose paired interval includes
	// zero. It blocks with noisy-drop block (the interval is then shown as
	// a hint) and passes with a warning with noisy-drop warn.
	DropNoise DropCase = "noise"
)

// DropCheck is the relative check's outcome, for the report and the comment.
type DropCheck struct {
	Case DropCase `json:"case"`
	// Blocks is true when this check blocks the run (before the accept label).
	Blocks bool `json:"blocks"`
	// Drop is the relative drop (positive for a drop).
	Drop float64 `json:"drop"`
	// NoisyDrop and HardDrop are the settings used.
	NoisyDrop NoisyMode `json:"noisy_drop"`
	HardDrop  float64   `json:"hard_drop"`
	// BeyondHard is true when the drop reached hard-drop (in either mode).
	BeyondHard bool `json:"beyond_hard"`
	// CI95 is the paired 95% interval used, nil without one.
	CI95 *[2]float64 `json:"ci95"`
	// Resolution is what the interval's width lets the gate tell apart; nil
	// without an interval.
	Resolution *Resolution `json:"resolution"`
	// Rerun is true for a drop within noise under noisy-drop rerun (not
	// Final): the decision is Rerun. RerunAnswers is how many more answers
	// per item the re-run should bring (Resolution.RerunAnswers).
	Rerun        bool `json:"rerun"`
	RerunAnswers int  `json:"rerun_answers,omitempty"`
	// Reason is the reason text of a drop at or above max-drop ("" otherwise).
	Reason string `json:"reason"`
	// Basis says which items were compared: "all" (the full sets: they are
	// the same, or share no item) or "common" (the items of the baseline
	// that this run scored too, when the sets differ).
	Basis string `json:"basis"`
	// Baseline and Current are the scores compared (0-100): the full sets'
	// or the common items' means.
	Baseline float64 `json:"baseline"`
	Current  float64 `json:"current"`
}

// The bases of the relative check.
const (
	BasisAll    = "all"
	BasisCommon = "common"
)

// dropTolerance absorbs floating-point error in the relative-drop check, so
// that a drop of exactly MaxDrop (in exact arithmetic) always blocks even when
// the aggregate means carry rounding error in their last bits.
const dropTolerance = 1e-9

// ParseMaxDrop reads a relative drop written as "2%" or as a fraction "0.02".
func ParseMaxDrop(s string) (float64, error) { return ParseDrop("max-drop", s) }

// ParseDrop reads the relative drop setting name, written as "2%" or as a
// fraction "0.02" (the one share parser, internal/fraction).
func ParseDrop(name, s string) (float64, error) { return fraction.Parse(name, s) }

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

// BaselineInfo is the baseline as the report shows it.
type BaselineInfo struct {
	Score     float64   `json:"score"`
	Source    string    `json:"source"`
	SHA       string    `json:"sha"`
	RunURL    string    `json:"run_url"`
	CreatedAt time.Time `json:"created_at"`
	// Kind is "file", "dir" or "github-artifact".
	Kind string `json:"kind"`
	// Ref is the branch or ref the baseline was made on.
	Ref string `json:"ref,omitempty"`
	// RubricHash is the hash of the rubric the baseline was scored under.
	RubricHash string `json:"rubric_hash"`
	// PooledRuns is how many consecutive runs of its branch the baseline
	// pools (0: one run).
	PooledRuns int `json:"pooled_runs,omitempty"`
}

// CriterionChange compares one criterion's normalised mean with the baseline's.
type CriterionChange struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
	// Baseline and Current are normalised means (0-100), nil when not scored.
	Baseline *float64 `json:"baseline"`
	Current  *float64 `json:"current"`
	// Change is Current - Baseline in points, nil when either is missing.
	Change *float64 `json:"change"`
	// Gate is true for criteria with a critical minimum; Blocking for run blockers.
	Gate     bool `json:"gate"`
	Blocking bool `json:"blocking"`
	// BelowMin counts current items below the minimum.
	BelowMin int `json:"below_min"`
	// Status is "ok", "down", "up", "fail" (blocking failure), "new" or "gone".
	Status string `json:"status"`
}

// GateReport is the full result of `rubricgate gate`: the run report plus
// the comparison and the decision. It is what the JSON, markdown and
// comment renderers take.
type GateReport struct {
	*Report
	// Baseline is null when no baseline was used.
	Baseline *BaselineInfo `json:"baseline"`
	// RelativeChange is (current - baseline) / baseline of the compared scores.
	RelativeChange *float64 `json:"relative_change"`
	// CI95 is a 95% bootstrap interval of the relative change.
	CI95 *[2]float64 `json:"ci95"`
	// Decision is "pass" or "block".
	Decision Decision `json:"decision"`
	// Reasons says why the run is blocked, or why it passed where that needs saying.
	Reasons []string `json:"reasons"`
	// Accepted is true when a relative-drop block was waived by the accept label.
	Accepted bool `json:"accepted"`
	// Acceptance is what the decision made of the accept label while it
	// is on (null otherwise): the record to keep and what it does not cover.
	Acceptance *AcceptOutcome `json:"acceptance,omitempty"`
	// Waivable is what this run waives, or would waive with the accept
	// label on, as a record at the change request's head (nil on the
	// baseline branch's run): what the sticky comment shows, which a
	// fresh acceptance is bound to (Acceptance.Shown of a later run).
	Waivable *AcceptRecord `json:"-"`
	// RemovedItems is set when baseline items are missing from this run (an
	// unscored item is not missing): how many, the first ids, and whether
	// the accept label accepted it.
	RemovedItems *RemovedItems `json:"removed_items,omitempty"`
	// Comparable is false when the relative check was skipped (rubric change
	// that could not be re-scored, or no baseline).
	Comparable bool `json:"comparable"`
	// Rescored is set when the run was re-scored under the baseline's rubric
	// to compare: the score under the baseline's rubric.
	Rescored *RescoredInfo `json:"rescored,omitempty"`
	// RubricChange is set when the rubric changed in a way the gate cannot
	// follow (see Policy.OnRubricChange): what changed, and whether the
	// accept label accepted it.
	RubricChange *RubricChange `json:"rubric_change,omitempty"`
	// ComparedScore is the current score the decision compared with the baseline.
	ComparedScore *float64 `json:"compared_score"`
	// MaxDrop is the threshold used.
	MaxDrop float64 `json:"max_drop"`
	// DropCheck is the relative check's outcome, null when it did not run.
	DropCheck *DropCheck `json:"drop_check"`
	// Changes are per-criterion changes, in rubric order.
	Changes []CriterionChange `json:"changes"`
	// Paired is the item-level comparison, null without a baseline.
	Paired *Paired `json:"paired"`
	// BlockReasons and Warnings are the machine-readable forms used for annotations.
	BlockingCount int `json:"blocking_failure_count"`
	// Tier is the staged-rollout decision, when tiers are in use.
	Tier *TierInfo `json:"tier,omitempty"`
	// Context says which run made the report (inside GitHub Actions), so a
	// later job can check a report it is asked to post.
	Context *RunContext `json:"context,omitempty"`
	// Findings are the typed forms of what the gate found, in order: the
	// reasons' findings (Error or Notice), then the warnings' (Warning),
	// the run report's own first. Reasons and Warnings are their text
	// (blocking failures joined as [finding.JoinBlocking] does); add a
	// warning to both with [GateReport.Warn].
	Findings []finding.Finding `json:"findings"`
	// Trend is the branch's recent baselines and this run's point, null
	// when the baseline carries no history (see [TrendOf]).
	Trend *Trend `json:"trend,omitempty"`
}

// RunContext identifies the CI run that made a report.
type RunContext struct {
	Repository  string `json:"repository"`
	EventName   string `json:"event_name"`
	SHA         string `json:"sha"`
	HeadSHA     string `json:"head_sha"`
	PullRequest int    `json:"pull_request,omitempty"`
	RunID       int64  `json:"run_id,omitempty"`
	RunURL      string `json:"run_url,omitempty"`
	CommentKey  string `json:"comment_key,omitempty"`
}

// RescoredInfo records a re-score under the baseline's rubric.
type RescoredInfo struct {
	RubricHash string  `json:"rubric_hash"`
	Score      float64 `json:"score"`
	// CurrentRubricScore is the score under the current rubric, shown beside.
	CurrentRubricScore *float64 `json:"current_rubric_score"`
}

// RubricChange records a rubric change the gate could not follow: the
// baseline's rubric and the current one differ, and the run could not be
// re-scored under the baseline's rubric, does not carry one of its
// blocking criteria, or was judged under other instructions (a text that
// reaches the judge prompt changed).
type RubricChange struct {
	// From and To are the rubric hashes, baseline's and current.
	From string `json:"from"`
	To   string `json:"to"`
	// Removed lists the baseline rubric's criteria the current rubric lacks.
	Removed []string `json:"removed"`
	// UncheckedGates counts, per blocking criterion of the baseline's rubric,
	// the items of this run that do not carry it.
	UncheckedGates map[string]int `json:"unchecked_gates"`
	// RescoreError says why the run could not be re-scored ("" when it was).
	RescoreError string `json:"rescore_error"`
	// PromptChanges lists the criteria whose judge-prompt texts differ from
	// the baseline rubric's, and which texts (see rubric.PromptChanges).
	// A judge given other instructions scores differently, which no
	// re-scoring under the baseline's rubric undoes.
	PromptChanges []rubric.PromptChange `json:"prompt_changes"`
	// Accepted is true when the accept label accepted the change.
	Accepted bool `json:"accepted"`
}

// RemovedItems records baseline items that the run no longer carries. A
// pull request must not remove the items it regressed: it blocks unless the
// accept label is on (a warning on the baseline branch).
type RemovedItems struct {
	Count int      `json:"count"`
	IDs   []string `json:"ids"`
	// Accepted is true when the accept label accepted the removal.
	Accepted bool `json:"accepted"`
}

// TierInfo is the staged-rollout outcome carried in the gate report.
type TierInfo struct {
	Current    int      `json:"current"`
	Next       int      `json:"next"`
	MayAdvance bool     `json:"may_advance"`
	HeldBy     []string `json:"held_by"`
}

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
func Decide(in DecideInput) *GateReport {
	cc := *in.Current
	cc.Warnings = append([]string{}, in.Current.Warnings...)
	cc.Findings = append([]finding.Finding{}, in.Current.Findings...)
	cc.BlockingFailures = append([]BlockingFailure{}, in.Current.BlockingFailures...)
	cur := &cc
	g := &GateReport{
		Report:   cur,
		Decision: Pass,
		Reasons:  []string{},
		MaxDrop:  in.MaxDrop,
		Paired:   in.Paired,
	}
	// hard: blocks, never waived; soft: blocks unless accepted; pass:
	// notices that say why a run passed; warns: warnings.
	var hard, soft, pass, warns, rerun []finding.Finding
	warn := func(f finding.Finding) {
		f.Severity = finding.Warning
		warns = append(warns, f)
	}
	// waived are the kinds of the soft findings, for the accept label's record.
	var waived []Waiver
	// waivable is a finding the accept label waives: a warning on the
	// baseline branch's own run (a new baseline starts), else a soft block
	// (naming the label that would waive it when it is off).
	waivable := func(fs []finding.Finding, kinds ...Waiver) {
		switch {
		case in.BaselineBranchRun:
			fs[0].NewBaseline = true
			for _, f := range fs {
				warn(f)
			}
			return
		case !in.Accepted:
			fs[0].AcceptLabel = in.AcceptLabel
		}
		soft = append(soft, fs...)
		waived = append(waived, kinds...)
	}

	// Hard gates: never waived.
	if n := len(cur.BlockingFailures); n > 0 {
		hard = append(hard, blockingFindings(cur.BlockingFailures, false)...)
	}
	if bg := in.BaselineGates; bg != nil {
		// The baseline's rubric may have blocking gates the current one dropped
		// or loosened: a pull request cannot switch off a safety gate by
		// editing its rubric.
		extra := missingFailures(cur.BlockingFailures, bg.Failures)
		if len(extra) > 0 {
			hard = append(hard, blockingFindings(extra, true)...)
			cur.BlockingFailures = append(cur.BlockingFailures, extra...)
		}
	}
	if in.OnRubricChange == RubricChangeSkip {
		warn(finding.Finding{Kind: finding.SkipDeprecated})
	}
	g.BlockingCount = len(cur.BlockingFailures)
	if cur.Scored == 0 {
		hard = append(hard, finding.Finding{Kind: finding.NoItemScored, Params: finding.Params{Count: cur.Unscored.Count, Total: cur.Items}})
	} else if cur.Unscored.Exceeded {
		hard = append(hard, finding.Finding{Kind: finding.TooManyUnscored, Params: finding.Params{Count: cur.Unscored.Count, Total: cur.Items, Rate: cur.Unscored.Rate}})
	}

	// The relative check.
	b := in.Baseline
	if r := in.Renamed; r != nil {
		waivable([]finding.Finding{{Kind: finding.RenamedRubric, Params: finding.Params{RenamedParams: finding.RenamedParams{Rubric: r.Rubric, Rubrics: r.Others, Renamed: r.Same}, BranchParams: finding.BranchParams{Branch: r.Branch}}}}, WaiveRenamedRubric)
	}
	switch {
	case b == nil:
		f := finding.Finding{Kind: finding.NoBaseline, Params: finding.Params{Detail: in.NoBaselineNote}}
		switch {
		case in.IfNoBaseline == NoBaselineFail:
			f.PolicyFail = true
			hard = append(hard, f)
		case in.Renamed != nil && !in.BaselineBranchRun:
			// Not a first run: a renamed rubric (above) does not start a
			// baseline on a pull request.
		default:
			pass = append(pass, f)
		}
	default:
		g.Baseline = &BaselineInfo{
			Score: b.Score, Source: b.Source.Location, SHA: b.Source.SHA, RunURL: b.Source.RunURL,
			CreatedAt: b.Source.CreatedAt, Kind: b.Source.Kind, Ref: b.Source.Ref, RubricHash: b.RubricHash,
			PooledRuns: b.PooledRuns,
		}
		compared := cur
		sameRubric := b.RubricHash == cur.Rubric.Hash
		if !sameRubric {
			if in.Compared != nil && in.Compared.Score != nil {
				compared = in.Compared
				g.Rescored = &RescoredInfo{RubricHash: b.RubricHash, Score: *in.Compared.Score, CurrentRubricScore: cur.Score}
				warn(finding.Finding{Kind: finding.RubricRescored, Params: finding.Params{RubricParams: finding.RubricParams{From: b.RubricHash, To: cur.Rubric.Hash}}})
			} else {
				compared = nil
			}
			if rc := rubricChange(in, compared == nil); rc != nil {
				g.RubricChange = rc
				fs := rc.findings()
				if in.OnRubricChange == RubricChangeFail && !in.BaselineBranchRun {
					fs[0].PolicyFail = true
					hard = append(hard, fs...)
				} else {
					waivable(fs, rc.waivers()...)
				}
			}
		}
		if compared != nil && compared.Score != nil {
			g.Comparable = true
			c := *compared.Score
			g.ComparedScore = &c
			if b.Score > 0 {
				rel := (c - b.Score) / b.Score
				g.RelativeChange = &rel
			}
			// When the item sets differ, the check compares the items they
			// share: added easy items or removed hard ones must not hide a
			// regression of the others. Baseline items unscored now are
			// among them at score 0 (see Paired.Unscored): an error in
			// place of a regressed item must not lift the score.
			base, now, basis := b.Score, c, BasisAll
			if p := in.Paired; p != nil && (p.Added > 0 || p.Removed > 0 || p.Unscored > 0) {
				if p.Common > 0 && p.CommonBaseline != nil && p.CommonCurrent != nil {
					base, now, basis = *p.CommonBaseline, *p.CommonCurrent, BasisCommon
				} else if p.Common == 0 {
					warn(finding.Finding{Kind: finding.NoCommonItems})
				}
			}
			if base > 0 {
				dc := checkDrop(base, now, in.Thresholds, in.Paired)
				dc.Basis, dc.Baseline, dc.Current = basis, base, now
				g.DropCheck = dc
				if dc.Case != DropWithin {
					f := dropFinding(dc, base, now, in.MaxDrop, b.Score, c, in.Paired)
					dc.Reason = f.Text()
					if dc.Blocks {
						// A drop blocks on the baseline branch too: never a warning.
						soft = append(soft, f)
						waived = append(waived, WaiveDrop)
					} else if dc.Rerun {
						rerun = append(rerun, finding.Finding{Kind: finding.RerunNeeded, Params: finding.Params{Count: dc.RerunAnswers, DropParams: finding.DropParams{Change: -dc.Drop, MaxDrop: in.MaxDrop}}}, f)
					} else if dc.Case == DropNoise {
						pass = append(pass, f)
						warn(finding.Finding{Kind: finding.DropWithinNoise, Params: finding.Params{Detail: string(dc.NoisyDrop), DropParams: finding.DropParams{Change: -dc.Drop, MaxDrop: in.MaxDrop}}})
					}
				}
			} else if basis == BasisCommon {
				warn(finding.Finding{Kind: finding.BaselineScoreZero, Params: finding.Params{ItemSetParams: finding.ItemSetParams{Common: in.Paired.Common}}})
			} else {
				warn(finding.Finding{Kind: finding.BaselineScoreZero})
			}
			g.Changes = criterionChanges(compared, b, gateFlags(in.Rubric, b.Rubric))
		}
		if in.MaxBaselineAge > 0 && !b.Source.CreatedAt.IsZero() && in.Now.Sub(b.Source.CreatedAt) > in.MaxBaselineAge {
			warn(finding.Finding{Kind: finding.BaselineOld, Params: finding.Params{AgeParams: finding.AgeParams{Days: int(in.Now.Sub(b.Source.CreatedAt).Hours() / 24), MaxDays: int(in.MaxBaselineAge.Hours() / 24)}}})
		}
		if p := in.Paired; p != nil && (p.Added > 0 || p.Removed > 0) {
			warn(finding.Finding{Kind: finding.ItemSetsDiffer, Params: finding.Params{ItemSetParams: finding.ItemSetParams{Added: p.Added, Removed: p.Removed, Common: p.Common}}})
		}
		if p := in.Paired; p != nil && p.Removed > 0 {
			// A pull request must not remove the items it regressed.
			ids := append([]string{}, p.RemovedIDs...)
			g.RemovedItems = &RemovedItems{Count: p.Removed, IDs: ids}
			f := finding.Finding{Kind: finding.ItemsRemoved, Params: finding.Params{Count: p.Removed, Items: ids[:min(len(ids), 5)]}}
			waivable([]finding.Finding{f}, WaiveRemovedItems)
		}
		if p := in.Paired; p != nil {
			taskFindings(p, warn)
		}
		if p := in.Paired; p != nil && p.CI95 != nil {
			ci := *p.CI95
			g.CI95 = &ci
		}
	}
	if g.Changes == nil {
		g.Changes = criterionChanges(cur, nil, gateFlags(in.Rubric, nil))
	}
	g.Trend = TrendOf(b, g)

	var acc *AcceptOutcome
	if !in.BaselineBranchRun || in.AcceptReason != "" {
		now := waivableRecord(in, g, waived)
		g.Waivable = &now
		if in.Accepted {
			acc = acceptance(in, now)
			g.Acceptance = acc
		}
	}
	var reasons []finding.Finding
	switch {
	case len(hard) > 0:
		g.Decision = Block
		reasons = append(append(setSeverity(hard, finding.Error), setSeverity(soft, finding.Error)...), setSeverity(pass, finding.Notice)...)
	case len(soft) > 0 && acc != nil && !acc.Covered():
		// The label is on but does not cover what this run brings: blocked
		// again, first saying why and how to accept it.
		g.Decision = Block
		reasons = append([]finding.Finding{acc.finding(in.AcceptLabel)}, setSeverity(soft, finding.Error)...)
		reasons = append(reasons, setSeverity(pass, finding.Notice)...)
	case len(soft) > 0 && in.Accepted:
		g.Accepted = true
		if g.RubricChange != nil && in.OnRubricChange != RubricChangeFail && !in.BaselineBranchRun {
			g.RubricChange.Accepted = true
		}
		if g.RemovedItems != nil && !in.BaselineBranchRun {
			g.RemovedItems.Accepted = true
		}
		reasons = setSeverity(pass, finding.Notice)
		for _, f := range soft {
			if in.AcceptReason != "" {
				f.AcceptReason = in.AcceptReason
			} else {
				f.Label = in.AcceptLabel
			}
			f.Severity = finding.Notice
			reasons = append(reasons, f)
		}
	case len(soft) > 0:
		g.Decision = Block
		reasons = append(setSeverity(soft, finding.Error), setSeverity(pass, finding.Notice)...)
	case len(rerun) > 0:
		// Nothing blocks, but the drop is within noise: neither a pass
		// nor a block until more answers are in.
		g.Decision = Rerun
		reasons = append(setSeverity(rerun, finding.Warning), setSeverity(pass, finding.Notice)...)
	default:
		reasons = setSeverity(pass, finding.Notice)
	}
	if g.Decision == Pass && len(reasons) == 0 {
		switch {
		case g.DropCheck != nil && g.DropCheck.Basis == BasisCommon:
			dc := g.DropCheck
			p := in.Paired
			reasons = append(reasons, finding.Finding{Kind: finding.WithinMaxDrop, Severity: finding.Notice, Params: finding.Params{DropParams: finding.DropParams{Change: (dc.Current - dc.Baseline) / dc.Baseline, Baseline: dc.Baseline, Current: dc.Current, MaxDrop: in.MaxDrop, FullBaseline: b.Score, FullCurrent: *g.ComparedScore}, ItemSetParams: finding.ItemSetParams{Common: p.Common, Added: p.Added, Removed: p.Removed, Unscored: p.Unscored}}})
		case g.RelativeChange != nil:
			reasons = append(reasons, finding.Finding{Kind: finding.WithinMaxDrop, Severity: finding.Notice, Params: finding.Params{DropParams: finding.DropParams{Change: *g.RelativeChange, Baseline: b.Score, Current: *g.ComparedScore, MaxDrop: in.MaxDrop}}})
		default:
			reasons = append(reasons, finding.Finding{Kind: finding.NoBlockingFailed, Severity: finding.Notice})
		}
	}
	// The one place the English is derived from the findings.
	g.Reasons = Texts(reasons)
	cur.Warn(warns...)
	g.Findings = append(reasons, cur.Findings...)
	return g
}

// Warn adds warnings to the gate report: fs (their severity set to
// Warning) to Findings and to the run report's, and their text to Warnings.
func (g *GateReport) Warn(fs ...finding.Finding) {
	n := len(g.Report.Findings)
	g.Report.Warn(fs...)
	g.Findings = append(g.Findings, g.Report.Findings[n:]...)
}

// Texts renders findings as the report's strings: each finding's Text,
// consecutive blocking failures (of the same rubric) joined into one
// reason as [finding.JoinBlocking] does (see [finding.Texts]).
func Texts(fs []finding.Finding) []string { return finding.Texts(fs) }

// setSeverity sets the severity of every finding of fs (in place) and returns fs.
func setSeverity(fs []finding.Finding, s finding.Severity) []finding.Finding {
	for i := range fs {
		fs[i].Severity = s
	}
	return fs
}

// checkDrop classifies the change from base to cur (see DropCase).
func checkDrop(base, cur float64, th Thresholds, p *Paired) *DropCheck {
	dc := &DropCheck{Case: DropWithin, Drop: (base - cur) / base, NoisyDrop: th.NoisyDrop, HardDrop: th.HardDrop}
	if dc.NoisyDrop == "" {
		dc.NoisyDrop = NoisyBlock
	}
	if p != nil && p.Method == MethodPaired && p.CI95 != nil {
		ci := *p.CI95
		dc.CI95 = &ci
		if th.MaxDrop > 0 {
			dc.Resolution = NewResolution(p, base, (ci[1]-ci[0])/2, th)
		}
	}
	if !dropBlocks(base, cur, th.MaxDrop) {
		return dc
	}
	dc.BeyondHard = dropBlocks(base, cur, th.HardDrop)
	switch {
	case dc.CI95 == nil || dc.CI95[1] < 0:
		// No paired interval: the plain rule. Below zero: a real drop.
		dc.Case, dc.Blocks = DropReal, true
	case dc.BeyondHard && dc.NoisyDrop == NoisyWarn:
		dc.Case, dc.Blocks = DropReal, true
	default:
		dc.Case = DropNoise
		dc.Blocks = dc.NoisyDrop == NoisyBlock || dc.NoisyDrop == NoisyRerun && th.Final
		if dc.NoisyDrop == NoisyRerun && !th.Final {
			dc.Rerun = true
			dc.RerunAnswers = 1
			if dc.Resolution != nil {
				dc.RerunAnswers = dc.Resolution.RerunAnswers
			}
		}
	}
	return dc
}

// dropFinding is the finding of a drop at or above max-drop: base → cur
// compared, fullBase → fullCur the full sets' scores (shown beside when the
// check compared the common items). Detail carries what the interval says.
func dropFinding(dc *DropCheck, base, cur, maxDrop, fullBase, fullCur float64, p *Paired) finding.Finding {
	f := finding.Finding{Kind: finding.AggregateDrop, Params: finding.Params{Detail: dropClause(dc), DropParams: finding.DropParams{Change: -dc.Drop, Baseline: base, Current: cur, MaxDrop: maxDrop}}}
	if dc.Basis == BasisCommon && p != nil {
		f.Common, f.Added, f.Removed, f.Unscored = p.Common, p.Added, p.Removed, p.Unscored
		f.FullBaseline, f.FullCurrent = fullBase, fullCur
	}
	return f
}

// dropClause words what the paired interval and hard-drop say about a drop
// at or above max-drop ("" when there is nothing to add).
func dropClause(dc *DropCheck) string {
	ci := ""
	if dc.CI95 != nil {
		ci = fmt.Sprintf("95%% CI %s … %s", fmtSignedPct(dc.CI95[0]), fmtSignedPct(dc.CI95[1]))
	}
	switch {
	case dc.Case == DropReal && dc.BeyondHard && ci != "" && dc.CI95[1] >= 0:
		return fmt.Sprintf(" and hard-drop %s (%s)", fmtPct(dc.HardDrop), ci)
	case dc.Case == DropReal && ci != "":
		return "; " + ci + " lies below 0"
	case dc.Case == DropReal:
		return ""
	case dc.Rerun:
		return ", but its " + ci + " includes 0: noisy-drop rerun decides after a re-run with more answers per item (on both runs, a drop at or above max-drop blocks)"
	case dc.Blocks && dc.NoisyDrop == NoisyRerun:
		return "; " + ci + " includes 0 on both runs' answers too (noisy-drop rerun, final gate: a drop at or above max-drop blocks)"
	case dc.Blocks && dc.BeyondHard:
		return "; " + ci + " includes 0, but the drop reaches hard-drop " + fmtPct(dc.HardDrop) + ", so noisy-drop warn would block it too"
	case dc.Blocks:
		return "; " + ci + " includes 0 (noisy-drop is block; with noisy-drop warn it would pass unless it reached hard-drop " + fmtPct(dc.HardDrop) + ")"
	}
	return ", but its " + ci + " includes 0, so it passes (noisy-drop warn); it would block if the interval lay below 0 or the drop reached hard-drop " + fmtPct(dc.HardDrop)
}

// rubricChange describes a rubric change the gate cannot follow, or returns
// nil when it can: the run was re-scored under the baseline's rubric
// (notCompared false), carries every blocking criterion of it, and no text
// that reaches the judge prompt changed. The baseline's rubric is the one
// embedded in the baseline file, whose hash Read checks, so every baseline
// carries the texts compared.
func rubricChange(in DecideInput, notCompared bool) *RubricChange {
	b := in.Baseline
	rc := &RubricChange{From: b.RubricHash, To: in.Current.Rubric.Hash, Removed: []string{}, UncheckedGates: map[string]int{},
		PromptChanges: []rubric.PromptChange{}}
	if bg := in.BaselineGates; bg != nil {
		for id, n := range bg.Unchecked {
			if n > 0 {
				rc.UncheckedGates[id] = n
			}
		}
	}
	if pc := rubric.PromptChanges(b.Rubric, in.Rubric); pc != nil {
		rc.PromptChanges = pc
	}
	if !notCompared && len(rc.UncheckedGates) == 0 && len(rc.PromptChanges) == 0 {
		return nil
	}
	if notCompared {
		rc.RescoreError = "the results do not carry the baseline rubric's criteria"
		if in.RescoreErr != nil {
			rc.RescoreError = in.RescoreErr.Error()
		}
	}
	if b.Rubric != nil && in.Rubric != nil {
		for _, c := range b.Rubric.Criteria {
			if in.Rubric.Index(c.ID) < 0 {
				rc.Removed = append(rc.Removed, c.ID)
			}
		}
	}
	return rc
}

// findings says what changed, for the reasons: a headline (hashes and
// criteria removed), then one finding per thing the gate could not do.
func (rc *RubricChange) findings() []finding.Finding {
	fs := []finding.Finding{{Kind: finding.RubricChange, Params: finding.Params{RubricParams: finding.RubricParams{From: rc.From, To: rc.To, Criteria: rc.Removed}}}}
	if rc.RescoreError != "" {
		fs = append(fs, finding.Finding{Kind: finding.NotComparable, Params: finding.Params{Detail: rc.RescoreError}})
	}
	ids := make([]string, 0, len(rc.UncheckedGates))
	for id := range rc.UncheckedGates {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fs = append(fs, finding.Finding{Kind: finding.UncheckedGate, Criterion: id, Params: finding.Params{Count: rc.UncheckedGates[id]}})
	}
	// A criterion removed is named by the headline already.
	for _, pc := range rc.PromptChanges {
		if len(pc.Fields) == 1 && pc.Fields[0] == rubric.FieldRemoved {
			continue
		}
		fields := make([]string, len(pc.Fields))
		for i, f := range pc.Fields {
			fields[i] = string(f)
		}
		fs = append(fs, finding.Finding{Kind: finding.PromptChanged, Criterion: pc.Criterion, Params: finding.Params{RubricParams: finding.RubricParams{Fields: fields}}})
	}
	return fs
}

// dropBlocks reports whether the drop from base to cur reaches maxDrop:
// (base - cur) / base >= maxDrop, with a relative tolerance so that an exact
// drop at the threshold blocks despite rounding in the means.
func dropBlocks(base, cur, maxDrop float64) bool {
	if base <= 0 {
		return false
	}
	return (base-cur)/base >= maxDrop-dropTolerance
}

// gateFlag says whether a criterion is a gate and whether it blocks the run.
type gateFlag struct{ gate, blocking bool }

// gateFlags collects the gate flags of the given rubrics (nil ones skipped);
// a criterion is a gate if it is one in any of them.
func gateFlags(rubrics ...*rubric.Rubric) map[string]gateFlag {
	m := map[string]gateFlag{}
	for _, rb := range rubrics {
		if rb == nil {
			continue
		}
		for _, c := range rb.Criteria {
			f := m[c.ID]
			f.gate = f.gate || c.IsGate()
			f.blocking = f.blocking || (c.IsGate() && c.Blocking)
			m[c.ID] = f
		}
	}
	return m
}

func criterionChanges(cur *Report, b *Baseline, flags map[string]gateFlag) []CriterionChange {
	var base map[string]*CriterionStats
	if b != nil {
		base = make(map[string]*CriterionStats, len(b.Criteria))
		for i := range b.Criteria {
			base[b.Criteria[i].ID] = &b.Criteria[i]
		}
	}
	failing := map[string]bool{}
	for _, f := range cur.BlockingFailures {
		failing[f.Criterion] = true
	}
	out := make([]CriterionChange, 0, len(cur.Criteria))
	seen := map[string]bool{}
	for _, c := range cur.Criteria {
		seen[c.ID] = true
		ch := CriterionChange{ID: c.ID, Name: c.Name, Weight: c.Weight, Current: c.Normalized, BelowMin: c.BelowMin, Status: "ok"}
		ch.Gate, ch.Blocking = flags[c.ID].gate, flags[c.ID].blocking
		if base != nil {
			if bc, ok := base[c.ID]; ok {
				ch.Baseline = bc.Normalized
				if bc.Normalized != nil && c.Normalized != nil {
					d := *c.Normalized - *bc.Normalized
					ch.Change = &d
					switch {
					case d <= -0.05:
						ch.Status = "down"
					case d >= 0.05:
						ch.Status = "up"
					}
				}
			} else {
				ch.Status = "new"
			}
		}
		if failing[c.ID] {
			ch.Status = "fail"
		}
		out = append(out, ch)
	}
	if b != nil {
		for _, bc := range b.Criteria {
			if !seen[bc.ID] {
				out = append(out, CriterionChange{ID: bc.ID, Name: bc.Name, Weight: bc.Weight, Baseline: bc.Normalized, Status: "gone"})
			}
		}
	}
	return out
}

func missingFailures(have, other []BlockingFailure) []BlockingFailure {
	key := func(f BlockingFailure) string { return f.Item + "\x00" + f.Criterion }
	seen := make(map[string]bool, len(have))
	for _, f := range have {
		seen[key(f)] = true
	}
	var out []BlockingFailure
	for _, f := range other {
		if !seen[key(f)] {
			out = append(out, f)
		}
	}
	return out
}

// blockingFindings groups blocking failures by criterion: one finding per
// criterion (and one more for its unscored items, which fail closed), its
// items in the order they failed.
func blockingFindings(fs []BlockingFailure, baselineRubric bool) []finding.Finding {
	idx := map[string]int{}
	var out []finding.Finding
	for _, f := range fs {
		kind := finding.BlockingFailure
		if f.Unscored {
			kind = finding.UnscoredGate
		}
		key := string(kind) + "\x00" + f.Criterion
		k, ok := idx[key]
		if !ok {
			k = len(out)
			idx[key] = k
			out = append(out, finding.Finding{Kind: kind, Criterion: f.Criterion, Params: finding.Params{BaselineRubric: baselineRubric}})
		}
		out[k].Items = append(out[k].Items, f.Item)
	}
	return out
}

func fmtPct(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }

// FormatChange formats a relative change as a signed percentage with the
// digits needed to tell it from max-drop: two decimals, more when two would
// round a change that does not reach max-drop onto it, or one that reaches
// it off it. A passing 1.996% drop prints -1.996%, never -2.00% like the
// blocking 2.000% one.
// (One definition: finding.ChangePct, which the findings' texts use.)
func FormatChange(rel, maxDrop float64) string { return finding.ChangePct(rel, maxDrop) }

func fmtSignedPct(f float64) string {
	return fmt.Sprintf("%+.2f%%", 100*f)
}
