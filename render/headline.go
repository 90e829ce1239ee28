package render

import (
	"fmt"

	"github.com/rubricgate/rubricgate/gate"
)

// figures are the scores a headline shows: the ones the decision's
// relative check compared (the DropCheck's Baseline and Current, on its
// basis: the items in common, with unscored ones at 0, re-scored under the
// baseline's rubric after a rubric change), and, when they differ, the full
// sets' scores and change beside them, labelled.
type figures struct {
	// base, cur and change are what the decision used; change is nil
	// without a comparison.
	base, cur, change *float64
	ci                *[2]float64
	// basis labels the compared figures when they are not the full sets'
	// ("items in common"), "" otherwise.
	basis string
	// fullBase, fullCur, fullChange are the full sets' figures, set only
	// when they differ from the compared ones (as shown, to 0.1 and 0.01%).
	fullBase, fullCur, fullChange *float64
}

// headlineFigures picks the figures of g's headline (see figures).
func headlineFigures(g *gate.GateReport) figures {
	f := figures{change: g.RelativeChange, ci: g.CI95}
	if g.Baseline != nil {
		b := g.Baseline.Score
		f.base = &b
	}
	f.cur = g.Score
	if g.ComparedScore != nil {
		f.cur = g.ComparedScore
	}
	dc := g.DropCheck
	// The gate sets a DropCheck only with a positive baseline score; a
	// report without one (an older or hand-made one) keeps the full
	// figures.
	if dc == nil || dc.Baseline <= 0 || g.Baseline == nil || g.RelativeChange == nil {
		return f
	}
	full := f
	b, c := dc.Baseline, dc.Current
	ch := (c - b) / b
	f.base, f.cur, f.change = &b, &c, &ch
	if dc.CI95 != nil {
		f.ci = dc.CI95
	}
	switch {
	case dc.Basis == gate.BasisCommon && g.Rescored != nil:
		f.basis = "items in common, under the baseline's rubric"
	case dc.Basis == gate.BasisCommon:
		f.basis = "items in common"
	case g.Rescored != nil:
		f.basis = "under the baseline's rubric"
	}
	same := func(a, b *float64, fmtf string) bool {
		return (a == nil) == (b == nil) && (a == nil || fmt.Sprintf(fmtf, *a) == fmt.Sprintf(fmtf, *b))
	}
	if !same(full.base, f.base, "%.1f") || !same(full.cur, f.cur, "%.1f") || !same(full.change, f.change, "%+.4f") {
		f.fullBase, f.fullCur, f.fullChange = full.base, full.cur, full.change
	}
	return f
}

// on is the basis as a suffix (" on the items in common"), "" for none.
func (f figures) on() string {
	switch {
	case f.basis == "":
		return ""
	case f.basis[0] == 'i':
		return " on the " + f.basis
	}
	return " " + f.basis
}

// fullNote is the full sets' figures as a parenthesis for a headline
// line, "" when they are the compared ones.
func (f figures) fullNote(maxDrop float64) string {
	if f.fullBase == nil && f.fullCur == nil && f.fullChange == nil {
		return ""
	}
	s := fmt.Sprintf("full sets: %s → %s", numPtr(f.fullBase), numPtr(f.fullCur))
	if f.fullChange != nil {
		s += ", " + gate.FormatChange(*f.fullChange, maxDrop)
	}
	return s
}
