package formats

import (
	"bufio"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/results/native"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/internal/crlf"
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
// (NA). Without an id column the id is "sha256:" and 16 hex digits of the
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
		if err != nil || len(h) == 0 {
			return false
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
	Read: readRagas,
}

var ragasDataColumns = map[string]bool{
	"user_input": true, "retrieved_contexts": true, "reference_contexts": true,
	"retrieved_context_ids": true, "reference_context_ids": true, "response": true,
	"multi_responses": true, "reference": true, "rubrics": true,
	"reference_tool_calls": true, "reference_topics": true,
	"question": true, "contexts": true, "answer": true, "ground_truth": true, "ground_truths": true,
}

func readRagas(name string, r io.Reader, fn func(*Record) error) error {
	br := bufio.NewReaderSize(limitedReader(r, maxFile), 64<<10)
	// Peek returns (and clears) a read error, so it is checked here.
	peek, perr := br.Peek(br.Size())
	if crlf.BareCR(peek) {
		return &native.InputError{File: name, Line: 1, Msg: crlf.Message}
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = false
	csvErr := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return &native.InputError{File: name, Line: pe.Line, Msg: fmt.Sprintf("not valid CSV: %v", pe.Err)}
		}
		return &native.InputError{File: name, Msg: fmt.Sprintf("read: %v", err), Err: err}
	}
	if perr != nil && perr != io.EOF && perr != bufio.ErrBufferFull {
		return csvErr(perr)
	}
	head, err := cr.Read()
	if err == io.EOF {
		return &native.InputError{File: name, Line: 1, Msg: "empty; expected a header row"}
	}
	if err != nil {
		return csvErr(err)
	}
	idCol, textCol := -1, -1
	var metrics []int
	seenCol := map[string]bool{}
	for i, c := range head {
		if i == 0 && c == "" {
			continue // pandas' index
		}
		if c == "" {
			return &native.InputError{File: name, Line: 1, Msg: fmt.Sprintf("column %d has an empty name", i+1)}
		}
		if seenCol[c] {
			return &native.InputError{File: name, Line: 1, Msg: fmt.Sprintf("column %q appears twice", c)}
		}
		seenCol[c] = true
		switch {
		case c == "id":
			idCol = i
		case c == "user_input":
			textCol = i
		case c == "question":
			if textCol < 0 {
				textCol = i
			}
		case ragasDataColumns[c]:
		default:
			metrics = append(metrics, i)
		}
	}
	if idCol < 0 && textCol < 0 {
		return &native.InputError{File: name, Line: 1, Msg: "no id, user_input or question column to identify the rows"}
	}
	if len(metrics) == 0 {
		return &native.InputError{File: name, Line: 1, Msg: "no metric columns (every column is a ragas sample field)"}
	}
	seen := newIDs(name)
	rows := 0
	for {
		row, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return csvErr(err)
		}
		line, _ := cr.FieldPos(0)
		rows++
		loc := Location{File: name, Line: line}
		rec := &Record{Loc: loc, Meta: map[string]string{}}
		hint := "; add an id column"
		if idCol >= 0 {
			rec.ID = row[idCol]
			hint = ""
			if strings.TrimSpace(rec.ID) == "" {
				return &native.InputError{File: name, Line: line, Msg: "empty id"}
			}
		}
		if textCol >= 0 {
			text := row[textCol]
			if idCol < 0 {
				if strings.TrimSpace(text) == "" {
					return &native.InputError{File: name, Line: line, Msg: fmt.Sprintf("empty %s, and no id column to identify the row", head[textCol])}
				}
				sum := sha256.Sum256([]byte(text))
				rec.ID = "sha256:" + hex.EncodeToString(sum[:8])
			}
			rec.Meta["user_input"] = clip(text, 200)
		}
		if err := seen.add(rec.ID, rec.ID, loc, hint); err != nil {
			return err
		}
		for _, i := range metrics {
			cell := strings.TrimSpace(row[i])
			m := Metric{Name: head[i]}
			switch strings.ToLower(cell) {
			case "", "nan":
				m.NA = true
			default:
				f, err := strconv.ParseFloat(cell, 64)
				if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
					return &native.InputError{File: name, Line: line, Path: "column " + strconv.Quote(head[i]),
						Msg: fmt.Sprintf("%q; expected a finite number, or empty or NaN where the metric failed (a column that is not a metric must be id or a ragas sample field)", clip(cell, 40))}
				}
				m.Value = f
			}
			rec.Metrics = append(rec.Metrics, m)
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	if rows == 0 {
		return &native.InputError{File: name, Line: 1, Msg: "no rows after the header"}
	}
	return nil
}
