// Package finding is the typed form of what the gate found: why a run is
// blocked or passed, and what it warns about. A Finding carries a kind, a
// severity and the parameters of its message (criterion, items, file, line,
// numbers); the English text is rendered from them, once per medium: plain
// text for the JSON report, a safe log line, markdown for the comment and
// the job summary, and a CI annotation.
//
// Parameters that came from results, rubrics or the network (criterion and
// item ids, file names, judge errors, notes) are untrusted: every renderer
// except [Finding.Text] escapes them for its medium through internal/safe.
// Text is for data (the JSON report), where the consumer escapes.
//
// The package is a leaf (it imports only internal/safe), so gate, render,
// host and cmd can all use it.
package finding

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/internal/safe"
)

// Severity says how much a finding weighs.
type Severity string

// Severities.
const (
	// Error: the finding blocks the run.
	Error Severity = "error"
	// Warning: worth a look; never changes the decision.
	Warning Severity = "warning"
	// Notice: says why a run passed, or records an accepted regression.
	Notice Severity = "notice"
)

// Kind names what was found. Its value is stable: it is written in the
// JSON report and may be matched by scripts.
type Kind string

// Kinds. The parameters each kind reads are listed beside it.
const (
	// BlockingFailure: items below a blocking criterion's minimum.
	// Criterion, Items (all of them; Text lists five), BaselineRubric.
	BlockingFailure Kind = "blocking-failure"
	// UnscoredGate: unscored items (judge errors) that carry no value for a
	// blocking criterion, which fails closed on them. Criterion, Items,
	// BaselineRubric.
	UnscoredGate Kind = "unscored-gate"
	// NoItemScored: every item carries a judge error. Count (unscored), Total.
	NoItemScored Kind = "no-item-scored"
	// TooManyUnscored: more unscored items than max-unscored allows.
	// Count, Total, Rate.
	TooManyUnscored Kind = "too-many-unscored"
	// NoBaseline: no baseline was used. Detail (why: not found in a store,
	// unreadable), PolicyFail (if-no-baseline is fail).
	NoBaseline Kind = "no-baseline"
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
	// AggregateDrop: the aggregate score dropped by max-drop or more.
	// Change (relative, negative), Baseline, Current, MaxDrop, and Label
	// when the accept label waived it; Detail, what the paired interval
	// and hard-drop say (appended as it is). When the item sets differ the check
	// compares the items in common: Common (their number; 0 when the full
	// sets were compared), Added, Removed, FullBaseline, FullCurrent (the
	// full sets' scores, shown beside).
	AggregateDrop Kind = "aggregate-drop"
	// WithinMaxDrop: the aggregate change is within max-drop.
	// Change, Baseline, Current, MaxDrop; Common, Added, Removed,
	// FullBaseline, FullCurrent as for AggregateDrop.
	WithinMaxDrop Kind = "within-max-drop"
	// ItemsRemoved: baseline items the run no longer carries (an unscored
	// item is not removed). Count, Items (the first ids), Label when the
	// accept label accepted it or AcceptLabel (the label that would),
	// NewBaseline (a warning on the baseline branch).
	ItemsRemoved Kind = "items-removed"
	// ItemTaskChanged: items that keep a baseline item's id but not its
	// task (their input_hash differs: the question, context or reference
	// was rewritten), each counted as the baseline's item removed and a new
	// one added. Count, Items (the first ids).
	ItemTaskChanged Kind = "item-task-changed"
	// TaskUnboundBaseline: Count items were compared by id alone because
	// the baseline has no input_hash for them (made before the hashes, or
	// from a format that carries no input); the results have one.
	TaskUnboundBaseline Kind = "task-unbound-baseline"
	// TaskUnboundResults: Count items were compared by id alone because
	// the results carry no input_hash for them while the baseline has one.
	TaskUnboundResults Kind = "task-unbound-results"
	// DropWithinNoise: a drop at or above max-drop whose paired interval
	// includes 0 passed under noisy-drop warn. Change, MaxDrop.
	DropWithinNoise Kind = "drop-within-noise"
	// RerunNeeded: a drop at or above max-drop whose paired interval
	// includes 0, under noisy-drop rerun: the run is to be re-run with
	// Count more answers per item and gated on both runs. Change, MaxDrop,
	// Count.
	RerunNeeded Kind = "rerun-needed"
	// NoCommonItems: the run shares no item with the baseline, so the
	// relative check compares the full sets.
	NoCommonItems Kind = "no-common-items"
	// NoBlockingFailed: nothing blocked and there was nothing to compare.
	NoBlockingFailed Kind = "no-blocking-failed"
	// BaselineScoreZero: the relative check was skipped. Common > 0 when
	// it was the score of the items in common that was 0.
	BaselineScoreZero Kind = "baseline-score-zero"
	// BaselineOld: the baseline is older than max-baseline-age. Days, MaxDays.
	BaselineOld Kind = "baseline-old"
	// ItemSetsDiffer: items were added or removed since the baseline.
	// Added, Removed, Common.
	ItemSetsDiffer Kind = "item-sets-differ"
	// RubricWarning: a remark on the rubric file. File, Line, Col,
	// Criterion, Detail.
	RubricWarning Kind = "rubric-warning"
	// PassColumnDisagrees: a row's pass column says pass where the rubric
	// gives fail, or the reverse. File, Line, Item, ColumnPass, Score,
	// Threshold, Below (the critical minimums it is below).
	PassColumnDisagrees Kind = "pass-column-disagrees"
	// MorePassDisagreements: the rows whose pass column disagrees past the
	// ones listed. Count.
	MorePassDisagreements Kind = "more-pass-disagreements"
	// OutvotedFailures: items of a blocking criterion with a failing
	// judging outvoted by the majority of their judgings. Criterion, Count,
	// Items (the first ids).
	OutvotedFailures Kind = "outvoted-failures"
	// ToolWeightsVary: a results file's tool weighs metrics differently
	// from row to row. File, Format, Metrics.
	ToolWeightsVary Kind = "tool-weights-vary"
	// ToolWeightsDiffer: a results file's tool weights differ from the
	// rubric's. File, Format, Weights.
	ToolWeightsDiffer Kind = "tool-weights-differ"
	// JudgeModelMissing: no judge or production model given, so the judge
	// family check could not be made. Role ("judge" or "production").
	JudgeModelMissing Kind = "judge-model-missing"
	// JudgeFamilyUnknown: a judge or production model of no known family.
	// Role, Model.
	JudgeFamilyUnknown Kind = "judge-family-unknown"
	// JudgeSameFamily: the judge and the production model are of one
	// family, allowed by same-family: warn. Model (the judge), Production,
	// Family.
	JudgeSameFamily Kind = "judge-same-family"
	// JudgesUnknownPast: items judged by models of unknown family past the
	// distinct judge models kept by name. Count, Limit.
	JudgesUnknownPast Kind = "judges-unknown-past"
	// LengthBias: scores rise with answer length. Criterion ("" for the
	// item score), Rho, MaxRho, Count (items with a known length).
	LengthBias Kind = "length-bias"
	// DefaultBranchNotBaseline: the run is on the default branch, which is
	// not the baseline branch. Branch, BaselineBranch, Source (where the
	// baseline branch came from).
	DefaultBranchNotBaseline Kind = "default-branch-not-baseline"
	// BaselineFromDefaultBranch: the change request's target branch has no
	// baseline, so the run was compared with the default branch's. Branch
	// (the target), BaselineBranch (the default branch).
	BaselineFromDefaultBranch Kind = "baseline-from-default-branch"
	// RenamedRubric: the rubric's name has no baseline on the branch but
	// the store holds others there, or (Renamed) the store holds this very
	// rubric under other names and the slot under this one another
	// rubric's baseline: a rubric change. Rubric (the name),
	// Branch, Rubrics (the names found); NewBaseline on the baseline
	// branch, Label when the accept label accepted it, else AcceptLabel.
	RenamedRubric Kind = "renamed-rubric"
	// AcceptanceNotCovered: the accept label was applied for less than this
	// push brings, so the run is blocked again. AcceptLabel, Commit (where it was
	// applied), Waived (the kinds it was applied for), From (that rubric's
	// hash), Adds (what this push adds).
	AcceptanceNotCovered Kind = "acceptance-not-covered"
	// AcceptanceNotShown: the accept label took effect with this run but
	// the run brings more than the gate's comment showed when it was
	// applied (or the comment showed nothing yet), so it accepts nothing.
	// AcceptLabel, Commit (the commit the comment showed, "" for none),
	// Waived (the kinds it showed), Adds (what this run brings beyond).
	AcceptanceNotShown Kind = "acceptance-not-shown"
	// AcceptanceUnreadable: the accept label is on but the record of what
	// it was applied for cannot be read, so it accepts nothing new.
	// AcceptLabel, Detail (why the record cannot be read).
	AcceptanceUnreadable Kind = "acceptance-unreadable"
	// AcceptanceByAuthor: the pull request's author applied the accept
	// label, which under accept-by others accepts nothing. AcceptLabel,
	// AppliedBy.
	AcceptanceByAuthor Kind = "acceptance-by-author"
	// AcceptanceByUnknown: the run cannot tell who applied the accept
	// label (or who wrote the pull request), so under accept-by others it
	// accepts nothing. AcceptLabel, Detail (why).
	AcceptanceByUnknown Kind = "acceptance-by-unknown"
	// Message: any other remark, already in English. Detail.
	Message Kind = "message"
)

// Finding is one thing the gate found.
type Finding struct {
	Kind     Kind     `json:"kind"`
	Severity Severity `json:"severity"`
	// Criterion is the criterion id the finding is about, if any.
	Criterion string `json:"criterion,omitempty"`
	// Item is the item id the finding is about, if any.
	Item string `json:"item,omitempty"`
	// File and Line locate the finding (a rubric or results file), if known.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
	// Params are the other values of the message.
	Params
}

// Params are the values a finding's message is built from, grouped by
// what they describe: a kind reads the ones listed beside it, so a
// finding carries its own group (the groups are embedded: f.Change reads
// the drop's, and the JSON report lists every value flat, as before).
// Numbers are unrounded: the renderers round.
type Params struct {
	// Items are item ids (BlockingFailure).
	Items []string `json:"items,omitempty"`
	// Count and Total are counts of items (unscored of all).
	Count int `json:"count,omitempty"`
	Total int `json:"total,omitempty"`
	// Rate is a share, 0-1.
	Rate float64 `json:"rate,omitempty"`
	DropParams
	RubricParams
	AgeParams
	ItemSetParams
	AcceptParams
	// Detail is free text: a note, an error, a rubric warning. Untrusted.
	Detail string `json:"detail,omitempty"`
	// PolicyFail is true when a policy input set to fail made this block.
	PolicyFail bool `json:"policy_fail,omitempty"`
	// BaselineRubric is true for a blocking failure found only under the
	// baseline's rubric.
	BaselineRubric bool `json:"baseline_rubric,omitempty"`
	// NewBaseline is true on the baseline branch, where a change a pull
	// request needs the accept label for is a warning and a new baseline
	// starts (RubricChange, ItemsRemoved).
	NewBaseline bool `json:"new_baseline,omitempty"`
	RowParams
	ToolParams
	JudgeParams
	BranchParams
	RenamedParams
}

// DropParams are the values of a relative check: AggregateDrop, WithinMaxDrop.
type DropParams struct {
	// Change is a relative change, -0.05 for a 5% drop.
	Change float64 `json:"change,omitempty"`
	// Baseline and Current are aggregate scores, 0-100.
	Baseline float64 `json:"baseline,omitempty"`
	Current  float64 `json:"current,omitempty"`
	// MaxDrop is the threshold, 0.02 for 2%.
	MaxDrop float64 `json:"max_drop,omitempty"`
	// FullBaseline and FullCurrent are the full sets' scores, 0-100, when
	// the relative check compared the Common items (AggregateDrop,
	// WithinMaxDrop).
	FullBaseline float64 `json:"full_baseline,omitempty"`
	FullCurrent  float64 `json:"full_current,omitempty"`
}

// RubricParams are the values of a rubric change: RubricRescored, RubricChange, PromptChanged (and the rubric an accept label was applied under).
type RubricParams struct {
	// From and To are rubric hashes ("sha256:..."), shortened when shown.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Criteria are criterion ids (RubricChange: the criteria removed).
	Criteria []string `json:"criteria,omitempty"`
	// Fields name a criterion's texts (PromptChanged).
	Fields []string `json:"fields,omitempty"`
}

// AgeParams are the values of the baseline's age: BaselineOld.
type AgeParams struct {
	// Days and MaxDays are the baseline's age and the limit.
	Days    int `json:"days,omitempty"`
	MaxDays int `json:"max_days,omitempty"`
}

// ItemSetParams are the values of the items against the baseline: ItemSets, ItemsRemoved and the common-items drop kinds.
type ItemSetParams struct {
	// Added, Removed and Common count items against the baseline.
	Added   int `json:"added,omitempty"`
	Removed int `json:"removed,omitempty"`
	Common  int `json:"common,omitempty"`
	// Unscored counts baseline items unscored in this run, compared at
	// score 0 among the Common ones (AggregateDrop, WithinMaxDrop).
	Unscored int `json:"unscored,omitempty"`
}

// AcceptParams are the values of an accept label or --accept: the waived kinds, AcceptanceNotCovered, AcceptanceUnreadable.
type AcceptParams struct {
	// Label is the accept label that waived a regression.
	Label string `json:"label,omitempty"`
	// AcceptReason is the reason given with --accept, which waived a
	// regression instead of a label.
	AcceptReason string `json:"accept_reason,omitempty"`
	// AcceptLabel is the label that would waive a block (RubricChange).
	AcceptLabel string `json:"accept_label,omitempty"`
	// Commit is a commit SHA, shortened when shown; Waived the kinds of
	// reason an accept label waived; Adds what a push adds that it does not
	// cover (AcceptanceNotCovered).
	Commit string   `json:"commit,omitempty"`
	Waived []string `json:"waived,omitempty"`
	Adds   []string `json:"adds,omitempty"`
	// AppliedBy is the login that applied the accept label
	// (AcceptanceByAuthor).
	AppliedBy string `json:"applied_by,omitempty"`
}

// RowParams are the values of a results row: PassColumnDisagrees.
type RowParams struct {
	// ColumnPass is what a row's pass column says (PassColumnDisagrees);
	// the rubric gives the opposite.
	ColumnPass bool `json:"column_pass,omitempty"`
	// Score is an item's score, 0-100, and Threshold the rubric's pass
	// threshold (PassColumnDisagrees).
	Score     float64 `json:"score,omitempty"`
	Threshold float64 `json:"threshold,omitempty"`
	// Below are the critical minimums an item is below, when the rubric
	// fails it (PassColumnDisagrees).
	Below []Below `json:"below,omitempty"`
}

// ToolParams are the values of a tool's metrics: ToolWeightsVary, ToolWeightsDiffer.
type ToolParams struct {
	// Format names a results format (ToolWeightsVary, ToolWeightsDiffer).
	Format string `json:"format,omitempty"`
	// Metrics are a tool's metric names (ToolWeightsVary).
	Metrics []string `json:"metrics,omitempty"`
	// Weights pair the rubric's weights with a tool's (ToolWeightsDiffer).
	Weights []Weight `json:"weights,omitempty"`
}

// JudgeParams are the values of the judge models: the judge family kinds, JudgesUnknownPast, LengthBias.
type JudgeParams struct {
	// Role is "judge" or "production"; Model a model name; Production the
	// production model; Family a model family (the judge family kinds).
	Role       string `json:"role,omitempty"`
	Model      string `json:"model,omitempty"`
	Production string `json:"production,omitempty"`
	Family     string `json:"family,omitempty"`
	// Limit is a cap the finding ran into (JudgesUnknownPast).
	Limit int `json:"limit,omitempty"`
	// Rho is a rank correlation and MaxRho the limit it reached (LengthBias).
	Rho    float64 `json:"rho,omitempty"`
	MaxRho float64 `json:"max_rho,omitempty"`
}

// BranchParams are the values of the branches: DefaultBranchNotBaseline, BaselineFromDefaultBranch, RenamedRubric.
type BranchParams struct {
	// Branch is the run's branch, BaselineBranch the baseline branch and
	// Source where that came from (DefaultBranchNotBaseline,
	// BaselineFromDefaultBranch).
	Branch         string `json:"branch,omitempty"`
	BaselineBranch string `json:"baseline_branch,omitempty"`
	Source         string `json:"source,omitempty"`
}

// RenamedParams are the values of a renamed rubric: RenamedRubric.
type RenamedParams struct {
	// Rubric is a rubric's name and Rubrics other rubrics' names
	// (RenamedRubric).
	Rubric  string   `json:"rubric,omitempty"`
	Rubrics []string `json:"rubrics,omitempty"`
	// Renamed is true when Rubrics hold this very rubric under other
	// names while the slot under Rubric holds another rubric's baseline
	// (RenamedRubric).
	Renamed bool `json:"renamed,omitempty"`
}

// Below is a critical minimum an item's score is below.
type Below struct {
	Criterion string  `json:"criterion"`
	Score     float64 `json:"score"`
	Min       float64 `json:"min"`
}

// Weight is a criterion's weight in the rubric beside the weight a tool
// gave the metric it reads.
type Weight struct {
	Criterion string  `json:"criterion"`
	Rubric    float64 `json:"rubric"`
	Metric    string  `json:"metric"`
	Tool      float64 `json:"tool"`
}

// maxListed is how many item ids a BlockingFailure message lists.
const maxListed = 5

// escaper escapes untrusted parameters for one medium: id for criterion
// and item ids and file names, text for free text, q for a name the plain
// text quotes (model, branch and metric names), item for a row's item id
// (quoted and cut at maxQuoted bytes in the plain text).
type escaper struct {
	id, text, q, item func(string) string
	// list caps the ids a list shows (0: all of them).
	list int
}

func same(s string) string { return s }

var plain = escaper{id: same, text: same, q: strconv.Quote, item: quoteCut}

// maxQuoted is how many bytes of an item id a PassColumnDisagrees text
// quotes before it cuts with "...".
const maxQuoted = 64

// quoteCut quotes s as Go does, cut at maxQuoted bytes (on a rune
// boundary) with "..." after the closing quote.
func quoteCut(s string) string {
	if len(s) > maxQuoted {
		cut := maxQuoted
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "..."
	}
	return strconv.Quote(s)
}

// ids escapes ids and joins them with ", ", the first e.list of them when
// e caps lists, then " and N more".
func (e escaper) ids(ids []string, esc func(string) string) string {
	n := len(ids)
	if e.list > 0 && n > e.list {
		n = e.list
	}
	out := make([]string, n)
	for i := range out {
		out[i] = esc(ids[i])
	}
	s := strings.Join(out, ", ")
	if n < len(ids) {
		s += fmt.Sprintf(" and %d more", len(ids)-n)
	}
	return s
}

// Text is the English message with every parameter as it is, for data
// (the JSON report's reasons and warnings). Never print it unescaped:
// use [Finding.Log], [Finding.Markdown] or [Finding.Annotation].
func (f Finding) Text() string { return f.render(plain) }

// Log is the message as one line that is safe in a CI log (see
// [safe.LogLine]): it can never be read as a workflow command.
func (f Finding) Log() string {
	return safe.LogLine(strings.Join(strings.Fields(f.Text()), " "))
}

// Markdown is the message for a paragraph, heading or list item of the
// comment or job summary (never a table cell: a '|' is shown as it is):
// ids as code spans, free text escaped.
func (f Finding) Markdown() string {
	return f.render(markdown)
}

// markdown escapes for the comment and the job summary: ids and quoted
// names as code spans, free text escaped, lists cut at maxListed.
var markdown = escaper{
	id:   func(s string) string { return safe.Code(s, 80) },
	text: markdownText,
	q:    func(s string) string { return safe.Code(s, 80) },
	item: func(s string) string { return safe.Code(s, 80) },
	list: maxListed,
}

// markdownText escapes free text for the comment. It is safe at the start
// of a list item (a finding's text may begin with it), and a leading space
// is kept: a clause such as " and hard-drop 5% (...)" follows a sentence.
func markdownText(s string) string {
	out := safe.Inline(s, 500)
	if out != "" && strings.HasPrefix(s, " ") {
		out = " " + out
	}
	return out
}

// Annotation is a CI annotation: an error, warning or notice on a file
// and line when the finding has them.
type Annotation struct {
	// Level is "error", "warning" or "notice".
	Level Severity
	// File and Line place the annotation; empty and 0 for none.
	File string
	Line int
	// Title is the annotation's heading.
	Title string
	// Message is the text. Hosts apply their own command escaping to it
	// and to File and Title.
	Message string
}

// PlainLine is the annotation as one safe plain log line, for hosts with no
// annotation command: the message with " (FILE:LINE)" appended when it has a
// file it does not already start with, white space folded, escaped by
// safe.LogLine. The host prefixes its own level word.
func (a Annotation) PlainLine() string {
	msg := a.Message
	if a.File != "" && !strings.HasPrefix(msg, a.File) {
		loc := a.File
		if a.Line > 0 {
			loc = fmt.Sprintf("%s:%d", a.File, a.Line)
		}
		msg += " (" + loc + ")"
	}
	return safe.LogLine(strings.Join(strings.Fields(msg), " "))
}

// Annotation returns the finding as a CI annotation. The message is a
// [Finding.Log] line: control characters and bidirectional controls from
// untrusted text cannot reach the host's log.
func (f Finding) Annotation() Annotation {
	a := Annotation{Level: f.Severity, File: f.File, Line: f.Line, Title: "rubricgate", Message: f.Log()}
	if a.Level == "" {
		a.Level = Warning
	}
	if a.Level == Error {
		a.Title = "rubricgate blocked"
	}
	if a.File == "" {
		a.Line = 0
	}
	return a
}

// render builds the English text; e escapes the untrusted parameters.
func (f Finding) render(e escaper) string {
	switch f.Kind {
	case BlockingFailure:
		ids := make([]string, 0, min(len(f.Items), maxListed))
		for _, id := range f.Items[:min(len(f.Items), maxListed)] {
			ids = append(ids, e.id(id))
		}
		list := strings.Join(ids, ", ")
		if len(f.Items) > maxListed {
			list += fmt.Sprintf(" and %d more", len(f.Items)-maxListed)
		}
		s := fmt.Sprintf("blocking criterion failed: %s on %d item(s): %s", e.id(f.Criterion), len(f.Items), list)
		if f.BaselineRubric {
			s += " (under the baseline's rubric)"
		}
		return s
	case UnscoredGate:
		s := fmt.Sprintf("blocking criterion %s has no score on %d unscored item(s) (judge errors): %s; it fails closed: re-run the judge on them", e.id(f.Criterion), len(f.Items), e.ids(f.Items[:min(len(f.Items), maxListed)], e.id))
		if len(f.Items) > maxListed {
			s += fmt.Sprintf(" and %d more", len(f.Items)-maxListed)
		}
		if f.BaselineRubric {
			s += " (under the baseline's rubric)"
		}
		return s
	case NoItemScored:
		return fmt.Sprintf("no item was scored: %d of %d items carry a judge error", f.Count, f.Total)
	case TooManyUnscored:
		return fmt.Sprintf("%d of %d items (%.1f%%) are unscored (judge errors), more than max-unscored allows", f.Count, f.Total, 100*f.Rate)
	case NoBaseline:
		note := "no baseline found"
		if f.Detail != "" {
			note = e.text(f.Detail)
		}
		if f.PolicyFail {
			return note + " and if-no-baseline is fail"
		}
		return note + ": nothing to compare with yet"
	case RubricRescored:
		return fmt.Sprintf("the rubric changed (%s → %s): the run was re-scored under the baseline's rubric to compare", e.text(ShortHash(f.From)), e.text(ShortHash(f.To)))
	case RubricChange:
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
	case NotComparable:
		why := "the results do not carry the baseline rubric's criteria"
		if f.Detail != "" {
			why = e.text(f.Detail)
		}
		return accepted(e, f, "the run cannot be re-scored under the baseline's rubric, so the scores are not comparable and the relative check cannot run: "+why)
	case UncheckedGate:
		return accepted(e, f, fmt.Sprintf("the baseline rubric's blocking criterion %s is not carried by %d item(s), so that gate could not be checked on them", e.id(f.Criterion), f.Count))
	case PromptChanged:
		what := fmt.Sprintf("the judge prompt's text of criterion %s changed: %s", e.id(f.Criterion), e.ids(f.Fields, e.text))
		switch {
		case len(f.Fields) == 1 && f.Fields[0] == "added":
			what = fmt.Sprintf("criterion %s is new in the judge prompt", e.id(f.Criterion))
		case len(f.Fields) == 1 && f.Fields[0] == "removed":
			what = fmt.Sprintf("criterion %s is gone from the judge prompt", e.id(f.Criterion))
		}
		return accepted(e, f, what+"; the judge scored this run under other instructions than the baseline's, which re-scoring under the baseline's rubric cannot undo")
	case SkipDeprecated:
		return "on-rubric-change: skip is deprecated and now means block: a rubric change the gate cannot follow blocks unless the pull request carries the accept label"
	case AggregateDrop:
		what := "aggregate score"
		if f.Common > 0 {
			what = "aggregate score of the items in common with the baseline"
		}
		s := fmt.Sprintf("%s dropped %s%% (%s), at or above max-drop %s", what, DropPct(-f.Change, f.MaxDrop), Scores(f.Baseline, f.Current, f.MaxDrop), Pct(f.MaxDrop)) + e.text(f.Detail) + f.basisNote()
		return accepted(e, f, s)
	case WithinMaxDrop:
		what := "aggregate score"
		if f.Common > 0 {
			what = fmt.Sprintf("aggregate score of the %d items in common", f.Common)
		}
		return fmt.Sprintf("%s %s vs the baseline (%s), within max-drop %s", what, ChangePct(f.Change, f.MaxDrop), Scores(f.Baseline, f.Current, f.MaxDrop), Pct(f.MaxDrop)) + f.basisNote()
	case ItemsRemoved:
		ids := make([]string, 0, min(len(f.Items), maxListed))
		for _, id := range f.Items[:min(len(f.Items), maxListed)] {
			ids = append(ids, e.id(id))
		}
		s := fmt.Sprintf("ITEMS REMOVED: %d item(s) of the baseline are missing from this run", f.Count)
		if len(ids) > 0 {
			s += ": " + strings.Join(ids, ", ")
			if f.Count > len(ids) {
				s += fmt.Sprintf(" and %d more", f.Count-len(ids))
			}
		}
		switch {
		case f.NewBaseline:
			s += "; this run is on the baseline branch, where the removal was reviewed when it merged: a new baseline starts here"
		case f.Label == "" && f.AcceptLabel != "":
			s += "; a reviewer who accepts the removal adds the " + e.id(f.AcceptLabel) + " label"
		}
		return accepted(e, f, s)
	case ItemTaskChanged:
		ids := make([]string, 0, min(len(f.Items), maxListed))
		for _, id := range f.Items[:min(len(f.Items), maxListed)] {
			ids = append(ids, e.id(id))
		}
		s := fmt.Sprintf("TASK CHANGED: %d item(s) keep a baseline item's id but not its task (the question, context or reference differs from the baseline's)", f.Count)
		if len(ids) > 0 {
			s += ": " + strings.Join(ids, ", ")
			if f.Count > len(ids) {
				s += fmt.Sprintf(" and %d more", f.Count-len(ids))
			}
		}
		return s + "; each is compared as the baseline's item removed and a new item added"
	case TaskUnboundBaseline:
		return fmt.Sprintf("%d item(s) were compared with the baseline by id alone: the baseline records no input hash for them (made before input hashes, or from results without them), so a changed question under the same id cannot be told", f.Count)
	case TaskUnboundResults:
		return fmt.Sprintf("%d item(s) were compared with the baseline by id alone: these results carry no input_hash for them, so a changed question under the same id cannot be told", f.Count)
	case DropWithinNoise:
		return fmt.Sprintf("the drop of %s%% is within noise: its 95%% interval includes 0 (noisy-drop warn); more answers per item or more items would tell", DropPct(-f.Change, f.MaxDrop))
	case RerunNeeded:
		return fmt.Sprintf("RERUN: the drop of %s%% is within noise (its 95%% interval includes 0) and noisy-drop is rerun: re-run the eval with %d more answer(s) per item and gate on both runs with --final; this run neither passes nor blocks", DropPct(-f.Change, f.MaxDrop), f.Count)
	case NoCommonItems:
		return "the run shares no item with the baseline: the relative check compares the full sets, which may hold different items"
	case NoBlockingFailed:
		return "no blocking criterion failed"
	case BaselineScoreZero:
		if f.Common > 0 {
			return "the baseline score of the items in common is 0: the relative change is undefined and the relative check was skipped"
		}
		return "the baseline score is 0: the relative change is undefined and the relative check was skipped"
	case BaselineOld:
		return fmt.Sprintf("the baseline is %d days old (max-baseline-age %d days)", f.Days, f.MaxDays)
	case ItemSetsDiffer:
		return fmt.Sprintf("the item sets differ: %d items added, %d removed since the baseline (%d in common)", f.Added, f.Removed, f.Common)
	case RubricWarning:
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
	case PassColumnDisagrees:
		say := map[bool]string{true: "pass", false: "fail"}
		why := ""
		if len(f.Below) > 0 {
			gates := make([]string, len(f.Below))
			for i, b := range f.Below {
				gates[i] = fmt.Sprintf("%s %s < %s", b.Criterion, num(b.Score), num(b.Min))
			}
			why = "; below minimum: " + e.ids(gates, e.id)
		}
		return fmt.Sprintf("%s:%d: item %s: the pass column says %s but the rubric gives %s (score %.1f, threshold %g%s)",
			e.id(f.File), f.Line, e.item(f.Item), say[f.ColumnPass], say[!f.ColumnPass], f.Score, f.Threshold, why)
	case MorePassDisagreements:
		return fmt.Sprintf("... and %d more rows whose pass column disagrees with the rubric", f.Count)
	case OutvotedFailures:
		ids := e.ids(f.Items, e.id)
		if f.Count > len(f.Items) {
			ids += fmt.Sprintf(" and %d more", f.Count-len(f.Items))
		}
		return fmt.Sprintf("%s: %d item(s) had a failing judging outvoted by the majority (more than half of their judgings met the minimum): %s", e.id(f.Criterion), f.Count, ids)
	case ToolWeightsVary:
		return fmt.Sprintf("%s: %s weighs %s differently from row to row; the rubric's weights are used", e.id(f.File), e.id(f.Format), e.ids(f.Metrics, e.q))
	case ToolWeightsDiffer:
		ws := f.Weights
		if e.list > 0 && len(ws) > e.list {
			ws = ws[:e.list]
		}
		parts := make([]string, len(ws))
		for i, w := range ws {
			parts[i] = fmt.Sprintf("%s %s (%s %s)", e.id(w.Criterion), num(w.Rubric), e.q(w.Metric), num(w.Tool))
		}
		list := strings.Join(parts, ", ")
		if len(ws) < len(f.Weights) {
			list += fmt.Sprintf(" and %d more", len(f.Weights)-len(ws))
		}
		return fmt.Sprintf("%s: %s's own weights differ from the rubric's; the rubric's weights are used: %s", e.id(f.File), e.id(f.Format), list)
	case JudgeModelMissing:
		return fmt.Sprintf("no %s model given: the judge family check could not be made", e.text(f.Role))
	case JudgeFamilyUnknown:
		return fmt.Sprintf("%s model %s is of an unknown family: the judge family check could not be made (add it under model_families in the rubric)", e.text(f.Role), e.q(f.Model))
	case JudgeSameFamily:
		return fmt.Sprintf("judge model %s and production model %s are both %s models: a judge favours its own family's outputs; judge with another family", e.q(f.Model), e.q(f.Production), e.id(f.Family))
	case JudgesUnknownPast:
		return fmt.Sprintf("%d more item(s) were judged by models of unknown family (past the first %d distinct judge models named above): the judge family check could not be made for them (add them under model_families in the rubric)", f.Count, f.Limit)
	case LengthBias:
		what := "item scores"
		if f.Criterion != "" {
			what = e.id(f.Criterion) + " scores"
		}
		return fmt.Sprintf("%s rise with answer length (Spearman rho %.2f >= %.2f over %d items): the judge may favour longer answers; check against human scores", what, f.Rho, f.MaxRho, f.Count)
	case DefaultBranchNotBaseline:
		br, base := e.q(f.Branch), e.q(f.BaselineBranch)
		return fmt.Sprintf("this run is on the default branch %s but the baseline branch is %s (from %s): no run on %s ever saves a baseline, and runs compared with %s find none unless one is saved there; set --baseline-branch %s or run the gate on %s",
			br, base, e.text(f.Source), br, base, e.id(f.Branch), base)
	case BaselineFromDefaultBranch:
		return fmt.Sprintf("no baseline on the target branch %s: compared with the default branch %s's baseline instead (save one on %s to compare with its own)",
			e.q(f.Branch), e.q(f.BaselineBranch), e.q(f.Branch))
	case RenamedRubric:
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
	case AcceptanceNotCovered:
		what := "nothing"
		if len(f.Waived) > 0 {
			what = e.ids(f.Waived, e.text)
		}
		adds := f.Adds
		if e.list > 0 && len(adds) > e.list {
			adds = append(adds[:e.list:e.list], fmt.Sprintf("%d more", len(f.Adds)-e.list))
		}
		adds = append([]string(nil), adds...)
		for i, a := range adds {
			adds[i] = e.text(a)
		}
		commit := f.Commit
		if len(commit) > 7 {
			commit = commit[:7]
		}
		return fmt.Sprintf("the %s label was applied at commit %s for %s (rubric %s); this push adds %s, which the label does not cover: remove and re-add the label to accept again",
			e.id(f.AcceptLabel), e.id(commit), what, e.text(ShortHash(f.From)), strings.Join(adds, "; "))
	case AcceptanceNotShown:
		shown := "nothing yet"
		if f.Commit != "" {
			what := "nothing"
			if len(f.Waived) > 0 {
				what = e.ids(f.Waived, e.text)
			}
			commit := f.Commit
			if len(commit) > 7 {
				commit = commit[:7]
			}
			shown = "commit " + e.id(commit) + ", for " + what
		}
		adds := f.Adds
		if e.list > 0 && len(adds) > e.list {
			adds = append(adds[:e.list:e.list], fmt.Sprintf("%d more", len(f.Adds)-e.list))
		}
		adds = append([]string(nil), adds...)
		for i, a := range adds {
			adds[i] = e.text(a)
		}
		return fmt.Sprintf("the %s label accepts only what the gate's comment showed when it was applied (%s); this run brings %s, which it does not cover: remove and re-add the label once this comment shows this run's figures",
			e.id(f.AcceptLabel), shown, strings.Join(adds, "; "))
	case AcceptanceUnreadable:
		return fmt.Sprintf("the %s label is on, but the record of what it was applied for cannot be read (%s), so it accepts nothing new: remove and re-add the label to accept this run",
			e.id(f.AcceptLabel), e.text(f.Detail))
	case AcceptanceByAuthor, AcceptanceByUnknown:
		return acceptByText(e, f)
	default: // Message and kinds this version does not know
		return e.text(f.Detail)
	}
}

// num formats a number in the shortest form that reads back the same.
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// accepted prefixes s with the accept label that waived it, if any.
func accepted(e escaper, f Finding, s string) string {
	switch {
	case f.AcceptReason != "":
		return "accepted with --accept (" + e.text(f.AcceptReason) + "): " + s
	case f.Label == "":
		return s
	}
	return "accepted by the " + e.id(f.Label) + " label: " + s
}

// JoinBlocking renders several BlockingFailure findings as the single
// reason the gate has always written: "blocking criterion failed: A on 2
// item(s): x, y; B on 1 item(s): z", criteria sorted by id. The findings
// must all be BlockingFailure with the same BaselineRubric flag.
func JoinBlocking(fs []Finding) string { return joinBlocking(fs, plain) }

// joinBlocking is JoinBlocking with e escaping the ids.
func joinBlocking(fs []Finding, e escaper) string {
	parts := make([]string, 0, len(fs))
	sorted := append([]Finding(nil), fs...)
	for i := 1; i < len(sorted); i++ { // insertion sort: a handful of criteria
		for j := i; j > 0 && sorted[j].Criterion < sorted[j-1].Criterion; j-- {
			sorted[j], sorted[j-1] = sorted[j-1], sorted[j]
		}
	}
	suffix := ""
	for _, f := range sorted {
		s := strings.TrimPrefix(f.render(e), "blocking criterion failed: ")
		if f.BaselineRubric {
			s = strings.TrimSuffix(s, " (under the baseline's rubric)")
			suffix = " (under the baseline's rubric)"
		}
		parts = append(parts, s)
	}
	return "blocking criterion failed: " + strings.Join(parts, "; ") + suffix
}

// Texts renders findings as the report's strings (the JSON's reasons and
// warnings): each finding's [Finding.Text], consecutive blocking failures
// (of the same rubric) joined into one as [JoinBlocking] does.
func Texts(fs []Finding) []string { return lines(fs, plain) }

// Markdowns renders findings as the comment's and job summary's lines, one
// per string of [Texts]: each finding's [Finding.Markdown], consecutive
// blocking failures joined.
func Markdowns(fs []Finding) []string { return lines(fs, markdown) }

// lines renders fs in one medium, joining consecutive blocking failures.
func lines(fs []Finding, e escaper) []string {
	out := make([]string, 0, len(fs))
	for i := 0; i < len(fs); {
		f := fs[i]
		if f.Kind != BlockingFailure {
			out = append(out, f.render(e))
			i++
			continue
		}
		j := i + 1
		for j < len(fs) && fs[j].Kind == BlockingFailure && fs[j].BaselineRubric == f.BaselineRubric {
			j++
		}
		out = append(out, joinBlocking(fs[i:j], e))
		i = j
	}
	return out
}

// ShortHash is the first 12 hex digits of a "sha256:..." rubric hash.
func ShortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	return h
}

// basisNote says, for a check of the items in common, what the full sets did.
func (f Finding) basisNote() string {
	if f.Common <= 0 {
		return ""
	}
	full := "undefined"
	if f.FullBaseline > 0 {
		full = fmt.Sprintf("%+.2f%%", 100*(f.FullCurrent-f.FullBaseline)/f.FullBaseline)
	}
	if f.Unscored > 0 && f.Added == 0 && f.Removed == 0 {
		return fmt.Sprintf(" [%d item(s) of the baseline are unscored in this run and compared at score 0, the worst case; the full scores: %.1f → %.1f (this run's scored items only), %s]", f.Unscored, f.FullBaseline, f.FullCurrent, full)
	}
	unscored := ""
	if f.Unscored > 0 {
		unscored = fmt.Sprintf("; %d of them unscored in this run, compared at score 0", f.Unscored)
	}
	return fmt.Sprintf(" [the item sets differ (%d added, %d removed), so the %d items in common are compared%s; the full sets: %.1f → %.1f, %s]", f.Added, f.Removed, f.Common, unscored, f.FullBaseline, f.FullCurrent, full)
}

// dropTolerance is gate's slack in the relative check: a drop within 1e-9
// of max-drop reaches it.
const dropTolerance = 1e-9

// ChangePct formats a relative change (-0.05 for a 5% drop) as a signed
// percentage with the digits needed to tell it from max-drop: two decimals,
// more when two would round a change that does not reach max-drop onto it,
// or one that reaches it off it. A passing 1.996% drop prints -1.996%,
// never -2.00% like the blocking 2.000% one.
func ChangePct(change, maxDrop float64) string {
	return fmt.Sprintf("%+.*f%%", changeDigits(-change, maxDrop), 100*change)
}

// DropPct formats a drop (positive for a drop) in percent, without sign or
// '%', with the digits ChangePct would use.
func DropPct(drop, maxDrop float64) string {
	return strconv.FormatFloat(100*drop, 'f', changeDigits(drop, maxDrop), 64)
}

// Scores formats "base → cur" with one decimal, or as many as the change
// needed when it needed more than two (50.000 → 49.002, not 50.0 → 49.0).
func Scores(base, cur, maxDrop float64) string {
	d := 1
	if base > 0 {
		if cd := changeDigits((base-cur)/base, maxDrop); cd > 2 {
			d = cd
		}
	}
	return strconv.FormatFloat(base, 'f', d, 64) + " → " + strconv.FormatFloat(cur, 'f', d, 64)
}

// changeDigits is the number of decimals of a drop in percent that keeps
// the printed drop on the same side of maxDrop as the drop itself.
func changeDigits(drop, maxDrop float64) int {
	reaches := drop >= maxDrop-dropTolerance
	for d := 2; d < 9; d++ {
		p, err := strconv.ParseFloat(strconv.FormatFloat(100*drop, 'f', d, 64), 64)
		if err == nil && (p/100 >= maxDrop-dropTolerance) == reaches {
			return d
		}
	}
	return 9
}

// Pct writes a fraction as a percentage without trailing zeros: 0.02 is "2%".
func Pct(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }
