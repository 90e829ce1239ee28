package native

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// answersRun is a run of n items with k answers each (an "answers" array
// when k > 1), scores varying with the item and the answer.
func answersRun(n, k int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `{"id":"q%d"`, i)
		if k > 1 {
			b.WriteString(`,"answers":[`)
		} else {
			b.WriteString(",")
		}
		for j := range k {
			if j > 0 {
				b.WriteString(",")
			}
			if k > 1 {
				b.WriteString("{")
			}
			l := 1 + (i+j)%5
			fmt.Fprintf(&b, `"scores":{"accuracy":%d,"resolution":%d,"tone":%d,"safety":1}`, l, 1+(i*7+j)%5, 1+(i+3*j)%5)
			if k > 1 {
				b.WriteString("}")
			}
		}
		if k > 1 {
			b.WriteString("]")
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}

// BenchmarkGateAnswers scores a 10,000-item run with K answers per item
// and pairs it with a baseline of the same shape (what `gate` does per
// run): the time per answer stays flat as K grows, so the gate's time
// grows linearly in K (ns/answer is reported).
func BenchmarkGateAnswers(b *testing.B) {
	const n = 10_000
	rb := supportRubric()
	for _, k := range []int{1, 4, 16} {
		data := answersRun(n, k)
		var base []gate.ItemScore
		if _, err := Score(rb, []Input{{Name: "b.jsonl", R: bytes.NewReader(data)}}, ScoreOptions{OnItem: func(it *gate.ItemResult) error {
			base = append(base, gate.ItemScore{ID: it.ID, Score: it.Score, Answers: it.Answers, AnswerVar: it.AnswerVar})
			return nil
		}}); err != nil {
			b.Fatal(err)
		}
		cols := gate.ColumnsOf(base)
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for range b.N {
				pr := gate.NewPairerColumns(cols, 10)
				if _, err := Score(rb, []Input{{Name: "a.jsonl", R: strings.NewReader(string(data))}}, ScoreOptions{OnItem: func(it *gate.ItemResult) error {
					pr.Add(it)
					return nil
				}}); err != nil {
					b.Fatal(err)
				}
				if p := pr.Result(); p.Common != n {
					b.Fatalf("common %d", p.Common)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n*k), "ns/answer")
		})
	}
}
