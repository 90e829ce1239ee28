package render

import (
	"fmt"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// nextStep words g.Next (without its "Next step:" lead), what the reader of a blocked report can do, with
// quote quoting a label, a flag or an item id (a code span in markdown, as
// it is in a log); listed says where the report lists the blocking
// failures ("" for a log, which lists them as reasons). It is "" unless
// the run is blocked.
func nextStep(g *gate.GateReport, quote func(s string, max int) string, listed string) string {
	n := g.Next
	if n == nil {
		return ""
	}
	if n.Acceptable {
		who := "a reviewer other than its author"
		if n.AcceptBy == gate.AcceptByAnyone {
			who = "a reviewer"
		}
		return fmt.Sprintf("if the change is intended, %s adds the label %s to the pull or merge request, and the gate runs again; outside a change request, re-run with %s. Otherwise fix the regression and push again.",
			who, quote(n.AcceptLabel, 80), quote(`--accept "reason"`, 40))
	}
	if len(n.Fix) == 0 {
		return "no label accepts this block; fix what the reasons above name and push again."
	}
	ids := make([]string, len(n.Fix))
	for i, id := range n.Fix {
		ids[i] = quote(id, 80)
	}
	more := ""
	if n.FixMore > 0 {
		more = fmt.Sprintf(" and %d more", n.FixMore)
	}
	return fmt.Sprintf("no label accepts a blocking-criterion failure; fix the answers of %s%s%s and push again.", strings.Join(ids, ", "), more, listed)
}

// NextStepLine is the next step as a log line (see [gate.NextStep]).
func NextStepLine(g *gate.GateReport) string {
	s := nextStep(g, func(s string, _ int) string { return safe.LogLine(s) }, "")
	if s == "" {
		return ""
	}
	return "Next step: " + s
}

// nextStepMarkdown is the next step for the markdown report, in bold.
func nextStepMarkdown(g *gate.GateReport) string {
	s := nextStep(g, safe.Code, " (listed under Blocking failures)")
	if s == "" {
		return ""
	}
	return "**Next step:** " + s
}

// dropLead leads a headline whose first reason is the aggregate drop with
// the fact and the limit: "score dropped 4.6% (limit 2%); at 12 items × 1
// answer the gate resolves drops of 4.3% or more". It is "" when the drop
// is not the first reason.
func dropLead(g *gate.GateReport) string {
	dc := g.DropCheck
	if dc == nil || dc.Reason == "" || len(g.Findings) == 0 || g.Findings[0].Kind != finding.AggregateDrop || g.Findings[0].Severity == finding.Warning {
		return ""
	}
	s := fmt.Sprintf("score dropped %s%% (limit %s)", finding.DropPct(dc.Drop, g.MaxDrop), finding.Pct(g.MaxDrop))
	if r := dc.Resolution; r != nil && r.HalfWidth > 0 {
		s += fmt.Sprintf("; at %d items × %s the gate resolves drops of %s or more", r.Items, answersPhrase(r.Answers), pct1(r.MinDetectable))
	}
	return s
}
