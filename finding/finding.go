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

// Kinds. The parameters each kind reads are listed beside it; the other
// kinds are declared with their renderers, by what they are about, in
// the kind_*.go files.
const (
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
	AttemptParams
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

// AttemptParams are the values of the attempts of one change request at
// the same inputs: AttemptsPooled.
type AttemptParams struct {
	// Attempts is how many times the code was gated (this run included).
	Attempts int `json:"attempts,omitempty"`
	// PooledLow and PooledHigh bound the pooled change's 95% interval.
	PooledLow  float64 `json:"pooled_low,omitempty"`
	PooledHigh float64 `json:"pooled_high,omitempty"`
	// Held: an earlier attempt blocked and the pooled interval does not
	// lie within max-drop; Cleared: it does.
	Held    bool `json:"held,omitempty"`
	Cleared bool `json:"cleared,omitempty"`
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

// renderer builds one kind's English text; e escapes the untrusted
// parameters.
type renderer func(f Finding, e escaper) string

// renderers holds each kind's renderer. A kind is declared, with the
// parameters it reads, beside its renderer and its entry in its group's
// table (kind_*.go): adding a kind touches that one file.
var renderers = kindTable(gateKinds, baselineKinds, rubricKinds, dropKinds, driftKinds, itemKinds, resultKinds, judgeKinds, acceptKinds)

// kindTable merges the groups' tables.
func kindTable(groups ...map[Kind]renderer) map[Kind]renderer {
	m := map[Kind]renderer{}
	for _, g := range groups {
		for k, r := range g {
			m[k] = r
		}
	}
	return m
}

// render builds the English text; e escapes the untrusted parameters.
func (f Finding) render(e escaper) string {
	if r, ok := renderers[f.Kind]; ok {
		return r(f, e)
	}
	// Message and kinds this version does not know.
	return e.text(f.Detail)
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
