package testgolden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	d := Diff("a\nb\nc", "a\nB\nc\nd")
	if !strings.Contains(d, "line 2:\n- b\n+ B\n") || !strings.Contains(d, "line 4:\n- \n+ d\n") || strings.Contains(d, "line 1") {
		t.Errorf("Diff = %q", d)
	}
	if Diff("same", "same") != "" {
		t.Error("equal texts differ")
	}
}

// recorder records whether a check failed, without failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }

func TestCheck(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.golden")
	os.WriteFile(p, []byte("want\n"), 0o644)
	r := &recorder{TB: t}
	Check(r, p, []byte("want\n"))
	if r.failed {
		t.Error("equal output failed")
	}
	Check(r, p, []byte("other\n"))
	if !r.failed {
		t.Error("different output passed")
	}
}
