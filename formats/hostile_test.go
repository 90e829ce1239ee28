package formats

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"github.com/rubricgate/rubricgate/results/native"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		{"promptfoo-dup.jsonl", "promptfoo", 3, "", `duplicate id "geo-001" (first at line 1)`},
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
		{"ragas-text-metric.csv", "ragas", 2, `column "notes"`, `"fine"; expected a finite number`},
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
