package formats

import (
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// scoreDeepeval scores testdata/deepeval/test_run_directions.json under a
// rubric given as YAML; Items of the report it returns is replaced by the
// item scores, by id.
func scoreDeepeval(t *testing.T, yaml string) (*scored, error) {
	t.Helper()
	rb, _, err := rubric.Load("r.yaml", []byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	const path = "testdata/deepeval/test_run_directions.json"
	recs := NewRecords(deepevalJSON, path, func() (io.Reader, error) { return os.Open(path) })
	out := &scored{items: map[string]float64{}}
	rep, err := native.Score(rb, []native.Input{{Name: path, Records: recs}}, native.ScoreOptions{OnItem: func(it *gate.ItemResult) error {
		out.items[it.ID] = it.Score
		return nil
	}})
	if err != nil {
		return nil, err
	}
	out.Report = rep
	return out, nil
}

// scored is a report and its item scores by id.
type scored struct {
	*gate.Report
	items map[string]float64
}

// deepeval's Hallucination passes when score <= threshold: a hallucinating
// answer (0.9) must score low, not 100. It used to be read upside down.
func TestDeepevalLowerIsBetter(t *testing.T) {
	const crit = `name: r
version: 1
criteria:
  - id: grounded
    name: Grounded
    weight: 1
    scale: [0, 1]
    continuous: true
    from: {deepeval: %s}
`
	score := func(from string) map[string]float64 {
		rep, err := scoreDeepeval(t, strings.Replace(crit, "%s", from, 1))
		if err != nil {
			t.Fatalf("from %s: %v", from, err)
		}
		return rep.items
	}
	for _, from := range []string{"Hallucination", "{metric: Hallucination, scale: [1, 0]}"} {
		got := score(from)
		if !near(got["hallucinates"], 10) || !near(got["grounded"], 100) {
			t.Errorf("from %s: scores %v, want hallucinates 10 and grounded 100", from, got)
		}
	}
	// A custom metric whose success flags show it passes below its
	// threshold is read the same way.
	if got := score("Latency Penalty"); !near(got["hallucinates"], 80) || !near(got["grounded"], 75) {
		t.Errorf("Latency Penalty: %v, want 80 and 75", got)
	}
	// A declared direction that contradicts deepeval's is refused.
	_, err := scoreDeepeval(t, strings.Replace(crit, "%s", "{metric: Hallucination, scale: [0, 1]}", 1))
	if err == nil || !strings.Contains(err.Error(), `metric "Hallucination" is better lower in deepeval`) || !strings.Contains(err.Error(), "write [1, 0]") {
		t.Errorf("ascending scale on Hallucination: %v", err)
	}
	_, err = scoreDeepeval(t, strings.Replace(crit, "%s", "{metric: generate/Faithfulness, scale: [1, 0]}", 1))
	if err == nil || !strings.Contains(err.Error(), "is better higher in deepeval") {
		t.Errorf("descending scale on Faithfulness: %v", err)
	}
}

// A metric whose direction neither deepeval nor the file tells is read as
// better higher with a warning, unless the rubric's source scale says.
func TestDeepevalUnknownDirectionWarns(t *testing.T) {
	const rb = `name: r
version: 1
criteria:
  - id: brief
    name: Brief
    weight: 1
    scale: [0, 1]
    continuous: true
    from: {deepeval: %s}
`
	rep, err := scoreDeepeval(t, strings.Replace(rb, "%s", "Brevity", 1))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], `whether deepeval metric "Brevity" is better higher or lower is not known`) {
		t.Errorf("warnings %q", rep.Warnings)
	}
	rep, err = scoreDeepeval(t, strings.Replace(rb, "%s", "{metric: Brevity, scale: [0, 1]}", 1))
	if err != nil || len(rep.Warnings) != 0 {
		t.Errorf("declared direction: warnings %q, %v", rep.Warnings, err)
	}
}

// Metrics on trace spans (component-level evaluation) are read, named
// "<span>/<metric>", a repeated span name numbered: a test case with only
// span metrics is no longer "no metrics".
func TestDeepevalSpanMetrics(t *testing.T) {
	rep, err := scoreDeepeval(t, `name: r
version: 1
criteria:
  - id: retrieval
    name: Retrieval
    weight: 1
    scale: [0, 1]
    continuous: true
    from: {deepeval: kb_lookup/Contextual Relevancy}
  - id: second_draft
    name: Second draft
    weight: 1
    scale: [0, 1]
    continuous: true
    from: {deepeval: "generate#2/Faithfulness"}
`)
	if err != nil {
		t.Fatal(err)
	}
	got := rep.items
	if !near(got["hallucinates"], 60) || !near(got["grounded"], 90) {
		t.Errorf("scores %v, want hallucinates (0.4+0.8)/2 = 60 and grounded (0.9+0.9)/2 = 90", got)
	}
	data, err := os.ReadFile("testdata/deepeval/test_run_directions.json")
	if err != nil {
		t.Fatal(err)
	}
	// Without the test case's own metrics, its span metrics still score it.
	only := strings.Replace(string(data), `"metricsData": [{"name": "Hallucination", "threshold": 0.5, "strictMode": false, "flaky": false, "evaluationModel": "gpt-4.1", "score": 0.9`, `"metricsData": null, "x": [{"name": "Hallucination", "threshold": 0.5, "strictMode": false, "flaky": false, "evaluationModel": "gpt-4.1", "score": 0.9`, 1)
	if only == string(data) {
		t.Fatal("fixture changed")
	}
	var recs []*Record
	if err := readDeepeval("d.json", strings.NewReader(only), func(r *Record) error { recs = append(recs, r); return nil }); err != nil {
		t.Fatal(err)
	}
	if recs[0].Error != "" || len(recs[0].Metrics) != 3 {
		t.Errorf("span metrics only: error %q, %d metrics", recs[0].Error, len(recs[0].Metrics))
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// Span names as docs/results.md states them: a repeated name is numbered
// among the spans that carry metrics only (a span without metrics, added
// before, renames nothing), and a span without a name takes its type.
func TestDeepevalSpanNames(t *testing.T) {
	data, err := os.ReadFile("testdata/deepeval/test_run_directions.json")
	if err != nil {
		t.Fatal(err)
	}
	names := func(doc string) []string {
		var recs []*Record
		if err := readDeepeval("d.json", strings.NewReader(doc), func(r *Record) error { recs = append(recs, r); return nil }); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, m := range recs[0].Metrics {
			if strings.Contains(m.Name, "/") {
				out = append(out, m.Name)
			}
		}
		return out
	}
	want := []string{"generate/Faithfulness", "generate#2/Faithfulness", "kb_lookup/Contextual Relevancy"}
	if got := names(string(data)); !reflect.DeepEqual(got, want) {
		t.Fatalf("span metrics %v; want %v", got, want)
	}
	// A span named generate without metrics, first in the list.
	quiet := strings.Replace(string(data), `"llmSpans": [{"uuid": "b1"`, `"llmSpans": [{"uuid": "b0", "name": "generate", "status": "SUCCESS", "type": "llm", "startTime": "2026-12-01T00:00:00Z", "endTime": "2026-12-01T00:00:01Z"}, {"uuid": "b1"`, 1)
	if quiet == string(data) {
		t.Fatal("fixture changed")
	}
	if got := names(quiet); !reflect.DeepEqual(got, want) {
		t.Errorf("with a span without metrics before: %v; want %v", got, want)
	}
	unnamed := strings.Replace(string(data), `"uuid": "a1", "name": "kb_lookup"`, `"uuid": "a1", "name": ""`, 1)
	if unnamed == string(data) {
		t.Fatal("fixture changed")
	}
	if got := names(unnamed); got[2] != "retriever/Contextual Relevancy" {
		t.Errorf("unnamed span: %v; want it named by its type, retriever", got)
	}
}
