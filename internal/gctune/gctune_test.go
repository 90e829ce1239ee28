package gctune

import (
	"math"
	"runtime/debug"
	"testing"
)

// ForBaseline bounds the heap only for a large baseline, and never over
// the user's GOGC or GOMEMLIMIT.
func TestForBaseline(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	env := func(k, v string) func(string) string {
		return func(name string) string {
			if name == k {
				return v
			}
			return ""
		}
	}
	if ForBaseline(env("", ""), 99_999) || ForBaseline(env("GOGC", "200"), 1_000_000) || ForBaseline(env("GOMEMLIMIT", "1GiB"), 1_000_000) {
		t.Error("tuned a small baseline or over the user's setting")
	}
	if debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Error("memory limit changed")
	}
	if !ForBaseline(env("", ""), 1_000_000) || debug.SetMemoryLimit(-1) != 40<<20+46_000_000 || debug.SetGCPercent(100) != 50 {
		t.Error("a 1M-item baseline did not bound the heap")
	}
}
