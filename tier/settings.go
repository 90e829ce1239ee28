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
	"github.com/rubricgate/rubricgate/internal/cliflag"
	"github.com/rubricgate/rubricgate/internal/fraction"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/rubric"
)

// maxCalibrationBytes caps the calibration report read for the tier check.
const maxCalibrationBytes = 32 << 20

// Settings are the staged-rollout and judge-bias settings, each parsed
// when its flag (or action input) is set, as the gate's settings are.
type Settings struct {
	// Tiers are the rollout tiers in percent, strictly increasing; Tier is
	// the current one (the zero Tier leaves the tier decision off).
	Tiers []int
	Tier  Tier
	// Calibration is the path of a calibration report ("" for none);
	// MinAgreement the agreement in (0, 1] every criterion needs to advance.
	Calibration  string
	MinAgreement float64
	// JudgeModel and ProductionModel are the models; SameFamily the policy
	// when they are of one family.
	JudgeModel, ProductionModel string
	SameFamily                  family.FamilyPolicy
}

// Tier is the current rollout tier in percent; the zero Tier is none.
type Tier int

// ParseTier reads a tier as given ("25" or "25%"); "" is no tier.
func ParseTier(s string) (Tier, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, nil
	}
	v, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(t, "%")))
	if err != nil || v < 1 || v > 100 {
		return 0, usage.Errorf("tier %q: expected a percentage from 1 to 100, one of the tiers", s)
	}
	return Tier(v), nil
}

// Flags declares the settings on fs under their names (the gate's flags
// and action inputs), with their defaults and help.
func (s *Settings) Flags(fs *flag.FlagSet) {
	cliflag.Var(fs, &s.Tiers, "tiers", "10,25,50,75,90", parseTiers, "staged-rollout traffic tiers, in percent")
	cliflag.Var(fs, &s.Tier, "tier", "", ParseTier, "the current rollout tier (enables the tier decision)")
	fs.StringVar(&s.Calibration, "calibration", "", "a calibration report (rubricgate calibrate --json); refused when made with another rubric")
	cliflag.Var(fs, &s.MinAgreement, "min-agreement", "0.80", minAgreement, "agreement every criterion needs before the tier advances")
	fs.StringVar(&s.JudgeModel, "judge-model", "", "the judge model (also read from judge_model in results)")
	fs.StringVar(&s.ProductionModel, "production-model", "", "the production model whose outputs are judged")
	cliflag.Var(fs, &s.SameFamily, "same-family", "fail", sameFamily, "judge and production model of one family: fail or warn")
}

// Defaults are the settings of the flags left unset.
func Defaults() Settings {
	var s Settings
	s.Flags(flag.NewFlagSet("defaults", flag.ContinueOnError))
	return s
}

func parseTiers(s string) ([]int, error) {
	t, err := calibrate.ParseTiers(s)
	return t, usage.Wrap(err)
}

func minAgreement(s string) (float64, error) { return fraction.ParsePositive("min-agreement", s) }

func sameFamily(s string) (family.FamilyPolicy, error) {
	p, err := family.ParseFamilyPolicy(s)
	if err != nil {
		return p, usage.Errorf("same-family: %w", err)
	}
	return p, nil
}

// Parse checks the settings together and reads the calibration report. A
// report made with another rubric than rb is stale and refused. A tier
// that is not one of the tiers is a *usage.Error; a report that cannot be
// read or is stale is another error naming the file.
func Parse(s Settings, rb *rubric.Rubric) (*State, error) {
	t := &State{JudgeModel: strings.TrimSpace(s.JudgeModel), ProductionModel: strings.TrimSpace(s.ProductionModel),
		Family: s.SameFamily, MinAgreement: s.MinAgreement}
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
	if s.Tier == 0 {
		return t, nil
	}
	t.Enabled, t.Tiers, t.Current = true, s.Tiers, int(s.Tier)
	if err := calibrate.CheckTier(t.Tiers, t.Current); err != nil {
		return nil, usage.Wrap(err)
	}
	return t, nil
}
