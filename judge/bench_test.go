package judge

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/internal/llmfake"
)

// BenchmarkJudge10k judges 10,000 items against the fake API answering in
// 50 ms: wall time at concurrency 8 and 64 (bound by the concurrency:
// 10,000 x 50 ms / 8 = 62.5 s, / 64 = 7.8 s), and the cached re-run.
// Run with: go test -run '^$' -bench Judge10k -benchtime 1x -benchmem ./judge
func BenchmarkJudge10k(b *testing.B) {
	const n = 10000
	srv := llmfake.New(llmfake.OpenAI, testKey, func(*llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Text: validJSON, Delay: 50 * time.Millisecond}
	})
	defer srv.Close()
	ans := answersN(b, n)
	rb := supportRubric(b)
	cfgFor := func(conc int, cache *Cache) Config {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = conc
		p := NewOpenAI(ProviderConfig{Model: "gpt-4o-mini", BaseURL: srv.BaseURL(), APIKey: testKey, HTTPClient: &http.Client{Transport: tr}})
		return Config{Rubric: rb, Provider: p, ProviderName: "openai", Model: "gpt-4o-mini", Concurrency: conc, Cache: cache}
	}
	for _, conc := range []int{8, 64} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				sum, err := Run(context.Background(), cfgFor(conc, nil), ans, io.Discard)
				if err != nil || sum.Judged != n {
					b.Fatalf("%v, %d judged", err, sum.Judged)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
		})
	}
	b.Run("cached", func(b *testing.B) {
		cache, err := NewCache(b.TempDir(), testKey, srv.BaseURL())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Run(context.Background(), cfgFor(64, cache), ans, io.Discard); err != nil {
			b.Fatal(err)
		}
		before := srv.Requests()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			sum, err := Run(context.Background(), cfgFor(8, cache), ans, io.Discard)
			if err != nil || sum.CacheHits != n {
				b.Fatalf("%v, %d hits", err, sum.CacheHits)
			}
		}
		b.StopTimer()
		if srv.Requests() != before {
			b.Fatalf("the cached re-run sent %d requests", srv.Requests()-before)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "items/s")
	})
}
