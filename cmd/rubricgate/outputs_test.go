package main

import (
	"encoding/json"
	"os"
	"testing"
)

// The shipped regressed example, as the action: its figures carry float
// noise (81.25000000000001, -0.06593406593406598). The outputs are rounded,
// the JSON report is not.
func TestActionOutputsRounded(t *testing.T) {
	h := newHarness(t)
	h.input("rubric", supportRubric)
	h.input("results", "../../examples/support/run-regressed.jsonl")
	h.input("baseline", h.copyIn("../../examples/support/baseline.json"))
	h.input("comment", "never")
	if code := h.action(); code != exitBlocked {
		t.Fatalf("exit %d\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
	out := h.outputs()
	if out["score"] != "75.9" || out["baseline-score"] != "81.3" || out["relative-change"] != "-0.06593" {
		t.Errorf("score %q baseline-score %q relative-change %q, want 75.9 81.3 -0.06593", out["score"], out["baseline-score"], out["relative-change"])
	}
	var rep struct {
		Score          float64 `json:"score"`
		RelativeChange float64 `json:"relative_change"`
		Baseline       struct{ Score float64 }
	}
	data, err := os.ReadFile(out["report"])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Score != 75.89285714285715 || rep.Baseline.Score != 81.25000000000001 || rep.RelativeChange != -0.06593406593406598 {
		t.Errorf("the report lost precision: %+v", rep)
	}
}
