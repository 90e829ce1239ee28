package gate

import (
	"github.com/rubricgate/rubricgate/rubric"
)

// gateFlag says whether a criterion is a gate and whether it blocks the run.
type gateFlag struct{ gate, blocking bool }

// gateFlags collects the gate flags of the given rubrics (nil ones skipped);
// a criterion is a gate if it is one in any of them.
func gateFlags(rubrics ...*rubric.Rubric) map[string]gateFlag {
	m := map[string]gateFlag{}
	for _, rb := range rubrics {
		if rb == nil {
			continue
		}
		for _, c := range rb.Criteria {
			f := m[c.ID]
			f.gate = f.gate || c.IsGate()
			f.blocking = f.blocking || (c.IsGate() && c.Blocking)
			m[c.ID] = f
		}
	}
	return m
}

func criterionChanges(cur *Report, b *Baseline, flags map[string]gateFlag) []CriterionChange {
	var base map[string]*CriterionStats
	if b != nil {
		base = make(map[string]*CriterionStats, len(b.Criteria))
		for i := range b.Criteria {
			base[b.Criteria[i].ID] = &b.Criteria[i]
		}
	}
	failing := map[string]bool{}
	for _, f := range cur.BlockingFailures {
		failing[f.Criterion] = true
	}
	out := make([]CriterionChange, 0, len(cur.Criteria))
	seen := map[string]bool{}
	for _, c := range cur.Criteria {
		seen[c.ID] = true
		ch := CriterionChange{ID: c.ID, Name: c.Name, Weight: c.Weight, Current: c.Normalized, BelowMin: c.BelowMin, Status: "ok"}
		ch.Gate, ch.Blocking = flags[c.ID].gate, flags[c.ID].blocking
		if base != nil {
			if bc, ok := base[c.ID]; ok {
				ch.Baseline = bc.Normalized
				if bc.Normalized != nil && c.Normalized != nil {
					d := *c.Normalized - *bc.Normalized
					ch.Change = &d
					switch {
					case d <= -0.05:
						ch.Status = "down"
					case d >= 0.05:
						ch.Status = "up"
					}
				}
			} else {
				ch.Status = "new"
			}
		}
		if failing[c.ID] {
			ch.Status = "fail"
		}
		out = append(out, ch)
	}
	if b != nil {
		for _, bc := range b.Criteria {
			if !seen[bc.ID] {
				out = append(out, CriterionChange{ID: bc.ID, Name: bc.Name, Weight: bc.Weight, Baseline: bc.Normalized, Status: "gone"})
			}
		}
	}
	return out
}
