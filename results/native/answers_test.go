package native

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// scoreAnswers scores text (one JSONL input) under rb, returning the report
// and every item's result.
func scoreAnswers(t *testing.T, text string) (*gate.Report, []gate.ItemResult, error) {
	t.Helper()
	var items []gate.ItemResult
	rep, err := Score(supportRubric(), []Input{{Name: "a.jsonl", R: strings.NewReader(text)}}, ScoreOptions{Workers: 1, OnItem: func(it *gate.ItemResult) error {
		items = append(items, *it)
		return nil
	}})
	return rep, items, err
}

// An item with "answers" scores as the mean of its answers; the variance
// of the answers' own scores is kept; judge samples stay judge samples.
func TestAnswersScoreAsTheirMean(t *testing.T) {
	// Support rubric weights 3,2,1,1 over 1-5,1-5,1-5,0-1: answer 1 is
	// 5,5,5,1 (100), answer 2 is 1,1,1,1 (100·1/7 = 14.29).
	rep, items, err := scoreAnswers(t, `{"id":"a","answers":[{"scores":{"accuracy":5,"resolution":5,"tone":5,"safety":1}},{"scores":{"accuracy":1,"resolution":1,"tone":1,"safety":1}}]}
{"id":"b","samples":[{"scores":{"accuracy":5,"resolution":5,"tone":5,"safety":1}},{"scores":{"accuracy":1,"resolution":1,"tone":1,"safety":1}}]}
{"id":"c","accuracy":5,"resolution":5,"tone":5,"safety":1}
`)
	if err != nil {
		t.Fatal(err)
	}
	s1, s2 := 100.0, 100.0/7
	mean := (s1 + s2) / 2
	v := ((s1-mean)*(s1-mean) + (s2-mean)*(s2-mean)) / 1
	a, b, c := items[0], items[1], items[2]
	if math.Abs(a.Score-mean) > 1e-9 || a.Answers != 2 || math.Abs(a.AnswerVar-v) > 1e-9 {
		t.Errorf("answers item: %+v, want score %v, 2 answers, variance %v", a, mean, v)
	}
	if math.Abs(b.Score-mean) > 1e-9 || b.Answers != 0 || b.AnswerVar != 0 {
		t.Errorf("judge-samples item: %+v (judgings of one answer are not answer samples)", b)
	}
	if c.Answers != 0 {
		t.Errorf("plain item: %+v", c)
	}
	if rep.MaxAnswers != 2 || rep.MaxSamples != 2 {
		t.Errorf("max answers %d, max samples %d; want 2 and 2", rep.MaxAnswers, rep.MaxSamples)
	}
}

// One failing answer fails a blocking gate: unlike judge samples, answers
// are not outvoted (each is an answer a user may get).
func TestAnswersGateOnAnyAnswer(t *testing.T) {
	ok := `{"scores":{"accuracy":5,"resolution":5,"tone":5,"safety":1}}`
	bad := `{"scores":{"accuracy":5,"resolution":5,"tone":5,"safety":0}}`
	rep, _, err := scoreAnswers(t, `{"id":"a","answers":[`+ok+`,`+ok+`,`+bad+`]}
{"id":"b","samples":[`+ok+`,`+ok+`,`+bad+`]}
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.BlockingFailures) != 1 || rep.BlockingFailures[0].Item != "a" {
		t.Errorf("blocking failures %+v: want item a only (b's failing judging is outvoted)", rep.BlockingFailures)
	}
}

func TestAnswersBadInput(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"id":"a","answers":[]}`, `"answers" is empty`},
		{`{"id":"a","answers":[1]}`, `answers[0] must be an object`},
		{`{"id":"a","answers":{}}`, `"answers" must be an array of answers`},
		{`{"id":"a","answers":[{"scores":{"accuracy":5,"resolution":5,"tone":5,"safety":1}}],"samples":[{"scores":{"accuracy":5}}]}`, `both "samples" (judgings of one answer) and "answers"`},
		{`{"id":"a","answers":[{"scores":{"accuracy":5,"resolution":5,"tone":5,"safety":1}},{"scores":{"accuracy":5,"resolution":5,"safety":1}}]}`, `answers[1]: missing a score for criterion "tone" (every answer scores the same criteria)`},
		{`{"id":"a","accuracy":5,"answers":[{"scores":{"accuracy":5,"resolution":5,"tone":5,"safety":1}}]}`, `both "answers" and scores`},
	} {
		_, _, err := scoreAnswers(t, tc.line+"\n")
		wantInputError(t, err, "a.jsonl", 1, tc.want)
	}
}

// The paired interval is over the items' mean scores, so the answers'
// noise is in it: with K answers per item in both runs it shrinks as
// 1/sqrt(K) when answer noise is all of the spread (an unchanged model
// whose answers are regenerated), while judging the same answer K times
// (judge samples) leaves the answer noise in.
func TestIntervalShrinksWithAnswers(t *testing.T) {
	const n = 400
	rng := rand.New(rand.NewPCG(3, 4))
	diff := make([]float64, n)
	for i := range diff {
		diff[i] = 2.5 + 1.2*rng.NormFloat64()
	}
	level := func(x float64) int { return int(min(5, max(1, math.Round(x)))) }
	// run writes n items, each with k answers; an answer's quality is the
	// item's difficulty plus answer noise (sd 0.8), judged without noise.
	run := func(k int, key string, regen bool) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `{"id":"q%d","%s":[`, i, key)
			e := 0.8 * rng.NormFloat64()
			for j := range k {
				if regen {
					e = 0.8 * rng.NormFloat64()
				}
				if j > 0 {
					b.WriteString(",")
				}
				l := level(diff[i] + e)
				fmt.Fprintf(&b, `{"scores":{"accuracy":%d,"resolution":%d,"tone":%d,"safety":1}}`, l, l, l)
			}
			b.WriteString("]}\n")
		}
		return b.String()
	}
	half := func(k int, key string, regen bool) (float64, *gate.Paired) {
		_, baseItems, err := scoreAnswers(t, run(k, key, regen))
		if err != nil {
			t.Fatal(err)
		}
		var bs []gate.ItemScore
		for _, it := range baseItems {
			bs = append(bs, gate.ItemScore{ID: it.ID, Score: it.Score, Answers: it.Answers, AnswerVar: it.AnswerVar})
		}
		pr := gate.NewPairer(bs, 0)
		_, curItems, err := scoreAnswers(t, run(k, key, regen))
		if err != nil {
			t.Fatal(err)
		}
		for i := range curItems {
			pr.Add(&curItems[i])
		}
		p := pr.Result()
		return (p.CI95[1] - p.CI95[0]) / 2, p
	}
	h1, _ := half(1, "answers", true)
	h4, p4 := half(4, "answers", true)
	if r := h4 / h1; r < 0.4 || r > 0.6 {
		t.Errorf("4 answers per item: half-width %.4f vs %.4f with 1, ratio %.2f, want about 1/sqrt(4) = 0.5", h4, h1, r)
	}
	if p4.Answers != 4 || p4.BaselineAnswers != 4 || p4.AnswerVarItems == 0 || p4.BaselineAnswerVarItems == 0 {
		t.Errorf("paired answers %+v", p4)
	}
	// The measured answer noise accounts for the interval: the resolution
	// finds answer noise to be (nearly) all of the spread.
	r := gate.NewResolution(p4, *p4.CommonBaseline, h4, gate.DefaultThresholds)
	if !r.Measured || r.AnswerNoise < 0.8 {
		t.Errorf("resolution %+v: answer noise should explain the spread", r)
	}
	// Judging one answer 4 times: same answer noise, no shrinking.
	hj, _ := half(4, "samples", false)
	if r := hj / h1; r < 0.85 {
		t.Errorf("4 judgings of one answer: half-width ratio %.2f, want about 1 (the judge here has no noise to average)", r)
	}
}

// A tool's records whose samples are answer samples (Inspect epochs) score
// as "answers" do: the answers counted and their variance kept, and any
// failing answer fails the gate; the same samples as judgings are decided
// by majority.
func TestRecordAnswers(t *testing.T) {
	rb := supportRubric()
	ok := Sample{Metrics: metrics("accuracy", 5.0, "resolution", 5.0, "tone", 5.0, "safety", 1.0)}
	bad := Sample{Metrics: metrics("accuracy", 1.0, "resolution", 1.0, "tone", 1.0, "safety", 0.0)}
	src := &recs{format: "inspect", list: []Record{
		{ID: "epochs", Line: 1, Samples: []Sample{ok, ok, bad}, Answers: true},
		{ID: "judgings", Line: 2, Samples: []Sample{ok, ok, bad}},
	}}
	var got []gate.ItemResult
	rep, err := Score(rb, []Input{{Name: "l.json", Records: src}}, ScoreOptions{OnItem: func(r *gate.ItemResult) error { got = append(got, *r); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Answers != 3 || !(got[0].AnswerVar > 0) || got[1].Answers != 0 || rep.MaxAnswers != 3 {
		t.Errorf("items %+v, max answers %d", got, rep.MaxAnswers)
	}
	if len(rep.BlockingFailures) != 1 || rep.BlockingFailures[0].Item != "epochs" {
		t.Errorf("blocking %+v: want the epochs item only", rep.BlockingFailures)
	}
}
