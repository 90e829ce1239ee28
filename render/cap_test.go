package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// At rubric.MaxCriteria criteria, plus as many removed from the baseline's
// rubric, with the longest ids and the names that escape the widest, the
// per-criterion table fits in the comment whole (the README promises it is
// never cut).
func TestCriterionTableFitsAtTheCap(t *testing.T) {
	name := strings.Repeat("&", 100) // 5 bytes each once escaped; cut at 60
	var ch []gate.CriterionChange
	for i := range 2 * rubric.MaxCriteria {
		id := fmt.Sprintf("c%03d%s", i, strings.Repeat("_", 80))
		c := gate.CriterionChange{ID: id, Name: name, Weight: 999999.5, Baseline: f(-100.05), Current: f(100), Change: f(-200.05),
			Gate: true, Blocking: true, BelowMin: 1234567, Status: "fail"}
		if i >= rubric.MaxCriteria {
			c.Current, c.Change, c.Status = nil, nil, "gone"
		}
		ch = append(ch, c)
	}
	long := strings.Repeat("<&> ", 200)
	g := &gate.GateReport{Report: report(), Decision: gate.Block, MaxDrop: 0.02, Changes: ch,
		Reasons: []string{long, long, long}, RelativeChange: f(-0.5), CI95: &[2]float64{-0.6, -0.4}}
	budget := comment.BodyLimit(strings.Repeat("key/", 100))
	md := Markdown(g, MarkdownOptions{Title: long, Now: now, Budget: budget})
	if len(md) > budget {
		t.Fatalf("%d bytes, budget %d", len(md), budget)
	}
	if strings.Contains(md, "report cut") {
		t.Fatalf("the table was cut at %d criteria (%d bytes)", len(ch), len(md))
	}
	for _, c := range ch {
		if !strings.Contains(md, "| c"+c.ID[1:4]) {
			t.Errorf("row %s missing", c.ID[:4])
		}
	}
	t.Logf("%d rows: %d of %d bytes", len(ch), len(md), budget)
}
