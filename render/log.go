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
	var b strings.Builder
	b.WriteString("  score n/a")
	if g.Score != nil {
		b.Reset()
		b.WriteString("  score " + strconv.FormatFloat(*g.Score, 'f', 1, 64))
	}
	if g.Baseline != nil {
		fmt.Fprintf(&b, ", baseline %.1f", g.Baseline.Score)
	}
	if g.RelativeChange != nil {
		fmt.Fprintf(&b, ", change %s", gate.FormatChange(*g.RelativeChange, g.MaxDrop))
	}
	if g.CI95 != nil {
		fmt.Fprintf(&b, " (95%% CI %+.2f%% .. %+.2f%%)", 100*g.CI95[0], 100*g.CI95[1])
	}
	line("%s", b.String())
	if r := ResolutionLine(g.DropCheck); r != "" {
		line("  %s", r)
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
	if baselinePath != "" {
		line("  new baseline written to %s", safe.LogLine(baselinePath))
	}
	return out
}
