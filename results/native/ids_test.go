package native

import (
	"io"
	"strings"
	"testing"
)

func supportLine(id string) string {
	return `{"id":"` + id + `","scores":{"accuracy":4,"resolution":4,"tone":4,"safety":1}}` + "\n"
}

// One rule for ids in JSON lines and review sheets: surrounding white space
// is trimmed, and ids equal once trimmed and normalised to NFC are one id, so
// a second one is a duplicate naming both places (issue 8, 2.8).
func TestIDsTrimmedAndNormalised(t *testing.T) {
	rb := supportRubric()
	items, err := readAll(t, rb, "r.jsonl", supportLine(" a\\u00a0"), ReadOptions{})
	if err != nil || items[0].ID != "a" {
		t.Fatalf("id %q, %v; want \"a\"", items[0].ID, err)
	}
	for _, tc := range []struct {
		name   string
		inputs []Input
		file   string
		line   int
		want   string
	}{
		{"trailing space in JSON lines", []Input{{Name: "r.jsonl", R: strings.NewReader(supportLine("a") + supportLine("b") + supportLine("a "))}},
			"r.jsonl", 3, `duplicate id "a" (first at r.jsonl:1)`},
		{"leading tab and no-break space", []Input{{Name: "r.jsonl", R: strings.NewReader(supportLine("\\ta") + supportLine("a\\u00a0"))}},
			"r.jsonl", 2, `duplicate id "a" (first at r.jsonl:1)`},
		{"JSON lines and a review sheet", []Input{
			{Name: "r.jsonl", R: strings.NewReader(supportLine("a "))},
			{Name: "r.csv", R: strings.NewReader("id,accuracy,resolution,tone,safety\n a,4,4,4,1\n")}},
			"r.csv", 2, `duplicate id "a" (first at r.jsonl:1)`},
		{"precomposed and decomposed", []Input{{Name: "r.jsonl", R: strings.NewReader(supportLine("caf\u00e9") + supportLine("cafe\u0301"))}},
			"r.jsonl", 2, `duplicate id "cafe\u0301" (first at r.jsonl:1 as "caf\u00e9": the same id once Unicode is normalised, NFC)`},
		{"escaped forms", []Input{{Name: "r.jsonl", R: strings.NewReader(supportLine("\\u212b") + supportLine("\\u00c5"))}},
			"r.jsonl", 2, `duplicate id "\u00c5" (first at r.jsonl:1 as "\u212b"`},
		{"input that cannot be re-read", []Input{{Name: "r.jsonl", R: io.MultiReader(strings.NewReader(supportLine("caf\u00e9") + supportLine("cafe\u0301")))}},
			"r.jsonl", 2, "the same id as at r.jsonl:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Score(rb, tc.inputs, ScoreOptions{})
			wantInputError(t, err, tc.file, tc.line, tc.want)
		})
	}
	// Different ids stay different.
	if _, err := Score(rb, []Input{{Name: "r.jsonl", R: strings.NewReader(supportLine("caf\u00e9") + supportLine("cafe") + supportLine("a b") + supportLine("ab"))}}, ScoreOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"\\u00a0", "\\u200b \\u3000"} {
		_, err := readAll(t, rb, "r.jsonl", supportLine(id), ReadOptions{})
		wantInputError(t, err, "r.jsonl", 1, `empty "id"`)
	}
}

func TestIDKeyASCIIFastPath(t *testing.T) {
	id := []byte("eval-0000001")
	if n := testing.AllocsPerRun(100, func() { idKey(id) }); n != 0 {
		t.Errorf("idKey allocates %v times for an ASCII id", n)
	}
	if got := string(idKey([]byte("cafe\u0301"))); got != "caf\u00e9" {
		t.Errorf("idKey(decomposed) = %q", got)
	}
}

// h11 F15: invisible characters around an id are trimmed like white space
// ("a" and "a\u200b" are one item), and an id with a control or format
// character inside (zero width, bidi override, tab) is refused, naming file
// and line, in JSON lines and review sheets alike.
func TestIDsInvisibleCharacters(t *testing.T) {
	rb := supportRubric()
	for _, id := range []string{"a\\u200b", "\\ufeffa", "\\u2060a\\u00ad", "\\u0007a"} {
		items, err := readAll(t, rb, "r.jsonl", supportLine(id), ReadOptions{})
		if err != nil || items[0].ID != "a" {
			t.Errorf("id %s: %+v, %v; want \"a\"", id, items, err)
		}
	}
	_, err := Score(rb, []Input{{Name: "r.jsonl", R: strings.NewReader(supportLine("a") + supportLine("a\\u200b"))}}, ScoreOptions{})
	wantInputError(t, err, "r.jsonl", 2, `duplicate id "a"`)
	for _, tc := range []struct{ id, want string }{
		{"a\\u200bb", "U+200B"},
		{"q-1\\u202eevil", "U+202E"},
		{"a\\tb", "U+0009"},
		{"caf\\u00e9\\u200db", "U+200D"},
	} {
		_, err := readAll(t, rb, "r.jsonl", supportLine("ok")+supportLine(tc.id), ReadOptions{})
		wantInputError(t, err, "r.jsonl", 2, "contains the invisible character "+tc.want)
	}
	_, err = readAll(t, rb, "r.csv", "id,accuracy,resolution,tone,safety\nx\u200by,4,4,4,1\n", ReadOptions{})
	wantInputError(t, err, "r.csv", 2, "contains the invisible character U+200B")
	// Visible ids with spaces or non-ASCII letters stay as they are.
	for _, id := range []string{"a b", "caf\u00e9", "\u00c5-1"} {
		if items, err := readAll(t, rb, "r.jsonl", supportLine(id), ReadOptions{}); err != nil || items[0].ID != id {
			t.Errorf("id %q: %v", id, err)
		}
	}
}

// IDKey is the reader's own comparison, for writers: ids the reader reads
// as one id have one key, and other ids keep theirs.
func TestIDKeyIsTheReadersKey(t *testing.T) {
	for id, want := range map[string]string{" a\u00a0": "a", "a\u200b": "a", "\ta ": "a", "cafe\u0301": "caf\u00e9", "\u212b": "\u00c5", "a b": "a b", "\u200b": ""} {
		if got := IDKey(id); got != want {
			t.Errorf("IDKey(%q) = %q, want %q", id, got, want)
		}
	}
	rb := supportRubric()
	items, err := readAll(t, rb, "r.jsonl", supportLine(" cafe\\u0301\\u200b"), ReadOptions{})
	if err != nil || IDKey(items[0].ID) != IDKey("caf\u00e9") {
		t.Fatalf("read %q: %v", items[0].ID, err)
	}
}
