package native

import (
	"fmt"
	"github.com/rubricgate/rubricgate/gate"
	"math"
	"strings"

	"github.com/rubricgate/rubricgate/rubric"
)

// CheckBlocking checks rb's blocking criteria on every item of inputs, read
// leniently: other keys and columns are ignored, a missing criterion is
// counted as unchecked. On an item with a judge error only the integer values
// it carries are checked, against the minimum (see Item.Values). A value
// that rb would refuse fails its gate: `na` where rb allows none, or a score
// outside rb's scale (for an item judged several times: any sample). So a
// pull request cannot dodge the baseline's safety gate by editing its own
// rubric: dropping the gate, allowing `na`, or changing the scale. Several
// samples follow the scoring rules: na when more than half say na, and the
// minimum is met when more than half of the scored samples meet it.
func CheckBlocking(rb *rubric.Rubric, inputs []Input) (*gate.GateCheck, error) {
	gr := &rubric.Rubric{Name: rb.Name, ModelFamilies: rb.ModelFamilies}
	var orig []*rubric.Criterion
	var real []rubric.Scale
	for i := range rb.Criteria {
		c := rb.Criteria[i]
		if !c.IsGate() || !c.Blocking {
			continue
		}
		orig = append(orig, &rb.Criteria[i])
		// Read every value the results may carry; judge it below. The
		// critical minimum stays, so the reader applies the majority rule.
		c.NA, c.Weight = true, 1
		real = append(real, c.Scale)
		c.Scale = rubric.Scale{Low: math.MinInt32, High: math.MaxInt32}
		gr.Criteria = append(gr.Criteria, c)
	}
	gc := &gate.GateCheck{Failures: []gate.BlockingFailure{}, Unchecked: map[string]int{}}
	if len(orig) == 0 {
		return gc, nil
	}
	// A `from` source value is mapped onto the criterion's real scale, not
	// the widened one (which would put every value far below the minimum).
	opts := ReadOptions{IgnoreUnknown: true, AllowMissing: true, GatesOnly: true, realScales: real}
	for _, in := range inputs {
		err := ReadItems(gr, in, opts, func(it *Item) error {
			why := it.Reasoning
			if why == "" {
				why = it.Notes
			}
			for j, c := range orig {
				v := it.Values[j]
				lo, hi := float64(c.Scale.Low), float64(c.Scale.High)
				var note string
				switch {
				case it.Error != "" && v.State != gate.Scored:
					// Unscored with no value for the gate: it fails closed.
					gc.Failures = append(gc.Failures, gate.BlockingFailure{Item: it.ID, Criterion: c.ID, Unscored: true,
						Reasoning: strings.TrimSpace("[no score: the item carries a judge error: " + it.Error + "] " + why)})
					continue
				case it.Error != "":
					// Unscored: only an integer below the minimum or off
					// the scale fails (the lowest across samples).
					if !v.Below && c.Meets(v.Score) && v.Score >= lo && v.Score <= hi {
						continue
					}
					note = "the item also carries a judge error: " + it.Error
				case v.State == gate.Missing:
					gc.Unchecked[c.ID]++
					continue
				case v.NAs > 0 && !c.NA:
					note = "na, which the baseline's rubric does not allow"
				case v.State == gate.NA:
					continue
				case v.Min < lo || v.Max > hi:
					bad := v.Min
					if v.Max > hi {
						bad = v.Max
					}
					note = fmt.Sprintf("%s is outside the baseline's scale %d..%d", fmtNum(bad), c.Scale.Low, c.Scale.High)
				case v.Below:
				default:
					continue
				}
				r := why
				if note != "" {
					r = "[" + note + "] " + why
				}
				gc.Failures = append(gc.Failures, gate.BlockingFailure{Item: it.ID, Criterion: c.ID, Score: v.Score, Reasoning: r})
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("check the baseline rubric's blocking criteria: %w", err)
		}
	}
	return gc, nil
}
