package render

import (
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
)

// The log: decision, score line, reasons as plain escaped lines (or, on an
// annotating host, as error annotations for a blocked run), warnings as
// annotations, and where the baseline went.
func TestDecisionLog(t *testing.T) {
	score, change := 75.9, -0.0659
	g := &gate.GateReport{Report: &gate.Report{Score: &score, Warnings: []string{"old baseline"}},
		Baseline: &gate.BaselineInfo{Score: 81.25}, RelativeChange: &change, CI95: &[2]float64{-0.1, -0.02}, MaxDrop: 0.02,
		Decision: gate.Block, Reasons: []string{"drop\n::error::x"}}
	var lines []string
	var anns []finding.Annotation
	for _, e := range DecisionLog(g, "b.json", false) {
		if e.Annotation != nil {
			anns = append(anns, *e.Annotation)
			continue
		}
		lines = append(lines, e.Line)
	}
	got := strings.Join(lines, "\n")
	if !strings.HasPrefix(got, "rubricgate: BLOCK\n  score 75.9, baseline 81.2, change -6.59%") || !strings.Contains(got, "(95% CI -10.00% .. -2.00%)") ||
		!strings.Contains(got, "  - drop%0A::error::x") || !strings.HasSuffix(got, "  new baseline written to b.json") {
		t.Errorf("log:\n%s", got)
	}
	if len(anns) != 1 || anns[0].Level != finding.Warning || anns[0].Message != "old baseline" {
		t.Errorf("annotations %+v", anns)
	}
	anns = nil
	for _, e := range DecisionLog(g, "", true) {
		if e.Annotation != nil {
			anns = append(anns, *e.Annotation)
		}
	}
	if len(anns) != 2 || anns[0].Level != finding.Error || anns[0].Title != "rubricgate blocked" {
		t.Errorf("annotating: %+v", anns)
	}
	g.Decision, g.Accepted, g.Score = gate.Pass, true, nil
	if l := DecisionLog(g, "", true); l[0].Line != "rubricgate: PASS (regression accepted)" || !strings.HasPrefix(l[1].Line, "  score n/a") || l[2].Line != "  - drop%0A::error::x" {
		t.Errorf("accepted: %+v", l[:3])
	}
}

// A blocked run's log, markdown and summary end the reasons with the next
// step: the label (and --accept) for a drop alone; for a blocking failure,
// that no label accepts it and which items to fix, their ids escaped.
func TestNextStepShown(t *testing.T) {
	score := 60.0
	g := &gate.GateReport{Report: &gate.Report{Score: &score}, Decision: gate.Block, Reasons: []string{"drop"},
		Next: &gate.NextStep{Acceptable: true, AcceptLabel: "rubricgate:accept-regression"}}
	log := func() string {
		var lines []string
		for _, e := range DecisionLog(g, "", false) {
			lines = append(lines, e.Line)
		}
		return strings.Join(lines, "\n")
	}
	md := Markdown(g, MarkdownOptions{Title: "t", Now: now})
	if got := log(); !strings.Contains(got, "  Next step: if the change is intended, a reviewer other than its author adds the label rubricgate:accept-regression") || !strings.Contains(got, `--accept "reason"`) {
		t.Errorf("log:\n%s", got)
	}
	if !strings.Contains(md, "**Next step:** if the change is intended, a reviewer other than its author adds the label `rubricgate:accept-regression`") {
		t.Errorf("markdown:\n%s", md)
	}
	g.Next.AcceptBy = gate.AcceptByAnyone
	if got := log(); !strings.Contains(got, "Next step: if the change is intended, a reviewer adds the label") {
		t.Errorf("accept-by anyone:\n%s", got)
	}
	g.Next = &gate.NextStep{Fix: []string{"q-1", "x\n::error::y`"}, FixMore: 2}
	got := log()
	if !strings.Contains(got, "Next step: no label accepts a blocking-criterion failure; fix the answers of q-1, x%0A::error::y` and 2 more and push again.") {
		t.Errorf("log:\n%s", got)
	}
	md = Markdown(g, MarkdownOptions{Title: "t", Now: now})
	if !strings.Contains(md, "**Next step:** no label accepts a blocking-criterion failure; fix the answers of `q-1`, ") || strings.Contains(md, "\n::error::") {
		t.Errorf("markdown:\n%s", md)
	}
	g.Decision, g.Next = gate.Pass, nil
	if strings.Contains(log(), "Next step") {
		t.Error("a pass shows a next step")
	}
}
