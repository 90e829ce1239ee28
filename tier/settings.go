package tier

import (
	"bytes"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/family"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"github.com/rubricgate/rubricgate/internal/fraction"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/rubric"
)

// maxCalibrationBytes caps the calibration report read for the tier check.
const maxCalibrationBytes = 32 << 20

// Settings are the staged-rollout and judge-bias settings as the user
// gives them (flags or action inputs), before [Parse] checks them.
type Settings struct {
	// Tiers lists the rollout tiers in percent ("10,25,50,75,90"); Tier is
	// the current one ("" leaves the tier decision off).
	Tiers, Tier string
	// Calibration is the path of a calibration report ("" for none);
	// MinAgreement the agreement every criterion needs to advance.
	Calibration, MinAgreement string
	// JudgeModel and ProductionModel are the models; SameFamily the policy
	// when they are of one family (fail or warn).
	JudgeModel, ProductionModel, SameFamily string
}

// Flags declares the settings on fs under their names (the gate's flags
// and action inputs), with their defaults and help.
func (s *Settings) Flags(fs *flag.FlagSet) {
	fs.StringVar(&s.Tiers, "tiers", "10,25,50,75,90", "staged-rollout traffic tiers, in percent")
	fs.StringVar(&s.Tier, "tier", "", "the current rollout tier (enables the tier decision)")
	fs.StringVar(&s.Calibration, "calibration", "", "a calibration report (rubricgate calibrate --json); refused when made with another rubric")
	fs.StringVar(&s.MinAgreement, "min-agreement", "0.80", "agreement every criterion needs before the tier advances")
	fs.StringVar(&s.JudgeModel, "judge-model", "", "the judge model (also read from judge_model in results)")
	fs.StringVar(&s.ProductionModel, "production-model", "", "the production model whose outputs are judged")
	fs.StringVar(&s.SameFamily, "same-family", "fail", "judge and production model of one family: fail or warn")
}

// Parse checks the settings and reads the calibration report. A report
// made with another rubric than rb is stale and refused. A setting that is
// not valid is a *usage.Error; a report that cannot be read or is stale is
// another error naming the file.
func Parse(s Settings, rb *rubric.Rubric) (*State, error) {
	t := &State{JudgeModel: strings.TrimSpace(s.JudgeModel), ProductionModel: strings.TrimSpace(s.ProductionModel)}
	var err error
	if t.Family, err = family.ParseFamilyPolicy(s.SameFamily); err != nil {
		return nil, usage.Errorf("same-family: %w", err)
	}
	if t.MinAgreement, err = fraction.ParsePositive("min-agreement", s.MinAgreement); err != nil {
		return nil, usage.Wrap(err)
	}
	if s.Calibration != "" {
		data, err := boundedio.ReadFile(s.Calibration, maxCalibrationBytes)
		if err != nil {
			return nil, fmt.Errorf("calibration: %w", err)
		}
		if t.Calibration, err = calibrate.ReadReport(bytes.NewReader(data), maxCalibrationBytes); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Calibration, err) // the error says "calibration report"
		}
		if err := calibrate.CheckFresh(t.Calibration, rb.Hash()); err != nil {
			return nil, fmt.Errorf("calibration %s: %w", s.Calibration, err)
		}
	}
	if strings.TrimSpace(s.Tier) == "" {
		return t, nil
	}
	t.Enabled = true
	if t.Tiers, err = calibrate.ParseTiers(s.Tiers); err != nil {
		return nil, usage.Wrap(err)
	}
	cur := strings.TrimSuffix(strings.TrimSpace(s.Tier), "%")
	if t.Current, err = strconv.Atoi(cur); err != nil {
		return nil, usage.Errorf("tier %q: expected one of the tiers %s", s.Tier, s.Tiers)
	}
	if err := calibrate.CheckTier(t.Tiers, t.Current); err != nil {
		return nil, usage.Wrap(err)
	}
	return t, nil
}
