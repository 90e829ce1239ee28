package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// readBoth reads data from a file on disk (in sections when it can be:
// every size qualifies here) and from memory (whole), checks that the two
// give the same file or the same error, and returns the file, the error
// and whether it was read in sections.
func readBoth(t testing.TB, data []byte) (*File, error, bool) {
	t.Helper()
	defer func(n int64) { sectionedMin = n }(sectionedMin)
	sectionedMin = 0
	fh, err := os.CreateTemp("", "baseline-*.json")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(fh.Name())
	defer fh.Close()
	if _, err := fh.Write(data); err != nil {
		t.Fatal(err)
	}
	if _, err := fh.Seek(0, 0); err != nil {
		t.Fatal(err)
	}
	w, sectioned := readSectioned(fh, DefaultMaxSize)
	fromFile, ferr := Read(fh, "b.json", 0)
	whole, werr := Read(bytes.NewReader(data), "b.json", 0)
	if (ferr == nil) != (werr == nil) || ferr != nil && ferr.Error() != werr.Error() {
		t.Fatalf("in sections: %v\nwhole: %v\n%.300s", ferr, werr, data)
	}
	if ferr != nil {
		return nil, ferr, sectioned
	}
	if sectioned {
		// What readSectioned decoded is what readFast decodes.
		var fast wire
		if !readFast(data, &fast) {
			t.Fatalf("read in sections, refused by readFast:\n%.300s", data)
		}
		if !reflect.DeepEqual(*fast.Items.Count, *w.Items.Count) || !reflect.DeepEqual(columnIDs(fast.Items.IDs.cols), columnIDs(w.Items.IDs.cols)) {
			t.Fatalf("count or ids differ from readFast's")
		}
		for i, v := range fast.Items.Scores.scores {
			if math.Float64bits(v) != math.Float64bits(w.Items.Scores.scores[i]) {
				t.Fatalf("score %d: %v in sections, %v by readFast", i, w.Items.Scores.scores[i], v)
			}
		}
		fast.Items, w.Items = nil, nil
		if !reflect.DeepEqual(fast, *w) {
			t.Fatalf("header differs:\n%+v\n%+v", fast, *w)
		}
	}
	if !reflect.DeepEqual(fromFile.Items.Items(), whole.Items.Items()) || !bytes.Equal(encode(t, fromFile), encode(t, whole)) {
		t.Fatalf("the file read in sections differs from the file read whole")
	}
	return fromFile, nil, sectioned
}

// A large file on disk as Write makes it (answer and input-hash columns
// included) is read in sections, to the file read whole; any other shape
// (escaped ids, reformatted, a header key folding to "items", a column
// missing) is read whole, to the same result or error; a small file, a stream or a file not at its start is read whole.
func TestReadSectioned(t *testing.T) {
	rb := testRubric("big")
	many := genItems(parallelItems + 10)
	big, err := New(rb, reportOf(rb, many), many, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	unicode := []gate.ItemScore{{ID: "é", Score: 1}, {ID: "日本", Score: 2}, {ID: "a,b", Score: 1e-7}}
	newFile := func(items []gate.ItemScore) *File {
		f, err := New(rb, reportOf(rb, items), items, testMeta)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	file := func(items []gate.ItemScore) []byte { return encode(t, newFile(items)) }
	answers := genItems(3)
	answers[1].Answers, answers[1].AnswerVar = 3, 4
	hashed := newFile(genItems(3))
	for i := range hashed.Items.Len() {
		hashed.Items.SetInputHash(i, gate.HashTask(hashed.Items.ID(i), "", ""))
	}
	both := newFile(answers)
	for i := range both.Items.Len() {
		both.Items.SetInputHash(i, gate.HashTask(both.Items.ID(i), "q", ""))
	}
	withAnswers := file(answers)
	vars := bytes.Index(withAnswers, []byte(",\n    \"answer_vars\""))
	noVars := append(slices.Clone(withAnswers[:vars]), withAnswers[bytes.IndexByte(withAnswers[vars+2:], '\n')+vars+2:]...)
	var indented bytes.Buffer
	plain := file(genItems(3))
	if err := json.Indent(&indented, plain, "", "\t"); err != nil {
		t.Fatal(err)
	}
	folded := bytes.Replace(plain, []byte("{\n  \"schema\""), []byte("{\n  \"ITEMS\": null,\n  \"schema\""), 1)
	for name, c := range map[string]struct {
		data      []byte
		sectioned bool
		fails     bool // with the error of the file read whole
	}{
		"as written":             {plain, true, false},
		"large":                  {encode(t, big), true, false},
		"unicode ids":            {file(unicode), true, false},
		"escaped id":             {encode(t, testFile(t, "rag-review")), false, false},
		"answers":                {file(answers), true, false},
		"input hashes":           {encode(t, hashed), true, false},
		"answers and hashes":     {encode(t, both), true, false},
		"answers without vars":   {noVars, false, true},
		"reformatted":            {indented.Bytes(), false, false},
		"a key folding to items": {folded, false, false},
		"CRLF line ends":         {bytes.ReplaceAll(plain, []byte("\n"), []byte("\r\n")), false, false},
	} {
		if _, err, got := readBoth(t, c.data); (err != nil) != c.fails || got != c.sectioned {
			t.Errorf("%s: read in sections %v (want %v), error %v", name, got, c.sectioned, err)
		}
	}

	// Read whole: a small file, one not at its start, a stream.
	path := filepath.Join(t.TempDir(), "b.json")
	if err := os.WriteFile(path, plain, 0o644); err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	if _, ok := readSectioned(fh, DefaultMaxSize); ok {
		t.Error("a file under sectionedMin read in sections")
	}
	defer func(n int64) { sectionedMin = n }(sectionedMin)
	sectionedMin = 0
	if _, ok := readSectioned(fh, int64(len(plain))-1); ok {
		t.Error("a file over the limit read in sections")
	}
	fh.Seek(1, 0)
	if _, ok := readSectioned(fh, DefaultMaxSize); ok {
		t.Error("a file not at its start read in sections")
	}
	if _, ok := readSectioned(bytes.NewReader(plain), DefaultMaxSize); ok {
		t.Error("a stream read in sections")
	}
}

// A file with an error is refused with the error of the file read whole:
// same message, same line and column (the sections refuse what they cannot
// read, and the checks after decoding are the same).
func TestReadSectionedErrors(t *testing.T) {
	rb := testRubric("rag-review")
	items := genItems(3)
	f, err := New(rb, reportOf(rb, items), items, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	plain := encode(t, f)
	if _, err, sectioned := readBoth(t, plain); err != nil || !sectioned {
		t.Fatalf("not read in sections (%v)", err)
	}
	ids := bytes.Index(plain, []byte(`"ids": [`)) + len(`"ids": [`)
	scores := bytes.Index(plain, []byte(`"scores": [`)) + len(`"scores": [`)
	edit := func(at int, cut int, with string) []byte {
		return append(append(append([]byte{}, plain[:at]...), with...), plain[at+cut:]...)
	}
	for name, data := range map[string][]byte{
		"control character in an id": edit(ids+1, 0, "\x01"),
		"repeated id":                edit(ids, 0, `"x","x",`),
		"a score not a number":       edit(scores, 0, "1x,"),
		"a score out of range":       edit(scores, 0, "1e999,"),
		"an empty score":             edit(scores, 0, ","),
		"count off":                  bytes.Replace(plain, []byte(`"count": `), []byte(`"count": 1`), 1),
		"count negative":             bytes.Replace(plain, []byte(`"count": `), []byte(`"count": -`), 1),
		"truncated":                  plain[:len(plain)-3],
		"trailing data":              append(append([]byte{}, plain...), "{}"...),
		"schema 2":                   bytes.Replace(plain, []byte(`"schema": 1`), []byte(`"schema": 2`), 1),
		"missing score":              bytes.Replace(plain, []byte(`"score":`), []byte(`"scores":`), 1),
	} {
		if _, err, _ := readBoth(t, data); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// The sectioned read agrees with the whole read on any input.
func FuzzReadSectioned(f *testing.F) {
	f.Add(encode(f, testFile(f, "rag-review")))
	rb := testRubric("big")
	items := genItems(50)
	big, err := New(rb, reportOf(rb, items), items, testMeta)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(encode(f, big))
	answers := genItems(3)
	answers[0].Answers, answers[0].AnswerVar = 4, 2.5
	withBoth, err := New(rb, reportOf(rb, answers), answers, testMeta)
	if err != nil {
		f.Fatal(err)
	}
	withBoth.Items.SetInputHash(1, gate.HashTask("x", "", ""))
	f.Add(encode(f, withBoth))
	f.Add([]byte("{\n  \"schema\": 1,\n  \"items\": {\n    \"count\": 1,\n    \"ids\": [\"a\"],\n    \"scores\": [1]\n  }\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		readBoth(t, data)
	})
}

// BenchmarkReadSectioned reads a million-item file from disk, in sections
// and whole, without and with input hashes.
func BenchmarkReadSectioned(b *testing.B) {
	rb := testRubric("big")
	items := genItems(1_000_000)
	f, err := New(rb, reportOf(rb, items), items, testMeta)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	plain, hashed := filepath.Join(dir, "plain.json"), filepath.Join(dir, "hashed.json")
	if err := os.WriteFile(plain, encode(b, f), 0o644); err != nil {
		b.Fatal(err)
	}
	for i := range f.Items.Len() {
		f.Items.SetInputHash(i, gate.HashTask(f.Items.ID(i), "", ""))
	}
	if err := os.WriteFile(hashed, encode(b, f), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, path := range []string{plain, hashed} {
		for _, min := range []int64{1 << 20, math.MaxInt64} {
			b.Run(fmt.Sprintf("%s/sectioned=%v", strings.TrimSuffix(filepath.Base(path), ".json"), min == 1<<20), func(b *testing.B) {
				defer func(n int64) { sectionedMin = n }(sectionedMin)
				sectionedMin = min
				b.ReportAllocs()
				for b.Loop() {
					if _, err := readPath(path); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
