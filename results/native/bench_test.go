package native

import (
	"bytes"
	"sync"
	"testing"
)

var (
	benchOnce sync.Once
	benchData []byte
)

// benchRun is 100k generated items (5 criteria), about 20 MB of JSON lines.
func benchRun() []byte {
	benchOnce.Do(func() { benchData = genRun(100000, 42) })
	return benchData
}

func BenchmarkScore(b *testing.B) {
	data := benchRun()
	rb := prodRubric()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rep, err := Score(rb, []Input{{Name: "bench.jsonl", R: bytes.NewReader(data)}}, ScoreOptions{})
		if err != nil || rep.Items != 100000 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/item")
}

func BenchmarkScoreOneWorker(b *testing.B) {
	data := benchRun()
	rb := prodRubric()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Score(rb, []Input{{Name: "bench.jsonl", R: bytes.NewReader(data)}}, ScoreOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadJSONL(b *testing.B) {
	data := benchRun()
	rb := prodRubric()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := ReadItems(rb, Input{Name: "bench.jsonl", R: bytes.NewReader(data)}, ReadOptions{}, func(*Item) error { n++; return nil })
		if err != nil || n != 100000 {
			b.Fatal(err, n)
		}
	}
}
