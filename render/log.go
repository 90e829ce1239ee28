package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// LogEntry is one entry of the gate's log: a plain line, or an annotation
// the host's reporter shows (and escapes).
type LogEntry struct {
	// Line is a plain line, already escaped ("" for an annotation).
	Line string
	// Annotation, when set, is shown through the host's reporter.
	Annotation *finding.Annotation
	// Style is what the line is, for a terminal's colours.
	Style LogStyle
}

// LogStyle is what a log line is: the decision (pass or block), a reason
// the run is blocked, or plain.
type LogStyle int

// The log styles.
const (
	LogPlain LogStyle = iota
	LogPass
	LogBlock
	LogBlockReason
)

// ANSI colours of the styles: bold green, bold red, red.
var ansi = map[LogStyle]string{LogPass: "\x1b[1;32m", LogBlock: "\x1b[1;31m", LogBlockReason: "\x1b[31m"}

// Colored is the line in the terminal colour of its style.
func (l LogEntry) Colored() string {
	if c, ok := ansi[l.Style]; ok && l.Line != "" {
		return c + l.Line + "\x1b[0m"
	}
	return l.Line
}

// DecisionLog is the decision as the gate's log shows it: the decision,
// the score line, the interval's resolution, the reasons, the warnings and
// where a new baseline was written. With annotate (a CI host with
// annotations) the reasons of a blocked run are error annotations; a
// reason or warning that is one finding's text is annotated from the
// finding (its level, and file and line when known). Warnings are always
// annotations.
func DecisionLog(g *gate.GateReport, baselinePath string, annotate bool) []LogEntry {
	var out []LogEntry
	line := func(format string, a ...any) { out = append(out, LogEntry{Line: fmt.Sprintf(format, a...)}) }
	note := func(a finding.Annotation) { out = append(out, LogEntry{Annotation: &a}) }
	word := strings.ToUpper(string(g.Decision))
	if g.Accepted {
		word = "PASS (regression accepted)"
	}
	line("rubricgate: %s", word)
	out[len(out)-1].Style = LogPass
	if g.Decision == gate.Block {
		out[len(out)-1].Style = LogBlock
	}
	// The figures the decision used; the full sets' beside them when they
	// differ (a rubric change, item sets that differ, unscored items).
	hf := headlineFigures(g)
	var b strings.Builder
	b.WriteString("  score n/a")
	if hf.cur != nil {
		b.Reset()
		b.WriteString("  score " + strconv.FormatFloat(*hf.cur, 'f', 1, 64))
	}
	if hf.base != nil {
		fmt.Fprintf(&b, ", baseline %.1f", *hf.base)
		if g.Baseline != nil && g.Baseline.PooledRuns > 1 {
			fmt.Fprintf(&b, " (the mean of the last %d runs of its branch)", g.Baseline.PooledRuns)
		}
	}
	if hf.change != nil {
		fmt.Fprintf(&b, ", change %s%s", gate.FormatChange(*hf.change, g.MaxDrop), hf.on())
	}
	if hf.ci != nil {
		fmt.Fprintf(&b, " (95%% CI %+.2f%% .. %+.2f%%)", 100*hf.ci[0], 100*hf.ci[1])
	}
	if n := hf.fullNote(g.MaxDrop); n != "" {
		b.WriteString("; " + n)
	}
	line("%s", b.String())
	if t := TrendLine(g); t != "" {
		line("  %s", t)
	}
	if d := DriftLine(g); d != "" {
		line("  %s", d)
	}
	if r := ResolutionLine(g.DropCheck); r != "" {
		line("  %s", r)
		if d := ResolutionDetail(g.DropCheck); d != "" {
			line("    %s", d)
		}
	}
	byText := map[string]finding.Finding{}
	for _, f := range g.Findings {
		byText[f.Text()] = f
	}
	for _, r := range g.Reasons {
		f, ok := byText[r]
		switch {
		case !annotate || g.Decision != gate.Block:
			line("  - %s", safe.LogLine(r))
			if g.Decision == gate.Block {
				out[len(out)-1].Style = LogBlockReason
			}
		case ok && f.Severity != finding.Warning:
			note(f.Annotation())
		default:
			note(finding.Annotation{Level: finding.Error, Title: "rubricgate blocked", Message: r})
		}
	}
	for _, w := range g.Warnings {
		if f, ok := byText[w]; ok && f.Severity == finding.Warning && annotate {
			note(f.Annotation())
			continue
		}
		note(finding.Annotation{Level: finding.Warning, Title: "rubricgate", Message: w})
	}
	if n := NextStepLine(g); n != "" {
		line("  %s", n)
	}
	if baselinePath != "" {
		line("  new baseline written to %s", safe.LogLine(baselinePath))
	}
	return out
}
