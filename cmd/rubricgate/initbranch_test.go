package main

import (
	"testing"

	"gopkg.in/yaml.v3"
)

// The baseline workflow's push filter names the branch exactly: a plain
// name bare (so main gives the shipped example byte for byte), any other
// as a YAML string whose filter-pattern characters are escaped, so that
// "fix+1" is not read as a pattern and a name YAML would mangle stays whole.
func TestBranchFilter(t *testing.T) {
	for _, tc := range []struct{ branch, written, pattern string }{
		{"main", "main", "main"},
		{"release/2.x", "release/2.x", "release/2.x"},
		{"fix+1", `"fix\\+1"`, `fix\+1`},
		{"!neg", `"\\!neg"`, `\!neg`},
		{"a#b", `"a#b"`, "a#b"},
		{`q"uote`, `"q\"uote"`, `q"uote`},
		{"café", `"café"`, "café"},
	} {
		got := branchFilter(tc.branch)
		if got != tc.written {
			t.Errorf("branchFilter(%q) = %s, want %s", tc.branch, got, tc.written)
		}
		var wf struct {
			On struct {
				Push struct {
					Branches []string `yaml:"branches"`
				} `yaml:"push"`
			} `yaml:"on"`
		}
		if err := yaml.Unmarshal([]byte("on:\n  push:\n    branches: ["+got+"]\n"), &wf); err != nil {
			t.Fatalf("%q: %v", tc.branch, err)
		}
		if b := wf.On.Push.Branches; len(b) != 1 || b[0] != tc.pattern {
			t.Errorf("%q: the filter reads %q, want the pattern %q", tc.branch, b, tc.pattern)
		}
	}
}
