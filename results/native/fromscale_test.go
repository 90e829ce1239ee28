package native

import (
	"github.com/rubricgate/rubricgate/gate"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/rubric"
)

const fromScaleRubric = `name: rag
criteria:
  - id: relevance
    scale: [0, 1]
    continuous: true
    from:
      deepeval: Answer Relevancy
  - id: faithfulness
    scale: [1, 5]
    continuous: true
    critical: 3
    blocking: true
    from:
      deepeval: {metric: Faithfulness, scale: [0, 1]}
`

// Scoring and CheckBlocking under the same rubric agree on a criterion
// read from a tool's metric on its own scale: CheckBlocking widens the
// scale to read any value, but maps a source value with the real one
// (h11 F4: every item failed after any rubric change).
func TestCheckBlockingFromSourceScale(t *testing.T) {
	rb, _, err := rubric.Load("v1.yaml", []byte(fromScaleRubric))
	if err != nil {
		t.Fatal(err)
	}
	run := func(faith ...float64) []Input {
		r := &recs{format: "deepeval"}
		for i, f := range faith {
			r.list = append(r.list, Record{ID: string(rune('a' + i)), Samples: []Sample{{Metrics: metrics("Answer Relevancy", 0.9, "Faithfulness", f)}}})
		}
		return []Input{{Name: "run.json", Records: r}}
	}
	for _, tc := range []struct {
		faith []float64
		fail  []string
	}{
		{[]float64{1.0, 0.95, 0.9}, nil},
		// 0.4 on 0-1 is 2.6 on 1-5, below the minimum 3; 0.5 is 3.
		{[]float64{1.0, 0.4, 0.5}, []string{"b"}},
	} {
		rep, err := Score(rb, run(tc.faith...), ScoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		gc, err := CheckBlocking(rb, run(tc.faith...))
		if err != nil {
			t.Fatal(err)
		}
		var scored, checked []string
		for _, f := range rep.BlockingFailures {
			scored = append(scored, f.Item)
		}
		for _, f := range gc.Failures {
			checked = append(checked, f.Item)
		}
		if len(scored) != len(tc.fail) || len(checked) != len(tc.fail) || (len(tc.fail) > 0 && (scored[0] != tc.fail[0] || checked[0] != tc.fail[0])) {
			t.Errorf("faithfulness %v: scoring fails %v, CheckBlocking fails %v, want %v", tc.faith, scored, checked, tc.fail)
		}
	}
}

// Scoring and CheckBlocking under the same rubric fail the same items, over
// the shapes a results line takes: one judging, samples (majority met, tie,
// majority failing), judge errors with values at the top or in samples.
func TestCheckBlockingAgreesWithScoring(t *testing.T) {
	text := strings.Join([]string{
		`{"id":"one-ok","scores":{"accuracy":4,"resolution":4,"tone":4,"safety":1}}`,
		`{"id":"one-fail","scores":{"accuracy":4,"resolution":4,"tone":4,"safety":0}}`,
		`{"id":"maj-ok","samples":[{"scores":{"accuracy":4,"resolution":4,"tone":4,"safety":0}},{"scores":{"accuracy":4,"resolution":4,"tone":4,"safety":1}},{"scores":{"accuracy":4,"resolution":4,"tone":4,"safety":1}}]}`,
		`{"id":"tie","samples":[{"scores":{"accuracy":4,"resolution":4,"tone":4,"safety":0}},{"scores":{"accuracy":4,"resolution":4,"tone":4,"safety":1}}]}`,
		`{"id":"maj-fail","samples":[{"scores":{"accuracy":4,"resolution":4,"tone":4,"safety":0}},{"scores":{"accuracy":4,"resolution":4,"tone":4,"safety":0}},{"scores":{"accuracy":4,"resolution":4,"tone":4,"safety":1}}]}`,
		`{"id":"err-top","error":"x","scores":{"safety":0}}`,
		`{"id":"err-samples","error":"x","samples":[{"scores":{"safety":1}},{"scores":{"safety":0}}]}`,
		`{"id":"err-ok","error":"x","samples":[{"scores":{"safety":1}}]}`,
		`{"id":"err-null","error":"x","scores":{"safety":null}}`,
	}, "\n") + "\n"
	in := func() []Input { return []Input{{Name: "r.jsonl", R: strings.NewReader(text)}} }
	rep, err := Score(supportRubric(), in(), ScoreOptions{MaxUnscored: 1})
	if err != nil {
		t.Fatal(err)
	}
	gc, err := CheckBlocking(supportRubric(), in())
	if err != nil {
		t.Fatal(err)
	}
	ids := func(fs []gate.BlockingFailure) string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Item)
		}
		return strings.Join(out, ",")
	}
	// err-null carries no value for the gate: it fails closed (issue 15 §6).
	want := "one-fail,tie,maj-fail,err-top,err-samples,err-null"
	if got := ids(rep.BlockingFailures); got != want {
		t.Errorf("scoring fails %s, want %s", got, want)
	}
	if got := ids(gc.Failures); got != want {
		t.Errorf("CheckBlocking fails %s, want %s", got, want)
	}
}
