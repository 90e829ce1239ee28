package main

import (
	"flag"

	"github.com/rubricgate/rubricgate/pipeline"
	"github.com/rubricgate/rubricgate/rubric"
)

// tierConfig holds the staged-rollout and judge-bias inputs of the gate.
type tierConfig struct{ pipeline.TierSettings }

func tierFlags(fs *flag.FlagSet, c *tierConfig) {
	fs.StringVar(&c.Tiers, "tiers", "10,25,50,75,90", "staged-rollout traffic tiers, in percent")
	fs.StringVar(&c.Tier, "tier", "", "the current rollout tier (enables the tier decision)")
	fs.StringVar(&c.Calibration, "calibration", "", "a calibration report (rubricgate calibrate --json); refused when made with another rubric")
	fs.StringVar(&c.MinAgreement, "min-agreement", "0.80", "agreement every criterion needs before the tier advances")
	fs.StringVar(&c.JudgeModel, "judge-model", "", "the judge model (also read from judge_model in results)")
	fs.StringVar(&c.ProductionModel, "production-model", "", "the production model whose outputs are judged")
	fs.StringVar(&c.SameFamily, "same-family", "fail", "judge and production model of one family: fail or warn")
}

// check parses the settings (see pipeline.ParseTier).
func (c *tierConfig) check(rb *rubric.Rubric, _ *env) (*pipeline.Tier, error) {
	t, err := pipeline.ParseTier(c.TierSettings, rb)
	return t, usageOf(err)
}
