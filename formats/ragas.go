package formats

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"fmt"
	"github.com/rubricgate/rubricgate/record"
	"io"
	"math"
	"strconv"
	"strings"
)

// ragas results as CSV: result.to_pandas().to_csv(path), one row per
// sample: the dataset's columns, then one float column per metric, empty
// (pandas' NaN) or "nan" where a metric failed. Source: ragas
// src/ragas/dataset_schema.py (SingleTurnSample, MultiTurnSample,
// EvaluationResult.to_pandas) and src/ragas/evaluation.py (raise_exceptions
// False gives NaN), at commit 3e28e9dec938.
//
// Columns: a first column with an empty header is pandas' index (ignored);
// the sample fields (user_input, retrieved_contexts, reference_contexts,
// retrieved_context_ids, reference_context_ids, response, multi_responses,
// reference, rubrics, reference_tool_calls, reference_topics, and the
// pre-0.2 question, contexts, answer, ground_truth, ground_truths) are
// data; an "id" column, if present, is the record id; every other column is
// a metric, and each of its cells must be a finite number, empty or NaN
// (Unscored: the metric failed). Without an id column the id is "sha256:" and 16 hex digits of the
// user_input (or question) text, which must then be unique (add an id column
// when questions repeat); the text, cut to 200 bytes, is in
// Meta["user_input"]. Ids are refused when empty or repeated.
//
// Detection (a .csv is also rubricgate's own review sheet): the header must
// name user_input or question, and either start with pandas' unnamed index
// column or name a ragas-only data column (user_input, retrieved_contexts,
// contexts, reference, ground_truth ...), and name no column only a review
// sheet has (notes, reviewer, pass, retrieval_miss, error, reasoning,
// judge_model, length). Anything else is left to the review-sheet reader;
// --format ragas settles a doubt.
var ragasCSV = &Format{
	Name: "ragas",
	Detect: func(name string, head []byte) bool {
		if ext(name) != ".csv" {
			return false
		}
		r := csv.NewReader(strings.NewReader(string(firstLine(head))))
		h, err := r.Read()
		if err != nil || len(h) == 0 || len(pfCSVGroups(h)) > 0 {
			return false // promptfoo's CSV, whatever its vars are named
		}
		text, ragasOnly := false, h[0] == ""
		for _, c := range h {
			switch c {
			case "user_input":
				text, ragasOnly = true, true
			case "question":
				text = true
			case "notes", "reviewer", "pass", "retrieval_miss", "error", "reasoning", "judge_model", "length":
				return false
			}
			if ragasDataColumns[c] && c != "question" && c != "response" && c != "answer" {
				ragasOnly = true
			}
		}
		return text && ragasOnly
	},
	Read: func(name string, r io.Reader, fn func(*Record) error) error {
		return readRagas(name, r, fn, func(Note) {})
	},
	ReadNoted: readRagas,
}

var ragasDataColumns = map[string]bool{
	"user_input": true, "retrieved_contexts": true, "reference_contexts": true,
	"retrieved_context_ids": true, "reference_context_ids": true, "response": true,
	"multi_responses": true, "reference": true, "rubrics": true,
	"reference_tool_calls": true, "reference_topics": true,
	"question": true, "contexts": true, "answer": true, "ground_truth": true, "ground_truths": true,
	// Testset generation (SingleTurnSample's persona_name, query_style,
	// query_length; Testset.to_pandas adds synthesizer_name).
	"persona_name": true, "query_style": true, "query_length": true, "synthesizer_name": true,
}

func readRagas(name string, r io.Reader, fn func(*Record) error, note func(Note)) error {
	cf, err := openCSV(name, r, "a header row")
	if err != nil {
		return err
	}
	cols, err := ragasHeader(name, cf.head)
	if err != nil {
		return err
	}
	// The rows are read whole before any is handed on: whether a column is
	// a metric depends on all its cells.
	rows, err := ragasReadRows(cf)
	if err != nil {
		return err
	}
	if cols.metrics, err = ragasMetricColumns(name, cf.head, cols.metrics, rows, note); err != nil {
		return err
	}
	seen := newIDs(name)
	for _, rw := range rows {
		rec, err := cols.record(name, cf.head, rw)
		if err != nil {
			return err
		}
		hint := "; add an id column"
		if cols.id >= 0 {
			hint = ""
		}
		if err := seen.add(rec.ID, rec.ID, rec.Loc, hint); err != nil {
			return err
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return nil
}

// ragasColumns says what the columns of a ragas CSV are: the id column
// and the input text column (-1 for none), and the metric columns.
type ragasColumns struct {
	id, text int
	metrics  []int
}

// ragasHeader reads the header row: pandas' unnamed index is skipped, an
// id, user_input or question column identifies the rows, every column
// that is not a ragas sample field may be a metric.
func ragasHeader(name string, head []string) (*ragasColumns, error) {
	cols := &ragasColumns{id: -1, text: -1}
	seenCol := map[string]bool{}
	for i, c := range head {
		if i == 0 && c == "" {
			continue // pandas' index
		}
		if c == "" {
			return nil, &record.InputError{File: name, Line: 1, Msg: fmt.Sprintf("column %d has an empty name", i+1)}
		}
		if seenCol[c] {
			return nil, &record.InputError{File: name, Line: 1, Msg: fmt.Sprintf("column %q appears twice", c)}
		}
		seenCol[c] = true
		switch {
		case c == "id":
			cols.id = i
		case c == "user_input":
			cols.text = i
		case c == "question":
			if cols.text < 0 {
				cols.text = i
			}
		case ragasDataColumns[c]:
		default:
			cols.metrics = append(cols.metrics, i)
		}
	}
	if cols.id < 0 && cols.text < 0 {
		if isSummaryTable(head) {
			return nil, &record.InputError{File: name, Line: 1, Msg: "a summary table (one row per metric): that is the run's aggregate, not per-sample scores, and a gate compares items; write result.to_pandas().to_csv(path) for one row per sample"}
		}
		return nil, &record.InputError{File: name, Line: 1, Msg: "no id, user_input or question column to identify the rows"}
	}
	if len(cols.metrics) == 0 {
		return nil, &record.InputError{File: name, Line: 1, Msg: "no metric columns (every column is a ragas sample field)"}
	}
	return cols, nil
}

// ragasRow is one data row and the line it starts on.
type ragasRow struct {
	cells []string
	line  int
}

// ragasReadRows reads every row after the header.
func ragasReadRows(cf *csvFile) ([]ragasRow, error) {
	var rows []ragasRow
	for {
		cells, err := cf.r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, cf.err(err)
		}
		line, _ := cf.r.FieldPos(0)
		rows = append(rows, ragasRow{cells, line})
	}
	if len(rows) == 0 {
		return nil, &record.InputError{File: cf.name, Line: 1, Msg: "no rows after the header"}
	}
	return rows, nil
}

// ragasMetricColumns keeps the candidate columns that hold metrics. A
// column none of whose cells is a number (a testset field of a newer
// ragas, a note the user added) is data, not a metric: it is left out
// with a note. A column of numbers with a cell that is not one is a
// metric with a bad value, and refuses the file.
func ragasMetricColumns(name string, head []string, metrics []int, rows []ragasRow, note func(Note)) ([]int, error) {
	kept := metrics[:0:0]
	for _, i := range metrics {
		numeric, text := false, -1
		for k, rw := range rows {
			switch cell := strings.TrimSpace(rw.cells[i]); {
			case cell == "" || strings.EqualFold(cell, "nan"):
			case isFiniteNumber(cell):
				numeric = true
			case text < 0:
				text = k
			}
		}
		switch {
		case text >= 0 && numeric:
			rw := rows[text]
			return nil, &record.InputError{File: name, Line: rw.line, Path: "column " + strconv.Quote(head[i]),
				Msg: fmt.Sprintf("%q; expected a finite number, or empty or NaN where the metric failed (the column's other cells are numbers)", clip(strings.TrimSpace(rw.cells[i]), 40))}
		case text >= 0:
			note(Note{Line: 1, Msg: fmt.Sprintf("column %q is not a metric (no cell is a number; line %d has %q): read as data, not scores", clip(head[i], 60), rows[text].line, clip(strings.TrimSpace(rows[text].cells[i]), 40))})
		default:
			kept = append(kept, i)
		}
	}
	if len(kept) == 0 {
		return nil, &record.InputError{File: name, Line: 1, Msg: "no metric columns (no column other than the ragas sample fields holds numbers)"}
	}
	return kept, nil
}

// record makes the record of one row: its id (the id column, else a hash
// of the input text), input and metrics (an empty or NaN cell Unscored).
func (cols *ragasColumns) record(name string, head []string, rw ragasRow) (*Record, error) {
	line := rw.line
	rec := &Record{Loc: Location{File: name, Line: line}, Meta: map[string]string{}}
	if cols.id >= 0 {
		rec.ID = rw.cells[cols.id]
		if strings.TrimSpace(rec.ID) == "" {
			return nil, &record.InputError{File: name, Line: line, Msg: "empty id"}
		}
	}
	if cols.text >= 0 {
		text := rw.cells[cols.text]
		if cols.id < 0 {
			if strings.TrimSpace(text) == "" {
				return nil, &record.InputError{File: name, Line: line, Msg: fmt.Sprintf("empty %s, and no id column to identify the row", head[cols.text])}
			}
			sum := sha256.Sum256([]byte(text))
			rec.ID = "sha256:" + hex.EncodeToString(sum[:8])
		}
		rec.Meta["user_input"] = clip(text, 200)
		rec.InputHash = ragasTask(head, rw.cells, cols.text)
	}
	for _, i := range cols.metrics {
		cell := strings.TrimSpace(rw.cells[i])
		m := Metric{Name: head[i]}
		if cell == "" || strings.EqualFold(cell, "nan") {
			m.Unscored = true
		} else {
			m.Value, _ = strconv.ParseFloat(cell, 64)
		}
		rec.Metrics = append(rec.Metrics, m)
	}
	return rec, nil
}

// isFiniteNumber reports whether a cell is a finite number.
func isFiniteNumber(cell string) bool {
	f, err := strconv.ParseFloat(cell, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

// isSummaryTable reports whether a header is that of a table of metric
// names and values (pandas' index aside), not of samples.
func isSummaryTable(head []string) bool {
	var cols []string
	for i, c := range head {
		if i == 0 && c == "" {
			continue
		}
		cols = append(cols, strings.ToLower(strings.TrimSpace(c)))
	}
	return len(cols) == 2 && cols[0] == "metric" && (cols[1] == "score" || cols[1] == "value" || cols[1] == "mean")
}
