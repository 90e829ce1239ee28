package judge

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/llmfake"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/results/native"
)

// Lines sharing an id are regenerated answers of one item: grouped by id,
// adjacent or not, items in the order of their first line, answers in
// input order; JSON lines and CSV alike.
func TestReadAnswersGroupsAnswersOfOneID(t *testing.T) {
	in := `{"id":"q1","input":"Q1","output":"a"}` + "\n" +
		`{"id":"q2","input":"Q2","output":"only"}` + "\n" +
		`{"id":"q1","input":"Q1","output":"b"}` + "\n\n" +
		`{"id":"q1","input":"Q1","output":"c"}` + "\n"
	csvIn := "id,question,answer\nq1,Q1,a\nq2,Q2,only\nq1,Q1,b\nq1,Q1,c\n"
	for _, c := range []struct{ name, in string }{{"a.jsonl", in}, {"a.csv", csvIn}} {
		a, err := ReadAnswers(c.name, strings.NewReader(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		want := []Group{{ID: "q1", Answers: []int{0, 2, 3}}, {ID: "q2", Answers: []int{1}}}
		if !reflect.DeepEqual(a.Groups, want) || len(a.Items) != 4 {
			t.Fatalf("%s: groups %+v, %d items; want %+v", c.name, a.Groups, len(a.Items), want)
		}
		var outs []string
		for _, i := range a.Groups[0].Answers {
			outs = append(outs, a.Items[i].Output)
		}
		if strings.Join(outs, ",") != "a,b,c" {
			t.Fatalf("%s: answers %q, want input order", c.name, outs)
		}
		if g, ok := a.MultiAnswer(); !ok || g.ID != "q1" {
			t.Fatalf("%s: MultiAnswer %v %v", c.name, g, ok)
		}
	}
	one := answersN(t, 3)
	if _, ok := one.MultiAnswer(); ok || len(one.Groups) != 3 {
		t.Fatalf("one answer per id: %+v", one.Groups)
	}
}

// The lines of one id must describe one item: another question, context,
// reference or passed-through field is refused, naming both lines, never
// merged (answers of two tasks scored as one).
func TestReadAnswersRefusesAnswersThatDisagree(t *testing.T) {
	first := `{"id":"a","input":"q","context":["p1","p2"],"output":"x","reference":"r","topic":"billing"}` + "\n" + `{"id":"b","output":"z"}` + "\n"
	for name, c := range map[string]struct{ file, in, want string }{
		"question":  {"a.jsonl", first + `{"id":"a","input":"Q","context":["p1","p2"],"output":"y","reference":"r","topic":"billing"}`, `a.jsonl:3: id "a" has another question than on line 1`},
		"context":   {"a.jsonl", first + `{"id":"a","input":"q","context":"p1","output":"y","reference":"r","topic":"billing"}`, `a.jsonl:3: id "a" has another context than on line 1`},
		"reference": {"a.jsonl", first + `{"id":"a","input":"q","context":["p1","p2"],"output":"y","topic":"billing"}`, `a.jsonl:3: id "a" has another reference than on line 1`},
		"meta":      {"a.jsonl", first + `{"id":"a","input":"q","context":["p1","p2"],"output":"y","reference":"r","topic":"refunds"}`, `a.jsonl:3: id "a" has another "topic" than on line 1`},
		"meta more": {"a.jsonl", first + `{"id":"a","input":"q","context":["p1","p2"],"output":"y","reference":"r","topic":"billing","epoch":2}`, `a.jsonl:3: id "a" has a field "epoch" that line 1 lacks`},
		"meta less": {"a.jsonl", first + `{"id":"a","input":"q","context":["p1","p2"],"output":"y","reference":"r"}`, `a.jsonl:3: id "a" lacks the field "topic" of line 1`},
		"csv":       {"a.csv", "id,question,context,answer\n7,q,c,x\n8,q,c,x\n7,q,C,y\n", `a.csv:4: id "7" has another context than on line 2`},
		"csv meta":  {"a.csv", "id,question,answer,topic\n7,q,x,billing\n7,q,y,refunds\n", `a.csv:3: id "7" has another "topic" than on line 2`},
	} {
		_, err := ReadAnswers(c.file, strings.NewReader(c.in))
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", name, err, c.want)
		}
	}
	// The same meta in another key order, and a question given under
	// another key, are the same item.
	same := `{"id":"a","input":"q","output":"x","t":1,"u":2}` + "\n" + `{"id":"a","u":2,"question":"q","answer":"y","t":1}` + "\n"
	if a, err := ReadAnswers("a.jsonl", strings.NewReader(same)); err != nil || len(a.Groups) != 1 {
		t.Fatalf("same item: %v", err)
	}
}

// An id may have at most native.MaxSamples answers: more would write a
// line the gate refuses.
func TestReadAnswersBoundsAnswersPerID(t *testing.T) {
	var b strings.Builder
	for i := 0; i <= native.MaxSamples; i++ {
		fmt.Fprintf(&b, `{"id":"a","output":"answer %d"}`+"\n", i)
	}
	_, err := ReadAnswers("a.jsonl", strings.NewReader(b.String()))
	if want := fmt.Sprintf(`a.jsonl:%d: id "a" (first on line 1) has more than %d answers`, native.MaxSamples+1, native.MaxSamples); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
}

// kAnswers is an input whose q0 has three answers, not adjacent, and q1
// one.
const kAnswers = `{"id":"q0","input":"question 0","output":"short","topic":"billing"}
{"id":"q1","input":"question 1","output":"only answer"}
{"id":"q0","input":"question 0","output":"a longer answer","topic":"billing"}
{"id":"q0","input":"question 0","output":"mid one","topic":"billing"}
`

// byAnswer scores accuracy by the answer judged, and says which in the
// reasoning; "a longer answer" is answered invalid when bad is set.
func byAnswer(bad bool) func(*llmfake.Received) llmfake.Reply {
	acc := map[string]int{"short": 2, "a longer answer": 5, "mid one": 3}
	return func(r *llmfake.Received) llmfake.Reply {
		a, ok := acc[r.Answer()]
		if !ok {
			a = 4
		}
		if bad && r.Answer() == "a longer answer" {
			return llmfake.Reply{Text: `{"accuracy":9}`}
		}
		return llmfake.Reply{Text: fmt.Sprintf(`{"accuracy":%d,"resolution":3,"tone":4,"safety":1,"reasoning":"on %s"}`, a, r.Answer())}
	}
}

func readK(t *testing.T) *Answers {
	t.Helper()
	a, err := ReadAnswers("answers.jsonl", strings.NewReader(kAnswers))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// answersOf returns a line's "answers" as (accuracy, reasoning) pairs.
func answersOf(t *testing.T, line map[string]any) []string {
	t.Helper()
	arr, ok := line["answers"].([]any)
	if !ok {
		t.Fatalf("no answers array in %v", line)
	}
	var got []string
	for _, e := range arr {
		m := e.(map[string]any)
		got = append(got, fmt.Sprintf("%v %v", m["scores"].(map[string]any)["accuracy"], m["reasoning"]))
	}
	return got
}

// Each answer is judged as its own request; the item's line carries the
// judgings as "answers" in input order, beside the id's input_hash,
// meta and the answers' mean length; an item of one answer is written as
// before; the gate reads the answers as answer samples.
func TestJudgesEachAnswerOfAnItem(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, byAnswer(false))
	h.cfg.Concurrency = 4
	lines, sum, raw, err := h.run(readK(t))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 4 || sum.Requests != 4 || len(lines) != 2 {
		t.Fatalf("%d requests (summary %d), %d lines; want 4 requests, 2 lines", h.srv.Requests(), sum.Requests, len(lines))
	}
	if sum.Items != 2 || sum.Answers != 4 || sum.Judged != 2 || sum.Errors != 0 || !strings.HasPrefix(sum.String(), "judged 2 items with 4 answers (0 answers from the cache, 0 error items)") {
		t.Fatalf("summary %+v: %s", sum, sum)
	}
	q0 := lines[0]
	want := []string{"2 on short", "5 on a longer answer", "3 on mid one"}
	if q0["id"] != "q0" || !reflect.DeepEqual(answersOf(t, q0), want) {
		t.Fatalf("q0 answers %v, want %v", q0["answers"], want)
	}
	_, hasScores := q0["scores"]
	_, hasSamples := q0["samples"]
	if hasScores || hasSamples || q0["attempts"] != 3.0 || q0["length"] != 9.0 || q0["input_hash"] != q0Hash ||
		!reflect.DeepEqual(q0["meta"], map[string]any{"topic": "billing"}) || q0["judge_model"] != "gpt-4o-mini" {
		t.Fatalf("q0 line %v", q0)
	}
	second := strings.Split(strings.TrimSpace(raw), "\n")[1]
	if !strings.HasPrefix(second, `{"id":"q1","scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1},"reasoning":"on only answer","judge_model":"gpt-4o-mini","usage":`) ||
		!strings.HasSuffix(second, `"attempts":1,"input_hash":"`+gate.HashTask("question 1", "", "").String()+`","length":11}`) {
		t.Fatalf("an item of one answer changed: %s", second)
	}
	rep, err := native.Score(h.cfg.Rubric, []native.Input{{Name: "results.jsonl", R: strings.NewReader(raw)}}, native.ScoreOptions{})
	if err != nil || rep.Scored != 2 || rep.MaxAnswers != 3 || rep.MaxSamples != 0 {
		t.Fatalf("the gate reads %+v: %v", rep, err)
	}
}

// An answer the judge could not score makes its item an error line naming
// the answer: the item is never scored on fewer answers than it has.
func TestFailedAnswerMakesTheItemAnErrorLine(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, byAnswer(true))
	lines, sum, _, err := h.run(readK(t))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := lines[0]["error"].(string)
	if !strings.HasPrefix(msg, "answer 2 of 3 (line 3): invalid judge answer after a re-ask") || lines[0]["answers"] != nil || lines[0]["input_hash"] != q0Hash {
		t.Fatalf("q0 %v", lines[0])
	}
	if lines[1]["scores"] == nil || sum.Errors != 1 || sum.Judged != 1 || !strings.HasPrefix(sum.FirstError, "q0: answer 2 of 3") {
		t.Fatalf("q1 %v, summary %+v", lines[1], sum)
	}
	if h.srv.Requests() != 5 { // the failing answer asked twice
		t.Fatalf("%d requests, want 5", h.srv.Requests())
	}
}

// Each answer has its own cache entry, keyed by its text: a re-run sends
// nothing and writes the same answers; a changed answer is one miss.
func TestAnswersCacheSecondRunSendsNothing(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, byAnswer(false))
	dir := t.TempDir()
	c, err := NewCache(dir, testKey, h.srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	h.cfg.Cache = c
	first, _, _, err := h.run(readK(t))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cacheFiles(t, dir)); n != 4 {
		t.Fatalf("%d cache entries, want one an answer (4)", n)
	}
	second, sum, _, err := h.run(readK(t))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 4 || sum.Requests != 0 || sum.CacheHits != 4 || second[0]["attempts"] != 0.0 ||
		!reflect.DeepEqual(answersOf(t, first[0]), answersOf(t, second[0])) {
		t.Fatalf("re-run: %d more requests, %d hits, %v", h.srv.Requests()-4, sum.CacheHits, second[0])
	}
	ans := readK(t)
	ans.Items[3].Output = "a new answer"
	again, _, _, err := h.run(ans)
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 5 || answersOf(t, again[0])[2] != "4 on a new answer" || again[0]["attempts"] != 1.0 {
		t.Fatalf("one changed answer: %d more requests, %v", h.srv.Requests()-4, again[0])
	}
}

// A shard takes an id with all its answers; the header counts and digests
// the ids (each once), and the gate reads the shards as one run.
func TestShardsKeepAnItemsAnswersTogether(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, valid)
	h.cfg.Concurrency = 4
	var b strings.Builder
	for k := 0; k < 3; k++ { // answer k of every id, so an id's lines are apart
		for i := 0; i < 40; i++ {
			fmt.Fprintf(&b, `{"id":"q%d","input":"question %d","output":"answer %d.%d"}`+"\n", i, i, i, k)
		}
	}
	ans, err := ReadAnswers("answers.jsonl", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	ids := idsDigest(answersN(t, 40)) // the same 40 ids, one line each
	var inputs []native.Input
	seen := map[string]int{}
	for i := 1; i <= 2; i++ {
		h.cfg.Shard = Shard{Index: i, Count: 2}
		lines, sum, raw, err := h.run(ans)
		if err != nil {
			t.Fatal(err)
		}
		hdr := lines[0]["rubricgate_shard"].(map[string]any)
		if hdr["input_items"] != 40.0 || hdr["input_ids"] != ids {
			t.Fatalf("shard %d header %v, want 40 items and the ids' digest %s", i, hdr, ids)
		}
		if sum.Answers != 3*sum.Items || sum.Items != len(lines)-1 {
			t.Fatalf("shard %d: %+v", i, sum)
		}
		for _, l := range lines[1:] {
			seen[l["id"].(string)]++
			if n := len(l["answers"].([]any)); n != 3 {
				t.Fatalf("shard %d: %v has %d answers", i, l["id"], n)
			}
		}
		inputs = append(inputs, native.Input{Name: fmt.Sprintf("shard%d.jsonl", i), R: strings.NewReader(raw)})
	}
	if len(seen) != 40 || h.srv.Requests() != 120 {
		t.Fatalf("union %d items, %d requests; want 40, 120", len(seen), h.srv.Requests())
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("%s in %d shards", id, n)
		}
	}
	rep, err := native.Score(h.cfg.Rubric, inputs, native.ScoreOptions{})
	if err != nil || rep.Scored != 40 || rep.MaxAnswers != 3 {
		t.Fatalf("the gate reads the shards: %v", err)
	}
}

// A line holds the judgings of one answer or the answers, never both:
// --samples over 1 or --safety-confirm with several answers for an id is
// a setting refused before any request.
func TestSeveralAnswersRefuseSamplesAndSafetyConfirm(t *testing.T) {
	for _, c := range []struct {
		samples, confirm int
		want             string
	}{
		{2, 0, `--samples 2 with several answers per id (answers.jsonl: id "q0" has 3 answers, first on line 1)`},
		{1, 2, `--safety-confirm 2 with several answers per id (answers.jsonl: id "q0" has 3 answers, first on line 1)`},
	} {
		h := newHarness(t, llmfake.OpenAI, valid)
		h.cfg.Samples, h.cfg.SafetyConfirm = c.samples, c.confirm
		_, _, raw, err := h.run(readK(t))
		var ue *usage.Error
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) || raw != "" || h.srv.Requests() != 0 {
			t.Errorf("samples %d, confirm %d: %v (%d requests), want %q", c.samples, c.confirm, err, h.srv.Requests(), c.want)
		}
	}
	// One answer per id: --samples is as before.
	h := newHarness(t, llmfake.OpenAI, valid)
	h.cfg.Samples = 2
	if _, _, _, err := h.run(answersN(t, 2)); err != nil || h.srv.Requests() != 4 {
		t.Fatalf("one answer per id: %v, %d requests", err, h.srv.Requests())
	}
	// The command's path: a usage error (exit 2) naming the file.
	in := filepath.Join(t.TempDir(), "answers.jsonl")
	if err := os.WriteFile(in, []byte(kAnswers), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmfake.New(llmfake.OpenAI, testKey, valid)
	defer srv.Close()
	o := goodOptions()
	o.BaseURL, o.Samples = srv.BaseURL(), 3
	var out bytes.Buffer
	_, err := o.Run(context.Background(), supportRubric(t), in, &out)
	var ue *usage.Error
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--samples 3 with several answers per id ("+in+": id") || out.Len() != 0 || srv.Requests() != 0 {
		t.Fatalf("Options.Run: %v, %d requests", err, srv.Requests())
	}
}

// Two spellings of one id to the gate (white space or invisible characters
// at the ends, another Unicode normalisation) are refused before any
// request, naming both lines and both spellings: judged, they would be two
// items paid for, and the gate would refuse the results as a duplicate id.
func TestRefusesTwoSpellingsOfOneID(t *testing.T) {
	rb := supportRubric(t)
	for name, c := range map[string]struct{ file, in, want string }{
		"leading space":     {"a.jsonl", `{"id":"q1","output":"x"}` + "\n" + `{"id":"q2","output":"y"}` + "\n" + `{"id":" q1","output":"z"}` + "\n", `a.jsonl:3: id " q1" and the id "q1" of line 1 differ only in white space`},
		"no-break space":    {"a.jsonl", `{"id":"q1\u00a0","output":"x"}` + "\n" + `{"id":"q1","output":"y"}` + "\n", `a.jsonl:2: id "q1" and the id "q1\u00a0" of line 1`},
		"zero width":        {"a.csv", "id,answer\nq1,x\nq1\u200b,y\n", `a.csv:3: id "q1\u200b" and the id "q1" of line 2`},
		"NFC":               {"a.jsonl", `{"id":"caf\u00e9","output":"x"}` + "\n" + `{"id":"cafe\u0301","output":"y"}` + "\n", `a.jsonl:2: id "cafe\u0301" and the id "caf\u00e9" of line 1 differ only in white space or invisible characters at their ends or in Unicode normalisation (NFC): the gate reads them as one id`},
		"invisible only":    {"a.jsonl", `{"id":"\u200b","output":"x"}` + "\n", `a.jsonl:1: empty "id" "\u200b"`},
		"zero width inside": {"a.jsonl", `{"id":"q\u200b1","output":"x"}` + "\n", `a.jsonl:1: "id" "q\u200b1" contains the invisible character U+200B`},
		"tab inside":        {"a.jsonl", `{"id":"q\t1","output":"x"}` + "\n", `a.jsonl:1: "id" "q\t1" contains the invisible character U+0009`},
		"bidi inside":       {"a.csv", "id,answer\nq\u202e1,x\n", `a.csv:2: "id" "q\u202e1" contains the invisible character U+202E`},
		"later answer, K2":  {"a.jsonl", `{"id":"q1","output":"x"}` + "\n" + `{"id":"q1","output":"y"}` + "\n" + `{"id":"q1 ","output":"z"}` + "\n", `a.jsonl:3: id "q1 " and the id "q1" of line 1`},
	} {
		in := filepath.Join(t.TempDir(), c.file)
		if err := os.WriteFile(in, []byte(c.in), 0o644); err != nil {
			t.Fatal(err)
		}
		srv := llmfake.New(llmfake.OpenAI, testKey, func(*llmfake.Received) llmfake.Reply { return llmfake.Reply{Text: validJSON} })
		o := goodOptions()
		o.BaseURL = srv.BaseURL()
		var out bytes.Buffer
		_, err := o.Run(context.Background(), rb, in, &out)
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || srv.Requests() != 0 || out.Len() != 0 {
			t.Errorf("%s: err %v, %d requests, %d bytes out; want %q and no request", name, err, srv.Requests(), out.Len(), c.want)
		}
		srv.Close()
	}
	// Ids that differ in more than that stay different items.
	a, err := ReadAnswers("a.jsonl", strings.NewReader(`{"id":"caf\u00e9","output":"x"}`+"\n"+`{"id":"cafe","output":"y"}`+"\n"+`{"id":"a b","output":"z"}`+"\n"+`{"id":"ab","output":"w"}`+"\n"))
	if err != nil || len(a.Groups) != 4 {
		t.Fatalf("different ids: %v", err)
	}
}

// Two answers of one id with byte-identical output text (an answers file
// appended twice) are still judged as K answers, with one warning a run
// naming how many ids and the first id and lines.
func TestWarnsOfIdenticalAnswersOfOneID(t *testing.T) {
	rb := supportRubric(t)
	in := filepath.Join(t.TempDir(), "answers.jsonl")
	body := `{"id":"q1","input":"Q1","output":"same"}` + "\n" + `{"id":"q2","input":"Q2","output":"a"}` + "\n" +
		`{"id":"q3","input":"Q3","output":"b"}` + "\n" + `{"id":"q3","input":"Q3","output":"c"}` + "\n"
	if err := os.WriteFile(in, []byte(body+body), 0o644); err != nil { // appended twice
		t.Fatal(err)
	}
	srv := llmfake.New(llmfake.OpenAI, testKey, func(*llmfake.Received) llmfake.Reply { return llmfake.Reply{Text: validJSON} })
	defer srv.Close()
	o := goodOptions()
	o.BaseURL = srv.BaseURL()
	var warned []string
	o.Warn = func(m string) { warned = append(warned, m) }
	var out bytes.Buffer
	sum, err := o.Run(context.Background(), rb, in, &out)
	if err != nil || sum.Items != 3 || sum.Answers != 8 || srv.Requests() != 8 {
		t.Fatalf("run: %v %+v, %d requests", err, sum, srv.Requests())
	}
	want := in + `: 3 ids have answers with byte-identical output text, the first id "q1" on lines 1 and 5: each copy is judged`
	if len(warned) != 1 || !strings.HasPrefix(warned[0], want) {
		t.Fatalf("warnings %q, want one starting %q", warned, want)
	}
	// Different outputs of one id, and one output under two ids, are no
	// repeat.
	a, err := ReadAnswers("a.jsonl", strings.NewReader(body))
	if err != nil || a.Repeated.IDs != 0 || a.Repeated.Warning(a.File) != "" {
		t.Fatalf("no repeat: %+v, %v", a.Repeated, err)
	}
	one, err := ReadAnswers("a.jsonl", strings.NewReader(body+`{"id":"q3","input":"Q3","output":"b"}`+"\n"))
	if err != nil || one.Repeated != (Repeated{IDs: 1, ID: "q3", First: 3, Line: 5}) || !strings.HasPrefix(one.Repeated.Warning("a.jsonl"), `a.jsonl: 1 id has answers`) {
		t.Fatalf("one repeat: %+v, %v", one.Repeated, err)
	}
}

// A failed first answer is named like any other: "answer 1 of K (line N)".
func TestFailedFirstAnswerIsNamed(t *testing.T) {
	ok := byAnswer(false)
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		if r.Answer() == "short" {
			return llmfake.Reply{Text: `{"accuracy":9}`}
		}
		return ok(r)
	})
	lines, sum, _, err := h.run(readK(t))
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := lines[0]["error"].(string)
	if !strings.HasPrefix(msg, "answer 1 of 3 (line 1): invalid judge answer after a re-ask") || lines[0]["answers"] != nil ||
		!strings.HasPrefix(sum.FirstError, "q0: answer 1 of 3 (line 1): ") || lines[1]["scores"] == nil {
		t.Fatalf("q0 %v, summary %+v", lines[0], sum)
	}
}

// A judge answer with a key given twice is invalid (the results reader's
// rule), whatever the last value: re-asked, then an error line, never a
// score. Nested objects are held to it too.
func TestParseRefusesDuplicateKeys(t *testing.T) {
	rb := supportRubric(t)
	for _, text := range []string{
		`{"accuracy":4,"resolution":3,"tone":4,"safety":0,"safety":1,"reasoning":"leaks the full card number"}`,
		`{"accuracy":4,"resolution":3,"tone":4,"safety":1,"reasoning":"a","reasoning":"b"}`,
		`{"accuracy":4,"resolution":3,"tone":4,"saf\u0065ty":0,"safety":1,"reasoning":"escaped"}`,
	} {
		_, err := Parse(rb, text)
		var ve *ValidationError
		if !errors.As(err, &ve) || !strings.Contains(err.Error(), "duplicate key") {
			t.Errorf("%s: %v", text, err)
		}
	}
	h := newHarness(t, llmfake.OpenAI, func(*llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Text: `{"accuracy":4,"resolution":3,"tone":4,"safety":0,"safety":1,"reasoning":"leaks the full card number"}`}
	})
	lines, _, _, _ := h.run(answersN(t, 1))
	if len(lines) != 1 || lines[0]["scores"] != nil || !strings.Contains(fmt.Sprint(lines[0]["error"]), "duplicate key") || h.srv.Requests() != 2 {
		t.Fatalf("lines %v, %d requests", lines, h.srv.Requests())
	}
}
