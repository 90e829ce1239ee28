package calibrate

import (
	"github.com/rubricgate/rubricgate/family"
	"slices"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
)

// The family check's warnings are typed findings, and their text is the
// English the check always gave.
func TestFamilyFindings(t *testing.T) {
	cases := []struct {
		judge, production string
		policy            family.FamilyPolicy
		kinds             []finding.Kind
		texts             []string
	}{
		{"", "gpt-4o", family.FamilyFail, []finding.Kind{finding.JudgeModelMissing},
			[]string{"no judge model given: the judge family check could not be made"}},
		{"house-judge", "gpt-4o", family.FamilyFail, []finding.Kind{finding.JudgeFamilyUnknown},
			[]string{`judge model "house-judge" is of an unknown family: the judge family check could not be made (add it under model_families in the rubric)`}},
		{"gpt-4o-mini", "gpt-4o", family.FamilyWarn, []finding.Kind{finding.JudgeSameFamily},
			[]string{`judge model "gpt-4o-mini" and production model "gpt-4o" are both OpenAI models: a judge favours its own family's outputs; judge with another family`}},
	}
	for _, c := range cases {
		fc, err := family.CheckFamilies(c.judge, c.production, nil, c.policy)
		if err != nil {
			t.Fatalf("%s/%s: %v", c.judge, c.production, err)
		}
		var kinds []finding.Kind
		for _, f := range fc.Findings {
			kinds = append(kinds, f.Kind)
			if f.Severity != finding.Warning {
				t.Errorf("%s: severity %q", f.Kind, f.Severity)
			}
		}
		if !slices.Equal(kinds, c.kinds) || !slices.Equal(fc.Warnings, c.texts) || !slices.Equal(finding.Texts(fc.Findings), fc.Warnings) {
			t.Errorf("%s/%s: kinds %v, warnings %q", c.judge, c.production, kinds, fc.Warnings)
		}
	}
	// Under fail the same family is an error whose finding is an Error.
	_, err := family.CheckFamilies("gpt-4o-mini", "gpt-4o", nil, family.FamilyFail)
	sf, ok := err.(*family.SameFamilyError)
	if !ok || sf.Finding().Kind != finding.JudgeSameFamily || sf.Finding().Severity != finding.Error || sf.Finding().Family != "OpenAI" {
		t.Fatalf("err %v", err)
	}
}

// A length-bias check that warns has a typed finding whose text is its
// message; one that does not warn has none.
func TestLengthBiasFinding(t *testing.T) {
	var pts []LengthPoint
	for i := range 30 {
		pts = append(pts, LengthPoint{Length: 100 + i, Score: float64(i)})
	}
	lb := CheckLengthBias("accuracy", pts, DefaultThresholds)
	f := lb.Finding()
	if !lb.Warn || f.Kind != finding.LengthBias || f.Criterion != "accuracy" || f.Count != 30 || f.Rho != 1 || f.MaxRho != 0.5 || f.Severity != finding.Warning {
		t.Fatalf("finding %+v of %+v", f, lb)
	}
	want := "accuracy scores rise with answer length (Spearman rho 1.00 >= 0.50 over 30 items): the judge may favour longer answers; check against human scores"
	if lb.Message != want || f.Text() != want {
		t.Errorf("message %q, text %q, want %q", lb.Message, f.Text(), want)
	}
	if f := CheckLengthBias("", pts[:5], DefaultThresholds).Finding(); f.Kind != "" {
		t.Errorf("a check that does not warn has finding %+v", f)
	}
}
