package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// The headline shows the figures the decision used: with unscored items (or
// a rubric change, or item sets that differ) the relative check compares the
// items in common, 90.0 → 30.0 (-66.67%), while the full sets read 90.0 →
// 90.0 (+0.00%); every headline (comment and summary, log, text) leads with
// the compared figures, labelled, and shows the full sets' beside them.
func TestHeadlineShowsTheDecisionsFigures(t *testing.T) {
	g := passReport()
	g.Decision = gate.Block
	g.Baseline.Score = 90
	g.Report.Score, g.ComparedScore, g.RelativeChange = f(90), f(90), f(0)
	g.DropCheck = &gate.DropCheck{Case: gate.DropReal, Blocks: true, Drop: 2.0 / 3, Basis: gate.BasisCommon, Baseline: 90, Current: 30, CI95: &[2]float64{-1, 0}}
	g.CI95 = &[2]float64{-0.5, 0.5}

	md := Markdown(g, MarkdownOptions{Now: now})
	for _, want := range []string{
		"| Score (0-100), items in common | 90.0 | 30.0 | -66.67% | -100.00% … +0.00% |",
		"| Score, full sets | 90.0 | 90.0 | +0.00% | |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	var log []string
	for _, e := range DecisionLog(g, "", false) {
		log = append(log, e.Line)
	}
	if want := "  score 30.0, baseline 90.0, change -66.67% on the items in common (95% CI -100.00% .. +0.00%); full sets: 90.0 → 90.0, +0.00%"; !strings.Contains(strings.Join(log, "\n"), want) {
		t.Errorf("log lacks %q:\n%s", want, strings.Join(log, "\n"))
	}
	// JUnit's aggregate drop case follows the decision's check: it fails
	// (it passed on the full sets' +0.00%).
	ju := junit(t, g, JUnitOptions{Name: "x", Now: now})
	if want := `message="aggregate score -66.67% on the items in common vs the baseline (90.0 → 30.0), max-drop 2%; full sets: 90.0 → 90.0, +0.00%" type="aggregate-drop"`; !strings.Contains(ju, want) {
		t.Errorf("junit lacks %q:\n%s", want, ju)
	}
	var b bytes.Buffer
	if err := GateText(&b, g, nil); err != nil {
		t.Fatal(err)
	}
	if want := "baseline 90.0, change -66.67% on the items in common (max-drop 2%); full sets: 90.0 → 90.0, +0.00%\n"; !strings.Contains(b.String(), want) {
		t.Errorf("text lacks %q:\n%s", want, b.String())
	}

	// When the figures agree there is one row and no note.
	g.DropCheck = &gate.DropCheck{Basis: gate.BasisAll, Baseline: 90, Current: 90}
	md = Markdown(g, MarkdownOptions{Now: now})
	if strings.Contains(md, "full sets") || !strings.Contains(md, "| Score (0-100) | 90.0 | 90.0 | +0.00% |") {
		t.Errorf("agreeing figures:\n%s", md)
	}
	// Re-scored under the baseline's rubric: labelled so.
	g.Rescored = &gate.RescoredInfo{}
	g.DropCheck.Current = 81
	if md = Markdown(g, MarkdownOptions{Now: now}); !strings.Contains(md, "| Score (0-100), under the baseline's rubric | 90.0 | 81.0 | -10.00% |") {
		t.Errorf("rescored:\n%s", md)
	}
}
