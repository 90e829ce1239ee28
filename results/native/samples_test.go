package native

import (
	"encoding/json"
	"fmt"
	"github.com/rubricgate/rubricgate/gate"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/rubric"
)

// contRubric has a continuous criterion with a non-integer blocking minimum
// next to integer ones.
func contRubric() *rubric.Rubric {
	return &rubric.Rubric{
		Name:      "cont",
		Threshold: 50,
		Criteria: []rubric.Criterion{
			{ID: "helpfulness", Name: "helpfulness", Weight: 1, Scale: rubric.Scale{Low: 0, High: 1}, Continuous: true,
				Critical: intp(0.35), Blocking: true, From: map[string]rubric.Source{"promptfoo": {Metric: "Helpful"}}},
			{ID: "accuracy", Name: "accuracy", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5},
				From: map[string]rubric.Source{"deepeval": {Metric: "Answer Relevancy", Scale: nil}}},
			{ID: "citation", Name: "citation", Weight: 1, Scale: rubric.Scale{Low: 0, High: 2}, NA: true, Critical: intp(2)},
		},
		NotesRequiredFor: []int{0},
	}
}

func TestContinuousValues(t *testing.T) {
	rb := contRubric()
	items, err := readAll(t, rb, "c.jsonl", `{"id":"a","helpfulness":0.35,"accuracy":4,"citation":2}
{"id":"b","scores":{"helpfulness":"0.125","accuracy":5.0,"citation":"na"}}
{"id":"c","helpfulness":1e-1,"accuracy":40e-1,"citation":2}
`, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []float64{0.35, 0.125, 0.1} {
		if v := items[k].Values[0]; v.State != gate.Scored || v.Score != want {
			t.Errorf("item %d helpfulness = %+v, want %v", k, v, want)
		}
	}
	if items[0].Values[0].Below || !items[2].Values[0].Below {
		t.Error("the non-integer minimum 0.35 is not applied")
	}
	for _, tt := range []struct{ name, line, want string }{
		{"non-integer on an integer criterion", `{"id":"x","helpfulness":0.5,"accuracy":4.5,"citation":2}`, `criterion "accuracy": expected an integer score on 1..5, got "4.5"`},
		{"almost an integer", `{"id":"x","helpfulness":0.5,"accuracy":4.9999999999999999,"citation":2}`, `expected an integer score on 1..5, got "4.9999999999999999"`},
		{"above the continuous scale", `{"id":"x","helpfulness":1.0000001,"accuracy":4,"citation":2}`, `criterion "helpfulness": score 1.0000001 is outside its scale 0..1`},
		{"huge exponent", `{"id":"x","helpfulness":1e400,"accuracy":4,"citation":2}`, `criterion "helpfulness": expected a number within 0..1, got "1e400"`},
		{"NaN string", `{"id":"x","helpfulness":"NaN","accuracy":4,"citation":2}`, `expected a number within 0..1, got "NaN"`},
		{"Inf string", `{"id":"x","helpfulness":"-Inf","accuracy":4,"citation":2}`, `got "-Inf"`},
		{"hex float string", `{"id":"x","helpfulness":"0x1p-2","accuracy":4,"citation":2}`, `got "0x1p-2"`},
		{"na not allowed", `{"id":"x","helpfulness":"na","accuracy":4,"citation":2}`, `"na" is not allowed`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readAll(t, rb, "c.jsonl", tt.line+"\n", ReadOptions{})
			wantInputError(t, err, "c.jsonl", 1, tt.want)
		})
	}
	// A review sheet takes decimals in a continuous column.
	items, err = readAll(t, rb, "c.csv", "id,helpfulness,accuracy,citation\nq, 0.75 ,3,na\n", ReadOptions{})
	if err != nil || items[0].Values[0].Score != 0.75 {
		t.Fatalf("csv: %v %+v", err, items)
	}
	_, err = readAll(t, rb, "c.csv", "id,helpfulness,accuracy,citation\nq,1_0,3,na\n", ReadOptions{})
	wantInputError(t, err, "c.csv", 2, `got "1_0"`)
}

func TestContinuousReport(t *testing.T) {
	rb := contRubric()
	var b strings.Builder
	for i, h := range []string{"0", "0.05", "0.1", "0.34", "0.5", "0.999", "1"} {
		fmt.Fprintf(&b, `{"id":"i%d","helpfulness":%s,"accuracy":3,"citation":2,"reasoning":"r%d"}`+"\n", i, h, i)
	}
	rep, err := scoreText(t, rb, ScoreOptions{}, "c.jsonl", b.String())
	if err != nil {
		t.Fatal(err)
	}
	st := rep.Criteria[0]
	if len(st.Histogram) != 0 || len(st.Bins) != 10 {
		t.Fatalf("histogram %v bins %v", st.Histogram, st.Bins)
	}
	want := []int{2, 1, 0, 1, 0, 1, 0, 0, 0, 2}
	for j, bin := range st.Bins {
		if bin.Count != want[j] || math.Abs(bin.Low-float64(j)/10) > 1e-12 || math.Abs(bin.High-float64(j+1)/10) > 1e-12 {
			t.Errorf("bin %d = %+v, want count %d", j, bin, want[j])
		}
	}
	if st.BelowMin != 4 || len(rep.BlockingFailures) != 4 || rep.BlockingFailures[3].Score != 0.34 {
		t.Errorf("below %d, failures %+v", st.BelowMin, rep.BlockingFailures)
	}
	if m := (0 + 0.05 + 0.1 + 0.34 + 0.5 + 0.999 + 1) / 7; math.Abs(*st.Mean-m) > 1e-12 {
		t.Errorf("mean %v, want %v", *st.Mean, m)
	}
	if h := rep.Criteria[1].Histogram; h[3] != 7 || len(h) != 5 {
		t.Errorf("integer histogram %v", h)
	}
	if rep.MaxSamples != 0 || st.Spread != nil {
		t.Errorf("single judgings report samples %d spread %v", rep.MaxSamples, st.Spread)
	}
}

// The samples rules: mean per criterion; na when more than half say na,
// else na samples are ignored; the minimum is met by a strict majority of
// the scored samples (a tie fails).
func TestSamplesRules(t *testing.T) {
	rb := contRubric()
	s := func(h, a, c string, why string) string {
		return fmt.Sprintf(`{"scores":{"helpfulness":%s,"accuracy":%s,"citation":%s},"reasoning":%q}`, h, a, c, why)
	}
	line := func(id string, samples ...string) string {
		return fmt.Sprintf(`{"id":%q,"samples":[%s]}`, id, strings.Join(samples, ","))
	}
	text := strings.Join([]string{
		line("mean", s("0.2", "3", "2", "low"), s("0.5", "4", "2", "ok"), s("0.8", "4", "2", "good")),
		line("na-majority", s("0.5", "3", `"na"`, ""), s("0.5", "3", `"na"`, ""), s("0.5", "3", "2", "")),
		line("na-minority", s("0.5", "3", `"na"`, ""), s("0.5", "3", "1", ""), s("0.5", "3", "2", "")),
		line("tie", s("0.1", "3", "2", "first fails"), s("0.9", "3", "2", "second passes")),
		line("majority-meets", s("0.1", "3", "2", "fails"), s("0.9", "3", "2", ""), s("0.4", "3", "2", "")),
		line("majority-fails", s("0.9", "3", "2", "fine"), s("0.2", "3", "2", "why 2"), s("0.3", "3", "2", "why 3")),
		line("na-tie", s("0.5", "3", `"na"`, ""), s("0.5", "3", "2", "")),
	}, "\n") + "\n"
	items, err := readAll(t, rb, "s.jsonl", text, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := items[0].Values
	if m[0].Score != (0.2+0.5+0.8)/3 || m[1].Score != 11.0/3 || m[0].N != 3 || items[0].Samples != 3 {
		t.Errorf("means %+v", m)
	}
	if sd := math.Sqrt((0.09 + 0 + 0.09) / 2); math.Abs(m[0].Spread-sd) > 1e-12 {
		t.Errorf("spread %v, want %v", m[0].Spread, sd)
	}
	if m[0].Below {
		t.Error("mean: 2 of 3 samples meet 0.35, so the item meets it")
	}
	if v := items[1].Values[2]; v.State != gate.NA || v.NAs != 2 {
		t.Errorf("na-majority citation %+v", v)
	}
	if v := items[2].Values[2]; v.State != gate.Scored || v.Score != 1.5 || v.N != 2 || !v.Below {
		t.Errorf("na-minority citation %+v (the na sample is ignored; 1 of 2 meets 2: a tie fails)", v)
	}
	if v := items[6].Values[2]; v.State != gate.Scored || v.Score != 2 || v.NAs != 1 {
		t.Errorf("na-tie citation %+v: half na is no majority", v)
	}
	if v := items[3].Values[0]; !v.Below || v.Score != 0.5 {
		t.Errorf("tie %+v: 1 of 2 meets, which is no majority", v)
	}
	if v := items[4].Values[0]; v.Below {
		t.Errorf("majority-meets %+v: 0.9 and 0.4 meet 0.35, 2 of 3", v)
	}
	if v := items[5].Values[0]; !v.Below {
		t.Errorf("majority-fails %+v", v)
	}

	rep, err := scoreText(t, rb, ScoreOptions{}, "s.jsonl", text)
	if err != nil {
		t.Fatal(err)
	}
	if rep.MaxSamples != 3 || rep.Criteria[0].Spread == nil {
		t.Fatalf("report samples %d spread %v", rep.MaxSamples, rep.Criteria[0].Spread)
	}
	// helpfulness spread: the mean of the per-item standard deviations of
	// the items (each has two or more samples).
	var sds float64
	for _, it := range items {
		sds += it.Values[0].Spread
	}
	if got, want := *rep.Criteria[0].Spread, sds/float64(len(items)); math.Abs(got-want) > 1e-12 || want == 0 {
		t.Errorf("spread %v, want %v", got, want)
	}
	var fails []string
	for _, f := range rep.BlockingFailures {
		fails = append(fails, f.Item+":"+f.Reasoning)
	}
	// The reasoning shown is the first failing sample's.
	if got := strings.Join(fails, " "); got != "tie:first fails majority-fails:why 2" {
		t.Errorf("blocking failures %q", got)
	}
	js, _ := json.Marshal(rep)
	if !strings.Contains(string(js), `"max_samples":3`) || !strings.Contains(string(js), `"spread":`) {
		t.Errorf("JSON lacks samples or spread: %s", js)
	}
}

func TestSamplesErrors(t *testing.T) {
	rb := contRubric()
	ok := `{"scores":{"helpfulness":0.5,"accuracy":3,"citation":2}}`
	for _, tt := range []struct{ name, line, want string }{
		{"both scores and samples", `{"id":"x","scores":{"helpfulness":0.5},"samples":[` + ok + `]}`, `both "samples" and scores`},
		{"top-level criterion and samples", `{"id":"x","accuracy":3,"samples":[` + ok + `]}`, `both "samples" and scores`},
		{"empty samples", `{"id":"x","samples":[]}`, `"samples" is empty`},
		{"samples not an array", `{"id":"x","samples":{}}`, `"samples" must be an array`},
		{"sample not an object", `{"id":"x","samples":[` + ok + `,3]}`, `samples[1] must be an object`},
		{"sample without scores", `{"id":"x","samples":[` + ok + `,{"reasoning":"r"}]}`, `samples[1]: expected an object with "scores"`},
		{"sample missing a criterion", `{"id":"x","samples":[` + ok + `,{"scores":{"helpfulness":0.5,"accuracy":3}}]}`, `samples[1]: missing a score for criterion "citation"`},
		{"every sample missing a criterion", `{"id":"x","samples":[{"scores":{"helpfulness":0.5,"accuracy":3}}]}`, `missing a score for criterion "citation"`},
		{"bad value in a sample", `{"id":"x","samples":[` + ok + `,{"scores":{"helpfulness":0.5,"accuracy":3.5,"citation":2}}]}`, `samples[1]: criterion "accuracy": expected an integer score on 1..5`},
		{"unknown criterion in a sample", `{"id":"x","samples":[{"scores":{"helpfulness":0.5,"accuracy":3,"citation":2,"tone":1}}]}`, `samples[0]: unknown criterion "tone"`},
		{"criterion twice in a sample", `{"id":"x","samples":[{"scores":{"helpfulness":0.5,"Helpfulness":0.5,"accuracy":3,"citation":2}}]}`, `samples[0]: criterion "helpfulness" given twice`},
		{"note required per sample", `{"id":"x","samples":[` + ok + `,{"scores":{"helpfulness":0.5,"accuracy":3,"citation":0}}]}`, `samples[1]: criterion "citation": a score of 0 needs a note`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := readAll(t, rb, "s.jsonl", "\n"+tt.line+"\n", ReadOptions{})
			wantInputError(t, err, "s.jsonl", 2, tt.want)
		})
	}
	// A note on the item satisfies notes_required_for; an unscored item's
	// samples are not looked at; extra keys in a sample are skipped.
	_, err := readAll(t, rb, "s.jsonl", `{"id":"x","notes":"n","samples":[`+ok+`,{"scores":{"helpfulness":0.5,"accuracy":3,"citation":0},"seed":7}]}
{"id":"y","error":"timeout","samples":[{"scores":{}}]}
`, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// The baseline rubric's blocking gates apply the same majority rule, and
// any na sample fails a gate whose rubric does not allow na.
func TestCheckBlockingSamples(t *testing.T) {
	base := contRubric()
	base.Criteria[2].Blocking = true
	base.Criteria[2].NA = false
	text := `{"id":"meets","samples":[{"scores":{"helpfulness":0.9,"citation":2}},{"scores":{"helpfulness":0.1,"citation":2}},{"scores":{"helpfulness":0.5,"citation":2}}]}
{"id":"tie","samples":[{"scores":{"helpfulness":0.9,"citation":2}},{"scores":{"helpfulness":0.1,"citation":2}}]}
{"id":"na","samples":[{"scores":{"helpfulness":0.9,"citation":2}},{"scores":{"helpfulness":0.9,"citation":"na"}},{"scores":{"helpfulness":0.9,"citation":2}}]}
{"id":"off","samples":[{"scores":{"helpfulness":0.9,"citation":2}},{"scores":{"helpfulness":0.9,"citation":3}},{"scores":{"helpfulness":0.9,"citation":1}}]}
`
	gc, err := CheckBlocking(base, []Input{{Name: "s.jsonl", R: strings.NewReader(text)}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range gc.Failures {
		got = append(got, f.Item+"/"+f.Criterion)
	}
	if s := strings.Join(got, " "); s != "tie/helpfulness na/citation off/citation" {
		t.Errorf("failures %q", s)
	}
	if !strings.Contains(gc.Failures[2].Reasoning, "3 is outside the baseline's scale 0..2") {
		t.Errorf("off-scale sample: %q", gc.Failures[2].Reasoning)
	}
}

// h11 F10: the majority rule (a minimum is met when more than half of the
// samples meet it) never hides a failing judging silently: the report
// counts, per criterion, the items whose failing sample was outvoted, and
// warns for blocking criteria, naming them.
func TestSamplesOutvotedFailureIsReported(t *testing.T) {
	s := func(safety int) string {
		return fmt.Sprintf(`{"scores":{"accuracy":5,"resolution":5,"tone":5,"safety":%d}}`, safety)
	}
	line := func(id string, samples ...string) string {
		return fmt.Sprintf(`{"id":%q,"samples":[%s]}`, id, strings.Join(samples, ","))
	}
	text := strings.Join([]string{
		line("leak", s(0), s(1), s(1)),
		line("clean", s(1), s(1), s(1)),
		line("leak-2", s(1), s(0), s(1)),
		line("fails", s(0), s(0), s(1)),
	}, "\n") + "\n"
	rep, err := Score(supportRubric(), []Input{{Name: "s.jsonl", R: strings.NewReader(text)}}, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	st := rep.Criteria[3]
	if st.ID != "safety" || st.Outvoted != 2 || st.BelowMin != 1 {
		t.Fatalf("safety: outvoted %d, below_min %d; want 2 and 1", st.Outvoted, st.BelowMin)
	}
	if len(rep.BlockingFailures) != 1 || rep.BlockingFailures[0].Item != "fails" {
		t.Errorf("the majority rule changed: failures %v", rep.BlockingFailures)
	}
	want := "safety: 2 item(s) had a failing judging outvoted by the majority (more than half of their judgings met the minimum): leak, leak-2"
	if !slices.Contains(rep.Warnings, want) {
		t.Errorf("warnings %q, want %q", rep.Warnings, want)
	}
}
