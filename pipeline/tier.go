package pipeline

import (
	"fmt"
	"sort"

	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// Tier holds the judge-bias and staged-rollout settings, checked by the
// caller, and what the gate collects from the run for them.
type Tier struct {
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
	Family                      calibrate.FamilyPolicy

	judges  map[string]int
	lengths []calibrate.LengthPoint
}

// observe collects per-item judge models and answer lengths.
func (t *Tier) observe(it *gate.ItemResult) {
	if it.Unscored {
		return
	}
	if t.judges == nil {
		t.judges = map[string]int{}
	}
	if it.JudgeModel != "" && len(t.judges) < 100 {
		t.judges[it.JudgeModel]++
	}
	if it.Length >= 0 {
		t.lengths = append(t.lengths, calibrate.LengthPoint{ID: it.ID, Length: it.Length, Score: it.Score})
	}
}

// apply adds the judge-bias checks and the tier decision to the report. A
// judge of the production model's family is an error under same-family: fail.
func (t *Tier) apply(g *gate.GateReport, rb *rubric.Rubric) error {
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
			fc, err := calibrate.CheckFamilies(j, t.ProductionModel, rb.ModelFamilies, t.Family)
			if err != nil {
				return fmt.Errorf("judge bias: %w (same-family: warn to allow)", err)
			}
			g.Warnings = append(g.Warnings, fc.Warnings...)
		}
	}
	if lb := calibrate.CheckLengthBias("", t.lengths, calibrate.DefaultThresholds); lb.Warn {
		g.Warnings = append(g.Warnings, lb.Message)
	}
	if !t.Enabled {
		return nil
	}
	d := calibrate.DecideTier(t.Tiers, t.Current, g.Decision == gate.Pass, t.Calibration, rb.Hash(), t.MinAgreement)
	g.Tier = &gate.TierInfo{Current: d.Current, Next: d.Next, MayAdvance: d.MayAdvance, HeldBy: d.HeldBy}
	return nil
}
