package tier

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/family"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/results"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

func TestParseTier(t *testing.T) {
	rb := loadExample(t)
	base := Settings{Tiers: "10,25,50", MinAgreement: "0.8", SameFamily: "fail", JudgeModel: " gpt-4o ", ProductionModel: "claude-sonnet-4-5"}
	tier, err := Parse(base, rb)
	if err != nil || tier.Enabled || tier.JudgeModel != "gpt-4o" || tier.MinAgreement != 0.8 || tier.Family != family.FamilyFail {
		t.Fatalf("no tier: %+v %v", tier, err)
	}
	s := base
	s.Tier = "25%"
	if tier, err = Parse(s, rb); err != nil || !tier.Enabled || tier.Current != 25 || len(tier.Tiers) != 3 {
		t.Fatalf("tier 25%%: %+v %v", tier, err)
	}
	// Every bad setting is a usage error naming the setting.
	for _, tc := range []struct {
		mod  func(*Settings)
		want string
	}{
		{func(s *Settings) { s.Tier = "33" }, "not one of the tiers"},
		{func(s *Settings) { s.Tier = "x" }, `tier "x"`},
		{func(s *Settings) { s.Tier, s.Tiers = "10", "10,abc" }, "tiers:"},
		{func(s *Settings) { s.MinAgreement = "0" }, "min-agreement"},
		{func(s *Settings) { s.SameFamily = "maybe" }, "same-family"},
	} {
		s := base
		tc.mod(&s)
		_, err := Parse(s, rb)
		var u *usage.Error
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want a usage error with %q", s, err, tc.want)
		}
	}
	// A missing or stale calibration report is not a usage error, and names the file.
	s = base
	s.Calibration = filepath.Join(t.TempDir(), "cal.json")
	if _, err := Parse(s, rb); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing report: %v", err)
	}
	// A report made with the production rubric: fresh for it, stale for another.
	data, err := os.ReadFile("../rubrics/production.yaml")
	if err != nil {
		t.Fatal(err)
	}
	prod, _, err := rubric.Load("production.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	in, closeAll, err := results.Open([]string{"../examples/calibration/human.csv"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	rs, err := calibrate.ReadRatings(prod, in[0], native.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := calibrate.Compare(prod, rs, rs, calibrate.Options{Metric: calibrate.Metric("exact"), MinAgreement: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	f, _ := os.Create(s.Calibration)
	if err := calibrate.WriteJSON(f, rep); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if tier, err := Parse(s, prod); err != nil || tier.Calibration == nil || !tier.Calibration.Passed {
		t.Fatalf("fresh report: %+v %v", tier, err)
	}
	_, err = Parse(s, rb)
	var u *usage.Error
	var stale *calibrate.StaleError
	if !errors.As(err, &stale) || errors.As(err, &u) || !strings.Contains(err.Error(), s.Calibration) {
		t.Errorf("stale report: %v", err)
	}
}

func loadExample(t *testing.T) *rubric.Rubric {
	t.Helper()
	const path = "../rubrics/support.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rb, _, err := rubric.Load(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}
