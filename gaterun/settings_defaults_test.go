package gaterun

import (
	"flag"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// The flags' defaults come from gate's: changing gate.DefaultThresholds or
// gate.DefaultPolicy changes them (action.yml is checked against the flags
// by cmd's TestActionYMLMatchesFlags), so the 2% rule has one source.
func TestFlagDefaultsFollowGate(t *testing.T) {
	th, pol := gate.DefaultThresholds, gate.DefaultPolicy
	defer func() { gate.DefaultThresholds, gate.DefaultPolicy = th, pol }()
	gate.DefaultThresholds.MaxDrop, gate.DefaultThresholds.HardDrop = 0.03, 0.075
	gate.DefaultThresholds.NoisyDrop = gate.NoisyWarn
	gate.DefaultPolicy.IfNoBaseline, gate.DefaultPolicy.OnRubricChange, gate.DefaultPolicy.AcceptLabel = "fail", "fail", "ok-to-drop"
	var s Settings
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	s.Flags(fs)
	want := map[string]string{"max-drop": "3%", "hard-drop": "7.5%", "noisy-drop": "warn", "if-no-baseline": "fail", "on-rubric-change": "fail", "accept-label": "ok-to-drop"}
	for name, w := range want {
		if got := fs.Lookup(name).DefValue; got != w {
			t.Errorf("--%s default %q, want %q (from gate's defaults)", name, got, w)
		}
	}
	c, err := s.Parse()
	if err != nil {
		t.Fatal(err)
	}
	if c.Thresholds.MaxDrop != 0.03 || c.Thresholds.HardDrop != 0.075 || c.Policy != gate.DefaultPolicy {
		t.Errorf("parsed defaults %+v %+v", c.Thresholds, c.Policy)
	}
}
