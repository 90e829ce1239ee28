package finding

import (
	"strings"
	"testing"
)

// REVIEW: a free-text parameter appended to a sentence keeps its leading
// space in the comment as it does in the text (gate's dropClause starts
// " and hard-drop 5% (...)"): safe.Cell trims it.
func TestReviewDetailLeadingSpace(t *testing.T) {
	f := Finding{Kind: AggregateDrop, Severity: Error, Params: Params{Detail: " and hard-drop 5% (95% CI -9.00% … +1.00%)", DropParams: DropParams{Change: -0.06, Baseline: 80, Current: 75.2, MaxDrop: 0.02}}}
	if !strings.Contains(f.Text(), "2% and hard-drop") {
		t.Fatalf("text: %s", f.Text())
	}
	if md := f.Markdown(); !strings.Contains(md, "2% and hard-drop") {
		t.Errorf("markdown lost the space: %s", md)
	}
}

// REVIEW: a finding whose text starts with free text (a Message, a rubric
// warning without a file, a no-baseline note) is a list item in the comment:
// the text must not open a heading or a nested list there (a forged report
// posted by rubricgate comment controls Detail).
func TestReviewDetailAtLineStart(t *testing.T) {
	for _, d := range []string{"# PASSED", "- [x] ok", "1. first"} {
		md := Finding{Kind: Message, Severity: Warning, Params: Params{Detail: d}}.Markdown()
		if strings.HasPrefix(md, d[:2]) {
			t.Errorf("%q renders as %q: a block marker at the start of a list item", d, md)
		}
	}
}

// Findings are list items and the headline, never table cells: an id with
// a pipe is shown as it is (CellCode's "\|" would show its backslash
// outside a table).
func TestPipeInIDOutsideTable(t *testing.T) {
	md := Finding{Kind: BlockingFailure, Severity: Error, Criterion: "safety", Params: Params{Items: []string{"q-3|x"}}}.Markdown()
	if !strings.Contains(md, "`q-3|x`") {
		t.Errorf("the id is not shown as it is: %s", md)
	}
}
