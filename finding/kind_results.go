package finding

import (
	"fmt"
	"strings"
)

// The kinds of a results file: its pass column, its tool's weights.
const (
	// PassColumnDisagrees: a row's pass column says pass where the rubric
	// gives fail, or the reverse. File, Line, Item, ColumnPass, Score,
	// Threshold, Below (the critical minimums it is below).
	PassColumnDisagrees Kind = "pass-column-disagrees"
	// MorePassDisagreements: the rows whose pass column disagrees past the
	// ones listed. Count.
	MorePassDisagreements Kind = "more-pass-disagreements"
	// ToolWeightsVary: a results file's tool weighs metrics differently
	// from row to row. File, Format, Metrics.
	ToolWeightsVary Kind = "tool-weights-vary"
	// ToolWeightsDiffer: a results file's tool weights differ from the
	// rubric's. File, Format, Weights.
	ToolWeightsDiffer Kind = "tool-weights-differ"
)

// resultKinds are the renderers of these kinds (see renderers).
var resultKinds = map[Kind]renderer{
	PassColumnDisagrees:   renderPassColumnDisagrees,
	MorePassDisagreements: renderMorePassDisagreements,
	ToolWeightsVary:       renderToolWeightsVary,
	ToolWeightsDiffer:     renderToolWeightsDiffer,
}

func renderPassColumnDisagrees(f Finding, e escaper) string {
	say := map[bool]string{true: "pass", false: "fail"}
	why := ""
	if len(f.Below) > 0 {
		gates := make([]string, len(f.Below))
		for i, b := range f.Below {
			gates[i] = fmt.Sprintf("%s %s < %s", b.Criterion, num(b.Score), num(b.Min))
		}
		why = "; below minimum: " + e.ids(gates, e.id)
	}
	return fmt.Sprintf("%s:%d: item %s: the pass column says %s but the rubric gives %s (score %.1f, threshold %g%s)",
		e.id(f.File), f.Line, e.item(f.Item), say[f.ColumnPass], say[!f.ColumnPass], f.Score, f.Threshold, why)
}

func renderMorePassDisagreements(f Finding, e escaper) string {
	return fmt.Sprintf("... and %d more rows whose pass column disagrees with the rubric", f.Count)
}

func renderToolWeightsVary(f Finding, e escaper) string {
	return fmt.Sprintf("%s: %s weighs %s differently from row to row; the rubric's weights are used", e.id(f.File), e.id(f.Format), e.ids(f.Metrics, e.q))
}

func renderToolWeightsDiffer(f Finding, e escaper) string {
	ws := f.Weights
	if e.list > 0 && len(ws) > e.list {
		ws = ws[:e.list]
	}
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = fmt.Sprintf("%s %s (%s %s)", e.id(w.Criterion), num(w.Rubric), e.q(w.Metric), num(w.Tool))
	}
	list := strings.Join(parts, ", ")
	if len(ws) < len(f.Weights) {
		list += fmt.Sprintf(" and %d more", len(f.Weights)-len(ws))
	}
	return fmt.Sprintf("%s: %s's own weights differ from the rubric's; the rubric's weights are used: %s", e.id(f.File), e.id(f.Format), list)
}
