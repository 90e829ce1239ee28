package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// UnmarshalJSON decodes and checks the file as Read does.
func (f *File) UnmarshalJSON(data []byte) error {
	g, err := Read(bytes.NewReader(data), "baseline", int64(len(data)))
	if err != nil {
		return err
	}
	*f = *g
	return nil
}

// Read reads and checks a baseline file. name is used in errors; limit caps
// the size in bytes (<= 0: DefaultMaxSize). It refuses a schema other than
// Schema (naming the one found), missing required fields, figures out of
// range, duplicate item ids, and an embedded rubric whose hash differs from
// the stored one (its bytes, compacted, must hash to it, or else the rubric
// they decode to must: a file reformatted by a JSON tool still reads), and
// a history whose hash chain does not verify (see [History]). Unknown
// fields are ignored (later schema-1 writers may add some). Errors name the file and, for JSON errors, the line and column.
//
// The checks run section by section, in this order: the bytes and the
// JSON and its schema ([readWire]: a large file on disk as Write lays it
// out is read in sections, anything else whole), the required
// fields ([wire.required]), the item columns ([readItemColumns]), the
// embedded rubric ([readRubric]), the history, input hashes and answers,
// the pooling fields ([File.setPooled]), and last the figures
// ([File.validate]).
func Read(r io.Reader, name string, limit int64) (*File, error) {
	w, data, err := readWire(r, name, limit)
	if err != nil {
		return nil, err
	}
	if err := w.required(name); err != nil {
		return nil, err
	}
	if err := columnErrors(data, name, w.Items); err != nil {
		return nil, err
	}
	created, err := time.Parse(time.RFC3339, *w.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("%s: field \"created_at\": expected an RFC 3339 time, found %q", name, *w.CreatedAt)
	}
	items, err := readItemColumns(name, w.Items)
	if err != nil {
		return nil, err
	}
	canon, rb, err := readRubric(name, w)
	if err != nil {
		return nil, err
	}
	items.SetScores(w.Items.Scores.scores) // as long as the ids: readItemColumns
	hist, err := readHistory(w.History)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if h := w.Items.InputHashes; h != nil {
		if !items.SetInputHashBytes(h.data) {
			return nil, fmt.Errorf("%s: field \"items.input_hashes\": %d hashes but %d items; the columns must have the same length", name, len(h.data)/32, items.Len())
		}
	}
	if err := setAnswers(items, w.Items); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	anchor, err := readAnchor(w.Anchor)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	f := &File{
		Schema:          *w.Schema,
		Rubric:          *w.Rubric,
		RubricCanonical: canon,
		CreatedAt:       created.UTC(),
		SHA:             w.SHA,
		Ref:             w.Ref,
		Branch:          w.Branch,
		Repository:      w.Repository,
		RunID:           w.RunID,
		RunURL:          w.RunURL,
		Score:           *w.Score,
		PassRate:        *w.PassRate,
		Criteria:        *w.Criteria,
		Items:           items,
		History:         hist,
		Anchor:          anchor,
		rb:              rb,
	}
	if err := f.setPooled(name, w); err != nil {
		return nil, err
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
}

// readWire reads and decodes the file: a large file on disk as Write lays
// it out in sections ([readSectioned]), anything else whole ([readData],
// [decodeWire]). data is the file's bytes when read whole, nil when read
// in sections (whose columns have no errors).
func readWire(r io.Reader, name string, limit int64) (w *wire, data []byte, err error) {
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	if w, ok := readSectioned(r, limit); ok {
		if err := w.checkSchema(name); err != nil {
			return nil, nil, err
		}
		return w, nil, nil
	}
	if data, err = readData(r, name, limit); err != nil {
		return nil, nil, err
	}
	if w, err = decodeWire(data, name); err != nil {
		return nil, nil, err
	}
	return w, data, nil
}

// readData reads the file's bytes, at most limit (<= 0: DefaultMaxSize),
// and refuses a larger or empty file.
func readData(r io.Reader, name string, limit int64) ([]byte, error) {
	if limit <= 0 {
		limit = DefaultMaxSize
	}
	data, err := readAll(r, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than the %d-byte limit for a baseline file", name, limit)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf("%s: empty file; expected a baseline JSON object", name)
	}
	return data, nil
}

// decodeWire decodes the JSON and refuses another schema. A file as Write
// makes it (any whitespace and member order) is read without
// encoding/json's passes over the item columns; anything else, and any
// error, goes through encoding/json, which names the problem (with the
// line and column).
func decodeWire(data []byte, name string) (*wire, error) {
	var w wire
	var err error
	if !readFast(data, &w) {
		w = wire{}
		err = json.Unmarshal(data, &w)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := position(data, syn.Offset)
		return nil, fmt.Errorf("%s:%d:%d: invalid JSON: %w", name, line, col, err)
	}
	if err := w.checkSchema(name); err != nil {
		return nil, err
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		line, col := position(data, typ.Offset)
		field := typ.Field
		if field == "" {
			return nil, fmt.Errorf("%s:%d:%d: expected a baseline JSON object, found JSON %s", name, line, col, typ.Value)
		}
		return nil, fmt.Errorf("%s:%d:%d: field %q: expected %s, found JSON %s", name, line, col, field, typeName(typ), typ.Value)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &w, nil
}

// checkSchema refuses a schema other than Schema.
func (w *wire) checkSchema(name string) error {
	if w.Schema != nil && *w.Schema != Schema {
		return fmt.Errorf("%s: baseline schema %d is not supported (this rubricgate reads schema %d); use a matching rubricgate or make a new baseline", name, *w.Schema, Schema)
	}
	return nil
}

// required refuses a file missing a required field, naming the first.
func (w *wire) required(name string) error {
	missing := func(field string) error {
		return fmt.Errorf("%s: missing required field %q", name, field)
	}
	switch {
	case w.Schema == nil:
		return fmt.Errorf("%s: missing field \"schema\"; not a rubricgate baseline file (expected schema %d)", name, Schema)
	case w.Rubric == nil || w.Rubric.Name == "":
		return missing("rubric.name")
	case w.Rubric.Hash == "":
		return missing("rubric.hash")
	case len(w.RubricCanonical) == 0 || string(w.RubricCanonical) == "null":
		return missing("rubric_canonical")
	case w.CreatedAt == nil:
		return missing("created_at")
	case w.Score == nil:
		return missing("score")
	case w.PassRate == nil:
		return missing("pass_rate")
	case w.Criteria == nil:
		return missing("criteria")
	case w.Items == nil:
		return missing("items")
	case w.Items.IDs == nil:
		return missing("items.ids")
	case w.Items.Scores == nil:
		return missing("items.scores")
	}
	return nil
}

// columnErrors returns the first error met while decoding an item column,
// at its line and column in data where it can be found.
func columnErrors(data []byte, name string, wi *wireItems) error {
	errs := []*columnError{wi.IDs.err, wi.Scores.err}
	if wi.InputHashes != nil {
		errs = append(errs, wi.InputHashes.err)
	}
	if wi.Answers != nil {
		errs = append(errs, wi.Answers.err)
	}
	if wi.AnswerVars != nil {
		errs = append(errs, wi.AnswerVars.err)
	}
	for _, c := range errs {
		if c != nil {
			if off, ok := offsetIn(data, c.raw); ok {
				line, col := position(data, int64(off+c.at))
				return fmt.Errorf("%s:%d:%d: %s", name, line, col, c.msg)
			}
			return fmt.Errorf("%s: %s", name, c.msg)
		}
	}
	return nil
}

// readItemColumns returns the ids' columns once the ids and scores have the
// same length and items.count, when present, agrees.
func readItemColumns(name string, wi *wireItems) (*gate.ItemColumns, error) {
	items, scores := wi.IDs.cols, wi.Scores.scores
	if items.Len() != len(scores) {
		return nil, fmt.Errorf("%s: field \"items\": %d ids but %d scores; the columns must have the same length", name, items.Len(), len(scores))
	}
	if wi.Count != nil && *wi.Count != items.Len() {
		return nil, fmt.Errorf("%s: field \"items.count\" is %d but there are %d items (truncated or edited file?)", name, *wi.Count, items.Len())
	}
	return items, nil
}

// readRubric decodes the embedded rubric and checks it against the stored
// name and hash: the stored bytes hash to the stored hash, or (reformatted
// by a tool) the rubric they decode to does.
func readRubric(name string, w *wire) (json.RawMessage, *rubric.Rubric, error) {
	canon, err := compactJSON(w.RubricCanonical)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: field \"rubric_canonical\": %w", name, err)
	}
	rb, err := rubric.FromCanonical(canon)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: field \"rubric_canonical\": %w", name, err)
	}
	if raw := hashOf(canon); raw != w.Rubric.Hash {
		if got := rb.Hash(); got != w.Rubric.Hash {
			return nil, nil, fmt.Errorf("%s: the embedded rubric hashes to %s but the file says %s; the file was edited or is corrupt", name, got, w.Rubric.Hash)
		}
	}
	if rb.Name != w.Rubric.Name {
		return nil, nil, fmt.Errorf("%s: the embedded rubric is named %q but the file says %q", name, rb.Name, w.Rubric.Name)
	}
	return canon, rb, nil
}

// setPooled checks and sets the fields of a pooled baseline: pooled_runs
// and run_score both or neither, and at least 2 runs.
func (f *File) setPooled(name string, w *wire) error {
	switch {
	case w.PooledRuns != nil && w.RunScore == nil:
		return fmt.Errorf("%s: field \"pooled_runs\" without \"run_score\"; the file was edited or is corrupt", name)
	case w.PooledRuns == nil && w.RunScore != nil:
		return fmt.Errorf("%s: field \"run_score\" without \"pooled_runs\"; the file was edited or is corrupt", name)
	case w.PooledRuns != nil:
		if *w.PooledRuns < 2 {
			return fmt.Errorf("%s: field \"pooled_runs\": %d is not a number of runs from 2 to %d", name, *w.PooledRuns, MaxPoolRuns)
		}
		f.PooledRuns, f.RunScore, f.RunDigest = *w.PooledRuns, *w.RunScore, w.RunDigest
	}
	return nil
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	if off < 0 {
		off = 0
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - (bytes.LastIndexByte(before, '\n') + 1)
	if col < 1 {
		col = 1
	}
	return line, col
}

func typeName(e *json.UnmarshalTypeError) string {
	if e.Type == nil {
		return "another type"
	}
	switch e.Type.Kind().String() {
	case "string":
		return "a string"
	case "float64", "float32", "int", "int64", "int32":
		return "a number"
	case "slice":
		return "an array"
	case "struct", "map", "ptr":
		return "an object"
	case "bool":
		return "true or false"
	}
	return e.Type.String()
}

// readAll reads up to limit+1 bytes. Where the reader tells its length (a
// file, a bytes.Reader) the buffer is allocated to that size plus one byte
// and read into directly, bounded by limit+1: io.ReadAll's growing buffer
// allocates twice a large file's size, and a bytes.Buffer grown to it
// zeroes the whole buffer before reading into it. A reader that returns
// more than it said (a file that grew) reads on, still bounded.
func readAll(r io.Reader, limit int64) ([]byte, error) {
	size := int64(-1)
	switch v := r.(type) {
	case interface{ Stat() (os.FileInfo, error) }:
		if st, err := v.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
	case interface{ Len() int }:
		size = int64(v.Len())
	}
	if size < 0 || size > limit {
		return io.ReadAll(io.LimitReader(r, limit+1))
	}
	buf := make([]byte, size+1)
	n, err := io.ReadFull(r, buf)
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF:
		return buf[:n], nil // all of it (or a file that shrank)
	case err != nil:
		return nil, err
	}
	// More than the size said: read on, up to limit+1 in all.
	rest, err := io.ReadAll(io.LimitReader(r, limit+1-int64(n)))
	return append(buf, rest...), err
}
