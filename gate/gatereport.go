package gate

import (
	"time"

	"github.com/rubricgate/rubricgate/finding"
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
	// Attempts are this change request's attempts at the same inputs,
	// whose pooled change decided the drop; omitted when no state is kept.
	Attempts *AttemptsReport `json:"attempts,omitempty"`
	// DriftCheck is the drift rule's outcome: the branch's anchor, this
	// run's cumulative change since it and the margin left; null when it
	// did not run (no anchor, max-drift 0, nothing compared).
	DriftCheck *DriftCheck `json:"drift_check"`
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
	// Next is what the reader of a blocked report can do about it, null
	// unless the run is blocked.
	Next *NextStep `json:"next,omitempty"`
}

// NextStep is what can be done about a blocked run: a block of only the
// kinds the accept label waives can be accepted (by a reviewer's label on
// the change request, or --accept on the CLI); a hard block (a blocking
// criterion failed, too many items unscored, a rubric change the policy
// fails) is accepted by nothing, and Fix names the items to fix.
type NextStep struct {
	// Acceptable is true when the accept label (or --accept) would let
	// the run pass: every reason it blocks for is waivable.
	Acceptable bool `json:"acceptable"`
	// AcceptLabel is the label that accepts it ("" when not Acceptable);
	// AcceptBy says whose label does.
	AcceptLabel string         `json:"accept_label,omitempty"`
	AcceptBy    AcceptByPolicy `json:"accept_by,omitempty"`
	// Fix lists the items whose blocking-criterion failures block the run,
	// in report order (the first MaxNextItems).
	Fix []string `json:"fix,omitempty"`
	// FixMore counts the items beyond Fix.
	FixMore int `json:"fix_more,omitempty"`
}

// MaxNextItems is how many items a NextStep names.
const MaxNextItems = 5

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

// TierInfo is the staged-rollout outcome carried in the gate report.
type TierInfo struct {
	Current    int      `json:"current"`
	Next       int      `json:"next"`
	MayAdvance bool     `json:"may_advance"`
	HeldBy     []string `json:"held_by"`
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
