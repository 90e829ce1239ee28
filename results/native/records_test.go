package native

import (
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/gate"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/rubric"
)

// recs is a Records input built in memory, as a format reader would.
type recs struct {
	format string
	list   []Record
	err    error // returned after the records
}

func (r *recs) Format() string { return r.format }

func (r *recs) Each(fn func(*Record) error) error {
	for i := range r.list {
		rec := r.list[i] // a fresh copy each call
		if err := fn(&rec); err != nil {
			return err
		}
	}
	return r.err
}

func metrics(kv ...any) []Metric {
	var out []Metric
	for i := 0; i+1 < len(kv); i += 2 {
		m := Metric{Name: kv[i].(string)}
		if kv[i+1] == "na" {
			m.NA = true
		} else {
			m.Value = kv[i+1].(float64)
		}
		out = append(out, m)
	}
	return out
}

func TestRecordsScore(t *testing.T) {
	rb := contRubric()
	rb.Criteria[0].From["ragas"] = rubric.Source{Metric: "faith", Scale: &rubric.Scale{Low: 0, High: 100}}
	src := &recs{format: "promptfoo", list: []Record{
		// promptfoo's "Helpful" feeds helpfulness through `from`; accuracy
		// and citation by id; "latency" feeds nothing and is ignored.
		{ID: "a", Line: 3, Samples: []Sample{{Metrics: metrics("Helpful", 0.9, "accuracy", 4.0, "citation", 2.0, "latency", 812.0)}}, JudgeModel: "j"},
		{ID: "b", Where: "results[1]", Samples: []Sample{
			{Metrics: metrics("Helpful", 0.2, "accuracy", 3.0, "citation", "na"), Reasoning: "too short"},
			{Metrics: metrics("Helpful", 0.3, "accuracy", 4.0, "citation", "na")},
		}},
		{ID: "c", Where: "results[2]", Error: "provider timeout"},
	}}
	var got []gate.ItemResult
	rep, err := Score(rb, []Input{{Name: "out.json", Records: src}}, ScoreOptions{OnItem: func(r *gate.ItemResult) error { got = append(got, *r); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Items != 3 || rep.Scored != 2 || rep.Unscored.Count != 1 || rep.MaxSamples != 2 {
		t.Fatalf("report %+v", rep)
	}
	if *rep.Criteria[0].Mean != (0.9+0.25)/2 || rep.Criteria[2].NA != 1 {
		t.Errorf("helpfulness mean %v, citation na %d", *rep.Criteria[0].Mean, rep.Criteria[2].NA)
	}
	// c is unscored with no value for the blocking criterion: it fails closed.
	if len(rep.BlockingFailures) != 2 || rep.BlockingFailures[0].Item != "b" || rep.BlockingFailures[0].Reasoning != "too short" ||
		rep.BlockingFailures[1].Item != "c" || !rep.BlockingFailures[1].Unscored {
		t.Errorf("blocking %+v", rep.BlockingFailures)
	}
	if got[0].JudgeModel != "j" || !got[2].Unscored {
		t.Errorf("items %+v", got)
	}
	if u := rep.Unscored.List; len(u) != 1 || u[0].ID != "c" || u[0].Line != 0 || u[0].File != "out.json" {
		t.Errorf("unscored %+v: a record without a line has none", u)
	}

	// ragas reports faithfulness on 0-100 here: mapped onto 0-1.
	rg := &recs{format: "ragas", list: []Record{{ID: "r", Line: 2, Samples: []Sample{{Metrics: metrics("faith", 40.0, "accuracy", 5.0, "citation", 2.0)}}}}}
	rep, err = Score(rb, []Input{{Name: "r.csv", Records: rg}}, ScoreOptions{})
	if err != nil || *rep.Criteria[0].Mean != 0.4 {
		t.Fatalf("source scale: %v %v", err, rep)
	}
}

func TestRecordsErrors(t *testing.T) {
	rb := contRubric()
	full := func(h float64) []Sample {
		return []Sample{{Metrics: metrics("Helpful", h, "accuracy", 4.0, "citation", 2.0)}}
	}
	for _, tt := range []struct {
		name string
		rec  Record
		line int
		want string
	}{
		{"missing criterion, by path", Record{ID: "x", Where: "results[4]", Samples: []Sample{{Metrics: metrics("Helpful", 0.5, "citation", 2.0)}}}, 0, `results[4]: missing a score for criterion "accuracy"`},
		{"missing criterion, by line", Record{ID: "x", Line: 9, Samples: []Sample{{Metrics: metrics("Helpful", 0.5, "citation", 2.0)}}}, 9, `missing a score for criterion "accuracy"`},
		{"non-integer on an integer criterion", Record{ID: "x", Line: 2, Samples: []Sample{{Metrics: metrics("Helpful", 0.5, "accuracy", 0.8, "citation", 2.0)}}}, 2, `criterion "accuracy": expected an integer score on 1..5, got 0.8`},
		{"out of range", Record{ID: "x", Line: 2, Samples: full(1.5)}, 2, `criterion "helpfulness": score 1.5 is outside its scale 0..1`},
		{"NaN without NA", Record{ID: "x", Line: 2, Samples: []Sample{{Metrics: []Metric{{Name: "Helpful", Value: nanF()}, {Name: "accuracy", Value: 4}, {Name: "citation", Value: 2}}}}}, 2, `metric "Helpful": expected a finite number`},
		{"metric twice", Record{ID: "x", Line: 2, Samples: []Sample{{Metrics: metrics("Helpful", 0.5, "helpful", 0.6, "accuracy", 4.0, "citation", 2.0)}}}, 2, `criterion "helpfulness" given twice`},
		{"no judging", Record{ID: "x", Line: 2}, 2, "no judging"},
		{"no id", Record{Line: 2, Samples: full(0.5)}, 2, `missing "id"`},
		{"sample missing a criterion", Record{ID: "x", Line: 2, Samples: append(full(0.5), Sample{Metrics: metrics("Helpful", 0.5, "citation", 2.0)})}, 2, `samples[1]: missing a score for criterion "accuracy"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			src := &recs{format: "promptfoo", list: []Record{{ID: "ok", Line: 1, Samples: full(0.5)}, tt.rec}}
			_, err := Score(rb, []Input{{Name: "p.json", Records: src}}, ScoreOptions{})
			wantInputError(t, err, "p.json", tt.line, tt.want)
			err = ReadItems(rb, Input{Name: "p.json", Records: src}, ReadOptions{}, func(*Item) error { return nil })
			wantInputError(t, err, "p.json", tt.line, tt.want)
		})
	}
	// A reader's own error comes back; a plain error is wrapped with the file.
	src := &recs{format: "promptfoo", list: []Record{{ID: "ok", Line: 1, Samples: full(0.5)}}, err: errors.New("bad zip member")}
	_, err := Score(rb, []Input{{Name: "l.eval", Records: src}}, ScoreOptions{})
	wantInputError(t, err, "l.eval", 0, "bad zip member")
}

func nanF() float64 { var z float64; return z / z }

func TestRecordsDuplicateIDs(t *testing.T) {
	rb := contRubric()
	full := []Sample{{Metrics: metrics("Helpful", 0.5, "accuracy", 4.0, "citation", 2.0)}}
	var list []Record
	for i := 0; i < 2500; i++ { // several chunks
		list = append(list, Record{ID: fmt.Sprintf("q%d", i), Where: fmt.Sprintf("testCases[%d]", i), Samples: full})
	}
	list = append(list, Record{ID: "q7", Where: "testCases[2500]", Samples: full})
	_, err := Score(rb, []Input{{Name: "run.json", Records: &recs{format: "promptfoo", list: list}}}, ScoreOptions{})
	wantInputError(t, err, "run.json", 0, `testCases[2500]: duplicate id "q7" (first at run.json: testCases[7])`)

	rep, err := Score(rb, []Input{{Name: "run.json", Records: &recs{format: "promptfoo", list: list[:2500]}}}, ScoreOptions{})
	if err != nil || rep.Items != 2500 {
		t.Fatalf("%v %v", err, rep)
	}
	// Lines when the format has them, across a records input and a file.
	_, err = Score(rb, []Input{
		{Name: "a.jsonl", R: strings.NewReader(`{"id":"z","helpfulness":0.5,"accuracy":4,"citation":2}` + "\n")},
		{Name: "b.jsonl", Records: &recs{format: "promptfoo", list: []Record{{ID: "z", Line: 4, Samples: full}}}},
	}, ScoreOptions{})
	wantInputError(t, err, "b.jsonl", 4, `duplicate id "z" (first at a.jsonl:1)`)
}

// FuzzRecords feeds arbitrary metric values (NaN, infinities, off-scale,
// non-integers) and samples through the records path: errors are
// *InputError, accepted values obey the rubric.
func FuzzRecords(f *testing.F) {
	f.Add(0.5, 3.0, 2.0, 0.7, 4.0, 1.0, uint8(0), "q", "")
	f.Add(nanF(), 3.5, -1.0, 1e308, 5.0, 2.0, uint8(5), " ", "timeout")
	rb := contRubric()
	sc, _ := newSchema(rb, ReadOptions{})
	f.Fuzz(func(t *testing.T, h1, a1, c1, h2, a2, c2 float64, flags uint8, id, errMsg string) {
		m := func(h, a, c float64, bits uint8) []Metric {
			ms := []Metric{{Name: "Helpful", Value: h}, {Name: "ACCURACY", Value: a}, {Name: "citation", Value: c, NA: bits&1 != 0}}
			if bits&2 != 0 {
				ms = ms[:2]
			}
			return ms
		}
		rec := Record{ID: id, Line: 1, Error: errMsg, Samples: []Sample{{Metrics: m(h1, a1, c1, flags)}}}
		if flags&4 != 0 {
			rec.Samples = append(rec.Samples, Sample{Metrics: m(h2, a2, c2, flags>>3)})
		}
		if flags&64 != 0 {
			rec.Samples = nil
		}
		err := ReadItems(rb, Input{Name: "f.json", Records: &recs{format: "promptfoo", list: []Record{rec}}}, ReadOptions{}, func(it *Item) error {
			if strings.TrimSpace(it.ID) == "" {
				t.Fatalf("accepted an empty id")
			}
			if it.Error == "" {
				checkValues(t, it, sc)
			}
			return nil
		})
		var ie *InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("error %v is not an *InputError", err)
		}
	})
}

// A metric the tool says does not apply (NA) feeds `na` where the
// criterion allows it; elsewhere the item is unscored with an error that
// names the metric and the criterion: never a 0, never bad input. A
// criterion no metric feeds is na where it allows that.
func TestRecordsNANotAllowedIsUnscored(t *testing.T) {
	rb := contRubric()
	src := &recs{format: "promptfoo", list: []Record{
		{ID: "ok", Line: 1, Samples: []Sample{{Metrics: metrics("Helpful", 0.5, "accuracy", 4.0, "citation", "na")}}},
		// No metric feeds citation, which allows na: na.
		{ID: "absent", Line: 4, Samples: []Sample{{Metrics: metrics("Helpful", 0.5, "accuracy", 4.0)}}},
		{ID: "nan", Line: 2, Samples: []Sample{{Metrics: metrics("Helpful", "na", "accuracy", 4.0, "citation", 2.0)}}},
		{ID: "epoch", Line: 3, Samples: []Sample{
			{Metrics: metrics("Helpful", 0.5, "accuracy", 4.0, "citation", 2.0)},
			{Metrics: metrics("Helpful", 0.5, "accuracy", "na", "citation", 2.0)},
		}},
	}}
	var got []gate.ItemResult
	rep, err := Score(rb, []Input{{Name: "p.json", Records: src}}, ScoreOptions{MaxUnscored: 1, OnItem: func(r *gate.ItemResult) error { got = append(got, *r); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Items != 4 || rep.Scored != 2 || len(got) != 4 || got[0].Unscored || got[1].Unscored || rep.Criteria[2].NA != 2 {
		t.Fatalf("items %d scored %d, results %+v", rep.Items, rep.Scored, got)
	}
	for k, want := range map[int]string{
		2: `promptfoo says metric "Helpful" does not apply (na) and criterion "helpfulness" does not allow na`,
		3: `samples[1]: promptfoo says metric "accuracy" does not apply (na)`,
	} {
		if !got[k].Unscored || !strings.Contains(got[k].Reasoning, want) {
			t.Errorf("item %s: unscored %v, error %q; want %q", got[k].ID, got[k].Unscored, got[k].Reasoning, want)
		}
	}
}

// A metric the tool failed to score (Unscored: its NaN or null) is not a
// not-applicable verdict: the item is unscored even where the criterion
// allows na, its blocking criterion fails closed, and a value another
// sample carries for that criterion does not pass the gate for it (the
// failed sample might have been below the minimum), under the current
// rubric and the baseline's gate check alike.
func TestRecordsFailedMetricIsUnscoredNotNA(t *testing.T) {
	rb := contRubric()
	rb.Criteria[0].NA = true // helpfulness: blocking, min 0.35, allows na
	failed := Metric{Name: "Helpful", Unscored: true, Reason: "no statements"}
	src := &recs{format: "promptfoo", list: []Record{
		{ID: "ok", Line: 1, Samples: []Sample{{Metrics: metrics("Helpful", 0.9, "accuracy", 4.0, "citation", 2.0)}}},
		{ID: "failed", Line: 2, Samples: []Sample{{Metrics: append(metrics("accuracy", 4.0, "citation", 2.0), failed)}}},
		{ID: "epoch", Line: 3, Samples: []Sample{
			{Metrics: metrics("Helpful", 0.9, "accuracy", 4.0, "citation", 2.0)},
			{Metrics: append(metrics("accuracy", 4.0, "citation", 2.0), failed)},
		}},
		// A failed metric that feeds no criterion changes nothing.
		{ID: "other", Line: 4, Samples: []Sample{{Metrics: append(metrics("Helpful", 0.9, "accuracy", 4.0, "citation", 2.0), Metric{Name: "latency", Unscored: true})}}},
	}}
	var got []gate.ItemResult
	rep, err := Score(rb, []Input{{Name: "p.json", Records: src}}, ScoreOptions{MaxUnscored: 1, OnItem: func(r *gate.ItemResult) error { got = append(got, *r); return nil }})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Items != 4 || rep.Scored != 2 || rep.Criteria[0].NA != 0 || got[0].Unscored || got[3].Unscored {
		t.Fatalf("items %d scored %d helpfulness na %d, results %+v", rep.Items, rep.Scored, rep.Criteria[0].NA, got)
	}
	for k, want := range map[int]string{
		1: `promptfoo failed to score metric "Helpful" (NaN, null or empty): the tool's failure, not a not-applicable verdict: no statements`,
		2: `samples[1]: promptfoo failed to score metric "Helpful"`,
	} {
		if !got[k].Unscored || !strings.Contains(got[k].Reasoning, want) {
			t.Errorf("item %s: unscored %v, error %q; want %q", got[k].ID, got[k].Unscored, got[k].Reasoning, want)
		}
	}
	check := func(what string, fs []gate.BlockingFailure) {
		t.Helper()
		var items []string
		for _, f := range fs {
			if f.Criterion == "helpfulness" && f.Unscored {
				items = append(items, f.Item)
			}
		}
		if strings.Join(items, ",") != "failed,epoch" {
			t.Errorf("%s: items failing helpfulness closed %v, want failed,epoch (%+v)", what, items, fs)
		}
	}
	check("score", rep.BlockingFailures)
	gc, err := CheckBlocking(rb, []Input{{Name: "p.json", Records: src}})
	if err != nil {
		t.Fatal(err)
	}
	check("baseline gate check", gc.Failures)
}

// warnRecs adds a remark for the rubric it is scored under.
type warnRecs struct{ recs }

func (w *warnRecs) Warnings(rb *rubric.Rubric) []finding.Finding {
	return []finding.Finding{{Kind: finding.Message, Params: finding.Params{Detail: "weights of " + rb.Name}}}
}

// The RecordsWarner interface is met (a method of another signature would
// be skipped silently).
var _ RecordsWarner = (*warnRecs)(nil)

func TestRecordsWarnings(t *testing.T) {
	rb := contRubric()
	src := &warnRecs{recs{format: "promptfoo", list: []Record{{ID: "a", Line: 1, Samples: []Sample{{Metrics: metrics("Helpful", 0.5, "accuracy", 4.0, "citation", 2.0)}}}}}}
	rep, err := Score(rb, []Input{{Name: "p.json", Records: src}}, ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) != 1 || rep.Warnings[0] != "weights of cont" {
		t.Fatalf("warnings %q", rep.Warnings)
	}
	if len(rep.Findings) != 1 || rep.Findings[0].Severity != finding.Warning || rep.Findings[0].Detail != "weights of cont" {
		t.Fatalf("findings %+v", rep.Findings)
	}
}

// An unscored record (the tool's error, or an NA where na is not allowed)
// is still checked by its blocking gates: an error cannot switch a safety
// gate off.
func TestRecordsErrorKeepsBlockingGate(t *testing.T) {
	rb := contRubric() // helpfulness (promptfoo "Helpful") is blocking, minimum 0.35
	src := &recs{format: "promptfoo", list: []Record{
		{ID: "ok", Line: 1, Samples: []Sample{{Metrics: metrics("Helpful", 0.9, "accuracy", 4.0, "citation", 2.0)}}},
		{ID: "err-low", Line: 2, Error: "judge timeout", Samples: []Sample{{Metrics: metrics("Helpful", 0.1, "accuracy", "na")}}},
		{ID: "na-low", Line: 3, Samples: []Sample{{Metrics: metrics("Helpful", 0.2, "accuracy", "na", "citation", 2.0)}}},
		{ID: "epochs", Line: 4, Error: "epoch 2 of 2: crashed", Samples: []Sample{{Metrics: metrics("Helpful", 0.9, "accuracy", 4.0, "citation", 2.0)}, {Metrics: metrics("Helpful", 0.3)}}},
		{ID: "err-high", Line: 5, Error: "judge timeout", Samples: []Sample{{Metrics: metrics("Helpful", 0.8)}}},
	}}
	rep, err := Score(rb, []Input{{Name: "p.json", Records: src}}, ScoreOptions{MaxUnscored: 1})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range rep.BlockingFailures {
		got = append(got, f.Item)
	}
	if strings.Join(got, ",") != "err-low,na-low,epochs" || rep.Unscored.Count != 4 {
		t.Errorf("blocking failures %v, unscored %d", got, rep.Unscored.Count)
	}
}
