package gate

import (
	"strconv"
	"testing"
)

// BenchmarkPairMillion pairs a 1M-item run with a 1M-item baseline: the
// index, a million lookups and the one-pass normal interval.
func BenchmarkPairMillion(b *testing.B) {
	const n = 1_000_000
	base := make([]ItemScore, n)
	cur := make([]ItemResult, n)
	for i := range n {
		id := "q-" + strconv.Itoa(i)
		base[i] = ItemScore{ID: id, Score: float64(i % 97)}
		cur[i] = ItemResult{ID: id, Score: float64((i * 7) % 101)}
	}
	b.ReportAllocs()
	for b.Loop() {
		pr := NewPairer(base, 10)
		for i := range cur {
			pr.Add(&cur[i])
		}
		if p := pr.Result(); p.Common != n || p.Interval != "normal" {
			b.Fatal(p.Common, p.Interval)
		}
	}
}
