package native

import (
	"fmt"
	"github.com/rubricgate/rubricgate/gate"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/finding"
)

// checkWarnFindings checks the report's invariant: every warning has its
// finding, of severity Warning, and the warnings are the findings' text.
func checkWarnFindings(t *testing.T, rep *gate.Report) {
	t.Helper()
	if len(rep.Findings) != len(rep.Warnings) || !slices.Equal(finding.Texts(rep.Findings), rep.Warnings) {
		t.Fatalf("warnings %q are not the text of findings %+v", rep.Warnings, rep.Findings)
	}
	for _, f := range rep.Findings {
		if f.Severity != finding.Warning {
			t.Errorf("finding %s has severity %q", f.Kind, f.Severity)
		}
	}
}

// kindsOf lists the findings' kinds.
func kindsOf(fs []finding.Finding) []finding.Kind {
	var ks []finding.Kind
	for _, f := range fs {
		ks = append(ks, f.Kind)
	}
	return ks
}

// A review row whose pass column disagrees with the rubric is a typed
// finding placed on its file and line, and the rows past the listed ones
// are counted in one; the text is the one the report always carried.
func TestPassColumnFindings(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,G,C,A,U,pass,notes\n")
	for i := 0; i < 22; i++ {
		fmt.Fprintf(&b, "q%d,2,2,2,1,no,\n", i) // passes by the rule
	}
	b.WriteString("low,2,1,2,1,yes,\n") // fails by the rule: citation 1 < 2
	rep, err := scoreText(t, ragRubric(), ScoreOptions{}, "s.csv", b.String())
	if err != nil {
		t.Fatal(err)
	}
	checkWarnFindings(t, rep)
	first := rep.Findings[0]
	if first.Kind != finding.PassColumnDisagrees || first.File != "s.csv" || first.Line != 2 || first.Item != "q0" || first.ColumnPass {
		t.Errorf("first finding %+v", first)
	}
	if rep.Warnings[0] != `s.csv:2: item "q0": the pass column says fail but the rubric gives pass (score 87.5, threshold 0)` {
		t.Errorf("first warning %q", rep.Warnings[0])
	}
	last := rep.Findings[len(rep.Findings)-1]
	if last.Kind != finding.MorePassDisagreements || last.Count != 3 {
		t.Errorf("last finding %+v, want 3 more rows", last)
	}

	// The one the rubric fails names the minimum it is below.
	rep, err = scoreText(t, ragRubric(), ScoreOptions{}, "s.csv", "id,G,C,A,U,pass,notes\nlow,2,1,2,1,yes,\n")
	if err != nil {
		t.Fatal(err)
	}
	checkWarnFindings(t, rep)
	f := rep.Findings[0]
	if f.Kind != finding.PassColumnDisagrees || !f.ColumnPass || len(f.Below) != 1 || f.Below[0] != (finding.Below{Criterion: "citation", Score: 1, Min: 2}) {
		t.Fatalf("finding %+v", f)
	}
	if want := `s.csv:2: item "low": the pass column says pass but the rubric gives fail (score 75.0, threshold 0; below minimum: citation 1 < 2)`; rep.Warnings[0] != want {
		t.Errorf("warning %q, want %q", rep.Warnings[0], want)
	}
}

// An outvoted failing judging of a blocking criterion is a typed finding
// naming the criterion and the items.
func TestOutvotedFinding(t *testing.T) {
	s := func(safety int) string {
		return fmt.Sprintf(`{"scores":{"accuracy":5,"resolution":5,"tone":5,"safety":%d}}`, safety)
	}
	var lines []string
	for i := range 7 {
		lines = append(lines, fmt.Sprintf(`{"id":"leak-%d","samples":[%s,%s,%s]}`, i, s(0), s(1), s(1)))
	}
	rep, err := Score(supportRubric(), []Input{{Name: "s.jsonl", R: strings.NewReader(strings.Join(lines, "\n") + "\n")}}, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkWarnFindings(t, rep)
	if len(rep.Findings) != 1 {
		t.Fatalf("findings %v", kindsOf(rep.Findings))
	}
	f := rep.Findings[0]
	if f.Kind != finding.OutvotedFailures || f.Criterion != "safety" || f.Count != 7 || len(f.Items) != 5 /* gate lists the first 5 */ {
		t.Fatalf("finding %+v", f)
	}
	if want := "safety: 7 item(s) had a failing judging outvoted by the majority (more than half of their judgings met the minimum): leak-0, leak-1, leak-2, leak-3, leak-4 and 2 more"; rep.Warnings[0] != want {
		t.Errorf("warning %q, want %q", rep.Warnings[0], want)
	}
}

// Decide keeps the run's typed warnings and adds its own after them: the
// gate report's findings are the reasons' then every warning's, and its
// warnings their text.
func TestDecideKeepsRunFindings(t *testing.T) {
	rep, err := scoreText(t, ragRubric(), ScoreOptions{}, "s.csv", "id,G,C,A,U,pass,notes\nq,2,2,2,1,no,\n")
	if err != nil {
		t.Fatal(err)
	}
	g := gate.Decide(gate.DecideInput{Current: rep, Now: time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC), Thresholds: gate.DefaultThresholds, Policy: gate.Policy{IfNoBaseline: "pass", OnRubricChange: "skip"}})
	checkWarnFindings(t, g.Report)
	var warns []finding.Finding
	for _, f := range g.Findings {
		if f.Severity == finding.Warning {
			warns = append(warns, f)
		}
	}
	if got := kindsOf(warns); !slices.Equal(got, []finding.Kind{finding.PassColumnDisagrees, finding.SkipDeprecated}) {
		t.Errorf("warning kinds %v", got)
	}
	if len(rep.Findings) != 1 || len(rep.Warnings) != 1 {
		t.Errorf("Decide changed its input: %d findings, %d warnings", len(rep.Findings), len(rep.Warnings))
	}
	g.Warn(finding.Finding{Kind: finding.Message, Params: finding.Params{Detail: "later"}})
	checkWarnFindings(t, g.Report)
	if f := g.Findings[len(g.Findings)-1]; f.Detail != "later" || f.Severity != finding.Warning {
		t.Errorf("GateReport.Warn added %+v", f)
	}
}
