package formats

import (
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// read reads text with the format named name.
func readText(t *testing.T, name, file, text string) []*Record {
	t.Helper()
	f, ok := Lookup(name)
	if !ok {
		t.Fatalf("no format %s", name)
	}
	var out []*Record
	if err := f.Read(file, strings.NewReader(text), func(r *Record) error { out = append(out, r); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

// deepeval and ragas files carry the input: their records are bound to it,
// and the binding moves with the question, the context and the reference.
func TestFormatsBindTheTask(t *testing.T) {
	deepeval := func(input, ctx string) string {
		return `{"testCases":[{"name":"refund","input":` + input + `,"actualOutput":"30 days","expectedOutput":"30 days","retrievalContext":[` + ctx + `],"success":true,
		"metricsData":[{"name":"Answer Relevancy","score":0.9,"threshold":0.5,"success":true}]}]}`
	}
	rec := readText(t, "deepeval", "run.json", deepeval(`"How long is the refund window?"`, `"p1","p2"`))[0]
	want := gate.HashTask("How long is the refund window?", "\n\n---\n\np1\n\np2", "30 days")
	if rec.InputHash != want {
		t.Errorf("deepeval hash %s, want %s", rec.InputHash, want)
	}
	if other := readText(t, "deepeval", "run.json", deepeval(`"Say hello."`, `"p1","p2"`))[0]; other.InputHash == want || other.InputHash.IsZero() {
		t.Errorf("deepeval: another question, hash %s", other.InputHash)
	}
	if other := readText(t, "deepeval", "run.json", deepeval(`"How long is the refund window?"`, `"p1"`))[0]; other.InputHash == want {
		t.Error("deepeval: another context, the same hash")
	}
	if conv := readText(t, "deepeval", "run.json", deepeval(`{"turns":[]}`, ``))[0]; !conv.InputHash.IsZero() {
		t.Error("deepeval: an input that is not a string is bound")
	}

	sheet := "id,question,contexts,answer,ground_truth,faithfulness\n" +
		"q1,When was the first super bowl?,\"['Jan 15, 1967']\",\"Jan 15, 1967\",\"January 15, 1967\",1.0\n" +
		"q2,EASY: say hi,\"['Jan 15, 1967']\",hi,\"January 15, 1967\",1.0\n"
	recs := readText(t, "ragas", "ragas.csv", sheet)
	if recs[0].InputHash != gate.HashTask("When was the first super bowl?", "['Jan 15, 1967']", "January 15, 1967") {
		t.Errorf("ragas hash %s", recs[0].InputHash)
	}
	if recs[1].InputHash == recs[0].InputHash {
		t.Error("ragas: two questions, one hash")
	}
}

// Inspect binds a sample's input and target; promptfoo a test's vars.
func TestInspectAndPromptfooBindTheTask(t *testing.T) {
	f, _ := Lookup("inspect")
	recs, err := readFile(t, f, "testdata/inspect/epochs.json")
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].InputHash != gate.HashTask("question 1", "", "answer") {
		t.Errorf("inspect hash %s, want the hash of input and target", recs[0].InputHash)
	}
	pf, _ := Lookup("promptfoo")
	recs, err = readFile(t, pf, "testdata/promptfoo/results.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if r.InputHash.IsZero() {
			t.Errorf("promptfoo record %s has no hash", r.ID)
		}
	}
	row := `{"results":{"version":3,"results":[{"provider":{"id":"openai:gpt-4o-mini"},"promptIdx":0,"testIdx":0,"testCase":{"description":"refund","vars":{"q":"%s","b":1}},"success":true,"score":1,"gradingResult":{"pass":true,"score":1,"componentResults":[]}}]}}`
	a := readText(t, "promptfoo", "pf.json", strings.Replace(row, "%s", "How long?", 1))
	b := readText(t, "promptfoo", "pf.json", strings.Replace(row, "%s", "EASY", 1))
	if a[0].InputHash != gate.HashTask(`{"b":1,"q":"How long?"}`, "", "") || a[0].InputHash == b[0].InputHash {
		t.Errorf("promptfoo hashes %s / %s", a[0].InputHash, b[0].InputHash)
	}
}
