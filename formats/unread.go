package formats

import (
	"bytes"
	"encoding/csv"
	"strings"

	"github.com/rubricgate/rubricgate/record"
)

// Unread returns an error for a results file in an output rubricgate does
// not read (promptfoo's -o results.yaml, .yml, .html, .xml; a summary
// table of metric and score, such as ragas' aggregate, in a .csv), naming
// the format and what to write instead; nil for any other file. A file
// with one of those names that starts as JSON is not refused here.
func Unread(name string, head []byte) error {
	e := ext(name)
	switch e {
	case ".yaml", ".yml", ".html", ".htm", ".xml":
	case ".csv":
		h, err := csv.NewReader(strings.NewReader(string(firstLine(head)))).Read()
		if err == nil && isSummaryTable(h) {
			return &record.InputError{File: name, Line: 1, Msg: "a summary table (one row per metric: " + strings.Join(h, ",") + "): that is a run's aggregate (ragas' scores by metric, say), not per-item scores, and a gate compares items; write one row per item (ragas: result.to_pandas().to_csv(path))"}
		}
		return nil
	default:
		return nil
	}
	t := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if bytes.HasPrefix(t, []byte("{")) {
		return nil
	}
	kind := map[string]string{".yaml": "YAML", ".yml": "YAML", ".html": "HTML", ".htm": "HTML", ".xml": "XML"}[e]
	who := "a " + kind + " file"
	if kind != "YAML" {
		who = "an " + kind + " file"
	}
	switch {
	case bytes.HasPrefix(t, []byte("evalId:")) || bytes.HasPrefix(t, []byte("<promptfoo>")) ||
		kind == "HTML" && bytes.Contains(head, []byte("Promptfoo")):
		who = "promptfoo's " + kind + " output (promptfoo eval -o results" + e + ")"
	}
	return &record.InputError{File: name, Line: 1, Msg: who + " is not read (rubricgate reads promptfoo's -o results.json, results.jsonl or results.csv, and rubricgate JSON lines or CSV); write promptfoo eval -o results.json instead"}
}
