package main

import (
	"flag"
	"io"
	"os"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestActionYMLMatchesFlags keeps action.yml and the flags in step: every
// gate and comment flag is an input with the same default, every input is a
// flag (or "command"), every input reaches the gate step as INPUT_<NAME>,
// and every output the code writes is declared and read from that step.
func TestActionYMLMatchesFlags(t *testing.T) {
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]struct {
			Value string `yaml:"value"`
		} `yaml:"outputs"`
		Runs struct {
			Using string `yaml:"using"`
			Steps []struct {
				ID  string            `yaml:"id"`
				Env map[string]string `yaml:"env"`
				Run string            `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "composite" {
		t.Errorf("runs.using = %q, want composite", action.Runs.Using)
	}
	var gateEnv map[string]string
	for _, st := range action.Runs.Steps {
		if st.ID == "gate" {
			gateEnv = st.Env
			if st.Run != `"$RUBRICGATE_BIN"` {
				t.Errorf("gate step runs %q, want the installed binary with no arguments", st.Run)
			}
		}
	}
	if gateEnv == nil {
		t.Fatal("no step with id gate (or it has no env)")
	}
	// The runner's own naming of INPUT_ variables for JavaScript and
	// container actions (githubactions.GetInput reads them so).
	for name := range action.Inputs {
		key := "INPUT_" + strings.ToUpper(name)
		if want := "${{ inputs." + name + " }}"; gateEnv[key] != want {
			t.Errorf("gate step env %s = %q, want %q", key, gateEnv[key], want)
		}
	}
	for key := range gateEnv {
		if name, ok := strings.CutPrefix(key, "INPUT_"); ok {
			if _, declared := action.Inputs[strings.ToLower(name)]; !declared {
				t.Errorf("gate step env %s names no input", key)
			}
		}
	}
	flags := map[string]string{}
	e := &env{stderr: io.Discard}
	gfs := newFlags("gate", e)
	gateFlags(gfs, &gateConfig{})
	cfs := newFlags("comment", e)
	(&commentConfig{}).Flags(cfs)
	for _, fs := range []*flag.FlagSet{gfs, cfs} {
		fs.VisitAll(func(f *flag.Flag) { flags[f.Name] = f.DefValue })
	}
	fromGate := map[string]bool{"max-drop": true, "noisy-drop": true, "hard-drop": true, "max-drift": true}
	for name, def := range flags {
		in, ok := action.Inputs[name]
		if !ok {
			t.Errorf("flag --%s has no action input", name)
			continue
		}
		want := def
		if name == "github-token" {
			want = "${{ github.token }}"
		}
		// The drop thresholds have one source, gate.DefaultThresholds (max-drift
		// gate.DefaultMaxDrift): the
		// action leaves them empty, which the binary reads as its default.
		if fromGate[name] {
			want = ""
		}
		if in.Default != want {
			t.Errorf("input %s: default %q, flag default %q", name, in.Default, want)
		}
	}
	var names []string
	for name := range action.Inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := flags[name]; !ok && name != "command" {
			t.Errorf("input %s is no flag", name)
		}
	}
	for _, o := range []string{"decision", "passed", "score", "baseline-score", "relative-change", "blocking-failures", "report", "baseline-file", "comment-url", "rerun", "rerun-answers", "may-advance", "next-tier"} {
		out, ok := action.Outputs[o]
		if !ok {
			t.Errorf("output %s is not declared", o)
			continue
		}
		if want := "${{ steps.gate.outputs." + o + " }}"; out.Value != want {
			t.Errorf("output %s: value %q, want %q", o, out.Value, want)
		}
	}
}
