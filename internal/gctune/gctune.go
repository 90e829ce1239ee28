// Package gctune bounds the heap of a gate against a large baseline.
package gctune

import "runtime/debug"

// ForBaseline bounds the heap of a gate against a baseline of items items
// (the baseline's items stay live while the run is scored, and the garbage
// collector's default lets the heap grow to twice the live data): from
// 100,000 items, unless GOGC or GOMEMLIMIT is set, the collector runs at
// GOGC=50 with a soft limit of 40 MiB + 46 bytes an item (84 MiB for a
// million: the baseline's items are pointer-free columns and one id index,
// and the run's items are not kept), trading a little CPU for a peak RSS
// under 96 MiB at a million items. It returns whether it changed them.
func ForBaseline(getenv func(string) string, items int) bool {
	if items < 100_000 || getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(50)
	debug.SetMemoryLimit(40<<20 + 46*int64(items))
	return true
}
