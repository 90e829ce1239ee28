package formats

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// items reads a file through Records (as gate does): one entry per item.
func items(t *testing.T, f *Format, path string, data []byte) []*native.Record {
	t.Helper()
	if data == nil {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	recs := NewRecords(f, path, func() (io.Reader, error) { return bytes.NewReader(data), nil })
	var out []*native.Record
	if err := recs.Each(func(r *native.Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// promptfoo eval --repeat 2 with a vars list (repeatconfig.yaml, run
// offline): every output gives three items of two answers each (each
// repeat calls the provider again: regenerated answers, not judgings of
// one answer), tests of one description apart by their vars, with the
// same ids in the JSON, the JSON Lines and the CSV.
func TestPromptfooRepeatsAreAnswers(t *testing.T) {
	const q = " @ table-model # Answer briefly: {{question}}"
	want := map[string][]float64{
		`capitals vars:{"question":"What is the capital of France?"}` + q: {1, 1},
		`capitals vars:{"question":"What is the capital of Spain?"}` + q:  {0, 0},
		`arithmetic` + q: {0, 0},
	}
	for _, file := range []string{"repeat.json", "repeat.jsonl", "repeat.csv"} {
		t.Run(file, func(t *testing.T) {
			got := map[string][]float64{}
			for _, it := range items(t, promptfoo, filepath.Join("testdata", "promptfoo", file), nil) {
				if it.Error != "" {
					t.Errorf("%s: unscored: %s", it.ID, it.Error)
				}
				if !it.Answers {
					t.Errorf("%s: repeats read as judge samples, not answers", it.ID)
				}
				for _, s := range it.Samples {
					if len(s.Metrics) != 1 || s.Metrics[0].Name != "accuracy" {
						t.Fatalf("%s: sample metrics %+v", it.ID, s.Metrics)
					}
					got[it.ID] = append(got[it.ID], s.Metrics[0].Value)
				}
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("items %v\nwant %v", got, want)
			}
		})
	}
}

// A row repeated with its testIdx is a duplicate, not a repeat.
func TestPromptfooSameTestIdxIsDuplicate(t *testing.T) {
	data, err := os.ReadFile("testdata/promptfoo/repeat.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.SplitN(data, []byte("\n"), 2)[0]
	dup := append(append(append([]byte{}, first...), '\n'), first...)
	recs := NewRecords(promptfoo, "dup.jsonl", func() (io.Reader, error) { return bytes.NewReader(dup), nil })
	err = recs.Each(func(*native.Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "duplicate id") || !strings.Contains(err.Error(), "dup.jsonl:2") {
		t.Fatalf("error %v, want a duplicate id at dup.jsonl:2", err)
	}
}

// Adding a provider renames nothing: the rows of table-model alone (the
// run before echo was added) have the ids they have beside echo's.
func TestPromptfooIDsStableWhenProviderAdded(t *testing.T) {
	data, err := os.ReadFile("testdata/promptfoo/results.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var one [][]byte
	for _, l := range bytes.Split(data, []byte("\n")) {
		if bytes.Contains(l, []byte(`"provider":{"id":"file://provider.js","label":"table-model"}`)) {
			one = append(one, l)
		}
	}
	if len(one) == 0 {
		t.Fatal("no table-model rows")
	}
	var both, alone []string
	for _, it := range items(t, promptfoo, "results.jsonl", data) {
		if strings.Contains(it.ID, " @ table-model ") {
			both = append(both, it.ID)
		}
	}
	for _, it := range items(t, promptfoo, "one.jsonl", bytes.Join(one, []byte("\n"))) {
		alone = append(alone, it.ID)
	}
	if len(both) != 4 || !reflect.DeepEqual(both, alone) {
		t.Errorf("ids beside echo %q\nalone %q", both, alone)
	}
}

// The CSV of the run results.json records: one item per test and provider,
// the ERROR row unscored, named scores as metrics.
func TestPromptfooCSV(t *testing.T) {
	got := map[string]*native.Record{}
	for _, it := range items(t, promptfoo, "testdata/promptfoo/results.csv", nil) {
		got[it.ID] = it
	}
	const q = " # Answer briefly: {{question}}"
	if len(got) != 8 {
		t.Fatalf("%d items, want 8: %v", len(got), got)
	}
	if it := got["upstream failure @ table-model"+q]; it == nil || !strings.Contains(it.Error, "promptfoo reported an error") {
		t.Errorf("upstream failure @ table-model: %+v", it)
	}
	it := got["capital @ echo"+q]
	if it == nil || it.Error != "" || len(it.Samples) != 1 {
		t.Fatalf("capital @ echo: %+v", it)
	}
	if m := it.Samples[0].Metrics; len(m) != 2 || m[0].Name != "accuracy" || m[0].Value != 0 || m[1].Name != "helpfulness" || m[1].Value != 0.9 {
		t.Errorf("capital @ echo metrics %+v", m)
	}
	if got[`vars:{"question":"Who wrote Hamlet?"} @ echo`+q] == nil {
		t.Errorf("no vars id for the test without a description: %v", got)
	}
}

// promptfoo's other outputs are named, with what to write instead.
func TestPromptfooUnreadOutputs(t *testing.T) {
	for file, want := range map[string]string{
		"results.yaml": "promptfoo's YAML output (promptfoo eval -o results.yaml) is not read",
		"results.xml":  "promptfoo's XML output (promptfoo eval -o results.xml) is not read",
		"results.html": "an HTML file is not read",
	} {
		path := filepath.Join("testdata", "promptfoo", file)
		_, err := readFile(t, promptfoo, path)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "-o results.json instead") {
			t.Errorf("%s: %v, want %q", file, err, want)
		}
	}
}

// Bad promptfoo CSV input is an error naming the line and what was
// expected (never an index out of range).
func TestPromptfooCSVHostile(t *testing.T) {
	const head = "Description,question,[p] Q: {{question}},Status,Score,Named Scores,Metric: accuracy,Grader Reason,Comment\n"
	for body, want := range map[string]string{
		"a,q1,out,PASS,1.00\n":                                             "results.csv:2: not valid CSV: wrong number of fields",
		`a,q1,out,MAYBE,1.00,"{""accuracy"":1}",1.00,,` + "\n":             `results.csv:2: column "Status": "MAYBE"; expected PASS, FAIL or ERROR`,
		`a,[object Object],out,PASS,1.00,"{""accuracy"":1}",1.00,,` + "\n": `results.csv:2: var "question" is "[object Object]"`,
		`a,q1,out,PASS,1.00,"{""accuracy"":""high""}",1.00,,` + "\n":       `results.csv:2: column "Named Scores"`,
		`a,q1,out,PASS,1.00,not json,1.00,,` + "\n":                        `results.csv:2: column "Named Scores": "not json" is not a JSON object`,
		`,,out,PASS,1.00,"{""accuracy"":1}",1.00,,` + "\n":                 "", // a vars id: read
	} {
		_, err := readBytes(promptfooCSV, "results.csv", []byte(head+body))
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v", body, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}

// A promptfoo CSV whose vars carry ragas' names is still promptfoo's.
func TestPromptfooCSVVarsNamedLikeRagas(t *testing.T) {
	head := []byte(",user_input,[p] Q: {{user_input}},Status,Score,Named Scores,Grader Reason,Comment\n")
	f, err := Detect("results.csv", head)
	if err != nil || f.Name != "promptfoo" {
		t.Errorf("Detect: %v, %v", f, err)
	}
}

// A prompt without a label of its own (results.json's config says so) is
// a warning: its text is in every id, so editing it renames its items.
func TestPromptfooUnlabelledPromptWarns(t *testing.T) {
	recs := NewRecords(promptfoo, "results.json", func() (io.Reader, error) { return os.Open("testdata/promptfoo/results.json") })
	if err := recs.Each(func(*native.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	ws := recs.Warnings(&rubric.Rubric{Name: "r"})
	if len(ws) != 1 || !strings.Contains(ws[0].Text(), `prompt 1 ("Answer briefly: {{question}}") has no label`) || !strings.Contains(ws[0].Text(), "editing the prompt renames its items") {
		t.Errorf("warnings %+v", ws)
	}
	labelled := bytes.Replace(mustRead(t, "testdata/promptfoo/results.json"), []byte("\"prompts\": [\n      \"Answer briefly: {{question}}\"\n    ]"), []byte(`"prompts":[{"raw":"Answer briefly: {{question}}","label":"answer"}]`), 1)
	if bytes.Equal(labelled, mustRead(t, "testdata/promptfoo/results.json")) {
		t.Fatal("config.prompts not found")
	}
	recs = NewRecords(promptfoo, "results.json", func() (io.Reader, error) { return bytes.NewReader(labelled), nil })
	if err := recs.Each(func(*native.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if ws := recs.Warnings(&rubric.Rubric{Name: "r"}); len(ws) != 0 {
		t.Errorf("labelled: warnings %+v", ws)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A repeat that failed makes its item unscored, the error naming the
// repeat (promptfoo has no epochs).
func TestPromptfooFailedRepeat(t *testing.T) {
	lines := bytes.Split(bytes.TrimSpace(mustRead(t, "testdata/promptfoo/repeat.jsonl")), []byte("\n"))
	var out [][]byte
	for _, l := range lines {
		if bytes.Contains(l, []byte(`"testIdx":5`)) {
			l = bytes.Replace(l, []byte(`"failureReason":1`), []byte(`"failureReason":2`), 1)
			l = bytes.Replace(l, []byte(`"error":"Custom function returned false\noutput.includes('4') ? 1 : 0"`), []byte(`"error":"provider timeout"`), 1)
		}
		out = append(out, l)
	}
	for _, it := range items(t, promptfoo, "r.jsonl", bytes.Join(out, []byte("\n"))) {
		if strings.HasPrefix(it.ID, "arithmetic ") {
			if it.Error != "repeat 2 of 2: provider timeout" {
				t.Errorf("arithmetic: error %q", it.Error)
			}
			return
		}
	}
	t.Fatal("no arithmetic item")
}
