// Package render turns report values into text: the PR comment and job
// summary markdown, the plain-text tables printed on a terminal, and JSON.
// Computing happens in package gate; nothing here changes a figure.
//
// Every string that came from results or rubrics (ids, names, reasoning,
// notes) is untrusted and passes through internal/safe before it is shown.
package render

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// MaxCommentBody is the limit on a comment body: [comment.MaxBodyBytes],
// the one place the 65,536 figure lives.
const MaxCommentBody = comment.MaxBodyBytes

// MarkdownOptions tune the markdown report.
type MarkdownOptions struct {
	// Title is the heading (default "rubricgate").
	Title string
	// Budget is the most bytes the body may take (default MaxCommentBody
	// minus room for the sticky marker). Bytes, not characters: a byte
	// budget also keeps a body of emoji and accents within GitHub's
	// character limit.
	Budget int
	// Now is used for the baseline's age.
	Now time.Time
	// RunsURL is where this repository's runs live on this server
	// (host.Build.RunsURL): the baseline's run URL, which comes from the
	// baseline file or a report (untrusted), is a link only when it is
	// RunsURL followed by a run number; otherwise it is shown as text.
	RunsURL string
}

// level is one way of shortening the optional sections, from generous to spare.
type level struct {
	reasoning   int // runes of reasoning per item
	worst       int // item regressions listed
	failures    int // blocking failure lines
	listIDs     int // added/removed ids listed
	warnings    int // warning lines
	unscored    int // unscored items listed
	chart, misc bool
}

var levels = []level{
	{reasoning: 500, worst: 10, failures: 50, listIDs: 20, warnings: 30, unscored: 20, chart: true, misc: true},
	{reasoning: 200, worst: 10, failures: 20, listIDs: 10, warnings: 15, unscored: 10, chart: true, misc: true},
	{reasoning: 80, worst: 5, failures: 10, listIDs: 5, warnings: 10, unscored: 5, chart: true, misc: true},
	{reasoning: 0, worst: 3, failures: 5, listIDs: 0, warnings: 5, unscored: 0, chart: false, misc: false},
	{reasoning: 0, worst: 0, failures: 0, listIDs: 0, warnings: 0, unscored: 0, chart: false, misc: false},
}

// Markdown renders the gate report as the PR comment / job summary body. The
// headline and the per-criterion table are always kept; other sections are
// shortened, in steps, until the body fits the budget.
func Markdown(g *gate.GateReport, o MarkdownOptions) string {
	if o.Title == "" {
		o.Title = "rubricgate"
	}
	if o.Budget <= 0 {
		o.Budget = MaxCommentBody - 512
	}
	var body string
	for _, l := range levels {
		body = markdownAt(g, o, l)
		if len(body) <= o.Budget {
			return body
		}
	}
	// Headline and table alone exceed the budget (a rubric with a vast number
	// of criteria): cut on a rune boundary and say so.
	note := "\n\n_(report cut to fit GitHub's comment size limit; see the job summary or the JSON report)_\n"
	cut := max(0, o.Budget-len(note))
	for cut > 0 && !utf8.RuneStart(body[cut]) {
		cut--
	}
	return body[:cut] + note
}

// markdownAt renders the report at one level of detail: the whole report
// at the first level, less at each later one (Markdown tries them in turn
// until the body fits the budget).
func markdownAt(g *gate.GateReport, o MarkdownOptions, l level) string {
	var b strings.Builder
	reasons, warnings := findingLines(g)
	writeHeadline(&b, g, o, reasons)
	writeAggregate(&b, g)
	writeCriteria(&b, g)
	writeFailures(&b, g, l)
	writeUnscored(&b, g, l)
	writeWorst(&b, g, l)
	writeItemSets(&b, g, l)
	writeWarnings(&b, warnings, l)
	writeTier(&b, g)
	// The trend (render/trend.go), then the chart of per-criterion change.
	if l.chart {
		writeTrend(&b, g)
		writeChart(&b, g.Changes)
	}
	writeProvenance(&b, g, o)
	return b.String()
}

func writeChart(b *strings.Builder, changes []gate.CriterionChange) {
	var ids []string
	var vals []string
	lo, hi := -1.0, 1.0
	for _, c := range changes {
		if c.Change == nil {
			continue
		}
		// Criterion ids are [a-z0-9_]+ (validated by the rubric loader), safe
		// in mermaid; quote them anyway and never use display names here.
		ids = append(ids, fmt.Sprintf("%q", chartLabel(c.ID)))
		vals = append(vals, fmt.Sprintf("%.1f", *c.Change))
		lo, hi = math.Min(lo, *c.Change), math.Max(hi, *c.Change)
	}
	if len(ids) == 0 {
		return
	}
	span := math.Ceil(math.Max(-lo, hi))
	fmt.Fprintf(b, "```mermaid\nxychart-beta\n    title \"Change per criterion (points, 0-100)\"\n    x-axis [%s]\n    y-axis \"points\" %g --> %g\n    bar [%s]\n```\n\n",
		strings.Join(ids, ", "), -span, span, strings.Join(vals, ", "))
}

func status(c gate.CriterionChange) string {
	switch c.Status {
	case "fail":
		return fmt.Sprintf("❌ %d below minimum", c.BelowMin)
	case "down":
		return "🔻 down"
	case "up":
		return "🔺 up"
	case "new":
		return "new"
	case "gone":
		return "removed"
	}
	if c.Gate && c.BelowMin > 0 {
		return fmt.Sprintf("⚠️ %d below minimum", c.BelowMin)
	}
	return "✅"
}

func idList(ids []string, k, total int) string {
	var parts []string
	for _, id := range ids[:min(k, len(ids))] {
		parts = append(parts, safe.Code(id, 60))
	}
	s := strings.Join(parts, ", ")
	if total > len(parts) {
		s += fmt.Sprintf(" … (+%d)", total-len(parts))
	}
	return s
}

// scoreText writes a raw criterion score: 3, 0.35, 2.67 (a mean of samples).
func scoreText(f float64) string { return trimZeros(fmt.Sprintf("%.2f", f)) }

// failureScore is a blocking failure's score, "no score" for an unscored
// item that fails closed.
func failureScore(f gate.BlockingFailure) string {
	if f.Unscored {
		return "no score"
	}
	return scoreText(f.Score)
}

// spreadText writes a criterion's spread, "—" when no item has two samples.
func spreadText(f *float64) string {
	if f == nil {
		return "—"
	}
	return "±" + fmt.Sprintf("%.2f", *f)
}

func num(f float64) string { return trimZeros(fmt.Sprintf("%.2f", f)) }

func num1(f float64) string { return fmt.Sprintf("%.1f", f) }

func numPtr(f *float64) string {
	if f == nil {
		return "—"
	}
	return num1(*f)
}

func pctPtr(f *float64) string {
	if f == nil {
		return "—"
	}
	return fmt.Sprintf("%.1f%%", 100**f)
}

func signed1(f float64) string { return fmt.Sprintf("%+.1f", f) }

func signedPtr(f *float64) string {
	if f == nil {
		return "—"
	}
	return signed1(*f)
}

func signedPct(f float64) string { return fmt.Sprintf("%+.2f%%", 100*f) }

func pctPlain(f float64) string { return trimZeros(fmt.Sprintf("%.4f", 100*f)) + "%" }

func trimZeros(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func trimHash(h string) string { return strings.TrimPrefix(h, "sha256:") }

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

func age(d time.Duration) string {
	switch {
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h", int(d.Hours()))
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

// findingLines renders the reasons and the warnings as markdown lines,
// from the report's findings ([finding.Markdowns]: ids as code spans, free
// text escaped). A list whose findings do not render to the report's
// strings (a report written by an older version, or edited) is rendered
// from the strings, escaped.
func findingLines(g *gate.GateReport) (reasons, warnings []string) {
	var rs, ws []finding.Finding
	for _, f := range g.Findings {
		if f.Severity == finding.Warning {
			ws = append(ws, f)
		} else {
			rs = append(rs, f)
		}
	}
	lines := func(fs []finding.Finding, texts []string, max int) []string {
		if slices.Equal(finding.Texts(fs), texts) {
			return finding.Markdowns(fs)
		}
		out := make([]string, len(texts))
		for i, s := range texts {
			out[i] = safe.Inline(s, max)
		}
		return out
	}
	var warns []string
	if g.Report != nil {
		warns = g.Warnings
	}
	return lines(rs, g.Reasons, 400), lines(ws, warns, 300)
}

// resolutionLine is ResolutionLine in italics, with ResolutionDetail
// folded below it.
func resolutionLine(dc *gate.DropCheck) string {
	line := ResolutionLine(dc)
	if line == "" {
		return ""
	}
	line = "_" + line + "_"
	if d := ResolutionDetail(dc); d != "" {
		line += fmt.Sprintf("\n\n<details><summary>How to resolve a %s drop</summary>\n\n%s\n\n</details>", pctPlain(dc.Resolution.Target), d)
	}
	return line
}

// ResolutionLine says in one short line what the gate can see at this
// run's size and noise: "Resolution: ±4.1% (95%) at 50 items × 1 answer;
// it resolves drops of 3.8% or more (80% power, noisy-drop block)." It is
// "" without a paired interval. [ResolutionDetail] says how to resolve
// the target drop when it does not.
func ResolutionLine(dc *gate.DropCheck) string {
	if dc == nil || dc.Resolution == nil {
		return ""
	}
	r := dc.Resolution
	if r.HalfWidth == 0 {
		// Every common item changed by the same amount (a re-run of the
		// very same scores, say): the interval has no width and tells
		// nothing about the noise.
		return fmt.Sprintf("Resolution: unknown; every one of the %d common items changed by the same amount, so the interval has no width (regenerate the answers to measure the noise).", r.Items)
	}
	s := fmt.Sprintf("Resolution: ±%s (95%%) at %d items × %s; it resolves drops of %s or more (%d%% power, noisy-drop %s)",
		pct1(r.HalfWidth), r.Items, answersPhrase(r.Answers), pct1(r.MinDetectable), int(100*gate.DetectPower), r.NoisyDrop)
	if r.Resolves {
		return s + fmt.Sprintf("; a %s drop stands out from noise.", pctPlain(r.Target))
	}
	return s + "."
}

// ResolutionDetail is how to resolve the target drop when the run cannot:
// "To tell a 2% drop from noise: 4 answers per item (...), or about 211
// items." It is "" when the run resolves it, or without an interval.
func ResolutionDetail(dc *gate.DropCheck) string {
	if dc == nil || dc.Resolution == nil || dc.Resolution.HalfWidth == 0 || dc.Resolution.Resolves {
		return ""
	}
	r := dc.Resolution
	s := fmt.Sprintf("To tell a %s drop from noise: ", pctPlain(r.Target))
	if r.AnswersNeeded > 0 {
		s += fmt.Sprintf("%d answers per item (regenerated, in this run and the baseline), or ", r.AnswersNeeded)
	}
	s += fmt.Sprintf("about %d items", r.ItemsNeeded)
	if !r.Measured {
		s += " (with one answer per item, all of the spread is taken for answer noise)"
	}
	return s + "; judging the same answer again does not remove answer noise."
}

// answersPhrase is "1 answer" or "4 answers" per item (a mean shown with
// one decimal when it is not whole).
func answersPhrase(k float64) string {
	if k <= 1 {
		return "1 answer"
	}
	return trimZeros(fmt.Sprintf("%.1f", k)) + " answers"
}

// pct1 is a share as a percentage with one decimal: 0.041 is "4.1%".
func pct1(f float64) string { return trimZeros(fmt.Sprintf("%.1f", 100*f)) + "%" }
