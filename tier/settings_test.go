package tier

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/family"
	"github.com/rubricgate/rubricgate/internal/cliflag"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/results"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// parseFlags is the settings of the flags args.
func parseFlags(t *testing.T, args ...string) Settings {
	t.Helper()
	var s Settings
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	s.Flags(fs)
	if _, err := cliflag.Parse(fs, args); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestParseTier(t *testing.T) {
	rb := loadExample(t)
	base := parseFlags(t, "-tiers", "10,25,50", "-min-agreement", "0.8", "-same-family", "fail", "-judge-model", " gpt-4o ", "-production-model", "claude-sonnet-4-5")
	tier, err := Parse(base, rb)
	if err != nil || tier.Enabled || tier.JudgeModel != "gpt-4o" || tier.MinAgreement != 0.8 || tier.Family != family.FamilyFail {
		t.Fatalf("no tier: %+v %v", tier, err)
	}
	s := base
	s.Tier = 25
	if tier, err = Parse(s, rb); err != nil || !tier.Enabled || tier.Current != 25 || len(tier.Tiers) != 3 {
		t.Fatalf("tier 25%%: %+v %v", tier, err)
	}
	if got := parseFlags(t, "-tier", "25%"); got.Tier != 25 {
		t.Errorf("-tier 25%%: %v", got.Tier)
	}
	if d := Defaults(); len(d.Tiers) != 5 || d.Tier != 0 || d.MinAgreement != 0.8 || d.SameFamily != family.FamilyFail {
		t.Errorf("defaults: %+v", d)
	}
	// A tier that is not one of the tiers is a usage error of Parse.
	s.Tier = 33
	var u *usage.Error
	if _, err := Parse(s, rb); !errors.As(err, &u) || !strings.Contains(err.Error(), "not one of the tiers") {
		t.Errorf("tier 33: %v, want a usage error", err)
	}
	// Every bad setting is a usage error naming the setting, when it is set.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-tier", "x"}, `tier "x"`},
		{[]string{"-tier", "101"}, `tier "101"`},
		{[]string{"-tiers", "10,abc"}, "tiers:"},
		{[]string{"-min-agreement", "0"}, "min-agreement"},
		{[]string{"-same-family", "maybe"}, "same-family"},
	} {
		var s Settings
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		s.Flags(fs)
		_, err := cliflag.Parse(fs, tc.args)
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want a usage error with %q", tc.args, err, tc.want)
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
