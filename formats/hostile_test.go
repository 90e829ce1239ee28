package formats

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/rubricgate/rubricgate/internal/zipread"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// TestHostile reads each hostile fixture and checks the error names the
// file, the line or path, and what was expected.
func TestHostile(t *testing.T) {
	cases := []struct {
		file, format string
		line         int    // 0: not checked
		path         string // "": not checked
		want         string
	}{
		{"promptfoo-truncated.json", "promptfoo", 99, "$.results.prompts[1].metrics.tokenUsage.assertions.completionDetails", "unterminated string"},
		{"promptfoo-dup.jsonl", "promptfoo", 3, "", `duplicate id "geo-001 @ table-model # Answer briefly: {{question}}" (first at line 1)`},
		{"promptfoo-nan-index.jsonl", "promptfoo", 2, "$.promptIdx", "expected a finite number, found a non-finite number"},
		{"promptfoo-noid.jsonl", "promptfoo", 1, "$.testCase", "no metadata.id, description or vars"},
		{"promptfoo-broken.jsonl", "promptfoo", 2, "", "expected a string key"},
		{"promptfoo-inf.jsonl", "promptfoo", 1, "$.namedScores.helpfulness", "score is Infinity"},
		{"inspect-dup.json", "inspect", 0, "$.samples[2]", `duplicate id "1" (first at line`},
		{"inspect-status.json", "inspect", 0, "$.status", `status is "error": boom`},
		{"inspect-noid.json", "inspect", 0, "$.samples[1].id", "missing; expected a sample id"},
		{"inspect-letter.json", "inspect", 0, "$.samples[0].scores.model_graded_qa.value", `score value "maybe"`},
		{"inspect-list.json", "inspect", 0, "$.samples[0].scores.model_graded_qa.value", "found an array"},
		{"inspect-nan-epoch.json", "inspect", 0, "$.samples[2].epoch", "expected a finite number, found a non-finite"},
		{"inspect-inf.json", "inspect", 0, "$.samples[0].scores.rubric.value.tone", "score is Infinity"},
		{"deepeval-dup.json", "deepeval", 0, "$.testCases[1]", `duplicate id "refund_policy" (first at line 4, $.testCases[0]); give each test case a unique name`},
		{"deepeval-nan-threshold.json", "deepeval", 0, "$.testCases[0].metricsData[0].threshold", "expected a finite number, found a non-finite"},
		{"deepeval-string-score.json", "deepeval", 0, "$.testCases[0].metricsData[1].score", "expected a number, found a string"},
		{"deepeval-noname.json", "deepeval", 0, "$.testCases[2].name", "missing; expected a string"},
		{"evals-tworuns.jsonl", "openai-evals", 4, "$.run_id", `run_id "OTHERRUN"; expected the spec's "261201000000ABCDEFGH"`},
		{"evals-dupmatch.jsonl", "openai-evals", 9, "$.data.correct", `metric "match" of sample "test-match.s1.0" recorded twice (first on line 4)`},
		{"evals-nofinal.jsonl", "openai-evals", 0, "", "no final_report line"},
		{"evals-listmetric.jsonl", "openai-evals", 4, "$.data.score", "expected a number, a boolean, a string or null, found an array"},
		{"ragas-dup.csv", "ragas", 4, "", `duplicate id "sha256:`},
		{"ragas-mixed-metric.csv", "ragas", 3, `column "faithfulness"`, `"high"; expected a finite number, or empty or NaN where the metric failed (the column's other cells are numbers)`},
		{"ragas-inf.csv", "ragas", 3, `column "faithfulness"`, `"inf"; expected a finite number`},
		{"ragas-noid.csv", "ragas", 1, "", "no id, user_input or question column"},
		{"ragas-empty-input.csv", "ragas", 3, "", "empty user_input"},
		{"ragas-ragged.csv", "ragas", 3, "", "wrong number of fields"},
		{"ragas-quote.csv", "ragas", 0, "", "not valid CSV"},
		{"ragas-cr.csv", "ragas", 1, "", "bare carriage return (CR line ends)"},
		{"inspect-nan-garbage.json", "inspect", 0, "$.samples[0].scores.rubric.value.safety", "expected NaN"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			f, _ := Lookup(c.format)
			path := filepath.Join("testdata", "hostile", c.file)
			_, err := readFile(t, f, path)
			var ie *native.InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v, want an *native.InputError", err)
			}
			if !strings.Contains(err.Error(), c.want) || ie.File != path {
				t.Errorf("error %q, want one naming %s and containing %q", err, path, c.want)
			}
			if c.line != 0 && ie.Line != c.line {
				t.Errorf("error at line %d, want %d (%v)", ie.Line, c.line, err)
			}
			if c.path != "" && ie.Path != c.path {
				t.Errorf("error at %s, want %s (%v)", ie.Path, c.path, err)
			}
		})
	}
}

// A NaN where the reader reads nothing (Inspect writes NaN stderr metrics
// and config values) is no error: only where a number is read does NaN
// count, and there only a score may be NaN.
func TestInspectNaNOutsideScoresIsSkippedNotRead(t *testing.T) {
	recs, err := readFile(t, inspectJSON, "testdata/hostile/inspect-nan-config.json")
	if err != nil || len(recs) != 6 {
		t.Fatalf("%d records, error %v; want 6 and none", len(recs), err)
	}
}

type member struct {
	name string
	data []byte
}

func buildZip(t *testing.T, members []member) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range members {
		w, err := zw.Create(m.name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// evalFromJSON builds the .eval archive Inspect would write for a JSON log:
// header.json (the log without samples) and one member per sample.
func evalFromJSON(t *testing.T, path string) []member {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return evalFromJSONBytes(t, data)
}

// evalFromJSONBytes is evalFromJSON of a log's bytes.
func evalFromJSONBytes(t *testing.T, data []byte) []member {
	t.Helper()
	// encoding/json cannot carry NaN; swap it for a marker and back.
	data = bytes.ReplaceAll(data, []byte(": NaN"), []byte(`: "__NaN__"`))
	var log map[string]json.RawMessage
	if err := json.Unmarshal(data, &log); err != nil {
		t.Fatal(err)
	}
	var samples []json.RawMessage
	if err := json.Unmarshal(log["samples"], &samples); err != nil {
		t.Fatal(err)
	}
	delete(log, "samples")
	unNaN := func(b []byte) []byte { return bytes.ReplaceAll(b, []byte(`"__NaN__"`), []byte("NaN")) }
	hdr, _ := json.Marshal(log)
	ms := []member{{"_journal/start.json", []byte(`{}`)}}
	for _, s := range samples {
		var k struct {
			ID    any `json:"id"`
			Epoch int `json:"epoch"`
		}
		if err := json.Unmarshal(s, &k); err != nil {
			t.Fatal(err)
		}
		ms = append(ms, member{"samples/" + jsonScalar(k.ID) + "_epoch_" + jsonScalar(k.Epoch) + ".json", unNaN(s)})
	}
	return append(ms, member{"header.json", unNaN(hdr)})
}

func jsonScalar(v any) string {
	b, _ := json.Marshal(v)
	return strings.Trim(string(b), `"`)
}

func readBytes(f *Format, name string, data []byte) ([]*Record, error) {
	var out []*Record
	err := f.Read(name, bytes.NewReader(data), func(r *Record) error {
		out = append(out, r)
		return nil
	})
	return out, err
}

// The .eval archive of a log yields the records of its JSON form.
func TestInspectEvalMatchesJSON(t *testing.T) {
	want, err := readFile(t, inspectJSON, "testdata/inspect/epochs.json")
	if err != nil {
		t.Fatal(err)
	}
	got, err := readBytes(inspectEval, "epochs.eval", buildZip(t, evalFromJSON(t, "testdata/inspect/epochs.json")))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d records from the archive, %d from the JSON", len(got), len(want))
	}
	for i := range got {
		g, w := *got[i], *want[i]
		if g.Loc.Path != "samples/"+w.ID+"_epoch_"+w.Meta["epoch"]+".json" {
			t.Errorf("record %d read from %s", i, g.Loc.Path)
		}
		g.Loc, w.Loc = Location{}, Location{}
		gj, _ := json.Marshal(g)
		wj, _ := json.Marshal(w)
		if !bytes.Equal(gj, wj) {
			t.Errorf("record %d:\narchive %s\njson    %s", i, gj, wj)
		}
	}
}

func TestInspectEvalHostile(t *testing.T) {
	base := evalFromJSON(t, "testdata/inspect/epochs.json")
	with := func(extra ...member) []byte { return buildZip(t, append(append([]member(nil), base...), extra...)) }
	cases := map[string]struct {
		data []byte
		want string
	}{
		"dotdot":     {with(member{"../samples/9_epoch_1.json", []byte(`{}`)}), "unsafe member name"},
		"absolute":   {with(member{"/etc/passwd", []byte(`x`)}), "unsafe member name"},
		"backslash":  {with(member{`samples\..\x.json`, []byte(`x`)}), "unsafe member name"},
		"mislabel":   {with(member{"samples/7_epoch_1.json", base[1].data}), "epochs.eval:samples/7_epoch_1.json:1: member holds sample \"1\" epoch 1; expected the name samples/1_epoch_1.json"},
		"noheader":   {buildZip(t, base[:len(base)-1]), "no header.json"},
		"nosamples":  {buildZip(t, []member{base[len(base)-1]}), "no samples/*.json"},
		"notzip":     {[]byte("PK\x03\x04 not really"), "not a zip archive"},
		"bad member": {with(member{"samples/8_epoch_1.json", []byte(`{"id": 8, "epoch": 1,}`)}), "epochs.eval:samples/8_epoch_1.json:1: expected a string key"},
		"big member": {with(member{"samples/9_epoch_1.json", bytes.Repeat([]byte(" "), MaxRecordBytes+1)}), "over the 67108864-byte limit"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := readBytes(inspectEval, "epochs.eval", c.data)
			var ie *native.InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "epochs.eval") {
				t.Errorf("error %v, want an *native.InputError naming epochs.eval and containing %q", err, c.want)
			}
		})
	}
}

// A member whose header understates its size (a zip bomb) stops at the
// limit instead of inflating to the end.
func TestInspectEvalZipBomb(t *testing.T) {
	base := evalFromJSON(t, "testdata/inspect/epochs.json")
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, m := range base {
		w, _ := zw.Create(m.name)
		w.Write(m.data)
	}
	var comp bytes.Buffer
	fw, _ := flate.NewWriter(&comp, flate.BestCompression)
	fw.Write([]byte(`{"id": 9, "epoch": 1, "pad": "`))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for i := 0; i < MaxRecordBytes>>20+1; i++ {
		fw.Write(chunk)
	}
	fw.Close()
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "samples/9_epoch_1.json", Method: zip.Deflate,
		CompressedSize64: uint64(comp.Len()), UncompressedSize64: 100, CRC32: 0})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(comp.Bytes())
	zw.Close()
	_, err = readBytes(inspectEval, "bomb.eval", b.Bytes())
	if err == nil || !strings.Contains(err.Error(), "zip bomb") {
		t.Errorf("error %v, want the size limit (zip bomb)", err)
	}
}

// A re-logged sample appends a second member of the same name; Inspect
// reads the last one, and so does the reader (no duplicate).
func TestInspectEvalLastMemberWins(t *testing.T) {
	base := evalFromJSON(t, "testdata/inspect/epochs.json")
	again := bytes.Replace(base[1].data, []byte(`"C"`), []byte(`"I"`), 1)
	recs, err := readBytes(inspectEval, "x.eval", buildZip(t, append(base, member{base[1].name, again})))
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 6 || recs[0].ID != "1" || recs[0].Metrics[0].Value != 0 {
		t.Errorf("got %d records, first %+v; want 6, the first re-logged as I (0)", len(recs), recs[0])
	}
}

// Many members within the per-member limit still stop at the archive's
// total budget.
func TestInspectEvalTotalBudget(t *testing.T) {
	defer func(u int64) { maxUnzip = u }(maxUnzip)
	ms := evalFromJSON(t, "testdata/inspect/epochs.json")
	total := 0
	for _, m := range ms {
		if m.name != "_journal/start.json" {
			total += len(m.data)
		}
	}
	data := buildZip(t, ms)
	maxUnzip = int64(total)
	if _, err := readBytes(inspectEval, "x.eval", data); err != nil {
		t.Fatalf("at the budget: %v", err)
	}
	maxUnzip = int64(total) - 1
	_, err := readBytes(inspectEval, "x.eval", data)
	if err == nil || !strings.Contains(err.Error(), "exceed") || !strings.Contains(err.Error(), "together") {
		t.Errorf("one byte over the budget: %v", err)
	}
}

// buildZstdZip is buildZip with every member compressed with Zstandard
// (zip method 93), as current Inspect releases write .eval logs.
func buildZstdZip(t *testing.T, members []member) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(zipread.ZstdMethod, func(w io.Writer) (io.WriteCloser, error) {
		return zstd.NewWriter(w, zstd.WithEncoderConcurrency(1))
	})
	for _, m := range members {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: m.name, Method: zipread.ZstdMethod})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(m.data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// A zstd-compressed .eval log (the default of current inspect_ai) reads as
// its deflated form does; it used to fail with "unsupported compression
// algorithm".
func TestInspectEvalZstd(t *testing.T) {
	ms := evalFromJSON(t, "testdata/inspect/epochs.json")
	want, err := readBytes(inspectEval, "epochs.eval", buildZip(t, ms))
	if err != nil {
		t.Fatal(err)
	}
	got, err := readBytes(inspectEval, "epochs.eval", buildZstdZip(t, ms))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) || len(got) == 0 {
		t.Fatalf("%d records from the zstd archive, %d from the deflated one", len(got), len(want))
	}
	for i := range got {
		if !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("record %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// An Inspect log whose epochs were reduced with something other than mean
// is refused with the reducer named (it used to be averaged as if it were
// mean); mean, mean among others, or no reducer read as before.
func TestInspectEpochsReducer(t *testing.T) {
	data, err := os.ReadFile("testdata/inspect/epochs.json")
	if err != nil {
		t.Fatal(err)
	}
	with := func(reducers string) []byte {
		out := bytes.Replace(data, []byte(`"epochs": 2`), []byte(`"epochs": 2, "epochs_reducer": `+reducers), 1)
		if bytes.Equal(out, data) {
			t.Fatal("no epochs in the fixture's config")
		}
		return out
	}
	for _, ok := range []string{`["mean"]`, `["max", "mean"]`, `null`} {
		if recs, err := readBytes(inspectJSON, "epochs.json", with(ok)); err != nil || len(recs) == 0 {
			t.Errorf("epochs_reducer %s: %d records, %v", ok, len(recs), err)
		}
	}
	for reducers, named := range map[string]string{`["max"]`: "max", `["at_least_2"]`: "at_least_2", `["median", "mode"]`: "median, mode"} {
		_, err := readBytes(inspectJSON, "epochs.json", with(reducers))
		var ie *native.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "epochs were reduced with "+named) || !strings.Contains(err.Error(), "$.eval.config.epochs_reducer") {
			t.Errorf("epochs_reducer %s: %v, want an *InputError naming %s at its path", reducers, err, named)
		}
		// The .eval archive's header says the same.
		if _, err := readBytes(inspectEval, "epochs.eval", buildZstdZip(t, evalFromJSONBytes(t, with(reducers)))); err == nil || !strings.Contains(err.Error(), named) {
			t.Errorf(".eval with epochs_reducer %s: %v", reducers, err)
		}
	}
}

// A record file as oaieval leaves it: events flushed after the final report
// (they are read, not dropped), and a final_report line without run_id (as
// before evals commit cf002f29). Both used to refuse the file. A second
// final report, or one with another run's id, is still refused.
func TestOpenAIEvalsFlushedAfterReport(t *testing.T) {
	recs, err := readFile(t, openaiEvals, "testdata/openai-evals/flushed-after-report.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[1].ID != "test-match.s1.1" || len(recs[1].Metrics) != 1 || recs[1].Metrics[0].Name != "match" || recs[1].Metrics[0].Value != 0 || recs[1].Error != "" {
		t.Fatalf("records %+v; want both samples, the second's match (0) read from after the report", recs)
	}
	data, err := os.ReadFile("testdata/openai-evals/flushed-after-report.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ data, want string }{
		"two reports": {string(data) + `{"final_report": {"accuracy": 1}}` + "\n", "a second final_report"},
		"other run":   {strings.Replace(string(data), `{"final_report": {"accuracy": 0.5}}`, `{"final_report": {"accuracy": 0.5}, "run_id": "OTHER"}`, 1), `run_id "OTHER"; expected the spec's`},
	} {
		_, err := readBytes(openaiEvals, "r.jsonl", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// ragas exports carry columns that are not metrics: the testset fields of
// ragas' sample types (persona_name, query_style, query_length,
// synthesizer_name) are data, and an unknown column with no number in it is
// left out with a warning, not a refusal (it used to refuse the file). A
// summary table says what it is.
func TestRagasNonMetricColumns(t *testing.T) {
	csv := ",user_input,persona_name,query_style,query_length,synthesizer_name,reviewed_by,faithfulness\n" +
		"0,q1,Ana,MISSPELLED,SHORT,single_hop_specific_query_synthesizer,bob,0.9\n" +
		"1,q2,Ben,PERFECT_GRAMMAR,LONG,multi_hop_abstract_query_synthesizer,,nan\n"
	var notes []Note
	var recs []*Record
	err := ragasCSV.ReadNoted("r.csv", strings.NewReader(csv), func(r *Record) error { recs = append(recs, r); return nil }, func(n Note) { notes = append(notes, n) })
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || len(recs[0].Metrics) != 1 || recs[0].Metrics[0].Name != "faithfulness" || recs[0].Metrics[0].Value != 0.9 || !recs[1].Metrics[0].Unscored {
		t.Fatalf("records %+v", recs)
	}
	if len(notes) != 1 || !strings.Contains(notes[0].Msg, `column "reviewed_by" is not a metric`) || !strings.Contains(notes[0].Msg, `line 2 has "bob"`) {
		t.Errorf("notes %+v, want one on reviewed_by", notes)
	}
	// Through Records the note is a warning finding naming the file.
	rs := NewRecords(ragasCSV, "r.csv", func() (io.Reader, error) { return strings.NewReader(csv), nil })
	if err := rs.Each(func(*native.Record) error { return nil }); err != nil {
		t.Fatal(err)
	}
	ws := rs.Warnings(&rubric.Rubric{Name: "r"})
	if len(ws) != 1 || !strings.Contains(ws[0].Text(), "r.csv: column \"reviewed_by\" is not a metric") {
		t.Errorf("warnings %+v", ws)
	}
	for _, sum := range []string{"metric,score\nfaithfulness,0.9\n", ",metric,value\n0,faithfulness,0.9\n"} {
		_, err := readBytes(ragasCSV, "summary.csv", []byte(sum))
		if err == nil || !strings.Contains(err.Error(), "a summary table (one row per metric)") {
			t.Errorf("%q: %v", sum, err)
		}
	}
}

// pass_at_1 is the share of epochs scored 1: over values of 0 and 1 that
// is the mean rubricgate takes, so such a log is read (pass_at_1.json,
// two epochs of C/I); a value in between (P, 0.5) counts as failed in
// pass@1 and as half in the mean, and is refused naming the sample.
func TestInspectPassAt1(t *testing.T) {
	data, err := os.ReadFile("testdata/inspect/pass_at_1.json")
	if err != nil {
		t.Fatal(err)
	}
	recs, err := readBytes(inspectJSON, "pass_at_1.json", data)
	if err != nil || len(recs) != 4 {
		t.Fatalf("%d records, %v; want 4", len(recs), err)
	}
	partial := bytes.Replace(data, []byte(`"value": "I"`), []byte(`"value": "P"`), 1)
	_, err = readBytes(inspectJSON, "pass_at_1.json", partial)
	var ie *native.InputError
	if !errors.As(err, &ie) || !strings.Contains(ie.Msg, "pass_at_1") || !strings.Contains(ie.Path, "samples[1]") {
		t.Errorf("a P under pass_at_1: %v; want an input error at samples[1] naming pass_at_1", err)
	}
	if _, err := readBytes(inspectJSON, "pass_at_1.json", bytes.Replace(data, []byte(`"pass_at_1"`), []byte(`"pass_at_2"`), 1)); err == nil || !strings.Contains(err.Error(), "pass_at_2") {
		t.Errorf("pass_at_2: %v; want refused by name", err)
	}
}
