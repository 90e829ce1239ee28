package host

import (
	"github.com/rubricgate/rubricgate/gate"
	"math"
	"testing"
)

// Outputs are for people: float noise from the arithmetic is rounded away
// (one decimal for scores, four significant digits for the change).
func TestOutputNumbers(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{81.25000000000001, "81.3"},
		{75.89285714285715, "75.9"},
		{100, "100.0"},
		{0, "0.0"},
	} {
		if got := OutputScore(tc.f); got != tc.want {
			t.Errorf("OutputScore(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{-0.06593406593406598, "-0.06593"},
		{0.020000000000000018, "0.02"},
		{-0.019999999999999574, "-0.02"},
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1.23456789e-7, "0.0000001235"},
		{-1, "-1"},
		{12.3456, "12.35"},
	} {
		if got := OutputChange(tc.f); got != tc.want {
			t.Errorf("OutputChange(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}

type files struct{ BuildInfo }

func (files) DefaultReportPath() string { return "/tmp/report.json" }
func (f files) Build() *Build           { return &Build{Host: "github"} }

type localBuild struct{}

func (localBuild) Build() *Build { return &Build{Host: "local"} }

func TestGateOutputsAndPaths(t *testing.T) {
	score, change := 75.89285714285715, -0.06593406593406598
	g := &gate.GateReport{Report: &gate.Report{Score: &score, BlockingFailures: make([]gate.BlockingFailure, 2)},
		Baseline: &gate.BaselineInfo{Score: 81.25000000000001}, RelativeChange: &change, Decision: gate.Block,
		Tier: &gate.TierInfo{MayAdvance: false, Next: 25}}
	got := map[string]string{}
	for _, o := range GateOutputs(g, "r.json", "", "https://c") {
		got[o.Name] = o.Value
	}
	want := map[string]string{"decision": "block", "passed": "false", "score": "75.9", "baseline-score": "81.3", "relative-change": "-0.06593",
		"blocking-failures": "2", "report": "r.json", "baseline-file": "", "comment-url": "https://c", "rerun": "false", "rerun-answers": "", "may-advance": "false", "next-tier": "25"}
	if len(got) != len(want) {
		t.Errorf("outputs %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if ReportPath(files{}, "") != "/tmp/report.json" || ReportPath(files{}, "x.json") != "x.json" || ReportPath(localBuild{}, "") != "" {
		t.Error("ReportPath")
	}
	if CIBuild(files{}) == nil || CIBuild(localBuild{}) != nil {
		t.Error("CIBuild")
	}
}
