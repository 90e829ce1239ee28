package main

import (
	"flag"
	"io"
	"os"
	"sort"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestActionYMLMatchesFlags keeps action.yml and the flags in step: every
// gate and comment flag is an input with the same default, every input is a
// flag (or "command"), and every output the code writes is declared.
func TestActionYMLMatchesFlags(t *testing.T) {
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var action struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Outputs map[string]any `yaml:"outputs"`
		Runs    struct {
			Using string `yaml:"using"`
			Image string `yaml:"image"`
		} `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &action); err != nil {
		t.Fatal(err)
	}
	if action.Runs.Using != "docker" || action.Runs.Image != "Dockerfile" {
		t.Errorf("runs = %+v, want a docker action built from the Dockerfile", action.Runs)
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
		if _, ok := action.Outputs[o]; !ok {
			t.Errorf("output %s is not declared", o)
		}
	}
}
