package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

func TestScoreTable(t *testing.T) {
	table := ScoreTable(Options{Now: now})
	for _, name := range []Format{"json", "markdown", "junit", "text"} {
		if table[name] == nil {
			t.Fatalf("no %s renderer", name)
		}
	}
	blocked := report()
	blocked.BlockingFailures = []gate.BlockingFailure{{Item: "card-number", Criterion: "safety"}}
	var b bytes.Buffer
	if err := table[FormatJUnit](&b, blocked); err != nil {
		t.Fatal(err)
	}
	// The decision case fails for a run that fails a hard gate on its own,
	// and the suite is named after the rubric.
	if !strings.Contains(b.String(), `name="rubricgate: support-answers"`) || !strings.Contains(b.String(), "<failure") {
		t.Errorf("junit of a blocked run:\n%s", b.String())
	}
	b.Reset()
	if err := table[FormatJUnit](&b, report()); err != nil || strings.Contains(b.String(), "<failure") {
		t.Errorf("junit of a passing run: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := table[FormatJSON](&b, report()); err != nil || !strings.Contains(b.String(), `"items": 12`) || strings.Contains(b.String(), `"decision"`) {
		t.Errorf("json is the score report itself: %v\n%s", err, b.String())
	}
}

func TestItemWriter(t *testing.T) {
	var b bytes.Buffer
	iw := NewItemWriter(&b)
	for _, it := range []*gate.ItemResult{
		{ID: "a", Score: 75, Pass: true},
		{ID: "b", Unscored: true, Failed: []string{"safety"}},
		{ID: "c", Score: 62.5, Pass: true, Answers: 3, AnswerVar: 156.25},
	} {
		if err := iw.Write(it); err != nil {
			t.Fatal(err)
		}
	}
	if b.Len() != 0 {
		t.Fatal("written before Flush")
	}
	if err := iw.Flush(); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"a","score":75,"pass":true,"failed":[],"na":[]}` + "\n" +
		`{"id":"b","score":null,"pass":false,"failed":["safety"],"na":[]}` + "\n" +
		`{"id":"c","score":62.5,"pass":true,"failed":[],"na":[],"answers":3,"answer_var":156.25}` + "\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
