// Package tier holds the judge-bias checks and the staged-rollout (tier)
// decision of a gate run: the settings as given, checked by [Parse] (which
// reads the calibration report), and the [State] that observes the run's
// items and adds its findings and tier decision to the report.
package tier

import (
	"fmt"
	"sort"

	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/family"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// State holds the judge-bias and staged-rollout settings, checked by the
// caller, and what the gate collects from the run for them.
type State struct {
	// Enabled is true when a current tier was given: the report then says
	// whether the rollout may advance from Current to the next of Tiers.
	Enabled bool
	Tiers   []int
	Current int
	// Calibration is the (fresh) calibration report, nil when none;
	// MinAgreement the agreement every criterion needs to advance.
	Calibration  *calibrate.Report
	MinAgreement float64
	// JudgeModel and ProductionModel are the models given; Family the
	// same-family policy.
	JudgeModel, ProductionModel string
	Family                      family.FamilyPolicy

	// judges are the distinct per-item judge models kept and checked: the
	// first MaxJudgeModels, then one model of each family not seen yet;
	// families holds the family of every judge model seen, so each family
	// is checked with memory bounded by the families known (built-in and
	// the rubric's model_families, plus "" for unknown). extra is the
	// rubric's model_families; unknownPast counts the items past the cap
	// judged by a model of unknown family not kept.
	judges      map[string]bool
	families    map[string]bool
	extra       map[string][]string
	unknownPast int
	lengths     []calibrate.LengthPoint
	// lastKept is the last item's judge model when judges holds it: a
	// run's items mostly share one, found without a map lookup.
	lastKept string
}

// MaxJudgeModels is how many distinct per-item judge models are kept by
// name; past it a model is kept only when its family is new.
const MaxJudgeModels = 100

// ForRubric sets the rubric whose model_families the family checks use;
// call it before the first [State.Observe].
func (t *State) ForRubric(rb *rubric.Rubric) { t.extra = rb.ModelFamilies }

// Observe collects per-item judge models and answer lengths.
func (t *State) Observe(it *gate.ItemResult) {
	if it.Unscored {
		return
	}
	if t.judges == nil {
		t.judges = map[string]bool{}
	}
	if m := it.JudgeModel; m != "" && m != t.lastKept {
		if t.families == nil {
			t.families = map[string]bool{}
		}
		switch {
		case t.judges[m]:
		case len(t.judges) < MaxJudgeModels:
			t.judges[m] = true
			t.families[family.Family(m, t.extra)] = true
		default:
			// Past the cap every model is still checked, by its family:
			// the family check depends on the family only.
			if f := family.Family(m, t.extra); !t.families[f] {
				t.families[f] = true
				t.judges[m] = true
			} else if f == "" {
				t.unknownPast++
			}
		}
		if t.judges[m] {
			t.lastKept = m
		}
	}
	if it.Length >= 0 {
		t.lengths = append(t.lengths, calibrate.LengthPoint{ID: it.ID, Length: it.Length, Score: it.Score})
	}
}

// Apply adds the judge-bias checks and the tier decision to the report. A
// judge of the production model's family is an error under same-family: fail.
func (t *State) Apply(g *gate.GateReport, rb *rubric.Rubric) error {
	judges := []string{}
	if t.JudgeModel != "" {
		judges = append(judges, t.JudgeModel)
	}
	for m := range t.judges {
		if m != t.JudgeModel {
			judges = append(judges, m)
		}
	}
	sort.Strings(judges)
	if t.ProductionModel != "" {
		if len(judges) == 0 {
			judges = append(judges, "")
		}
		for _, j := range judges {
			fc, err := family.CheckFamilies(j, t.ProductionModel, rb.ModelFamilies, t.Family)
			if err != nil {
				return fmt.Errorf("judge bias: %w (same-family: warn to allow)", err)
			}
			g.Warn(fc.Findings...)
		}
		if t.unknownPast > 0 {
			g.Warn(finding.Finding{Kind: finding.JudgesUnknownPast, Params: finding.Params{Count: t.unknownPast, JudgeParams: finding.JudgeParams{Limit: MaxJudgeModels}}})
		}
	}
	if lb := calibrate.CheckLengthBias("", t.lengths, calibrate.DefaultThresholds); lb.Warn {
		g.Warn(lb.Finding())
	}
	if !t.Enabled {
		return nil
	}
	d := calibrate.DecideTier(t.Tiers, t.Current, g.Decision == gate.Pass, t.Calibration, rb, t.MinAgreement)
	g.Tier = &gate.TierInfo{Current: d.Current, Next: d.Next, MayAdvance: d.MayAdvance, HeldBy: d.HeldBy}
	return nil
}

// KeptJudges is how many per-item judge models are kept by name: at most
// [MaxJudgeModels], plus one model of each family first seen past it.
func (t *State) KeptJudges() int { return len(t.judges) }
