package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"gopkg.in/yaml.v3"
)

// Issue 15 §7: every example workflow that runs on pull_request re-runs on
// edited, the event of a pull request retargeted to another base branch
// (its baseline is the new base's), and on the events that change what the
// gate reads (pushes, reopening, the accept label).
func TestExampleWorkflowsRerunOnRetarget(t *testing.T) {
	files, err := filepath.Glob("../../examples/workflows/*.yml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example workflows: %v", err)
	}
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			On map[string]struct {
				Types []string `yaml:"types"`
			} `yaml:"on"`
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		pr, ok := wf.On["pull_request"]
		if !ok {
			continue
		}
		n++
		for _, want := range []string{"opened", "synchronize", "reopened", "labeled", "unlabeled", "edited"} {
			if !slices.Contains(pr.Types, want) {
				t.Errorf("%s: pull_request types %v lack %q", filepath.Base(f), pr.Types, want)
			}
		}
	}
	if n == 0 {
		t.Error("no example workflow runs on pull_request")
	}
}
