package native

import (
	"encoding/json"
	"errors"
	"github.com/rubricgate/rubricgate/gate"
	"strconv"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/rubric"
)

func TestReadJSONLForms(t *testing.T) {
	rb := supportRubric()
	tests := []struct {
		name  string
		line  string
		opts  ReadOptions
		want  []gate.Value
		id    string
		check func(t *testing.T, it Item)
	}{
		{name: "scores object", line: `{"id": "q-17", "scores": {"accuracy": 4, "resolution": 3, "tone": 4, "safety": 1}, "reasoning": "ok", "judge_model": "gpt-4o"}`,
			id: "q-17", want: []gate.Value{sv(4), sv(3), sv(4), sv(1)},
			check: func(t *testing.T, it Item) {
				if it.Reasoning != "ok" || it.JudgeModel != "gpt-4o" || it.Length != -1 || it.Pass != nil {
					t.Errorf("fields: %+v", it)
				}
			}},
		{name: "top-level form, alias, case", line: `{"id":"q1","Policy_Accuracy":4,"RESOLUTION":3,"tone":4,"safety":1,"reasoning":"r"}`,
			id: "q1", want: []gate.Value{sv(4), sv(3), sv(4), sv(1)}},
		{name: "number id kept as literal", line: `{"id": 1.50, "scores": {"accuracy": 4.0, "resolution": "3", "tone": " 4 ", "safety": 1e0}}`,
			id: "1.50", want: []gate.Value{sv(4), sv(3), sv(4), sv(1)}},
		{name: "escaped id and answer length in runes", line: `{"id": "q\u00e9\"x", "scores": {"accuracy": 1, "resolution": 1, "tone": 1, "safety": 0}, "answer": "h\u00e9llo ✓", "pass": "no", "retrieval_miss": true}`,
			id: "qé\"x", want: []gate.Value{sv(1), sv(1), sv(1), sv(0)},
			check: func(t *testing.T, it Item) {
				if it.Length != 7 || it.Pass == nil || *it.Pass || !it.RetrievalMiss {
					t.Errorf("length %d pass %v miss %v", it.Length, it.Pass, it.RetrievalMiss)
				}
			}},
		{name: "length field wins", line: `{"id": "a", "scores": {"accuracy": 1, "resolution": 1, "tone": 1, "safety": 0}, "output": "abc", "length": 12}`,
			id: "a", want: []gate.Value{sv(1), sv(1), sv(1), sv(0)},
			check: func(t *testing.T, it Item) {
				if it.Length != 12 {
					t.Errorf("length %d, want 12", it.Length)
				}
			}},
		{name: "judge error needs no scores", line: `{"id": "e1", "error": "timeout", "accuracy": "garbage"}`,
			id: "e1", want: []gate.Value{{}, {}, {}, {}},
			check: func(t *testing.T, it Item) {
				if it.Error != "timeout" {
					t.Errorf("error %q", it.Error)
				}
			}},
		{name: "null error is no error", line: `{"id": "n", "error": null, "scores": {"accuracy": 5, "resolution": 5, "tone": 5, "safety": 1}}`,
			id: "n", want: []gate.Value{sv(5), sv(5), sv(5), sv(1)}},
		{name: "allow missing", opts: ReadOptions{AllowMissing: true}, line: `{"id": "m", "scores": {"accuracy": 5}}`,
			id: "m", want: []gate.Value{sv(5), {}, {}, {}}},
		{name: "ignore unknown", opts: ReadOptions{IgnoreUnknown: true}, line: `{"id": "u", "scores": {"accuracy": 5, "resolution": 5, "tone": 5, "safety": 1, "old": 3}}`,
			id: "u", want: []gate.Value{sv(5), sv(5), sv(5), sv(1)}},
		{name: "meta kept", opts: ReadOptions{KeepMeta: true}, line: `{"id": "k", "accuracy": 5, "resolution": 5, "tone": 5, "safety": 1, "model": {"name": "x", "v": [1, 2]}}`,
			id: "k", want: []gate.Value{sv(5), sv(5), sv(5), sv(1)},
			check: func(t *testing.T, it Item) {
				if string(it.Meta["model"]) != `{"name": "x", "v": [1, 2]}` {
					t.Errorf("meta %q", it.Meta)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			items, err := readAll(t, rb, "r.jsonl", "\n"+tt.line+"\r\n\n", tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) != 1 {
				t.Fatalf("%d items", len(items))
			}
			it := items[0]
			if it.ID != tt.id || it.Line != 2 || it.File != "r.jsonl" {
				t.Errorf("id %q at %s:%d", it.ID, it.File, it.Line)
			}
			if len(it.Values) != len(tt.want) {
				t.Fatalf("values %v, want %v", it.Values, tt.want)
			}
			for i := range tt.want {
				if v := it.Values[i]; v.Score != tt.want[i].Score || v.State != tt.want[i].State {
					t.Errorf("value %d = %v, want %v", i, it.Values[i], tt.want[i])
				}
			}
			if tt.check != nil {
				tt.check(t, it)
			}
		})
	}
}

func TestReadJSONLErrors(t *testing.T) {
	ok := `{"id": "ok", "scores": {"accuracy": 4, "resolution": 3, "tone": 4, "safety": 1}}`
	tests := []struct {
		name string
		line string
		opts ReadOptions
		rag  bool
		want string
	}{
		{"malformed", `{"id": "a", "scores": {"accuracy": 4,}}`, ReadOptions{}, false, "malformed JSON at column"},
		{"not an object", `["a"]`, ReadOptions{}, false, "expected a JSON object (JSON lines: one object a line), found '['"},
		{"trailing text", ok + ` x`, ReadOptions{}, false, "after the JSON object"},
		{"CR line ends", ok + "\r" + ok, ReadOptions{}, false, "bare carriage return (CR line ends)"},
		{"duplicate top-level key", `{"id": "a", "id": "b"}`, ReadOptions{}, false, `duplicate key "id"`},
		{"duplicate key escaped", `{"id": "a", "\u0069d": "b"}`, ReadOptions{}, false, `duplicate key "id"`},
		{"duplicate key in scores", `{"id": "a", "scores": {"accuracy": 4, "accuracy": 4}}`, ReadOptions{}, false, `duplicate key "accuracy"`},
		{"duplicate unknown key in scores", `{"id": "a", "scores": {"x": 4, "x": 4}}`, ReadOptions{IgnoreUnknown: true}, false, `duplicate key "x"`},
		{"duplicate key in meta", `{"id": "a", "m": {"k": 1, "k": 2}}`, ReadOptions{}, false, `duplicate key "k"`},
		{"id and alias", `{"id": "a", "scores": {"accuracy": 4, "Policy_accuracy": 4}}`, ReadOptions{}, false, `criterion "accuracy" given twice (as "accuracy" and "Policy_accuracy")`},
		{"top-level and scores", `{"id": "a", "accuracy": 4, "scores": {"accuracy": 4}}`, ReadOptions{}, false, `criterion "accuracy" given twice`},
		{"no id", `{"scores": {"accuracy": 4, "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `missing "id"`},
		{"empty id", `{"id": " ", "scores": {"accuracy": 4, "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `empty "id"`},
		{"bool id", `{"id": true}`, ReadOptions{}, false, `"id" must be a string or a number, got a boolean`},
		{"unknown in scores", `{"id": "a", "scores": {"acc": 4}}`, ReadOptions{}, false, `unknown criterion "acc" in "scores" (expected one of: accuracy, resolution, tone, safety)`},
		{"missing criterion", `{"id": "a", "scores": {"accuracy": 4, "resolution": 3, "tone": 4}}`, ReadOptions{}, false, `missing a score for criterion "safety"`},
		{"missing criteria", `{"id": "a", "scores": {"accuracy": 4, "resolution": 3}}`, ReadOptions{}, false, `missing scores for criteria "tone", "safety"`},
		{"na not allowed", `{"id": "a", "scores": {"accuracy": "na", "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `criterion "accuracy": "na" is not allowed`},
		{"out of range", `{"id": "a", "scores": {"accuracy": 7, "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `criterion "accuracy": score 7 is outside its scale 1..5`},
		{"non-integer", `{"id": "a", "scores": {"accuracy": 3.5, "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `criterion "accuracy": expected an integer score on 1..5, got "3.5"`},
		{"non-integer string", `{"id": "a", "scores": {"accuracy": "3.5", "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `expected an integer score on 1..5, got "3.5"`},
		{"NaN string", `{"id": "a", "scores": {"accuracy": "NaN", "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `got "NaN"`},
		{"Inf string", `{"id": "a", "scores": {"accuracy": "Inf", "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `got "Inf"`},
		{"hex float string", `{"id": "a", "scores": {"accuracy": "0x1p-2", "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `got "0x1p-2"`},
		{"bare NaN", `{"id": "a", "scores": {"accuracy": NaN}}`, ReadOptions{}, false, "malformed JSON"},
		{"huge exponent", `{"id": "a", "scores": {"accuracy": 1e400, "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `got "1e400"`},
		{"boolean", `{"id": "a", "scores": {"accuracy": true, "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `expected an integer score on 1..5, got a boolean`},
		{"null", `{"id": "a", "scores": {"accuracy": null, "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `got null`},
		{"object", `{"id": "a", "scores": {"accuracy": {}, "resolution": 3, "tone": 4, "safety": 1}}`, ReadOptions{}, false, `got an object`},
		{"scores not object", `{"id": "a", "scores": [4]}`, ReadOptions{}, false, `"scores" must be an object`},
		{"reasoning not string", `{"id": "a", "reasoning": 4}`, ReadOptions{}, false, `"reasoning" must be a string, got a number`},
		{"bad pass", `{"id": "a", "pass": "maybe"}`, ReadOptions{}, false, `"pass" must be true/false`},
		{"bad length", `{"id": "a", "length": -1}`, ReadOptions{}, false, `"length" must be a non-negative integer`},
		{"unknown in scores, rag rubric", `{"id": "a", "scores": {"accuracy": 4}}`, ReadOptions{AllowMissing: true}, true, `unknown criterion "accuracy"`},
		{"note required", `{"id": "a", "G": 0, "C": "na", "A": 2, "U": 2}`, ReadOptions{}, true, `criterion "grounding": a score of 0 needs a note`},
		{"note blank", `{"id": "a", "G": 0, "C": "na", "A": 2, "U": 2, "notes": "  "}`, ReadOptions{}, true, `needs a note`},
		{"only na and missing", `{"id": "a", "C": "na"}`, ReadOptions{AllowMissing: true}, true, "item has no weighted criterion with a score"},
		{"control char in string", "{\"id\": \"a\x01\"}", ReadOptions{}, false, "control character 0x01"},
		{"bad escape", `{"id": "a\x"}`, ReadOptions{}, false, `bad escape \x`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rb := supportRubric()
			if tt.rag {
				rb = ragRubric()
				ok = `{"id": "ok", "G": 2, "C": 2, "A": 2, "U": 2}`
			} else {
				ok = `{"id": "ok", "scores": {"accuracy": 4, "resolution": 3, "tone": 4, "safety": 1}}`
			}
			text := ok + "\n\n" + tt.line + "\n" + ok + "\n"
			_, err := readAll(t, rb, "results/run.jsonl", text, tt.opts)
			wantInputError(t, err, "results/run.jsonl", 3, tt.want)
		})
	}
}

func TestReadJSONLMaxLine(t *testing.T) {
	ok := `{"id": "ok", "scores": {"accuracy": 4, "resolution": 3, "tone": 4, "safety": 1}}`
	long := `{"id": "x", "reasoning": "` + strings.Repeat("a", 300) + `"}`
	text := ok + "\n" + ok + "\n" + long + "\n" + ok + "\n"
	_, err := readAll(t, supportRubric(), "big.jsonl", text, ReadOptions{MaxLine: 200})
	wantInputError(t, err, "big.jsonl", 3, "line is longer than 200 bytes")
	// The same text reads with the default limit (the long line then fails on
	// content, not length).
	_, err = readAll(t, supportRubric(), "big.jsonl", text, ReadOptions{})
	wantInputError(t, err, "big.jsonl", 3, `missing scores`)
	// A line longer than the chunk buffer but under the limit is read whole.
	big := `{"id": "big", "reasoning": "` + strings.Repeat("é", 200<<10) + `", "scores": {"accuracy": 4, "resolution": 3, "tone": 4, "safety": 1}}`
	items, err := readAll(t, supportRubric(), "big.jsonl", ok+"\n"+big+"\n"+strings.Replace(ok, `"ok"`, `"ok2"`, 1), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[1].ID != "big" || len([]rune(items[1].Reasoning)) != 200<<10 || items[2].Line != 3 {
		t.Errorf("got %d items", len(items))
	}
}

func TestReadCSV(t *testing.T) {
	rb := ragRubric()
	sheet := "\ufeffID,G,c,answer_handling,U,retrieval_miss,notes,reviewer,pass,Question\r\n" +
		"q1,2,na,2,1,no,,ann,yes,x\r\n" +
		"q2,2,NA,2,2,,\"fine, really\",bob,,\"multi\r\nline\r\ncell\"\r\n" +
		"q3,0,1,2,2,yes,\"says 60 days; passage says 30\",ann,no,\r\n"
	var items []Item
	err := ReadItems(rb, Input{Name: "sheet.csv", R: strings.NewReader(sheet)}, ReadOptions{KeepMeta: true}, func(it *Item) error {
		c := *it
		c.Values = append([]gate.Value(nil), it.Values...)
		items = append(items, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 {
		t.Fatalf("%d items", len(items))
	}
	wantLines := []int{2, 3, 6}
	for i, it := range items {
		if it.Line != wantLines[i] {
			t.Errorf("item %s at line %d, want %d", it.ID, it.Line, wantLines[i])
		}
	}
	if got := items[0].Values; got[1].State != gate.NA || got[0].Score != 2 || got[3].Score != 1 {
		t.Errorf("q1 values %v", got)
	}
	if items[0].Pass == nil || !*items[0].Pass || items[1].Pass != nil || items[2].Pass == nil || *items[2].Pass {
		t.Errorf("pass columns wrong")
	}
	if !items[2].RetrievalMiss || items[0].RetrievalMiss || items[1].Notes != "fine, really" || items[0].Reviewer != "ann" {
		t.Errorf("fields wrong: %+v", items)
	}
	var question string
	if err := json.Unmarshal(items[1].Meta["Question"], &question); err != nil || question != "multi\nline\ncell" {
		t.Errorf("meta Question %q (%v)", items[1].Meta["Question"], err)
	}
}

func TestReadCSVErrors(t *testing.T) {
	tests := []struct {
		name  string
		sheet string
		opts  ReadOptions
		line  int
		want  string
	}{
		{"same criterion twice", "id,G,grounding,C,A,U\nq1,2,2,2,2,2\n", ReadOptions{}, 1, `criterion "grounding" is named twice in the header (columns "G" and "grounding")`},
		{"same column twice", "id,G,C,A,U,notes,Notes\n", ReadOptions{}, 1, `column "notes" appears twice`},
		{"no id column", "G,C,A,U\n2,2,2,2\n", ReadOptions{}, 1, `no "id" column`},
		// A column that names nothing is refused at the header, as an
		// unknown key in a JSON line's "scores" is; a misspelt criterion
		// is named with the criterion it looks like, not blamed on a row.
		{"misspelt criterion", "id,groundng,C,A,U\nq1,2,2,2,2\n", ReadOptions{}, 1, `column "groundng" names no criterion (did you mean "grounding"?)`},
		{"extra column", "id,G,C,A,U,tags\nq1,2,2,2,2,x\n", ReadOptions{}, 1, `column "tags" names no criterion (expected one of: grounding, citation, answer_handling, usefulness) and is none of a review sheet's columns (id, question,`},
		{"empty", "", ReadOptions{}, 1, "empty review sheet"},
		{"CR line ends", "id,G,C,A,U\rq1,2,2,2,2\rq2,2,2,2,2\r", ReadOptions{}, 1, "bare carriage return (CR line ends)"},
		{"empty id", "id,G,C,A,U\nq1,2,2,2,2\n,2,2,2,2\n", ReadOptions{}, 3, `empty "id"`},
		{"na not allowed", "id,G,C,A,U\nq1,2,2,2,2\nq2,na,2,2,2\n", ReadOptions{}, 3, `criterion "grounding": "na" is not allowed`},
		{"out of scale", "id,G,C,A,U\nq1,3,2,2,2\n", ReadOptions{}, 2, "score 3 is outside its scale 0..2"},
		{"float cell", "id,G,C,A,U\nq1,2.0,2,2,2\n", ReadOptions{}, 2, `got "2.0"`},
		{"missing cell", "id,G,C,A,U\nq1,2,,2,2\n", ReadOptions{}, 2, `missing a score for criterion "citation"`},
		{"missing column", "id,G,A,U\nq1,2,2,2\n", ReadOptions{}, 2, `missing a score for criterion "citation"`},
		{"note required", "id,G,C,A,U,notes\nq1,2,2,0,2,\n", ReadOptions{}, 2, `criterion "answer_handling": a score of 0 needs a note`},
		{"bad retrieval_miss", "id,G,C,A,U,retrieval_miss\nq1,2,2,2,2,maybe\n", ReadOptions{}, 2, `column "retrieval_miss" must be yes/no`},
		{"field count", "id,G,C,A,U\nq1,2,2,2,2\n\"q\n2\",2,2,2\n", ReadOptions{}, 3, "does not have the same number of fields"},
		{"bare quote", "id,G,C,A,U\nq1,2,2,2,2\nq\"2,2,2,2,2\n", ReadOptions{}, 3, "bad CSV"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readAll(t, ragRubric(), "review.csv", tt.sheet, tt.opts)
			wantInputError(t, err, "review.csv", tt.line, tt.want)
		})
	}
}

func TestQuoteUntrusted(t *testing.T) {
	_, err := readAll(t, supportRubric(), "r.jsonl", `{"id": "a", "scores": {"\u001b[31mred": 1}}`, ReadOptions{})
	if err == nil || strings.ContainsRune(err.Error(), 0x1b) {
		t.Fatalf("escape character reached the message: %q", err)
	}
	long := strings.Repeat("k", 500)
	_, err = readAll(t, supportRubric(), "r.jsonl", `{"id": "a", "scores": {"`+long+`": 1}}`, ReadOptions{})
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("long key not cut: %d bytes", len(err.Error()))
	}
}

func TestFormatOf(t *testing.T) {
	tests := []struct {
		in   Input
		want Format
	}{
		{Input{Name: "run.jsonl"}, FormatJSONL},
		{Input{Name: "run.json"}, FormatJSONL},
		{Input{Name: "Sheet.CSV"}, FormatCSV},
		{Input{Name: "-"}, FormatJSONL},
		{Input{Name: "-", Format: FormatCSV}, FormatCSV},
		{Input{Name: "x.csv", Format: FormatJSONL}, FormatJSONL},
	}
	for _, tt := range tests {
		if got := formatOf(tt.in); got != tt.want {
			t.Errorf("formatOf(%q, %v) = %v, want %v", tt.in.Name, tt.in.Format, got, tt.want)
		}
	}
}

func TestCSVLineTooLong(t *testing.T) {
	rb := csvLimitRubric()
	sheet := "id,q\nq-1,3\nq-2,\"" + strings.Repeat("x", 5000) + "\n"
	err := ReadItems(rb, Input{Name: "sheet.csv", R: strings.NewReader(sheet), Format: FormatCSV}, ReadOptions{MaxLine: 1000}, func(*Item) error { return nil })
	var ie *InputError
	if !errors.As(err, &ie) || ie.Line != 3 || !strings.Contains(ie.Msg, "longer than 1000 bytes") {
		t.Fatalf("err = %v, want an InputError at sheet.csv:3", err)
	}
	// A long line under the limit reads.
	sheet = "id,q,notes\nq-1,3,\"" + strings.Repeat("y", 900) + "\"\n"
	if err := ReadItems(rb, Input{Name: "sheet.csv", R: strings.NewReader(sheet), Format: FormatCSV}, ReadOptions{MaxLine: 1000}, func(*Item) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

func csvLimitRubric() *rubric.Rubric {
	return &rubric.Rubric{Name: "r", Criteria: []rubric.Criterion{{ID: "q", Name: "q", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5}}}}
}

// A huge object switches the duplicate-key check from linear search to a map
// (so a line cannot make it quadratic); a duplicate far into it is still found.
func TestHugeObjectKeys(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"id":"a","scores":{"q":3},"meta":{`)
	for i := range 50000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(i) + `":1`)
	}
	ok := b.String() + "}}\n"
	dup := b.String() + `,"k49000":2}}` + "\n"
	rb := csvLimitRubric()
	if err := ReadItems(rb, Input{Name: "a.jsonl", R: strings.NewReader(ok), Format: FormatJSONL}, ReadOptions{MaxLine: 4 << 20}, func(*Item) error { return nil }); err != nil {
		t.Fatal(err)
	}
	err := ReadItems(rb, Input{Name: "a.jsonl", R: strings.NewReader(dup), Format: FormatJSONL}, ReadOptions{MaxLine: 4 << 20}, func(*Item) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `duplicate key "k49000"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestJSONInt(t *testing.T) {
	good := map[string]int{"4": 4, "-2": -2, "0": 0, "-0": 0, "4.0": 4, "4.000": 4, "4e0": 4, "40e-1": 4, "0.4e1": 4, "4E+0": 4, "1e2": 100, "0e5000": 0, "0.0e-9999": 0, "123456789012345": 123456789012345}
	for in, want := range good {
		if v, ok := jsonInt([]byte(in)); !ok || v != want {
			t.Errorf("jsonInt(%s) = %d, %v; want %d", in, v, ok, want)
		}
	}
	for _, in := range []string{"4.5", "4.9999999999999999", "1e-400", "0.1", "45e-1", "1e16", "1e5000", "1234567890123456", "3.0000000000000001"} {
		if v, ok := jsonInt([]byte(in)); ok {
			t.Errorf("jsonInt(%s) = %d, accepted", in, v)
		}
	}
}

// sv is a single scored value, as the readers build it.
func sv(s float64) gate.Value { return gate.Value{Score: s, Min: s, Max: s, N: 1, State: gate.Scored} }

// Re-scoring under another rubric (IgnoreUnknown) reads a sheet whose
// columns are this rubric's criteria: the columns that name none of the
// other's are skipped, as unknown keys of a JSON line's "scores" are.
func TestReadCSVIgnoreUnknownColumns(t *testing.T) {
	n := 0
	err := ReadItems(ragRubric(), Input{Name: "sheet.csv", R: strings.NewReader("id,G,C,A,U,tags\nq1,2,2,2,2,x\n")},
		ReadOptions{IgnoreUnknown: true}, func(*Item) error { n++; return nil })
	if err != nil || n != 1 {
		t.Fatalf("read %d items: %v", n, err)
	}
}
