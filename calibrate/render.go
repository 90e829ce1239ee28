package calibrate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/render"
)

// Rendering. Everything shown from results and rubrics (item ids, names,
// notes) is untrusted: Markdown output escapes it and defuses @mentions;
// text output drops control and bidi characters. Both cap its length.

// Caps on untrusted strings, advice and id lists in rendered output.
const (
	maxText   = 200
	maxAdvice = 2000
	maxIDs    = 20
)

// WriteJSON writes v (a *Report, *ReviewerReport, TierDecision...) as
// indented JSON with a final newline.
func WriteJSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// num formats a figure with two decimals, "n/a" when undefined.
func num(v *float64) string {
	if v == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

// score formats a rater's score or a difference of scores: integers as
// integers, other values with up to four decimals.
func score(v float64) string {
	if math.Abs(v) >= 1e15 || math.IsNaN(v) {
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" {
		s = "0"
	}
	return s
}

// signedScore is score with a sign.
func signedScore(v float64) string {
	if v > 0 {
		return "+" + score(v)
	}
	return score(v)
}

// continuousNote says how a continuous criterion's figures read.
func continuousNote(c *CriterionAgreement) string {
	t := score(c.Continuous.Tolerance)
	return "continuous scale: exact is the share of pairs within ±" + t + ", adjacent within ±" + score(2*c.Continuous.Tolerance) +
		", and kappa and alpha are Krippendorff's alpha (interval) on the raw scores"
}

// signed formats a mean difference with its sign.
func signed(v *float64) string {
	if v == nil {
		return "n/a"
	}
	s := strconv.FormatFloat(*v, 'f', 2, 64)
	if *v >= 0 && !strings.HasPrefix(s, "-") {
		s = "+" + s
	}
	if s == "+0.00" || s == "-0.00" {
		s = "0.00"
	}
	return s
}

// clean drops control and bidi formatting characters, folds whitespace runs
// to one space and caps the length; the result is a safe log line
// (internal/safe.LogLine), so no text can read as a workflow command.
func clean(s string) string { return safe.LogLine(cleanN(s, maxText)) }

// cleanN is clean with a cap of max runes.
func cleanN(s string, max int) string {
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if r == utf8.RuneError || unicode.Is(unicode.Cf, r) {
			continue
		}
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if n >= max {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// md makes untrusted text inert in Markdown (and in a table cell): it
// escapes Markdown and HTML syntax and breaks @mentions.
func md(s string) string { return mdN(s, maxText) }

// mdN is md with a cap of max runes.
func mdN(s string, max int) string {
	s = cleanN(s, max)
	if s == "" {
		return `""`
	}
	// The shared escaping (internal/safe), as every other report uses; s is
	// already capped, with its ellipsis.
	return safe.Inline(s, max+1)
}

// idList renders at most maxIDs ids.
func idList(ids []string, f func(string) string) string {
	if len(ids) == 0 {
		return "none"
	}
	shown := ids
	if len(shown) > maxIDs {
		shown = shown[:maxIDs]
	}
	parts := make([]string, len(shown))
	for i, id := range shown {
		parts[i] = f(id)
	}
	s := strings.Join(parts, ", ")
	if len(ids) > maxIDs {
		s += fmt.Sprintf(" and %d more", len(ids)-maxIDs)
	}
	return s
}

func verdict(ok bool) string {
	if ok {
		return "PASSED"
	}
	return "FAILED"
}

func mark(ok bool) string {
	if ok {
		return "pass"
	}
	return "FAIL"
}

// failLine says why a criterion fails.
func failLine(c *CriterionAgreement, m Metric, min float64) string {
	v := c.Value(m)
	if v == nil {
		return fmt.Sprintf("%s undefined (n=%d)", m, c.N)
	}
	return fmt.Sprintf("%s %s < %g", m, fmtNum(*v, min), min)
}

// errWriter keeps the first write error.
type errWriter struct {
	w   *bufio.Writer
	err error
}

func (e *errWriter) printf(format string, a ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, a...)
	}
}

func (e *errWriter) flush() error {
	if e.err != nil {
		return e.err
	}
	return e.w.Flush()
}

func newErrWriter(w io.Writer) *errWriter { return &errWriter{w: bufio.NewWriter(w)} }

// WriteMarkdown renders a calibration report as Markdown (for a pull-request
// comment or a job summary): a table of every criterion, then for each
// failing criterion its advice, confusion matrix and largest disagreements.
func WriteMarkdown(w io.Writer, rep *Report) error {
	e := newErrWriter(w)
	e.printf("## Judge calibration: %s\n\n", verdict(rep.Passed))
	e.printf("Rubric %s (`%s`), metric **%s**, minimum agreement %g.\n\n", md(rep.Rubric.Name), shortHash(rep.Rubric.Hash), rep.Metric, rep.MinAgreement)
	writeCriteriaTableMD(e, rep.Criteria)
	for i := range rep.Criteria {
		c := &rep.Criteria[i]
		if c.Pass {
			continue
		}
		writeCriterionDetailMD(e, c, rep.Metric, rep.MinAgreement, "human", "judge")
	}
	if len(rep.OnlyInHuman)+len(rep.OnlyInJudge) > 0 {
		e.printf("### Items on one side only\n\n")
		e.printf("- only in human ratings (%d): %s\n", len(rep.OnlyInHuman), idList(rep.OnlyInHuman, md))
		e.printf("- only in judge ratings (%d): %s\n\n", len(rep.OnlyInJudge), idList(rep.OnlyInJudge, md))
	}
	return e.flush()
}

func writeCriteriaTableMD(e *errWriter, cs []CriterionAgreement) {
	e.printf("| Criterion | n | na/missing | exact | adjacent | kappa | kappa (quadratic) | alpha (ordinal) | alpha (interval) | mean diff | result |\n")
	e.printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for i := range cs {
		c := &cs[i]
		e.printf("| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", md(c.Name), c.N, c.NAOrMissing,
			num(c.Exact), num(c.Adjacent), num(c.Kappa), num(c.KappaQuadratic), num(c.AlphaOrdinal), num(c.AlphaInterval),
			signed(c.MeanDiff), mark(c.Pass))
	}
	e.printf("\n")
	for i := range cs {
		if cs[i].Skipped != "" {
			e.printf("- %s: %s\n", md(cs[i].Name), md(cs[i].Skipped))
		}
		if cs[i].Continuous != nil {
			e.printf("- %s: %s\n", md(cs[i].Name), continuousNote(&cs[i]))
		}
	}
	if hasSkipped(cs) {
		e.printf("\n")
	}
}

func hasSkipped(cs []CriterionAgreement) bool {
	for i := range cs {
		if cs[i].Skipped != "" || cs[i].Continuous != nil {
			return true
		}
	}
	return false
}

func writeCriterionDetailMD(e *errWriter, c *CriterionAgreement, m Metric, min float64, a, b string) {
	e.printf("### %s: %s\n\n", md(c.Name), failLine(c, m, min))
	e.printf("%s\n\n", mdN(c.Advice, maxAdvice))
	if c.N == 0 {
		return
	}
	if c.Continuous != nil {
		e.printf("%d of %d pairs within ±%s (%s against %s).\n\n", c.Continuous.Within, c.N, score(c.Continuous.Tolerance), md(b), md(a))
		writeDisagreementsMD(e, c, a, b)
		return
	}
	e.printf("Confusion (rows %s, columns %s):\n\n", md(a), md(b))
	e.printf("| %s \\\\ %s |", md(a), md(b))
	for _, l := range c.Confusion.Levels {
		e.printf(" %d |", l)
	}
	e.printf("\n|---|")
	for range c.Confusion.Levels {
		e.printf("---:|")
	}
	e.printf("\n")
	for i, row := range c.Confusion.Counts {
		e.printf("| **%d** |", c.Confusion.Levels[i])
		for _, v := range row {
			e.printf(" %d |", v)
		}
		e.printf("\n")
	}
	e.printf("\n")
	writeDisagreementsMD(e, c, a, b)
}

// writeDisagreementsMD lists a criterion's largest disagreements.
func writeDisagreementsMD(e *errWriter, c *CriterionAgreement, a, b string) {
	if len(c.Disagreements) > 0 {
		e.printf("Largest disagreements:\n\n| item | %s | %s | diff |\n|---|---:|---:|---:|\n", md(a), md(b))
		for _, d := range c.Disagreements {
			e.printf("| %s | %s | %s | %s |\n", md(d.ID), score(d.Human), score(d.Judge), signedScore(d.Diff))
		}
		e.printf("\n")
	}
}

// WriteText renders a calibration report as plain text for a terminal.
func WriteText(w io.Writer, rep *Report) error {
	e := newErrWriter(w)
	e.printf("judge calibration %s: rubric %s (%s), metric %s, minimum %g\n\n", verdict(rep.Passed), clean(rep.Rubric.Name), shortHash(rep.Rubric.Hash), rep.Metric, rep.MinAgreement)
	writeCriteriaTableText(e, rep.Criteria)
	for i := range rep.Criteria {
		c := &rep.Criteria[i]
		if !c.Pass {
			writeCriterionDetailText(e, c, rep.Metric, rep.MinAgreement, "human", "judge")
		}
	}
	if len(rep.OnlyInHuman)+len(rep.OnlyInJudge) > 0 {
		e.printf("only in human ratings (%d): %s\n", len(rep.OnlyInHuman), idList(rep.OnlyInHuman, clean))
		e.printf("only in judge ratings (%d): %s\n", len(rep.OnlyInJudge), idList(rep.OnlyInJudge, clean))
	}
	return e.flush()
}

func writeCriteriaTableText(e *errWriter, cs []CriterionAgreement) {
	width := len("criterion")
	for i := range cs {
		if n := utf8.RuneCountInString(clean(cs[i].ID)); n > width {
			width = n
		}
	}
	e.printf("%-*s %5s %6s %6s %6s %6s %6s %6s %6s %6s  %s\n", width, "criterion", "n", "na/mis", "exact", "adj", "kappa", "kappaq", "alphao", "alphai", "diff", "result")
	for i := range cs {
		c := &cs[i]
		e.printf("%-*s %5d %6d %6s %6s %6s %6s %6s %6s %6s  %s\n", width, clean(c.ID), c.N, c.NAOrMissing,
			num(c.Exact), num(c.Adjacent), num(c.Kappa), num(c.KappaQuadratic), num(c.AlphaOrdinal), num(c.AlphaInterval),
			signed(c.MeanDiff), mark(c.Pass))
	}
	e.printf("\n")
	for i := range cs {
		if cs[i].Skipped != "" {
			e.printf("%s: %s\n", clean(cs[i].ID), clean(cs[i].Skipped))
		}
		if cs[i].Continuous != nil {
			e.printf("%s: %s\n", clean(cs[i].ID), continuousNote(&cs[i]))
		}
	}
	if hasSkipped(cs) {
		e.printf("\n")
	}
}

func writeCriterionDetailText(e *errWriter, c *CriterionAgreement, m Metric, min float64, a, b string) {
	e.printf("%s: %s\n  %s\n", clean(c.ID), failLine(c, m, min), safe.LogLine(cleanN(c.Advice, maxAdvice)))
	if c.N == 0 {
		e.printf("\n")
		return
	}
	if c.Continuous != nil {
		e.printf("  %d of %d pairs within ±%s\n", c.Continuous.Within, c.N, score(c.Continuous.Tolerance))
		writeDisagreementsText(e, c, a, b)
		return
	}
	e.printf("  confusion (rows %s, columns %s):\n      ", clean(a), clean(b))
	for _, l := range c.Confusion.Levels {
		e.printf(" %4d", l)
	}
	e.printf("\n")
	for i, row := range c.Confusion.Counts {
		e.printf("  %4d", c.Confusion.Levels[i])
		for _, v := range row {
			e.printf(" %4d", v)
		}
		e.printf("\n")
	}
	writeDisagreementsText(e, c, a, b)
}

// writeDisagreementsText lists a criterion's largest disagreements.
func writeDisagreementsText(e *errWriter, c *CriterionAgreement, a, b string) {
	if len(c.Disagreements) > 0 {
		e.printf("  largest disagreements (%s -> %s):\n", clean(a), clean(b))
		for _, d := range c.Disagreements {
			e.printf("    %s: %s -> %s (%s)\n", clean(d.ID), score(d.Human), score(d.Judge), signedScore(d.Diff))
		}
	}
	e.printf("\n")
}

// shortHash abbreviates "sha256:<hex>" to its first 12 hex digits.
func shortHash(h string) string {
	h = strings.ReplaceAll(clean(h), "`", "")
	if rest, ok := strings.CutPrefix(h, "sha256:"); ok && len(rest) > 12 {
		return "sha256:" + rest[:12]
	}
	return h
}

// WriteReviewersMarkdown renders a two-reviewer comparison as Markdown:
// agreement per criterion, then every disagreement to discuss, criteria to
// discuss first at the top.
func WriteReviewersMarkdown(w io.Writer, rep *ReviewerReport) error {
	e := newErrWriter(w)
	a, b := rep.Reviewers[0], rep.Reviewers[1]
	e.printf("## Reviewer agreement: %s and %s: %s\n\n", md(a), md(b), verdict(rep.Passed))
	e.printf("Rubric %s (`%s`), metric **%s**, minimum agreement %g.\n\n", md(rep.Rubric.Name), shortHash(rep.Rubric.Hash), rep.Metric, rep.MinAgreement)
	writeCriteriaTableMD(e, rep.Criteria)
	e.printf("Mean diff is %s minus %s.\n\n", md(b), md(a))
	e.printf("### Disagreements to discuss (%d)\n\n", len(rep.Disagreements))
	if len(rep.Disagreements) == 0 {
		e.printf("None.\n\n")
	} else {
		e.printf("| item | criterion | %s | %s | notes (%s) | notes (%s) |\n|---|---|---:|---:|---|---|\n", md(a), md(b), md(a), md(b))
		for _, d := range rep.Disagreements {
			crit := md(d.Criterion)
			if d.Discuss {
				crit = "**" + crit + "**"
			}
			e.printf("| %s | %s | %s | %s | %s | %s |\n", md(d.Item), crit, d.A, d.B, mdNote(d.NotesA), mdNote(d.NotesB))
		}
		e.printf("\nCriteria in bold decide the verdict on their own: agree on how to read them first.\n\n")
	}
	if len(rep.OnlyA)+len(rep.OnlyB) > 0 {
		e.printf("### Items scored by one reviewer only\n\n")
		e.printf("- only %s (%d): %s\n", md(a), len(rep.OnlyA), idList(rep.OnlyA, md))
		e.printf("- only %s (%d): %s\n\n", md(b), len(rep.OnlyB), idList(rep.OnlyB, md))
	}
	return e.flush()
}

func mdNote(s string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	return md(s)
}

// WriteReviewersText renders a two-reviewer comparison as plain text.
func WriteReviewersText(w io.Writer, rep *ReviewerReport) error {
	e := newErrWriter(w)
	a, b := clean(rep.Reviewers[0]), clean(rep.Reviewers[1])
	e.printf("reviewer agreement %s: %s and %s, rubric %s (%s), metric %s, minimum %g\n\n", verdict(rep.Passed), a, b, clean(rep.Rubric.Name), shortHash(rep.Rubric.Hash), rep.Metric, rep.MinAgreement)
	writeCriteriaTableText(e, rep.Criteria)
	e.printf("disagreements to discuss (%d), criteria marked * first:\n", len(rep.Disagreements))
	for _, d := range rep.Disagreements {
		star := " "
		if d.Discuss {
			star = "*"
		}
		e.printf("%s %s %s: %s %s, %s %s\n", star, clean(d.Item), clean(d.Criterion), a, d.A, b, d.B)
		if n := clean(d.NotesA); n != "" {
			e.printf("    %s: %s\n", a, n)
		}
		if n := clean(d.NotesB); n != "" {
			e.printf("    %s: %s\n", b, n)
		}
	}
	if len(rep.OnlyA)+len(rep.OnlyB) > 0 {
		e.printf("\nonly %s (%d): %s\n", a, len(rep.OnlyA), idList(rep.OnlyA, clean))
		e.printf("only %s (%d): %s\n", b, len(rep.OnlyB), idList(rep.OnlyB, clean))
	}
	return e.flush()
}

// String renders a tier decision on one line, then one line per reason.
func (d TierDecision) String() string {
	var b strings.Builder
	switch {
	case d.MayAdvance:
		fmt.Fprintf(&b, "rollout may widen from %d%% to %d%%", d.Current, d.Next)
	case d.Last && len(d.HeldBy) == 0:
		fmt.Fprintf(&b, "rollout is at its last tier (%d%%)", d.Current)
	default:
		fmt.Fprintf(&b, "rollout held at %d%%", d.Current)
	}
	for _, h := range d.HeldBy {
		b.WriteString("\n  - " + clean(h))
	}
	return b.String()
}

// Renderer writes a calibration in one format.
type Renderer func(w io.Writer, r *Result) error

// Table returns the renderers of a calibration by format name:
// "json", "markdown" and "text", for a judge-human report or a reviewers'
// one (untrusted text escaped by internal/safe, as in every report).
func Table() map[render.Format]Renderer {
	pick := func(rep func(io.Writer, *Report) error, rev func(io.Writer, *ReviewerReport) error) Renderer {
		return func(w io.Writer, r *Result) error {
			if r.Reviewers != nil {
				return rev(w, r.Reviewers)
			}
			return rep(w, r.Report)
		}
	}
	return map[render.Format]Renderer{
		render.FormatJSON: pick(func(w io.Writer, r *Report) error { return WriteJSON(w, r) },
			func(w io.Writer, r *ReviewerReport) error { return WriteJSON(w, r) }),
		render.FormatMarkdown: pick(WriteMarkdown, WriteReviewersMarkdown),
		render.FormatText:     pick(WriteText, WriteReviewersText),
	}
}
