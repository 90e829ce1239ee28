package calibrate

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/rubric"
)

// DefaultTiers are the staged-rollout traffic shares, in percent.
var DefaultTiers = []int{10, 25, 50, 75, 90}

// DefaultTierAgreement is the agreement every criterion must reach before
// traffic widens (the rule says "above 80%"; read as >= 0.80, like "reaches"
// elsewhere in the gate).
const DefaultTierAgreement = 0.80

// ParseTiers parses a comma-separated list of strictly increasing integer
// percentages in 1..100, such as "10,25,50,75,90".
func ParseTiers(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("tiers: empty list: want percentages like 10,25,50,75,90")
	}
	parts := strings.Split(s, ",")
	tiers := make([]int, 0, len(parts))
	for i, p := range parts {
		p = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(p), "%"))
		v, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("tiers: item %d %q is not an integer percentage", i+1, p)
		}
		if v < 1 || v > 100 {
			return nil, fmt.Errorf("tiers: item %d is %d, want 1..100", i+1, v)
		}
		if i > 0 && v <= tiers[i-1] {
			return nil, fmt.Errorf("tiers: item %d is %d, not above the previous tier %d: tiers must strictly increase", i+1, v, tiers[i-1])
		}
		tiers = append(tiers, v)
	}
	return tiers, nil
}

// CheckTier returns an error unless current is one of tiers.
func CheckTier(tiers []int, current int) error {
	for _, t := range tiers {
		if t == current {
			return nil
		}
	}
	return fmt.Errorf("current tier %d%% is not one of the tiers %s", current, joinInts(tiers))
}

// TierDecision says whether traffic may widen to the next rollout tier.
type TierDecision struct {
	// MayAdvance is true when nothing holds the tier back and there is a
	// next tier.
	MayAdvance bool `json:"may_advance"`
	// Current and Next are traffic percentages; Next == Current at the last
	// tier (and when Current is not a tier).
	Current int `json:"current"`
	Next    int `json:"next"`
	// Last is true at the last tier: there is nothing to advance to, so
	// MayAdvance is false, but HeldBy still lists failed requirements.
	Last bool `json:"last"`
	// HeldBy lists each requirement that holds the tier back.
	HeldBy []string `json:"held_by"`
}

// DecideTier decides whether a staged rollout may widen from current to the
// next tier. Requirements: current is a tier; the gate passed; a
// calibration report is given; it is fresh for rb (made with the same
// rubric hash); its stored figures agree with its confusion matrices (see
// VerifyFigures); and every integer criterion of rb, iterated from the
// rubric and not from the report, is in the report over rb's scale levels
// and is either not applicable (both raters said na on every item) or
// reaches minAgreement (<= 0: DefaultTierAgreement) on the report's metric.
// A criterion missing from the report holds the tier. A stale
// calibration's figures are not checked. Every unmet requirement is listed
// in HeldBy.
func DecideTier(tiers []int, current int, gatePassed bool, cal *Report, rb *rubric.Rubric, minAgreement float64) TierDecision {
	if minAgreement <= 0 {
		minAgreement = DefaultTierAgreement
	}
	d := TierDecision{Current: current, Next: current, HeldBy: []string{}}
	if err := CheckTier(tiers, current); err != nil {
		d.HeldBy = append(d.HeldBy, err.Error())
	} else {
		for i, t := range tiers {
			if t == current && i+1 < len(tiers) {
				d.Next = tiers[i+1]
			}
		}
		d.Last = d.Next == current
	}
	if !gatePassed {
		d.HeldBy = append(d.HeldBy, "gate failed")
	}
	switch {
	case rb == nil:
		d.HeldBy = append(d.HeldBy, "no rubric given to check the calibration against")
	case cal == nil:
		d.HeldBy = append(d.HeldBy, "no calibration given: calibrate the judge against human scores before widening traffic")
	case CheckFresh(cal, rb.Hash()) != nil:
		d.HeldBy = append(d.HeldBy, CheckFresh(cal, rb.Hash()).Error())
	case VerifyFigures(cal) != nil:
		d.HeldBy = append(d.HeldBy, VerifyFigures(cal).Error())
	default:
		byID := make(map[string]*CriterionAgreement, len(cal.Criteria))
		for i := range cal.Criteria {
			byID[cal.Criteria[i].ID] = &cal.Criteria[i]
		}
		for i := range rb.Criteria {
			rc := &rb.Criteria[i]
			c := byID[rc.ID]
			if c == nil {
				d.HeldBy = append(d.HeldBy, fmt.Sprintf("criterion %s of the rubric is not in the calibration", rc.ID))
				continue
			}
			switch {
			case rc.Continuous && c.Continuous == nil:
				d.HeldBy = append(d.HeldBy, fmt.Sprintf("criterion %s is continuous and the calibration did not measure it (made by an older rubricgate): re-run calibrate", rc.ID))
				continue
			case !rc.Continuous && c.Continuous != nil:
				d.HeldBy = append(d.HeldBy, fmt.Sprintf("criterion %s: the calibration measured it as continuous, the rubric's scale has levels %v", rc.ID, newConfusion(rc.Scale).Levels))
				continue
			}
			if want := newConfusion(rc.Scale); !rc.Continuous && (c.Skipped != "" || !slices.Equal(c.Confusion.Levels, want.Levels)) {
				d.HeldBy = append(d.HeldBy, fmt.Sprintf("criterion %s: the calibration's levels %v are not the rubric's scale %v", rc.ID, c.Confusion.Levels, want.Levels))
				continue
			}
			v := c.Value(cal.Metric)
			switch {
			case c.NotApplicable:
				// na for both raters on every joined item (checked against
				// the counts): nothing to agree on.
			case v == nil:
				d.HeldBy = append(d.HeldBy, fmt.Sprintf("criterion %s agreement is undefined (n=%d) on metric %s", c.ID, c.N, cal.Metric))
			case *v < minAgreement:
				d.HeldBy = append(d.HeldBy, fmt.Sprintf("criterion %s agreement %s < %g on metric %s", c.ID, fmtNum(*v, minAgreement), minAgreement, cal.Metric))
			}
		}
	}
	d.MayAdvance = len(d.HeldBy) == 0 && !d.Last && d.Next != d.Current
	return d
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}
