package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The union recipe of pr-check-rerun.yml, run as the workflow runs it:
// it keeps input_hash (which binds an item to its task), puts the first
// run's answers first in every item (the final gate checks them there),
// and refuses runs that differ in an item's input_hash.
func TestRerunUnionRecipe(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq not installed (the GitHub runners have it)")
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", "workflows", "pr-check-rerun.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	script := ""
	for _, j := range wf.Jobs {
		for _, st := range j.Steps {
			if st.Name == "Union of both runs" {
				script = st.Run
			}
		}
	}
	if !strings.Contains(script, "jq ") {
		t.Fatalf("no union step with jq in the workflow: %q", script)
	}
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func() (string, error) {
		cmd := exec.Command("sh", "-c", script)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + filepath.Dir(jq) + ":/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		if err != nil {
			return string(out), err
		}
		u, err := os.ReadFile(filepath.Join(dir, "eval-union.jsonl"))
		return string(u), err
	}
	write("eval-results.jsonl", `{"id":"b","input_hash":"sha256:bb","scores":{"accuracy":4},"reasoning":"first b"}
{"id":"a","scores":{"accuracy":5}}
`)
	write("eval-rerun.jsonl", `{"id":"a","answers":[{"scores":{"accuracy":3}},{"scores":{"accuracy":2}}]}
{"id":"b","input_hash":"sha256:bb","answers":[{"scores":{"accuracy":1}}]}
`)
	got, err := run()
	if err != nil {
		t.Fatalf("recipe: %v\n%s", err, got)
	}
	want := `{"id":"a","answers":[{"scores":{"accuracy":5},"reasoning":null},{"scores":{"accuracy":3}},{"scores":{"accuracy":2}}]}
{"id":"b","input_hash":"sha256:bb","answers":[{"scores":{"accuracy":4},"reasoning":"first b"},{"scores":{"accuracy":1}}]}
`
	if got != want {
		t.Errorf("union\n%s\nwant\n%s", got, want)
	}
	write("eval-rerun.jsonl", `{"id":"b","input_hash":"sha256:cc","scores":{"accuracy":1}}
`)
	if out, err := run(); err == nil || !strings.Contains(out, "item b: the runs differ in input_hash") {
		t.Errorf("runs that differ in input_hash: %v\n%s", err, out)
	}
}
