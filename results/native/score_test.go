package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/rubricgate/rubricgate/gate"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/rubric"

	"github.com/rubricgate/rubricgate/internal/testgolden"
)

func scoreText(t *testing.T, rb *rubric.Rubric, opts ScoreOptions, files ...string) (*gate.Report, error) {
	t.Helper()
	var inputs []Input
	for i := 0; i+1 < len(files); i += 2 {
		inputs = append(inputs, Input{Name: files[i], R: strings.NewReader(files[i+1])})
	}
	return Score(rb, inputs, opts)
}

func TestItemArithmetic(t *testing.T) {
	tests := []struct {
		name  string
		rb    *rubric.Rubric
		line  string
		score float64
		pass  bool
	}{
		// The weighted mean: 100 x (3x0.75 + 2x0.5 + 1x0.75 + 1x1) / 7 = 500/7.
		{"worked example", supportRubric(), `{"id":"s","accuracy":4,"resolution":3,"tone":4,"safety":1}`, 500.0 / 7, true},
		{"worked example safety 0", supportRubric(), `{"id":"s","accuracy":4,"resolution":3,"tone":4,"safety":0}`, 400.0 / 7, false},
		{"perfect but unsafe", supportRubric(), `{"id":"s","accuracy":5,"resolution":5,"tone":5,"safety":0}`, 600.0 / 7, false},
		{"all lowest", supportRubric(), `{"id":"s","accuracy":1,"resolution":1,"tone":1,"safety":1}`, 100.0 / 7, false},
		{"exactly at threshold passes", &rubric.Rubric{Name: "t", Threshold: 50, Criteria: []rubric.Criterion{{ID: "a", Weight: 1, Scale: rubric.Scale{Low: 1, High: 3}}}}, `{"id":"s","a":2}`, 50, true},
		{"weight 0 gate adds nothing", &rubric.Rubric{Name: "t", Threshold: 50, Criteria: []rubric.Criterion{
			{ID: "a", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5}},
			{ID: "g", Weight: 0, Scale: rubric.Scale{Low: 0, High: 1}, Critical: intp(1)}}}, `{"id":"s","a":5,"g":0}`, 100, false},
		// RAG review: pass = G=2, A=2, U>=1, C 2 or na.
		{"rag pass with na", ragRubric(), `{"id":"s","G":2,"A":2,"U":1,"C":"na"}`, 100.0 * (1 + 1 + 0.5) / 3, true},
		{"rag C=1 fails", ragRubric(), `{"id":"s","G":2,"A":2,"U":1,"C":1}`, 100.0 * (1 + 0.5 + 1 + 0.5) / 4, false},
		{"rag G=1 fails", ragRubric(), `{"id":"s","G":1,"A":2,"U":1,"C":"na"}`, 100.0 * (0.5 + 1 + 0.5) / 3, false},
		{"rag all 2", ragRubric(), `{"id":"s","G":2,"A":2,"U":2,"C":2}`, 100, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got *gate.ItemResult
			rep, err := scoreText(t, tt.rb, ScoreOptions{OnItem: func(r *gate.ItemResult) error { c := *r; got = &c; return nil }}, "a.jsonl", tt.line)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(got.Score-tt.score) > 1e-9 || got.Pass != tt.pass {
				t.Errorf("score %v pass %v, want %v %v", got.Score, got.Pass, tt.score, tt.pass)
			}
			if *rep.Score != got.Score {
				t.Errorf("run score %v != item score %v", *rep.Score, got.Score)
			}
		})
	}
	// The worked example's displayed figures.
	if got := fmt.Sprintf("%.1f/%.1f", 500.0/7, 400.0/7); got != "71.4/57.1" {
		t.Errorf("display %s", got)
	}
}

func TestScoreReportGolden(t *testing.T) {
	rb := ragRubric()
	sheet := "id,G,C,A,U,retrieval_miss,notes,pass,reasoning\n" +
		"q1,2,na,2,1,no,,yes,\n" +
		"q2,2,1,2,2,yes,,yes,cites the wrong passage\n" +
		"q3,0,2,2,2,no,says 60-day window; passage says 30,no,\n" +
		"q4,2,2,2,2,,,,\n"
	jsonl := `{"id":"j1","grounding":2,"citation":2,"answer_handling":1,"usefulness":1,"reasoning":"hedged"}` + "\n" +
		`{"id":"j2","error":"judge timeout"}` + "\n"
	rb.Criteria[0].Blocking = true
	rep, err := scoreText(t, rb, ScoreOptions{MaxUnscored: 0.1}, "review.csv", sheet, "judge.jsonl", jsonl)
	if err != nil {
		t.Fatal(err)
	}
	// The hash belongs to the rubric package; keep it out of the golden file.
	if rep.Rubric.Hash != rb.Hash() {
		t.Errorf("rubric hash %q, want %q", rep.Rubric.Hash, rb.Hash())
	}
	rep.Rubric.Hash = "(rubric hash)"
	got, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden(t, "report.golden.json", got)
	if rep.Items != 6 || rep.Scored != 5 || !rep.Unscored.Exceeded || len(rep.BlockingFailures) != 2 || rep.BlockingFailures[0].Reasoning != "says 60-day window; passage says 30" || !rep.BlockingFailures[1].Unscored {
		t.Errorf("report: %+v", rep)
	}
	if *rep.PassRate != 2.0/5 || rep.RetrievalMiss.Count != 1 || len(rep.Warnings) != 1 {
		t.Errorf("pass rate %v, misses %d, warnings %q", *rep.PassRate, rep.RetrievalMiss.Count, rep.Warnings)
	}
}

// golden checks got against its golden file (internal/testgolden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testgolden.Check(t, filepath.Join("testdata", name), got)
}

func TestScoreEmptyAndNonNil(t *testing.T) {
	_, err := scoreText(t, supportRubric(), ScoreOptions{}, "a.jsonl", "\n\n", "b.jsonl", "")
	wantInputError(t, err, "a.jsonl, b.jsonl", 0, "no items")
	_, err = scoreText(t, ragRubric(), ScoreOptions{}, "a.csv", "id,G,C,A,U\n")
	wantInputError(t, err, "a.csv", 0, "no items")
	rep, err := scoreText(t, supportRubric(), ScoreOptions{MaxUnscored: 1}, "a.jsonl", `{"id":"x","error":"boom"}`)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rep)
	for _, want := range []string{`"score":null`, `"pass_rate":null`, `"blocking_failures":[{"item":"x","criterion":"safety","score":0,"reasoning":"[no score: the item carries a judge error: boom]","unscored":true}]`, `"warnings":[]`, `"mean":null`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("report JSON lacks %s: %s", want, b)
		}
	}
	if !rep.Blocked() || rep.Unscored.Count != 1 || rep.Unscored.List[0].Line != 1 {
		t.Errorf("all-unscored run: %+v", rep)
	}
}

func TestScoreDuplicates(t *testing.T) {
	line := func(id string) string {
		return `{"id":"` + id + `","accuracy":4,"resolution":3,"tone":4,"safety":1}` + "\n"
	}
	tests := []struct {
		name  string
		files []string
		file  string
		line  int
		want  string
	}{
		{"same file", []string{"a.jsonl", line("q-1") + line("q-3") + line("q-2") + "\n" + line("q-3")}, "a.jsonl", 5, `duplicate id "q-3" (first at a.jsonl:2)`},
		{"across shards", []string{"a.jsonl", line("q-1") + line("q-3"), "b.jsonl", line("q-2") + line("q-3")}, "b.jsonl", 2, `duplicate id "q-3" (first at a.jsonl:2)`},
		{"earliest duplicate reported", []string{"a.jsonl", line("x") + line("y"), "b.jsonl", line("y") + line("x")}, "b.jsonl", 1, `duplicate id "y" (first at a.jsonl:2)`},
		{"csv and jsonl", []string{"a.csv", "id,accuracy,resolution,tone,safety\nq-9,4,3,4,1\n", "b.jsonl", line("q-9")}, "b.jsonl", 1, `duplicate id "q-9" (first at a.csv:2)`},
		{"number id equals string id", []string{"a.jsonl", `{"id":17,"accuracy":4,"resolution":3,"tone":4,"safety":1}` + "\n" + line("17")}, "a.jsonl", 2, `duplicate id "17" (first at a.jsonl:1)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scoreText(t, supportRubric(), ScoreOptions{Workers: 2}, tt.files...)
			wantInputError(t, err, tt.file, tt.line, tt.want)
		})
	}
	// A stream that cannot be re-read still gets the error, without the id.
	_, err := Score(supportRubric(), []Input{{Name: "-", R: io.MultiReader(strings.NewReader(line("a") + line("a")))}}, ScoreOptions{})
	wantInputError(t, err, "-", 2, "duplicate id (the same id as at -:1")
}

// genRun makes a deterministic run of n items for the production rubric.
func genRun(n int, seed uint64) []byte {
	var b bytes.Buffer
	x := seed | 1
	next := func(k int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(k))
	}
	for i := 0; i < n; i++ {
		if next(200) == 0 {
			fmt.Fprintf(&b, `{"id":"q-%d","error":"judge timeout"}`+"\n", i)
			continue
		}
		fmt.Fprintf(&b, `{"id":"q-%d","scores":{"faithfulness":%d,"relevance":%d,"completeness":%d,"format_tone":%d,"safety":%d},"reasoning":"The answer cites the refund policy but omits the 30-day window.","judge_model":"claude-3-5-sonnet"}`+"\n",
			i, 1+next(5), 1+next(5), 1+next(5), 1+next(5), min(1, next(40)))
	}
	return b.Bytes()
}

func TestScoreDeterministicAcrossWorkers(t *testing.T) {
	data := genRun(12000, 7) // about 11 chunks
	// Split into three shards at line boundaries.
	lines := bytes.SplitAfter(data, []byte("\n"))
	shard := func(a, b int) []byte { return bytes.Join(lines[a:b], nil) }
	var first []byte
	var firstIDs []string
	for _, w := range []int{1, 2, 8} {
		var ids []string
		rep, err := Score(prodRubric(), []Input{
			{Name: "s0.jsonl", R: bytes.NewReader(shard(0, 4000))},
			{Name: "s1.jsonl", R: bytes.NewReader(shard(4000, 8001))},
			{Name: "s2.jsonl", R: bytes.NewReader(shard(8001, len(lines)))},
		}, ScoreOptions{Workers: w, OnItem: func(r *gate.ItemResult) error { ids = append(ids, r.ID); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(rep)
		if first == nil {
			first, firstIDs = b, ids
			if rep.Items != 12000 || len(ids) != 12000 {
				t.Fatalf("items %d, OnItem %d", rep.Items, len(ids))
			}
			for i, id := range ids {
				if id != fmt.Sprintf("q-%d", i) {
					t.Fatalf("OnItem order: item %d is %s", i, id)
				}
			}
			continue
		}
		if !bytes.Equal(b, first) {
			t.Errorf("report with %d workers differs", w)
		}
		if !reflect.DeepEqual(ids, firstIDs) {
			t.Errorf("OnItem order with %d workers differs", w)
		}
	}
}

// TestScoreMatchesReadItems checks the streaming engine against a plain
// sequential computation over ReadItems.
func TestScoreMatchesReadItems(t *testing.T) {
	data := genRun(5000, 3)
	rb := prodRubric()
	var sum float64
	var n, passed, unscored int
	err := ReadItems(rb, Input{Name: "r.jsonl", R: bytes.NewReader(data)}, ReadOptions{}, func(it *Item) error {
		if it.Error != "" {
			unscored++
			return nil
		}
		s, failed := gate.NewScorer(rb).Weighted(it.Values)
		sum += s
		n++
		if s >= rb.Threshold && !failed {
			passed++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Score(rb, []Input{{Name: "r.jsonl", R: bytes.NewReader(data)}}, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scored != n || rep.Unscored.Count != unscored || math.Abs(*rep.Score-sum/float64(n)) > 1e-9 || *rep.PassRate != float64(passed)/float64(n) {
		t.Errorf("Score %v/%v/%d vs sequential %v/%v/%d", *rep.Score, *rep.PassRate, rep.Scored, sum/float64(n), float64(passed)/float64(n), n)
	}
	var hist int
	for _, c := range rep.Criteria {
		for _, k := range c.Histogram {
			hist += k
		}
	}
	if hist != 5*n {
		t.Errorf("histograms hold %d scores, want %d", hist, 5*n)
	}
}

func TestScoreFirstErrorInInputOrder(t *testing.T) {
	data := genRun(8000, 11) // about 7 chunks
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[6000] = []byte(`{"id":"bad","scores":{}}` + "\n")
	lines[7500] = []byte("{\n")
	data = bytes.Join(lines, nil)
	for _, w := range []int{1, 2, 8} {
		_, err := Score(prodRubric(), []Input{{Name: "r.jsonl", R: bytes.NewReader(data)}}, ScoreOptions{Workers: w})
		wantInputError(t, err, "r.jsonl", 6001, "missing scores")
	}
	// OnItem errors stop the run and come back unchanged.
	stop := fmt.Errorf("stop")
	k := 0
	_, err := Score(prodRubric(), []Input{{Name: "r.jsonl", R: bytes.NewReader(genRun(8000, 1))}}, ScoreOptions{OnItem: func(*gate.ItemResult) error {
		k++
		if k == 100 {
			return stop
		}
		return nil
	}})
	if err != stop || k != 100 {
		t.Errorf("err %v after %d items", err, k)
	}
}

func TestScorePassColumnWarningsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("id,G,C,A,U,pass,notes\n")
	for i := 0; i < 25; i++ {
		fmt.Fprintf(&b, "q%d,2,2,2,1,no,\n", i) // passes by the rule
	}
	b.WriteString("ok,2,2,2,1,yes,\n")
	rep, err := scoreText(t, ragRubric(), ScoreOptions{}, "s.csv", b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) != 21 || !strings.HasPrefix(rep.Warnings[0], `s.csv:2: item "q0": the pass column says fail but the rubric gives pass`) || rep.Warnings[20] != "... and 5 more rows whose pass column disagrees with the rubric" {
		t.Errorf("warnings: %q", rep.Warnings)
	}
}

func TestDupSortBlock(t *testing.T) {
	x := uint64(99)
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	for _, distinct := range []uint64{3, 1 << 40} {
		recs := make([]dupRec, 5000)
		for i := range recs {
			recs[i] = dupRec{h: next() % distinct << 20, h2: uint16(next() % 3), input: uint16(next() % 4), line: uint32(next() % 1000)}
		}
		want := append([]dupRec(nil), recs...)
		slices.SortFunc(want, cmpRec)
		var s dupStore
		got := append([]dupRec(nil), recs...)
		s.sortBlock(got)
		if !slices.Equal(got, want) {
			t.Errorf("radix sort with %d distinct hashes differs from a comparison sort", distinct)
		}
	}
}

func TestOnItemCarriesJudgeAndLength(t *testing.T) {
	run := `{"id":"a","accuracy":4,"resolution":3,"tone":4,"safety":1,"judge_model":"gpt-4o","answer":"héllo","reasoning":"why"}` + "\n" +
		`{"id":"b","accuracy":4,"resolution":3,"tone":4,"safety":0,"judge_model":"gpt-4o","notes":"card number"}` + "\n" +
		`{"id":"c","error":"timeout","judge_model":"claude"}` + "\n"
	var got []gate.ItemResult
	_, err := scoreText(t, supportRubric(), ScoreOptions{MaxUnscored: 1, OnItem: func(r *gate.ItemResult) error { got = append(got, *r); return nil }}, "r.jsonl", run)
	if err != nil {
		t.Fatal(err)
	}
	want := []gate.ItemResult{
		{ID: "a", Score: 500.0 / 7, Pass: true, Failed: []string{}, NA: []string{}, Reasoning: "why", JudgeModel: "gpt-4o", Length: 5},
		{ID: "b", Score: 400.0 / 7, Pass: false, Failed: []string{"safety"}, NA: []string{}, Reasoning: "card number", JudgeModel: "gpt-4o", Length: -1},
		{ID: "c", Unscored: true, Failed: []string{}, NA: []string{}, Reasoning: "timeout", JudgeModel: "claude", Length: -1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("OnItem results:\n got %+v\nwant %+v", got, want)
	}
}

// An item whose exact score equals the threshold passes, although floating
// point computes it a hair below: 7/7/7 on 0..10 is 70, computed as 69.99999999999999.
func TestItemExactlyAtThresholdPasses(t *testing.T) {
	c := func(id string) rubric.Criterion {
		return rubric.Criterion{ID: id, Name: id, Weight: 1, Scale: rubric.Scale{Low: 0, High: 10}}
	}
	rb := &rubric.Rubric{Name: "thr", Threshold: 70, Criteria: []rubric.Criterion{c("a"), c("b"), c("c")}}
	n := 7.0 / 10 // at run time, as the scorer computes: not constant-folded
	if s := 100 * (n + n + n) / 3; s >= 70 {
		t.Fatalf("float computes %v: pick values that round below 70", s)
	}
	var got []gate.ItemResult
	rep, err := Score(rb, []Input{{Name: "t.jsonl", R: strings.NewReader(`{"id":"x","scores":{"a":7,"b":7,"c":7}}` + "\n" + `{"id":"y","scores":{"a":7,"b":7,"c":6}}` + "\n")}},
		ScoreOptions{OnItem: func(it *gate.ItemResult) error { got = append(got, *it); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Pass || got[1].Pass || *rep.PassRate != 0.5 {
		t.Errorf("pass = %v, %v; pass rate %v", got[0].Pass, got[1].Pass, *rep.PassRate)
	}
}
