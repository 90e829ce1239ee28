package baseline

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// answerItems are testItems with answer samples on two of them.
func answerItems() []gate.ItemScore {
	items := append([]gate.ItemScore(nil), testItems...)
	items[0].Answers, items[0].AnswerVar = 4, 120.5
	items[2].Answers, items[2].AnswerVar = 3, 0
	return items
}

// A baseline of items with answer samples keeps, per item, the answers
// and the variance of their scores, read back by both readers (the fast
// one and encoding/json's, for a file a tool reformatted); a file without
// them (every baseline before) reads as one answer per item.
func TestBaselineKeepsAnswers(t *testing.T) {
	rb := testRubric("answers")
	items := answerItems()
	f, err := New(rb, reportOf(rb, items), items, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	data := encode(t, f)
	if !bytes.Contains(data, []byte(`"answers": [4,1,3]`)) || !bytes.Contains(data, []byte(`"answer_vars": [120.5,0,0]`)) {
		t.Fatalf("columns not written:\n%s", data)
	}
	// The same file with the items object reformatted (a key order the fast
	// reader takes, then one with a field it does not know, which goes
	// through encoding/json).
	slow := bytes.Replace(data, []byte(`"count":`), []byte(`"note": "x", "count":`), 1)
	for name, d := range map[string][]byte{"fast": data, "slow": slow} {
		g, err := Read(bytes.NewReader(d), "b.json", 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := g.Items.Items()
		for i := range items {
			if got[i] != items[i] && !(items[i].Answers == 0 && got[i].Answers == 1 && got[i].Score == items[i].Score) {
				t.Errorf("%s: item %d %+v, want %+v", name, i, got[i], items[i])
			}
		}
	}
	// One answer everywhere: no columns, as before.
	plain := encode(t, testFile(t, "answers"))
	if bytes.Contains(plain, []byte(`"answers": [`)) {
		t.Errorf("columns written without answer samples")
	}
	g, err := Read(bytes.NewReader(plain), "b.json", 0)
	if err != nil || g.Items.HasAnswers() || g.Items.Answers(0) != 1 {
		t.Fatalf("old baseline: %v", err)
	}
}

// The answer columns are checked like the other stored figures: a variance
// the item's own score rules out, a count that is no count, a column alone
// or of the wrong length is refused, naming the field.
func TestBaselineAnswersRefused(t *testing.T) {
	rb := testRubric("answers")
	items := answerItems()
	f, err := New(rb, reportOf(rb, items), items, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	data := string(encode(t, f))
	for _, tc := range []struct{ from, to, want string }{
		// Item 0 scores 83.3 over 4 answers: variance at most 4/3·83.3·16.7 = 1852.
		{`"answer_vars": [120.5,`, `"answer_vars": [1900,`, `"items.answer_vars[0]" is 1900 but 4 answers averaging 83.33`},
		{`"answer_vars": [120.5,0,0]`, `"answer_vars": [120.5,5,0]`, `"items.answer_vars[1]" is 5 but 1 answers`},
		{`"answer_vars": [120.5,`, `"answer_vars": [-1,`, `"items.answer_vars[0]" is -1`},
		{`"answers": [4,`, `"answers": [2.5,`, `"items.answers[0]": 2.5 is not a whole number`},
		{`"answers": [4,`, `"answers": [0,`, `"items.answers[0]": 0 is not a whole number`},
		{`"answers": [4,1,3]`, `"answers": [4,1]`, `3 ids but 2 answers and 3 answer_vars`},
		{`,
    "answer_vars": [120.5,0,0]`, ``, `"items.answers" without "items.answer_vars"`},
		{`"answers": [4,1,3]`, `"answers": [4,"x",3]`, `field "items.answers[1]": expected a number`},
	} {
		d := strings.Replace(data, tc.from, tc.to, 1)
		if d == data {
			t.Fatalf("test edit %q not applied", tc.from)
		}
		_, err := Read(strings.NewReader(d), "b.json", 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("edit %q: error %v, want %q", tc.to, err, tc.want)
		}
	}
}

// With answer samples a criterion's histogram bins the items' means of
// their answers, so its mean need not be the histogram's: such a baseline
// is written and read back; the same figures without answer samples are
// refused as before.
func TestBaselineAnswersBinnedMeans(t *testing.T) {
	rb := testRubric("answers")
	items := answerItems()
	rep := reportOf(rb, items)
	// Faithfulness 3, 4 and 5 binned; the means were 3.5, 3.5 and 3.5.
	rep.Criteria[0].Mean, rep.Criteria[0].Normalized = ptr(3.5), ptr(62.5)
	f, err := New(rb, rep, items, testMeta)
	if err != nil {
		t.Fatalf("New with answer samples: %v", err)
	}
	if _, err := Read(bytes.NewReader(encode(t, f)), "b.json", 0); err != nil {
		t.Fatalf("Read with answer samples: %v", err)
	}
	_, err = New(rb, rep, testItems, testMeta)
	if err == nil || !strings.Contains(err.Error(), `field "criteria[0]": mean is not the histogram's mean 4`) {
		t.Fatalf("without answer samples: %v", err)
	}
}
