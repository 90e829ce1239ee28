package formats

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"
)

// bigPromptfoo repeats the rows of the promptfoo fixture n times (with
// distinct descriptions) as a JSON Lines file.
func bigPromptfoo(b *testing.B, n int) []byte {
	data, err := os.ReadFile("testdata/promptfoo/results.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	var out bytes.Buffer
	for i := 0; i < n; i++ {
		d := bytes.ReplaceAll(data, []byte(`"metadata":{"id":"geo-001"}`), []byte(fmt.Sprintf(`"metadata":{"id":"geo-%d"}`, i)))
		d = bytes.ReplaceAll(d, []byte(`"description":"`), []byte(fmt.Sprintf(`"description":"%d-`, i)))
		d = bytes.ReplaceAll(d, []byte(`"question":"`), []byte(fmt.Sprintf(`"question":"%d-`, i)))
		out.Write(d)
	}
	return out.Bytes()
}

// BenchmarkDecode measures the NaN-tolerant decoder against encoding/json
// on promptfoo rows (MB/s is the figure to compare).
func BenchmarkDecode(b *testing.B) {
	data, err := os.ReadFile("testdata/promptfoo/results.json")
	if err != nil {
		b.Fatal(err)
	}
	b.Run("formats", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			if _, err := decodeAll("r.json", bytes.NewReader(data), 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for i := 0; i < b.N; i++ {
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPromptfooJSONL reads 8,000 rows.
func BenchmarkPromptfooJSONL(b *testing.B) {
	data := bigPromptfoo(b, 1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		n := 0
		err := promptfooJSONL.Read("r.jsonl", bytes.NewReader(data), func(*Record) error { n++; return nil })
		if err != nil || n != 8000 {
			b.Fatal(err)
		}
	}
}
