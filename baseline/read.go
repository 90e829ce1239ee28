package baseline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

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
func Read(r io.Reader, name string, limit int64) (*File, error) {
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
	// A file as Write makes it (any whitespace and member order) is read
	// without encoding/json's passes over the item columns; anything else,
	// and any error, goes through encoding/json, which names the problem.
	var w wire
	if !readFast(data, &w) {
		w = wire{}
		err = json.Unmarshal(data, &w)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		line, col := position(data, syn.Offset)
		return nil, fmt.Errorf("%s:%d:%d: invalid JSON: %w", name, line, col, err)
	}
	if w.Schema != nil && *w.Schema != Schema {
		return nil, fmt.Errorf("%s: baseline schema %d is not supported (this rubricgate reads schema %d); use a matching rubricgate or make a new baseline", name, *w.Schema, Schema)
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
	missing := func(field string) error {
		return fmt.Errorf("%s: missing required field %q", name, field)
	}
	switch {
	case w.Schema == nil:
		return nil, fmt.Errorf("%s: missing field \"schema\"; not a rubricgate baseline file (expected schema %d)", name, Schema)
	case w.Rubric == nil || w.Rubric.Name == "":
		return nil, missing("rubric.name")
	case w.Rubric.Hash == "":
		return nil, missing("rubric.hash")
	case len(w.RubricCanonical) == 0 || string(w.RubricCanonical) == "null":
		return nil, missing("rubric_canonical")
	case w.CreatedAt == nil:
		return nil, missing("created_at")
	case w.Score == nil:
		return nil, missing("score")
	case w.PassRate == nil:
		return nil, missing("pass_rate")
	case w.Criteria == nil:
		return nil, missing("criteria")
	case w.Items == nil:
		return nil, missing("items")
	case w.Items.IDs == nil:
		return nil, missing("items.ids")
	case w.Items.Scores == nil:
		return nil, missing("items.scores")
	}
	errs := []*columnError{w.Items.IDs.err, w.Items.Scores.err}
	if w.Items.InputHashes != nil {
		errs = append(errs, w.Items.InputHashes.err)
	}
	if w.Items.Answers != nil {
		errs = append(errs, w.Items.Answers.err)
	}
	if w.Items.AnswerVars != nil {
		errs = append(errs, w.Items.AnswerVars.err)
	}
	for _, c := range errs {
		if c != nil {
			if off, ok := offsetIn(data, c.raw); ok {
				line, col := position(data, int64(off+c.at))
				return nil, fmt.Errorf("%s:%d:%d: %s", name, line, col, c.msg)
			}
			return nil, fmt.Errorf("%s: %s", name, c.msg)
		}
	}
	items, scores := w.Items.IDs.cols, w.Items.Scores.scores
	created, err := time.Parse(time.RFC3339, *w.CreatedAt)
	if err != nil {
		return nil, fmt.Errorf("%s: field \"created_at\": expected an RFC 3339 time, found %q", name, *w.CreatedAt)
	}
	if items.Len() != len(scores) {
		return nil, fmt.Errorf("%s: field \"items\": %d ids but %d scores; the columns must have the same length", name, items.Len(), len(scores))
	}
	if w.Items.Count != nil && *w.Items.Count != items.Len() {
		return nil, fmt.Errorf("%s: field \"items.count\" is %d but there are %d items (truncated or edited file?)", name, *w.Items.Count, items.Len())
	}
	canon, err := compactJSON(w.RubricCanonical)
	if err != nil {
		return nil, fmt.Errorf("%s: field \"rubric_canonical\": %w", name, err)
	}
	rb, err := rubric.FromCanonical(canon)
	if err != nil {
		return nil, fmt.Errorf("%s: field \"rubric_canonical\": %w", name, err)
	}
	// The stored bytes hash to the stored hash, or (reformatted by a tool)
	// the rubric they decode to does.
	if raw := hashOf(canon); raw != w.Rubric.Hash {
		if got := rb.Hash(); got != w.Rubric.Hash {
			return nil, fmt.Errorf("%s: the embedded rubric hashes to %s but the file says %s; the file was edited or is corrupt", name, got, w.Rubric.Hash)
		}
	}
	if rb.Name != w.Rubric.Name {
		return nil, fmt.Errorf("%s: the embedded rubric is named %q but the file says %q", name, rb.Name, w.Rubric.Name)
	}
	for i, v := range scores {
		items.SetScore(i, v)
	}
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
		rb:              rb,
	}
	switch {
	case w.PooledRuns != nil && w.RunScore == nil:
		return nil, fmt.Errorf("%s: field \"pooled_runs\" without \"run_score\"; the file was edited or is corrupt", name)
	case w.PooledRuns == nil && w.RunScore != nil:
		return nil, fmt.Errorf("%s: field \"run_score\" without \"pooled_runs\"; the file was edited or is corrupt", name)
	case w.PooledRuns != nil:
		if *w.PooledRuns < 2 {
			return nil, fmt.Errorf("%s: field \"pooled_runs\": %d is not a number of runs from 2 to %d", name, *w.PooledRuns, MaxPoolRuns)
		}
		f.PooledRuns, f.RunScore, f.RunDigest = *w.PooledRuns, *w.RunScore, w.RunDigest
	}
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return f, nil
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

// readAll reads up to limit+1 bytes, in one buffer sized from the reader's
// length where it tells (a file, a bytes.Reader): io.ReadAll's growing
// buffer allocates twice a large file's size.
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
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	_, err := buf.ReadFrom(io.LimitReader(r, limit+1))
	return buf.Bytes(), err
}
