package gaterun

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/rubric"
	"github.com/rubricgate/rubricgate/tier"
)

// warningFindings returns the warning findings of g.
func warningFindings(g *gate.GateReport) []finding.Finding {
	var ws []finding.Finding
	for _, f := range g.Findings {
		if f.Severity == finding.Warning {
			ws = append(ws, f)
		}
	}
	return ws
}

// Every warning the gate run adds is a typed finding: the rubric's load
// warnings (first), the judge family checks, the judges of unknown family
// past the cap and the default-branch warning; the report's warnings are
// their text and the comment renders them from the findings.
func TestPipelineWarningsAreFindings(t *testing.T) {
	rb := loadExample(t)
	var models []string
	for i := range tier.MaxJudgeModels + 5 {
		models = append(models, fmt.Sprintf("house-model-%d", i))
	}
	o := options(rb, judgedRun(t, models), &baseline.Dir{Root: t.TempDir()})
	o.Tier = &tier.State{ProductionModel: "gpt-4o"}
	o.RubricWarnings = []rubric.Warning{{File: "r.yaml", Line: 3, Col: 5, Criterion: "tone", Msg: "weight 0 makes tone count for nothing"}}
	vars := map[string]string{"CI_DEFAULT_BRANCH": "main", "CI_COMMIT_BRANCH": "main"}
	o.Save = host.SaveInputs{Getenv: func(k string) string { return vars[k] }, WorkDir: t.TempDir()}
	o.BaselineRef = host.ResolveBaselineBranch("release", nil, o.Save)
	res, err := Gate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	g := res.Report
	ws := warningFindings(g)
	if !slices.Equal(finding.Texts(ws), g.Warnings) {
		t.Fatalf("warnings %q are not the findings' text %q", g.Warnings, finding.Texts(ws))
	}
	count := map[finding.Kind]int{}
	for _, f := range ws {
		count[f.Kind]++
	}
	if ws[0].Kind != finding.RubricWarning || ws[0].File != "r.yaml" || ws[0].Line != 3 || ws[0].Criterion != "tone" {
		t.Errorf("first warning %+v, want the rubric's", ws[0])
	}
	if g.Warnings[0] != "r.yaml:3:5: weight 0 makes tone count for nothing" {
		t.Errorf("rubric warning %q", g.Warnings[0])
	}
	if count[finding.JudgeFamilyUnknown] != tier.MaxJudgeModels || count[finding.JudgesUnknownPast] != 1 || count[finding.DefaultBranchNotBaseline] != 1 {
		t.Errorf("warning kinds %v", count)
	}
	for _, f := range ws {
		switch f.Kind {
		case finding.JudgesUnknownPast:
			if f.Count != 5 || f.Limit != tier.MaxJudgeModels {
				t.Errorf("past the cap: %+v", f)
			}
		case finding.DefaultBranchNotBaseline:
			if f.Branch != "main" || f.BaselineBranch != "release" {
				t.Errorf("default branch: %+v", f)
			}
		}
	}
	// The comment shows the names as code, from the findings.
	if !strings.Contains(res.Markdown, "- `r.yaml`:3:5: weight 0") || !strings.Contains(res.Markdown, "judge model `house-model-0` is of an unknown family") {
		t.Errorf("markdown does not render the findings:\n%s", res.Markdown)
	}
	o.Tier, o.Results = nil, files{exampleRun}
	if res, err = Gate(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Markdown, "the default branch `main` but the baseline branch is `release`") {
		t.Errorf("markdown does not render the default-branch finding:\n%s", res.Markdown)
	}
}

// A judge that favours longer answers is a typed length-bias warning.
func TestTierLengthBiasFinding(t *testing.T) {
	rb := loadExample(t)
	ts := &tier.State{}
	for i := range 30 {
		ts.Observe(&gate.ItemResult{ID: fmt.Sprint(i), Score: float64(50 + i), Length: 100 + 10*i})
	}
	score := 70.0
	g := gate.Decide(gate.DecideInput{Current: &gate.Report{Items: 30, Scored: 30, Score: &score}, Rubric: rb, Thresholds: gate.DefaultThresholds, Policy: gate.DefaultPolicy})
	if err := ts.Apply(g, rb); err != nil {
		t.Fatal(err)
	}
	ws := warningFindings(g)
	if len(ws) != 1 || ws[0].Kind != finding.LengthBias || ws[0].Count != 30 || ws[0].MaxRho != calibrate.DefaultThresholds.MaxRho {
		t.Fatalf("warnings %+v", ws)
	}
	if len(g.Warnings) != 1 || !strings.HasPrefix(g.Warnings[0], "item scores rise with answer length (Spearman rho 1.00 >= 0.50 over 30 items)") {
		t.Errorf("warnings %q", g.Warnings)
	}
}

// host.DefaultBranchFinding carries the branches; host.DefaultBranchWarning is its text.
func TestDefaultBranchFinding(t *testing.T) {
	vars := map[string]string{"CI_DEFAULT_BRANCH": "main", "CI_COMMIT_BRANCH": "main"}
	in := host.SaveInputs{Getenv: func(k string) string { return vars[k] }, WorkDir: t.TempDir()}
	ref := host.ResolveBaselineBranch("release", nil, in)
	f, ok := host.DefaultBranchFinding(ref, in, nil)
	if !ok || f.Kind != finding.DefaultBranchNotBaseline || f.Severity != finding.Warning || f.Branch != "main" || f.BaselineBranch != "release" || f.Source != ref.From {
		t.Fatalf("finding %+v", f)
	}
	want := fmt.Sprintf(`this run is on the default branch "main" but the baseline branch is "release" (from %s): no run on "main" ever saves a baseline, and runs compared with "release" find none unless one is saved there; set --baseline-branch main or run the gate on "release"`, ref.From)
	if w := host.DefaultBranchWarning(ref, in, nil); w != want || f.Text() != want {
		t.Errorf("warning %q, want %q", w, want)
	}
}
