package render

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
)

// JSON writes v as indented JSON with a trailing newline. HTML characters
// are left as they are (the output is data, not a page).
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("encode JSON: %w", err)
	}
	return nil
}

// ScoreMarkdown renders a scored run (no baseline) as markdown.
func ScoreMarkdown(rep *gate.Report) string {
	g := &gate.GateReport{Report: rep, Decision: gate.Pass, Comparable: false}
	for _, c := range rep.Criteria {
		g.Changes = append(g.Changes, gate.CriterionChange{ID: c.ID, Name: c.Name, Weight: c.Weight, Current: c.Normalized, BelowMin: c.BelowMin, Status: "ok"})
	}
	for i := range g.Changes {
		for _, f := range rep.BlockingFailures {
			if f.Criterion == g.Changes[i].ID {
				g.Changes[i].Status = "fail"
			}
		}
	}
	if rep.Blocked() {
		g.Decision = gate.Block
		g.Findings = append(g.Findings, finding.Finding{Kind: finding.Message, Severity: finding.Error, Params: finding.Params{Detail: "the run fails a hard gate on its own"}})
		g.Reasons = gate.Texts(g.Findings)
	}
	g.Findings = append(g.Findings, rep.Findings...)
	body := Markdown(g, MarkdownOptions{Title: "rubricgate score: " + rep.Rubric.Name})
	return strings.TrimSpace(body) + "\n"
}
