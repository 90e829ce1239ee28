package main

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// BenchmarkMillion runs `score` and `gate` in process on the 1M-item run
// and baseline that scripts/bench.sh generates (in $BENCH_DATA, default
// bench/data), each with its allocation: the gate's target is within 1.5x
// of score's bytes. With -benchtime 1x the first iteration is measured, as
// a CI run pays it. Skipped when the data is missing.
func BenchmarkMillion(b *testing.B) {
	dir := os.Getenv("BENCH_DATA")
	if dir == "" {
		dir = filepath.Join("..", "..", "bench", "data")
	}
	rubricFile := filepath.Join(dir, "rubric.json")
	runFile := filepath.Join(dir, "run-1000000.jsonl")
	baseFile := filepath.Join(dir, "baseline-1000000.json")
	for _, f := range []string{rubricFile, runFile, baseFile} {
		if _, err := os.Stat(f); err != nil {
			b.Skipf("no 1M-item data (%v): run scripts/bench.sh first, or set BENCH_DATA", err)
		}
	}
	e := &env{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"score", []string{"score", "--rubric", rubricFile, "--results", runFile, "--max-unscored", "1%", "--json", os.DevNull}},
		{"gate", []string{"gate", "--rubric", rubricFile, "--results", runFile, "--max-unscored", "1%", "--baseline", baseFile, "--comment", "never", "--json", os.DevNull}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			gcs := ms.NumGC
			for b.Loop() {
				if code := run(c.args, e); code > exitBlocked {
					b.Fatalf("%s exited %d", c.name, code)
				}
			}
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.NumGC-gcs)/float64(b.N), "GCs/op")
		})
	}
}
