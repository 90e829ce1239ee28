package main

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/internal/fraction"
	"github.com/rubricgate/rubricgate/pipeline"
	"github.com/rubricgate/rubricgate/rubric"
)

// tierConfig holds the staged-rollout and judge-bias inputs of the gate.
type tierConfig struct {
	tiers, tier, calibration, minAgreement  string
	judgeModel, productionModel, sameFamily string
}

func tierFlags(fs *flag.FlagSet, c *tierConfig) {
	fs.StringVar(&c.tiers, "tiers", "10,25,50,75,90", "staged-rollout traffic tiers, in percent")
	fs.StringVar(&c.tier, "tier", "", "the current rollout tier (enables the tier decision)")
	fs.StringVar(&c.calibration, "calibration", "", "a calibration report (rubricgate calibrate --json); refused when made with another rubric")
	fs.StringVar(&c.minAgreement, "min-agreement", "0.80", "agreement every criterion needs before the tier advances")
	fs.StringVar(&c.judgeModel, "judge-model", "", "the judge model (also read from judge_model in results)")
	fs.StringVar(&c.productionModel, "production-model", "", "the production model whose outputs are judged")
	fs.StringVar(&c.sameFamily, "same-family", "fail", "judge and production model of one family: fail or warn")
}

// check parses the tier and judge-bias settings; a calibration made with
// another rubric than rb is refused.
func (c *tierConfig) check(rb *rubric.Rubric, e *env) (*pipeline.Tier, error) {
	t := &pipeline.Tier{JudgeModel: strings.TrimSpace(c.judgeModel), ProductionModel: strings.TrimSpace(c.productionModel)}
	var err error
	if t.Family, err = calibrate.ParseFamilyPolicy(c.sameFamily); err != nil {
		return nil, usagef("same-family: %v", err)
	}
	if t.MinAgreement, err = fraction.ParsePositive("min-agreement", c.minAgreement); err != nil {
		return nil, &usageError{err.Error()}
	}
	if c.calibration != "" {
		data, err := boundedio.ReadFile(c.calibration, 32<<20)
		if err != nil {
			return nil, fmt.Errorf("calibration: %w", err)
		}
		if t.Calibration, err = calibrate.ReadReport(bytes.NewReader(data), 32<<20); err != nil {
			return nil, fmt.Errorf("calibration %s: %w", c.calibration, err)
		}
		// A calibration made with another rubric is stale: refuse it.
		if err := calibrate.CheckFresh(t.Calibration, rb.Hash()); err != nil {
			return nil, fmt.Errorf("calibration %s: %w", c.calibration, err)
		}
	}
	if strings.TrimSpace(c.tier) == "" {
		return t, nil
	}
	t.Enabled = true
	if t.Tiers, err = calibrate.ParseTiers(c.tiers); err != nil {
		return nil, usagef("%v", err)
	}
	cur := strings.TrimSuffix(strings.TrimSpace(c.tier), "%")
	if t.Current, err = strconv.Atoi(cur); err != nil {
		return nil, usagef("tier %q: expected one of the tiers %s", c.tier, c.tiers)
	}
	if err := calibrate.CheckTier(t.Tiers, t.Current); err != nil {
		return nil, usagef("%v", err)
	}
	return t, nil
}
