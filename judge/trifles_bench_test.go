package judge

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkReadAnswers reads 10,000 answers lines (ReadAnswers).
func BenchmarkReadAnswers(b *testing.B) {
	var sb strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&sb, `{"id":"q%d","input":"question %d","context":["a","b"],"output":"answer %d","reference":"r"}`+"\n", i, i, i)
	}
	text := sb.String()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadAnswers("answers.jsonl", strings.NewReader(text)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPrompt builds one item's prompt.
func BenchmarkPrompt(b *testing.B) {
	tmpl, err := newTemplate(supportRubric(b))
	if err != nil {
		b.Fatal(err)
	}
	it := &Item{ID: "q1", Query: "How do I reset my password?", Context: "Passages.", Reference: "Use the link.", Output: "Click the reset link."}
	b.ReportAllocs()
	for b.Loop() {
		tmpl.build(it)
	}
}

// BenchmarkCachePut writes 1,000 entries to a fresh cache.
func BenchmarkCachePut(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		c, err := NewCache(b.TempDir(), ciSecret, "https://api.openai.com/v1")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		for i := range 1000 {
			k := cacheKey{V: cacheVersion, Endpoint: c.endpoint, User: fmt.Sprint(i)}
			if err := c.put(k.hash(), &cacheEntry{Text: "{}"}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
