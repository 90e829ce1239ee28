package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/gate"

	"github.com/rubricgate/rubricgate/internal/testgolden"
)

func TestWriteGolden(t *testing.T) {
	golden(t, "small.golden.json", encode(t, testFile(t, "rag-review")))
}

func TestRoundTrip(t *testing.T) {
	f := testFile(t, "rag-review")
	data := encode(t, f)
	got, err := Read(bytes.NewReader(data), "baseline.json", 0)
	if err != nil {
		t.Fatalf("Read: %v", err)
	}
	if !reflect.DeepEqual(got.Items.Items(), testItems) {
		t.Errorf("items = %v, want %v", got.Items.Items(), testItems)
	}
	if !reflect.DeepEqual(got.Criteria, f.Criteria) {
		t.Errorf("criteria = %+v, want %+v", got.Criteria, f.Criteria)
	}
	if got.Score != 75 || got.PassRate != 2.0/3 || !got.CreatedAt.Equal(testCreated) || got.SHA != testMeta.SHA ||
		got.Ref != testMeta.Ref || got.Branch != "main" || got.Repository != testMeta.Repository || got.RunID != testMeta.RunID || got.RunURL != testMeta.RunURL {
		t.Errorf("header fields differ: %+v", got)
	}
	if got.Rubric != f.Rubric || !bytes.Equal(got.RubricCanonical, f.RubricCanonical) {
		t.Errorf("rubric = %v %s, want %v %s", got.Rubric, got.RubricCanonical, f.Rubric, f.RubricCanonical)
	}
	// Write(Read(x)) == x.
	if again := encode(t, got); !bytes.Equal(again, data) {
		t.Errorf("rewrite differs:\n%s", testgolden.Diff(string(data), string(again)))
	}
	b, err := got.Gate(gate.BaselineSource{Kind: "file", Location: "x.json"})
	if err != nil {
		t.Fatalf("Gate: %v", err)
	}
	if b.Rubric.Hash() != f.Rubric.Hash || b.RubricHash != f.Rubric.Hash || b.Rubric.Name != "rag-review" {
		t.Errorf("Gate rubric hash %s / %s, want %s", b.Rubric.Hash(), b.RubricHash, f.Rubric.Hash)
	}
	want := gate.BaselineSource{Kind: "file", Location: "x.json", SHA: testMeta.SHA, Ref: testMeta.Ref, Repository: testMeta.Repository,
		RunID: testMeta.RunID, RunURL: testMeta.RunURL, CreatedAt: testCreated}
	if b.Source != want {
		t.Errorf("source = %+v, want %+v", b.Source, want)
	}
	if b.Score != 75 || b.Items.Len() != 3 || len(b.Criteria) != 2 {
		t.Errorf("Gate figures: %+v", b)
	}
}

func TestNewRefuses(t *testing.T) {
	rb := testRubric("rag-review")
	other := testRubric("other")
	okRep := func() *gate.Report { return testReport(rb, 75, 0.5) }
	tests := []struct {
		name  string
		rep   func() *gate.Report
		items []gate.ItemScore
		meta  Meta
		want  string
	}{
		{"nil score", func() *gate.Report { r := okRep(); r.Score = nil; return r }, testItems, testMeta, "scored nothing"},
		{"nothing scored", func() *gate.Report { r := okRep(); r.Scored = 0; return r }, testItems, testMeta, "scored nothing"},
		{"other rubric", func() *gate.Report { return testReport(other, 75, 0.5) }, testItems, testMeta, "scored under rubric"},
		{"no created", okRep, testItems, Meta{}, "CreatedAt is required"},
		{"no items", okRep, nil, testMeta, "no items"},
		{"empty id", okRep, []gate.ItemScore{{ID: "", Score: 1}}, testMeta, "items.ids[0]\": empty id"},
		{"dup id", okRep, []gate.ItemScore{{ID: "a", Score: 1}, {ID: "b", Score: 1}, {ID: "a", Score: 2}}, testMeta, "items.ids[2]\": duplicate id \"a\" (also items.ids[0])"},
		{"bad utf8", okRep, []gate.ItemScore{{ID: "a\xff", Score: 1}}, testMeta, "not valid UTF-8"},
		{"score range", okRep, []gate.ItemScore{{ID: "a", Score: 100.5}}, testMeta, "items.scores[0]\": 100.5 is outside 0-100"},
		{"score NaN", okRep, []gate.ItemScore{{ID: "a", Score: math.NaN()}}, testMeta, "items.scores[0]"},
		{"run score", func() *gate.Report { r := okRep(); r.Score = ptr(math.Inf(1)); return r }, testItems, testMeta, "\"score\""},
		{"pass rate", func() *gate.Report { r := okRep(); r.PassRate = ptr(1.5); return r }, testItems, testMeta, "\"pass_rate\": 1.5 is outside 0-1"},
		{"criterion NaN", func() *gate.Report { r := okRep(); r.Criteria[0].Mean = ptr(math.NaN()); return r }, testItems, testMeta, "criteria[0].mean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := New(rb, tt.rep(), tt.items, tt.meta)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New = %v, %v; want error containing %q", f, err, tt.want)
			}
		})
	}
	if _, err := New(nil, okRep(), testItems, testMeta); err == nil {
		t.Error("New(nil rubric) succeeded")
	}
	if _, err := New(rb, nil, testItems, testMeta); err == nil {
		t.Error("New(nil report) succeeded")
	}
}

// mutate decodes the valid file into a generic map, applies fn, re-encodes.
func mutate(t *testing.T, fn func(m map[string]any)) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(encode(t, testFile(t, "rag-review")), &m); err != nil {
		t.Fatal(err)
	}
	fn(m)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadRefuses(t *testing.T) {
	valid := string(encode(t, testFile(t, "rag-review")))
	tests := []struct {
		name  string
		input string
		limit int64
		want  []string
	}{
		{"schema 2", mutate(t, func(m map[string]any) { m["schema"] = 2; m["items"] = []any{"new layout"} }), 0,
			[]string{"b.json: baseline schema 2 is not supported (this rubricgate reads schema 1)"}},
		{"schema 0", mutate(t, func(m map[string]any) { m["schema"] = 0 }), 0, []string{"schema 0 is not supported"}},
		{"no schema", mutate(t, func(m map[string]any) { delete(m, "schema") }), 0, []string{"missing field \"schema\"", "not a rubricgate baseline"}},
		{"empty", "  \n", 0, []string{"b.json: empty file"}},
		{"syntax", "{\n  \"schema\": 1,\n  \"rubric\": {,\n}", 0, []string{"b.json:3:14: invalid JSON"}},
		{"truncated", valid[:len(valid)/2], 0, []string{"b.json:", "invalid JSON"}},
		{"not an object", "[1, 2]", 0, []string{"b.json:1:1: expected a baseline JSON object, found JSON array"}},
		{"type error", "{\n\"schema\": 1,\n\"score\": \"high\"\n}", 0, []string{"b.json:3:", "field \"score\": expected a number, found JSON string"}},
		{"ids type", mutate(t, func(m map[string]any) { m["items"].(map[string]any)["ids"] = []any{1, 2, 3} }), 0, []string{"b.json:", "field \"items.ids[0]\": expected a string, found JSON number"}},
		{"too large", valid, int64(len(valid) - 1), []string{"larger than the", "limit"}},
		{"no rubric", mutate(t, func(m map[string]any) { delete(m, "rubric") }), 0, []string{"missing required field \"rubric.name\""}},
		{"no canonical", mutate(t, func(m map[string]any) { delete(m, "rubric_canonical") }), 0, []string{"missing required field \"rubric_canonical\""}},
		{"no created", mutate(t, func(m map[string]any) { delete(m, "created_at") }), 0, []string{"missing required field \"created_at\""}},
		{"bad created", mutate(t, func(m map[string]any) { m["created_at"] = "yesterday" }), 0, []string{"expected an RFC 3339 time, found \"yesterday\""}},
		{"no score", mutate(t, func(m map[string]any) { delete(m, "score") }), 0, []string{"missing required field \"score\""}},
		{"no pass rate", mutate(t, func(m map[string]any) { delete(m, "pass_rate") }), 0, []string{"missing required field \"pass_rate\""}},
		{"no criteria", mutate(t, func(m map[string]any) { delete(m, "criteria") }), 0, []string{"missing required field \"criteria\""}},
		{"no items", mutate(t, func(m map[string]any) { delete(m, "items") }), 0, []string{"missing required field \"items\""}},
		{"no scores", mutate(t, func(m map[string]any) { delete(m["items"].(map[string]any), "scores") }), 0, []string{"missing required field \"items.scores\""}},
		{"columns differ", mutate(t, func(m map[string]any) { m["items"].(map[string]any)["scores"] = []any{1, 2} }), 0, []string{"3 ids but 2 scores"}},
		{"count differs", mutate(t, func(m map[string]any) { m["items"].(map[string]any)["count"] = 4 }), 0, []string{"\"items.count\" is 4 but there are 3 items"}},
		{"dup ids", mutate(t, func(m map[string]any) { m["items"].(map[string]any)["ids"] = []any{"a", "b", "a"} }), 0, []string{"duplicate id \"a\""}},
		{"score range", mutate(t, func(m map[string]any) { m["score"] = 120 }), 0, []string{"\"score\": 120 is outside 0-100"}},
		{"item range", mutate(t, func(m map[string]any) { m["items"].(map[string]any)["scores"] = []any{1, -2, 3} }), 0, []string{"items.scores[1]\": -2 is outside"}},
		{"edited rubric", mutate(t, func(m map[string]any) { m["rubric_canonical"].(map[string]any)["threshold"] = 10 }), 0, []string{"embedded rubric hashes to sha256:", "edited or is corrupt"}},
		{"renamed rubric", mutate(t, func(m map[string]any) { m["rubric"].(map[string]any)["name"] = "other" }), 0, []string{"embedded rubric is named \"rag-review\" but the file says \"other\""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Read(strings.NewReader(tt.input), "b.json", tt.limit)
			if err == nil {
				t.Fatalf("Read succeeded: %+v", f)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	// Unknown fields are accepted (later schema-1 writers may add some).
	in := mutate(t, func(m map[string]any) { m["extra"] = map[string]any{"x": 1} })
	if _, err := Read(strings.NewReader(in), "b.json", 0); err != nil {
		t.Errorf("unknown field refused: %v", err)
	}
}

// TestItemsCompact bounds the per-item size so 1M items stay well inside a
// 100 MiB artifact (BenchmarkMillionItems measures the real figure).
func TestItemsCompact(t *testing.T) {
	rb := testRubric("rag-review")
	items := genItems(20000)
	f, err := New(rb, reportOf(rb, items), items, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	small := len(encode(t, testFile(t, "rag-review")))
	perItem := float64(buf.Len()-small) / float64(len(items))
	if perItem > 40 {
		t.Errorf("%.1f bytes per item; 1M items would take %.0f MiB", perItem, perItem*1e6/(1<<20))
	}
	got, err := Read(&buf, "big.json", 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Items.Items(), items) {
		t.Error("items differ after a round trip")
	}
}

// genItems makes n items with realistic ids and unrounded scores.
func genItems(n int) []gate.ItemScore {
	items := make([]gate.ItemScore, n)
	for i := range items {
		items[i] = gate.ItemScore{ID: fmt.Sprintf("eval-%07d", i), Score: float64(i%301) / 3}
	}
	return items
}

// BenchmarkMillionItems writes and reads a baseline of 1M items and reports
// its size (MiB) and its size zipped (as an artifact).
func BenchmarkMillionItems(b *testing.B) {
	rb := testRubric("rag-review")
	f, err := New(rb, reportOf(rb, genItems(1_000_000)), genItems(1_000_000), testMeta)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		b.Fatal(err)
	}
	data := append([]byte(nil), buf.Bytes()...)
	b.Run("write", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			if err := f.Write(&buf); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len())/(1<<20), "MiB")
		zipped := makeZip(b, zipEntry{name: ArchiveEntry, body: buf.Bytes()})
		b.ReportMetric(float64(len(zipped))/(1<<20), "zipMiB")
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := Read(bytes.NewReader(data), "big.json", 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The same items, each bound to its task (the input_hashes column).
	for i := range f.Items.Len() {
		f.Items.SetInputHash(i, gate.HashTask(f.Items.ID(i), "", ""))
	}
	buf.Reset()
	if err := f.Write(&buf); err != nil {
		b.Fatal(err)
	}
	hashed := append([]byte(nil), buf.Bytes()...)
	b.Run("write-hashed", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			if err := f.Write(&buf); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(buf.Len())/(1<<20), "MiB")
	})
	b.Run("read-hashed", func(b *testing.B) {
		for b.Loop() {
			if _, err := Read(bytes.NewReader(hashed), "big.json", 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestGateDecodesWithoutCache(t *testing.T) {
	f := testFile(t, "rag-review")
	g := *f
	g.rb = nil
	b, err := g.Gate(gate.BaselineSource{Kind: "dir", Location: "p", SHA: "override", CreatedAt: time.Unix(1, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if b.Rubric == nil || b.Rubric.Hash() != f.Rubric.Hash {
		t.Fatalf("rubric not decoded: %+v", b.Rubric)
	}
	if b.Source.SHA != "override" || !b.Source.CreatedAt.Equal(time.Unix(1, 0)) || b.Source.RunID != testMeta.RunID {
		t.Errorf("source merge: %+v", b.Source)
	}
	g.rb = nil
	g.RubricCanonical = []byte(`{"name":`)
	if _, err := g.Gate(gate.BaselineSource{}); err == nil || !strings.Contains(err.Error(), "embedded rubric") {
		t.Errorf("Gate with a broken rubric: %v", err)
	}
}

func TestFileJSON(t *testing.T) {
	f := testFile(t, "rag-review")
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.TrimRight(encode(t, f), "\n"); !bytes.Equal(b, bytes.TrimSpace(want)) {
		// json.Marshal compacts Marshaler output; compare meaning instead.
		var x, y any
		_ = json.Unmarshal(b, &x)
		_ = json.Unmarshal(want, &y)
		if !reflect.DeepEqual(x, y) {
			t.Errorf("json.Marshal differs from Write")
		}
	}
	var g File
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g.Items.Items(), f.Items.Items()) || g.Rubric != f.Rubric {
		t.Errorf("json round trip: %+v", g)
	}
	if err := json.Unmarshal([]byte(`{"schema":3}`), &g); err == nil || !strings.Contains(err.Error(), "schema 3 is not supported") {
		t.Errorf("UnmarshalJSON schema 3: %v", err)
	}
}

// The stored figures are recomputed from the items: a file edited to
// "score": 0 (which skipped the relative check) or to a higher score is
// refused, naming the file (issue 8, 2.5). A figure written with fewer
// digits by a JSON tool still reads.
func TestReadRefusesFiguresTheItemsContradict(t *testing.T) {
	good := string(encode(t, testFile(t, "rag-review")))
	if !strings.Contains(good, `"score": 75,`) {
		t.Fatalf("unexpected encoding:\n%s", good)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"score zeroed", `"score": 75,`, `"score": 0,`, `field "score" is 0 but the 3 items average 75`},
		{"score raised", `"score": 75,`, `"score": 90,`, `field "score" is 90`},
		{"pass rate above what the items allow", `"pass_rate": 0.6666666666666666,`, `"pass_rate": 1,`, `field "pass_rate" is 1 but only 2 of 3 items reach the threshold`},
		{"criterion mean edited", `"mean": 4,`, `"mean": 5,`, `field "criteria[0]": mean is not the histogram's mean 4`},
		{"criterion normalised mean edited", `"normalized": 62.5,`, `"normalized": 99,`, `field "criteria[1]": normalized`},
		{"histogram edited", `"3": 1,`, `"3": 7,`, `the histogram counts`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(good, tc.old) {
				t.Fatalf("%q not in the file", tc.old)
			}
			_, err := Read(strings.NewReader(strings.Replace(good, tc.old, tc.new, 1)), "store/b.json", 0)
			if err == nil || !strings.Contains(err.Error(), "store/b.json: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one naming store/b.json and saying %q", err, tc.want)
			}
		})
	}
	if _, err := Read(strings.NewReader(strings.Replace(good, `"score": 75,`, `"score": 75.0000001,`, 1)), "b.json", 0); err != nil {
		t.Errorf("a score within the formatting tolerance was refused: %v", err)
	}
}
