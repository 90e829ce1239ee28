package baseline

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// BenchmarkBaselineAnswers writes and reads a 100,000-item baseline whose
// items carry K answers each: the file keeps per item the mean, the count
// and the variance, so its size does not grow with K at all (bytes/item is
// reported), and with answer samples it is one column pair larger than
// without.
func BenchmarkBaselineAnswers(b *testing.B) {
	const n = 100_000
	rb := testRubric("bench")
	for _, k := range []int{1, 4, 16} {
		items := make([]gate.ItemScore, n)
		for i := range items {
			items[i] = gate.ItemScore{ID: fmt.Sprintf("item-%06d", i), Score: 1 + float64(i%98), Answers: k}
			if k > 1 {
				items[i].AnswerVar = float64(i%37) + 0.25
			}
		}
		f, err := New(rb, reportOf(rb, items), items, testMeta)
		if err != nil {
			b.Fatal(err)
		}
		data := encode(b, f)
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				var buf bytes.Buffer
				if err := f.Write(&buf); err != nil {
					b.Fatal(err)
				}
				if _, err := Read(&buf, "b.json", 0); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(data))/n, "bytes/item")
		})
	}
}
