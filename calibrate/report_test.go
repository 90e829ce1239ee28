package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

func intp(v float64) *float64 { return &v }

// testRubric has a 1-5 criterion, a 0-2 gate with na and a 0-1 gate.
func testRubric() *rubric.Rubric {
	return &rubric.Rubric{
		Name:      "rag",
		Threshold: 70,
		Criteria: []rubric.Criterion{
			{ID: "faithfulness", Name: "Faithfulness", Weight: 2, Scale: rubric.Scale{Low: 1, High: 5}},
			{ID: "citation", Name: "Citation", Weight: 1, Scale: rubric.Scale{Low: 0, High: 2}, NA: true},
			{ID: "safety", Name: "Safety", Weight: 0, Scale: rubric.Scale{Low: 0, High: 1}, Critical: intp(1), Blocking: true},
		},
	}
}

// sv is a scored value; na and miss are the other states.
func sv[T int | float64](s T) gate.Value {
	return gate.Value{Score: float64(s), State: gate.Scored}
}

var (
	na   = gate.Value{State: gate.NA}
	miss = gate.Value{State: gate.Missing}
)

func rating(id string, line int, vs ...gate.Value) Rating {
	return Rating{ID: id, File: "f.jsonl", Line: line, Values: vs, Length: -1}
}

func TestCompareJoin(t *testing.T) {
	rb := testRubric()
	human := []Rating{
		rating("a", 1, sv(5), sv(2), sv(1)),
		rating("b", 2, sv(4), na, sv(1)),
		rating("c", 3, sv(2), sv(1), sv(0)),
		rating("h-only", 4, sv(3), sv(1), sv(1)),
		rating("d", 5, sv(3), miss, sv(1)),
	}
	judge := []Rating{
		rating("j-only2", 1, sv(5), sv(2), sv(1)),
		rating("d", 2, sv(3), sv(2), sv(1)),
		rating("c", 3, sv(4), sv(1), sv(1)),
		rating("b", 4, sv(4), sv(0), sv(1)),
		rating("a", 5, sv(4), sv(2), sv(1)),
		{ID: "j-only1", File: "f.jsonl", Line: 6, Error: "timeout", Length: -1},
	}
	rep, err := Compare(rb, human, judge, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"h-only"}; !reflect.DeepEqual(rep.OnlyInHuman, want) {
		t.Errorf("only_in_human = %v, want %v", rep.OnlyInHuman, want)
	}
	if want := []string{"j-only1", "j-only2"}; !reflect.DeepEqual(rep.OnlyInJudge, want) {
		t.Errorf("only_in_judge = %v, want %v", rep.OnlyInJudge, want)
	}
	if rep.Metric != MetricExact || rep.MinAgreement != 0.75 || rep.Rubric.Hash != rb.Hash() || rep.Rubric.Name != "rag" {
		t.Errorf("header = %+v %v %v", rep.Rubric, rep.Metric, rep.MinAgreement)
	}
	f := rep.Criteria[0]
	if f.N != 4 || f.NAOrMissing != 0 {
		t.Errorf("faithfulness n = %d, na_or_missing = %d, want 4, 0", f.N, f.NAOrMissing)
	}
	approx(t, "faithfulness exact", f.Exact, 0.5, 1e-12)
	approx(t, "faithfulness adjacent", f.Adjacent, 0.75, 1e-12)
	// judge - human: a -1, b 0, c +2, d 0 -> mean 0.25
	approx(t, "faithfulness mean_diff", f.MeanDiff, 0.25, 1e-12)
	wantD := []Disagreement{{ID: "c", Human: 2, Judge: 4, Diff: 2}, {ID: "a", Human: 5, Judge: 4, Diff: -1}}
	if !reflect.DeepEqual(f.Disagreements, wantD) {
		t.Errorf("disagreements = %+v, want %+v", f.Disagreements, wantD)
	}
	if f.Confusion.Counts[1][3] != 1 || f.Confusion.Counts[4][3] != 1 || f.Confusion.total() != 4 {
		t.Errorf("confusion = %v", f.Confusion.Counts)
	}
	if f.Pass || f.Advice == "" {
		t.Errorf("faithfulness pass = %v advice %q, want a failure with advice", f.Pass, f.Advice)
	}
	c := rep.Criteria[1]
	// b: na vs 0, d: missing vs 2 -> left out; a and c pair.
	if c.N != 2 || c.NAOrMissing != 2 {
		t.Errorf("citation n = %d, na_or_missing = %d, want 2, 2", c.N, c.NAOrMissing)
	}
	approx(t, "citation exact", c.Exact, 1, 0)
	if !c.Pass || c.Advice != "" {
		t.Errorf("citation pass = %v advice %q", c.Pass, c.Advice)
	}
	s := rep.Criteria[2]
	approx(t, "safety exact", s.Exact, 0.75, 1e-12)
	if !s.Pass {
		t.Errorf("safety exact 0.75 should reach min 0.75")
	}
	if rep.Passed {
		t.Error("report passed with a failing criterion")
	}
}

func TestCompareDuplicates(t *testing.T) {
	rb := testRubric()
	one := []Rating{rating("a", 1, sv(1), sv(1), sv(1))}
	dup := []Rating{rating("a", 3, sv(1), sv(1), sv(1)), rating("b", 4), rating("a", 7, sv(2))}
	tests := []struct {
		name         string
		human, judge []Rating
		want         string
	}{
		{"human", dup, one, "human ratings: f.jsonl:7: duplicate item id \"a\" (first at f.jsonl:3)"},
		{"judge", one, dup, "judge ratings: f.jsonl:7: duplicate item id \"a\" (first at f.jsonl:3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Compare(rb, tt.human, tt.judge, Options{})
			var de *DuplicateError
			if !errors.As(err, &de) {
				t.Fatalf("err = %v, want *DuplicateError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %q\nwant  %q", err, tt.want)
			}
		})
	}
}

func TestComparePassMetric(t *testing.T) {
	rb := &rubric.Rubric{Name: "r", Criteria: []rubric.Criterion{{ID: "q", Name: "Q", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5}}}}
	// 8 pairs: 6 exact, 2 off by one.
	h := []int{1, 2, 3, 4, 5, 3, 2, 4}
	j := []int{1, 2, 3, 4, 5, 3, 3, 5}
	var human, judge []Rating
	for i := range h {
		id := string(rune('a' + i))
		human = append(human, rating(id, i+1, sv(h[i])))
		judge = append(judge, rating(id, i+1, sv(j[i])))
	}
	tests := []struct {
		metric Metric
		min    float64
		pass   bool
	}{
		{MetricExact, 0.75, true},  // 0.75 reaches 0.75
		{MetricExact, 0.76, false}, // 0.75 < 0.76
		{MetricAdjacent, 1, true},  // every pair within one level
		{MetricKappa, 0.75, false}, // kappa 0.68 < 0.75
		{MetricKappaQuadratic, 0.9, true},
		{MetricAlpha, 0.9, true},
		{MetricAlphaInterval, 0.99, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.metric), func(t *testing.T) {
			rep, err := Compare(rb, human, judge, Options{Metric: tt.metric, MinAgreement: tt.min})
			if err != nil {
				t.Fatal(err)
			}
			c := rep.Criteria[0]
			if c.Pass != tt.pass || rep.Passed != tt.pass {
				t.Errorf("%s = %v, min %v: pass = %v, want %v", tt.metric, *c.Value(tt.metric), tt.min, c.Pass, tt.pass)
			}
			if (c.Advice == "") != tt.pass {
				t.Errorf("advice %q for pass = %v", c.Advice, c.Pass)
			}
		})
	}
}

func TestAdvice(t *testing.T) {
	five := rubric.Scale{Low: 1, High: 5}
	three := rubric.Scale{Low: 0, High: 2}
	tests := []struct {
		name  string
		scale rubric.Scale
		h, j  []int
		want  []string
	}{
		{"levels 2 and 4 involved", five, []int{4, 4, 4, 2, 1, 5}, []int{5, 5, 3, 3, 1, 5},
			[]string{"human 4 vs judge 5 (2), human 2 vs judge 3 (1), human 4 vs judge 3 (1)", "levels 2 and 4"}},
		{"other levels", five, []int{1, 1, 3, 5, 3}, []int{3, 3, 3, 5, 5},
			[]string{"human 1 vs judge 3 (2), human 3 vs judge 5 (1)", "Sharpen the anchors of levels 1, 3, 5"}},
		{"short scale", three, []int{0, 1, 2, 2}, []int{1, 2, 1, 2},
			[]string{"Sharpen the anchors of levels 0, 1, 2"}},
		{"one level only", five, []int{3, 3}, []int{4, 4},
			[]string{"human 3 vs judge 4 (2)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := rubric.Criterion{ID: "x", Name: "X", Weight: 1, Scale: tt.scale}
			var ps []pair
			for i := range tt.h {
				ps = append(ps, pair{id: string(rune('a' + i)), a: sv(tt.h[i]), b: sv(tt.j[i])})
			}
			ca := agreement(&c, ps, Options{}.withDefaults(), humanJudge)
			if ca.Pass {
				t.Fatalf("passed: %+v", ca)
			}
			for _, w := range tt.want {
				if !strings.Contains(ca.Advice, w) {
					t.Errorf("advice %q lacks %q", ca.Advice, w)
				}
			}
		})
	}
	t.Run("no pairs", func(t *testing.T) {
		c := rubric.Criterion{ID: "x", Scale: five, NA: true}
		ca := agreement(&c, []pair{{id: "a", a: na, b: gate.Value{}}}, Options{}.withDefaults(), humanJudge)
		if ca.Pass || ca.Exact != nil || !strings.Contains(ca.Advice, "na or missing") {
			t.Errorf("pass %v exact %v advice %q", ca.Pass, ca.Exact, ca.Advice)
		}
	})
	t.Run("undefined alpha", func(t *testing.T) {
		c := rubric.Criterion{ID: "x", Scale: five}
		o := Options{Metric: MetricAlpha}.withDefaults()
		ca := agreement(&c, []pair{{id: "a", a: sv(5), b: sv(5)}, {id: "b", a: sv(5), b: sv(5)}}, o, humanJudge)
		if ca.Pass || ca.AlphaOrdinal != nil || *ca.Kappa != 1 || !strings.Contains(ca.Advice, "undefined") {
			t.Errorf("pass %v alpha %v kappa %v advice %q", ca.Pass, ca.AlphaOrdinal, *ca.Kappa, ca.Advice)
		}
	})
}

func TestTopDisagreements(t *testing.T) {
	c := rubric.Criterion{ID: "x", Scale: rubric.Scale{Low: 1, High: 5}}
	var ps []pair
	// 12 disagreements: ids z..o with |diff| 1, and "m" with 4, "n" with -4.
	for i, id := range []string{"z", "y", "x", "w", "v", "u", "t", "s", "r", "q"} {
		_ = i
		ps = append(ps, pair{id: id, a: sv(2), b: sv(3)})
	}
	ps = append(ps, pair{id: "n", a: sv(5), b: sv(1)}, pair{id: "m", a: sv(1), b: sv(5)}, pair{id: "same", a: sv(3), b: sv(3)})
	ca := agreement(&c, ps, Options{}.withDefaults(), humanJudge)
	var ids []string
	for _, d := range ca.Disagreements {
		ids = append(ids, d.ID)
	}
	want := []string{"m", "n", "q", "r", "s", "t", "u", "v", "w", "x"}
	if !reflect.DeepEqual(ids, want) {
		t.Errorf("top disagreements = %v, want %v", ids, want)
	}
}

func TestCompareBadOptions(t *testing.T) {
	rb := testRubric()
	for _, o := range []Options{{Metric: "pearson"}, {MinAgreement: 75}} {
		if _, err := Compare(rb, nil, nil, o); err == nil {
			t.Errorf("Compare accepted options %+v", o)
		}
		if _, err := CompareReviewers(rb, nil, o); err == nil {
			t.Errorf("CompareReviewers accepted options %+v", o)
		}
	}
}

func TestJudgeModels(t *testing.T) {
	rs := []Rating{{JudgeModel: "gpt-4o"}, {}, {JudgeModel: "claude-3"}, {JudgeModel: "gpt-4o"}}
	if got := JudgeModels(rs); !reflect.DeepEqual(got, []string{"claude-3", "gpt-4o"}) {
		t.Errorf("JudgeModels = %v", got)
	}
}

// BenchmarkCompare joins and measures 10,000 items on five criteria.
func BenchmarkCompare(b *testing.B) {
	s := rubric.Scale{Low: 1, High: 5}
	rb := &rubric.Rubric{Name: "bench"}
	for _, id := range []string{"a", "b", "c", "d", "e"} {
		rb.Criteria = append(rb.Criteria, rubric.Criterion{ID: id, Name: id, Weight: 1, Scale: s})
	}
	const n = 10000
	human := make([]Rating, n)
	judge := make([]Rating, n)
	for i := range human {
		id := fmt.Sprintf("item-%05d", i)
		hv := make([]gate.Value, 5)
		jv := make([]gate.Value, 5)
		for c := range hv {
			hv[c] = sv(1 + (i*7+c)%5)
			jv[c] = sv(1 + (i*7+c+i%3)%5)
		}
		human[i] = Rating{ID: id, Values: hv}
		judge[n-1-i] = Rating{ID: id, Values: jv}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Compare(rb, human, judge, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseMetric(t *testing.T) {
	for in, want := range map[string]Metric{"exact": MetricExact, " Kappa ": MetricKappa, "alpha": MetricAlpha, "alpha_ordinal": MetricAlpha, "alpha_interval": MetricAlphaInterval, "adjacent": MetricAdjacent, "kappa_quadratic": MetricKappaQuadratic} {
		if got, err := ParseMetric(in); err != nil || got != want {
			t.Errorf("ParseMetric(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	if _, err := ParseMetric("pearson"); err == nil {
		t.Error("ParseMetric(pearson) succeeded")
	}
}

func TestCheckFresh(t *testing.T) {
	rep := &Report{Rubric: RubricRef{Name: "r", Hash: "sha256:old"}}
	if err := CheckFresh(rep, "sha256:old"); err != nil {
		t.Errorf("fresh report: %v", err)
	}
	err := CheckFresh(rep, "sha256:new")
	var se *StaleError
	if !errors.As(err, &se) || se.Calibrated != "sha256:old" || se.Current != "sha256:new" {
		t.Fatalf("err = %v, want *StaleError old -> new", err)
	}
	if !strings.Contains(err.Error(), "sha256:old") || !strings.Contains(err.Error(), "sha256:new") {
		t.Errorf("message %q does not name both hashes", err)
	}
	if CheckFresh(nil, "x") == nil {
		t.Error("nil report is fresh")
	}
}

// sampleReport is a report with every kind of figure, for round trips.
func sampleReport(t *testing.T) *Report {
	t.Helper()
	rb := testRubric()
	human := []Rating{rating("a", 1, sv(5), na, sv(1)), rating("b", 2, sv(4), sv(1), sv(1))}
	judge := []Rating{rating("a", 1, sv(5), sv(0), sv(1)), rating("b", 2, sv(2), sv(1), sv(1)), rating("c", 3)}
	rep, err := Compare(rb, human, judge, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestReportJSONRoundTrip(t *testing.T) {
	rep := sampleReport(t)
	data, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("NaN")) {
		t.Fatalf("NaN in JSON: %s", data)
	}
	back, err := ReadReport(bytes.NewReader(data), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, rep) {
		t.Errorf("round trip differs:\n got %+v\nwant %+v", back, rep)
	}
}

func TestReadReportErrors(t *testing.T) {
	good, err := json.MarshalIndent(sampleReport(t), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(from, to string) string { return strings.Replace(string(good), from, to, 1) }
	tests := []struct {
		name  string
		in    string
		limit int64
		want  string
	}{
		{"too large", string(good), 100, "larger than 100 bytes"},
		{"unknown key", edit(`"metric"`, `"bogus": 1, "metric"`), 0, `line 6: invalid JSON: json: unknown field "bogus"`},
		{"syntax", edit(`"metric": "exact"`, `"metric": exact`), 0, "line 6: invalid JSON"},
		{"wrong type", edit(`"min_agreement": 0.75`, `"min_agreement": "high"`), 0, "line 7: invalid JSON"},
		{"trailing", string(good) + "{}", 0, "unexpected data after the report"},
		{"empty hash", strings.Replace(string(good), rubricHashOf(t, good), "", 1), 0, "rubric.hash is missing"},
		{"bad metric", edit(`"metric": "exact"`, `"metric": "pearson"`), 0, `metric "pearson"`},
		{"bad min", edit(`"min_agreement": 0.75`, `"min_agreement": 7.5`), 0, "min_agreement 7.5"},
		{"ragged confusion", edit(`"counts": [`, `"counts": [[1],`), 0, "not square"},
		{"gap in levels", edit("1,\n          2,\n          3,\n          4,\n          5", "1,\n          2,\n          3,\n          4,\n          7"), 0, "not consecutive"},
		{"negative count", edit(`"n": 2`, `"n": -2`), 0, "negative count"},
		{"count mismatch", edit(`"n": 2`, `"n": 3`), 0, "confusion matrix counts 2 pairs, n is 3"},
		{"empty", "", 0, "invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadReport(strings.NewReader(tt.in), tt.limit)
			var re *ReportError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v, want *ReportError", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func rubricHashOf(t *testing.T, data []byte) string {
	t.Helper()
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	return r.Rubric.Hash
}

func TestNotApplicableCriterion(t *testing.T) {
	two := 2.0
	rb := &rubric.Rubric{Name: "r", Criteria: []rubric.Criterion{
		{ID: "grounding", Name: "grounding", Weight: 1, Scale: rubric.Scale{Low: 0, High: 2}, Critical: &two},
		{ID: "citation", Name: "citation", Weight: 1, Scale: rubric.Scale{Low: 0, High: 2}, NA: true},
	}}
	mk := func(id string, g int, c gate.Value) Rating {
		return Rating{ID: id, Values: []gate.Value{{Score: float64(g), State: gate.Scored}, c}}
	}
	na := gate.Value{State: gate.NA}
	human := []Rating{mk("a", 2, na), mk("b", 1, na), mk("c", 0, na)}
	judge := []Rating{mk("a", 2, na), mk("b", 1, na), mk("c", 0, na)}
	rep, err := Compare(rb, human, judge, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rep.Criteria[1]
	if !c.NotApplicable || !c.Pass || c.Exact != nil || !rep.Passed {
		t.Fatalf("both-na criterion: %+v passed=%v", c, rep.Passed)
	}
	d := DecideTier(DefaultTiers, 10, true, rep, rb, 0.8)
	if !d.MayAdvance {
		t.Errorf("a not-applicable criterion held the tier: %v", d.HeldBy)
	}
	// One side scored where the other says na: not "not applicable".
	judge[0] = mk("a", 2, gate.Value{Score: 2, State: gate.Scored})
	rep, _ = Compare(rb, human, judge, Options{})
	if c := rep.Criteria[1]; c.NotApplicable || c.Pass {
		t.Errorf("one-sided na: %+v", c)
	}
}
