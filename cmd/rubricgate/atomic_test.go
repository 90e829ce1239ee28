package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/testfs"
)

// An output that cannot be put in place (--json naming a directory, a
// --markdown that fails) leaves the local store without the new baseline
// and every other output as it was: the set is all or nothing, and the
// store's baseline goes last.
func TestGateExit2LeavesNothing(t *testing.T) {
	for _, tt := range []struct{ name, jsonAt, mdAt string }{
		{"--json names a directory", "adir", "report.md"},
		{"--markdown names a directory", "report.json", "adir"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "adir"), 0o755); err != nil {
				t.Fatal(err)
			}
			old := filepath.Join(dir, "report.json")
			if tt.jsonAt != "report.json" {
				old = filepath.Join(dir, "report.md")
			}
			if err := os.WriteFile(old, []byte("old"), 0o644); err != nil {
				t.Fatal(err)
			}
			store := filepath.Join(dir, "store")
			before := testfs.Tree(t, dir)
			code, out, errs := runIn(t, t.TempDir(), nil, "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl",
				"--baseline-dir", store, "--branch", "main", "--write-baseline", filepath.Join(dir, "baseline.json"),
				"--json", filepath.Join(dir, tt.jsonAt), "--markdown", filepath.Join(dir, tt.mdAt))
			if code != exitError {
				t.Fatalf("exit %d, want 2\n%s%s", code, out, errs)
			}
			if !strings.Contains(errs, "is a directory") {
				t.Errorf("the error does not name the directory: %s", errs)
			}
			if after := testfs.Tree(t, dir); strings.Join(after, " ") != strings.Join(before, " ") {
				t.Errorf("files changed: before %v, after %v", before, after)
			}
			if data, _ := os.ReadFile(old); string(data) != "old" {
				t.Errorf("%s was overwritten: %q", old, data)
			}
		})
	}
}
