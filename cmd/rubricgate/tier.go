package main

import (
	"bytes"
	"flag"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/fraction"
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

// tierState is a checked tierConfig plus what it collects from the run.
type tierState struct {
	tiers       []int
	current     int
	enabled     bool
	cal         *calibrate.Report
	minAgree    float64
	judgeModel  string
	production  string
	policy      calibrate.FamilyPolicy
	judges      map[string]int
	lengths     []calibrate.LengthPoint
	calFileName string
}

func (c *tierConfig) check(rb *rubric.Rubric, e *env) (*tierState, error) {
	t := &tierState{judgeModel: strings.TrimSpace(c.judgeModel), production: strings.TrimSpace(c.productionModel), judges: map[string]int{}}
	var err error
	if t.policy, err = calibrate.ParseFamilyPolicy(c.sameFamily); err != nil {
		return nil, usagef("same-family: %v", err)
	}
	if t.minAgree, err = fraction.ParsePositive("min-agreement", c.minAgreement); err != nil {
		return nil, &usageError{err.Error()}
	}
	if c.calibration != "" {
		data, err := readFileLimited(c.calibration, 32<<20)
		if err != nil {
			return nil, fmt.Errorf("calibration: %w", err)
		}
		if t.cal, err = calibrate.ReadReport(bytes.NewReader(data), 32<<20); err != nil {
			return nil, fmt.Errorf("calibration %s: %w", c.calibration, err)
		}
		// A calibration made with another rubric is stale: refuse it.
		if err := calibrate.CheckFresh(t.cal, rb.Hash()); err != nil {
			return nil, fmt.Errorf("calibration %s: %w", c.calibration, err)
		}
		t.calFileName = c.calibration
	}
	if strings.TrimSpace(c.tier) == "" {
		return t, nil
	}
	t.enabled = true
	if t.tiers, err = calibrate.ParseTiers(c.tiers); err != nil {
		return nil, usagef("%v", err)
	}
	cur := strings.TrimSuffix(strings.TrimSpace(c.tier), "%")
	if t.current, err = strconv.Atoi(cur); err != nil {
		return nil, usagef("tier %q: expected one of the tiers %s", c.tier, c.tiers)
	}
	if err := calibrate.CheckTier(t.tiers, t.current); err != nil {
		return nil, usagef("%v", err)
	}
	return t, nil
}

// observe collects per-item judge models and answer lengths.
func (t *tierState) observe(it *gate.ItemResult) {
	if it.Unscored {
		return
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
func (t *tierState) apply(g *gate.GateReport, rb *rubric.Rubric) error {
	judges := []string{}
	if t.judgeModel != "" {
		judges = append(judges, t.judgeModel)
	}
	for m := range t.judges {
		if m != t.judgeModel {
			judges = append(judges, m)
		}
	}
	sort.Strings(judges)
	if t.production != "" {
		if len(judges) == 0 {
			judges = append(judges, "")
		}
		for _, j := range judges {
			fc, err := calibrate.CheckFamilies(j, t.production, rb.ModelFamilies, t.policy)
			if err != nil {
				return fmt.Errorf("judge bias: %w (same-family: warn to allow)", err)
			}
			g.Warnings = append(g.Warnings, fc.Warnings...)
		}
	}
	if lb := calibrate.CheckLengthBias("", t.lengths, calibrate.DefaultThresholds); lb.Warn {
		g.Warnings = append(g.Warnings, lb.Message)
	}
	if !t.enabled {
		return nil
	}
	d := calibrate.DecideTier(t.tiers, t.current, g.Decision == gate.Pass, t.cal, rb.Hash(), t.minAgree)
	g.Tier = &gate.TierInfo{Current: d.Current, Next: d.Next, MayAdvance: d.MayAdvance, HeldBy: d.HeldBy}
	return nil
}
