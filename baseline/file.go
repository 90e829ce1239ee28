// Package baseline keeps the last passing run: the baseline.json file format
// (versioned, with the rubric embedded in canonical form and every item's
// score in compact columns) and the stores it lives in: a local directory, a
// single named file, and GitHub Actions artifacts.
//
// A baseline is only written for a run that passed the gate. That rule
// belongs to the caller (the gate command): this package writes whatever it is
// given and never judges a run.
//
// Everything read here is untrusted: a baseline file may have been edited by
// hand, truncated, or (for artifacts) produced by someone else. Read checks
// the schema, the size, the required fields, the ranges of the figures, the
// hash of the embedded rubric and the hash chain of the history (the
// branch's earlier baselines, for the trend) before anything uses it.
package baseline

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// Schema is the baseline file schema this package writes and reads.
const Schema = 1

// DefaultMaxSize is the largest baseline file Read accepts when given no
// limit: 100 MiB, the artifact size limit.
const DefaultMaxSize int64 = 100 << 20

// File is one baseline: the figures of a passing run, the rubric it was
// scored under, and where it was made.
type File struct {
	// Schema is the file format version (Schema).
	Schema int
	// Rubric names the rubric and its hash ("sha256:<hex>" of RubricCanonical).
	Rubric gate.RubricRef
	// RubricCanonical is the rubric in canonical JSON form, so a later run can
	// re-score under it.
	RubricCanonical json.RawMessage
	// CreatedAt is when the baseline was made (UTC, second precision).
	CreatedAt time.Time
	// SHA, Ref, Branch and Repository describe the commit the run was on.
	SHA, Ref, Branch, Repository string
	// RunID and RunURL identify the workflow run (0 and "" outside Actions).
	RunID  int64
	RunURL string
	// Score is the run's mean item score (0-100); PassRate its share of
	// passing items (0-1).
	Score, PassRate float64
	// Criteria are the run's per-criterion figures, in rubric order.
	Criteria []gate.CriterionStats
	// Items are the scored items, in run order, in pointer-free columns
	// (stored as columns in the file too).
	Items *gate.ItemColumns
	// History is the chain of the branch's earlier baselines (see
	// [History]); empty for a file written before baselines had one.
	History History
	// PooledRuns is how many consecutive runs of the branch the items
	// pool (see [File.Pool]); 0 for a baseline of one run. RunScore is
	// then the score of the run that made it (Score is the pooled
	// items' mean, what the gate compares with).
	PooledRuns int
	RunScore   float64
	// RunDigest is [ItemsDigest] of the items of the run that made a
	// pooled baseline, before pooling: the same answers gated again are
	// not pooled again.
	RunDigest string
	// Anchor is the branch's anchor (see [gate.Anchor], [File.SetAnchor]);
	// nil for a file written before baselines carried one.
	Anchor *gate.Anchor

	// rb caches the decoded rubric (set by New and Read).
	rb *rubric.Rubric
}

// Meta describes where and when a baseline was made.
type Meta struct {
	CreatedAt                    time.Time
	SHA, Ref, Branch, Repository string
	RunID                        int64
	RunURL                       string
}

// New builds a baseline from a scored run. It refuses a report with nothing
// scored (nil Score or PassRate), a report scored under another rubric, and
// items with empty or duplicate ids or scores outside 0-100. items are the
// run's scored items (unscored items are left out by the caller).
//
// New does not check that the run passed: only write baselines of passing
// runs (the caller's rule).
func New(rb *rubric.Rubric, rep *gate.Report, items []gate.ItemScore, m Meta) (*File, error) {
	return NewColumns(rb, rep, gate.ColumnsOf(items), m)
}

// NewColumns is [New] with the items in columns, which the file keeps (the
// caller must not append to them afterwards).
func NewColumns(rb *rubric.Rubric, rep *gate.Report, items *gate.ItemColumns, m Meta) (*File, error) {
	if items == nil {
		items = &gate.ItemColumns{}
	}
	if rb == nil {
		return nil, errors.New("no rubric")
	}
	if rep == nil {
		return nil, errors.New("no report")
	}
	if rep.Score == nil || rep.PassRate == nil || rep.Scored == 0 {
		return nil, errors.New("the report scored nothing; a baseline needs a scored run")
	}
	hash := rb.Hash()
	if rep.Rubric.Hash != "" && rep.Rubric.Hash != hash {
		return nil, fmt.Errorf("baseline: the report was scored under rubric %s, not %s (%q)", rep.Rubric.Hash, hash, rb.Name)
	}
	canon, err := compactJSON(rb.Canonical())
	if err != nil {
		return nil, fmt.Errorf("baseline: rubric %q: canonical form is not valid JSON: %w", rb.Name, err)
	}
	if got := hashOf(canon); got != hash {
		return nil, fmt.Errorf("baseline: rubric %q: Hash() %s is not the sha256 of its canonical form (%s)", rb.Name, hash, got)
	}
	if m.CreatedAt.IsZero() {
		return nil, errors.New("baseline: Meta.CreatedAt is required")
	}
	f := &File{
		Schema:          Schema,
		Rubric:          gate.RubricRef{Name: rb.Name, Hash: hash},
		RubricCanonical: canon,
		CreatedAt:       m.CreatedAt.UTC().Truncate(time.Second),
		SHA:             m.SHA,
		Ref:             m.Ref,
		Branch:          m.Branch,
		Repository:      m.Repository,
		RunID:           m.RunID,
		RunURL:          m.RunURL,
		Score:           *rep.Score,
		PassRate:        *rep.PassRate,
		Criteria:        append([]gate.CriterionStats(nil), rep.Criteria...),
		Items:           items,
		rb:              rb,
	}
	f.Continue(nil) // a new chain; the caller continues the previous baseline's
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return f, nil
}

// wire is the JSON form of a File. Pointers tell a missing field from a
// zero one. Items are decoded as plain columns (no custom unmarshaler) so a
// type error anywhere still leaves Schema decoded, for a clear schema error.
type wire struct {
	Schema          *int                   `json:"schema"`
	Rubric          *gate.RubricRef        `json:"rubric"`
	CreatedAt       *string                `json:"created_at"`
	SHA             string                 `json:"sha"`
	Ref             string                 `json:"ref"`
	Branch          string                 `json:"branch"`
	Repository      string                 `json:"repository"`
	RunID           int64                  `json:"run_id"`
	RunURL          string                 `json:"run_url"`
	Score           *float64               `json:"score"`
	PassRate        *float64               `json:"pass_rate"`
	Criteria        *[]gate.CriterionStats `json:"criteria"`
	RubricCanonical json.RawMessage        `json:"rubric_canonical"`
	Items           *wireItems             `json:"items,omitempty"`
	History         *wireHistory           `json:"history,omitempty"`
	// PooledRuns and RunScore are set on a pooled baseline (File.Pool).
	PooledRuns *int     `json:"pooled_runs,omitempty"`
	RunScore   *float64 `json:"run_score,omitempty"`
	RunDigest  string   `json:"run_digest,omitempty"`
	// Anchor is the branch's anchor, bound by history.head.
	Anchor *wireAnchor `json:"anchor,omitempty"`
}

type wireItems struct {
	Count  *int         `json:"count"`
	IDs    *idColumn    `json:"ids"`
	Scores *scoreColumn `json:"scores"`
	// InputHashes, optional, binds each item to its task (see
	// gate.InputHash and hashColumn).
	InputHashes *hashColumn `json:"input_hashes,omitempty"`
	// Answers and AnswerVars are written when an item has more than one
	// answer sample: per item, the answers its score is the mean of and
	// the variance of their scores (what the next comparison needs to
	// count answer noise). A file without them has one answer per item.
	Answers    *answersColumn    `json:"answers,omitempty"`
	AnswerVars *answerVarsColumn `json:"answer_vars,omitempty"`
}

// Write writes the file as JSON: an indented header, then the items as two
// single-line columns. The embedded rubric keeps its meaning (whitespace
// aside); Read hashes its compacted form.
func (f *File) Write(w io.Writer) error {
	if err := f.validate(); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	schema := f.Schema
	created := f.CreatedAt.UTC().Format(time.RFC3339)
	crit := f.Criteria
	if crit == nil {
		crit = []gate.CriterionStats{}
	}
	score, pass := f.Score, f.PassRate
	hdr := wire{
		Schema:          &schema,
		Rubric:          &f.Rubric,
		CreatedAt:       &created,
		SHA:             f.SHA,
		Ref:             f.Ref,
		Branch:          f.Branch,
		Repository:      f.Repository,
		RunID:           f.RunID,
		RunURL:          f.RunURL,
		Score:           &score,
		PassRate:        &pass,
		Criteria:        &crit,
		RubricCanonical: f.RubricCanonical,
		History:         f.historyWire(),
		Anchor:          f.anchorWire(),
	}
	if f.PooledRuns > 1 {
		runs, own := f.PooledRuns, f.RunScore
		hdr.PooledRuns, hdr.RunScore, hdr.RunDigest = &runs, &own, f.RunDigest
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&hdr); err != nil {
		return fmt.Errorf("baseline: encode: %w", err)
	}
	// Replace the closing "\n}\n" with the items and our own closing.
	head := bytes.TrimRight(buf.Bytes(), "\n")
	head = bytes.TrimSuffix(head, []byte("}"))
	head = bytes.TrimRight(head, "\n")

	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(head)
	n := f.Items.Len()
	fmt.Fprintf(bw, ",\n  \"items\": {\n    \"count\": %d,\n    \"ids\": ", n)
	var b []byte
	flush := func(last bool) {
		if len(b) >= 1<<15 || last {
			bw.Write(b)
			b = b[:0]
		}
	}
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, f.Items.ID(i))
		flush(false)
	}
	b = append(b, "],\n    \"scores\": ["...)
	var fc floatCache
	for i, v := range f.Items.Scores() {
		if i > 0 {
			b = append(b, ',')
		}
		b = fc.append(b, v)
		flush(false)
	}
	b = append(b, ']')
	if f.Items.HasAnswers() {
		b = append(b, ",\n    \"answers\": ["...)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(f.Items.Answers(i)), 10)
			flush(false)
		}
		b = append(b, "],\n    \"answer_vars\": ["...)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = fc.append(b, f.Items.AnswerVar(i))
			flush(false)
		}
		b = append(b, ']')
	}
	if f.Items.HasInputHashes() {
		b = append(b, ",\n    \"input_hashes\": \""...)
		for i := 0; i < n; i += hashBlock {
			b = appendHashBlock(b, f.Items, i)
			flush(false)
		}
		b = append(b, '"')
	}
	b = append(b, "\n  }\n}\n"...)
	flush(true)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("baseline: write: %w", err)
	}
	return nil
}

// MarshalJSON encodes the file as Write does (columnar items).
func (f File) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

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

// Gate returns what the gate needs, with src describing where the file came
// from. Fields of src left empty (SHA, Ref, Repository, RunID, RunURL,
// CreatedAt) are filled from the file.
func (f *File) Gate(src gate.BaselineSource) (*gate.Baseline, error) {
	rb := f.rb
	if rb == nil {
		var err error
		if rb, err = rubric.FromCanonical(f.RubricCanonical); err != nil {
			return nil, fmt.Errorf("baseline: embedded rubric %q: %w", f.Rubric.Name, err)
		}
		f.rb = rb
	}
	return &gate.Baseline{
		Rubric:     rb,
		RubricHash: f.Rubric.Hash,
		Score:      f.Score,
		PassRate:   f.PassRate,
		Criteria:   f.Criteria,
		Items:      f.Items,
		Source:     f.source(src),
		Trend:      f.Trend(),
		PooledRuns: f.PooledRuns,
		Anchor:     f.anchorCopy(),
	}, nil
}

// source fills the empty fields of src from the file.
func (f *File) source(src gate.BaselineSource) gate.BaselineSource {
	if src.SHA == "" {
		src.SHA = f.SHA
	}
	if src.Ref == "" {
		src.Ref = f.Ref
	}
	if src.Repository == "" {
		src.Repository = f.Repository
	}
	if src.RunID == 0 {
		src.RunID = f.RunID
	}
	if src.RunURL == "" {
		src.RunURL = f.RunURL
	}
	if src.CreatedAt.IsZero() {
		src.CreatedAt = f.CreatedAt
	}
	return src
}

// validate checks the figures; errors name the field.
func (f *File) validate() error {
	if f.Schema != Schema {
		return fmt.Errorf("schema %d is not supported (this rubricgate writes schema %d)", f.Schema, Schema)
	}
	if f.Rubric.Name == "" || f.Rubric.Hash == "" {
		return errors.New("rubric name and hash are required")
	}
	if !strings.HasPrefix(f.Rubric.Hash, "sha256:") {
		return fmt.Errorf("field \"rubric.hash\": expected \"sha256:<hex>\", found %q", f.Rubric.Hash)
	}
	if len(f.RubricCanonical) == 0 {
		return errors.New("the canonical rubric is required")
	}
	if f.CreatedAt.IsZero() {
		return errors.New("field \"created_at\" is required")
	}
	if err := inRange("score", f.Score, 0, 100); err != nil {
		return err
	}
	if err := inRange("pass_rate", f.PassRate, 0, 1); err != nil {
		return err
	}
	if f.RunID < 0 {
		return fmt.Errorf("field \"run_id\": expected a positive id, found %d", f.RunID)
	}
	for i, c := range f.Criteria {
		field := fmt.Sprintf("criteria[%d]", i)
		if c.ID == "" {
			return fmt.Errorf("field %q: missing id", field)
		}
		if math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) || c.Weight < 0 {
			return fmt.Errorf("field %q: weight %v is not a finite number >= 0", field+".weight", c.Weight)
		}
		if c.Mean != nil && (math.IsNaN(*c.Mean) || math.IsInf(*c.Mean, 0)) {
			return fmt.Errorf("field %q: not a finite number", field+".mean")
		}
		if c.Normalized != nil {
			if err := inRange(field+".normalized", *c.Normalized, 0, 100); err != nil {
				return err
			}
		}
	}
	n := f.Items.Len()
	if n == 0 {
		return errors.New("field \"items\": no items; a baseline needs the scored items")
	}
	if err := uniqueIDs(f.Items); err != nil {
		return err
	}
	scores := f.Items.Scores()
	for i := range n {
		if id := f.Items.ID(i); id == "" {
			return fmt.Errorf("field \"items.ids[%d]\": empty id", i)
		} else if !utf8.ValidString(id) {
			return fmt.Errorf("field \"items.ids[%d]\": id %q is not valid UTF-8", i, id)
		}
		if s := scores[i]; !(s >= 0 && s <= 100) { // also NaN
			return inRange(fmt.Sprintf("items.scores[%d]", i), s, 0, 100)
		}
	}
	if err := f.checkFigures(); err != nil {
		return err
	}
	if err := f.checkPool(); err != nil {
		return err
	}
	if err := f.checkAnchor(); err != nil {
		return err
	}
	return f.checkHistory()
}

// setAnswers checks the answer columns and puts them in items: both or
// neither, as long as the ids, whole counts of at least 1, variances that
// are 0 for one answer and within what K scores on 0-100 averaging the
// item's score can have (K/(K-1)·m·(100-m)): a variance the item's own
// score contradicts is refused like a doctored aggregate.
func setAnswers(items *gate.ItemColumns, w *wireItems) error {
	switch {
	case w.Answers == nil && w.AnswerVars == nil:
		return nil
	case w.Answers == nil:
		return errors.New("field \"items.answer_vars\" without \"items.answers\"; the file was edited or is corrupt")
	case w.AnswerVars == nil:
		return errors.New("field \"items.answers\" without \"items.answer_vars\"; the file was edited or is corrupt")
	}
	ks, vs := w.Answers.scores, w.AnswerVars.scores
	n := items.Len()
	if len(ks) != n || len(vs) != n {
		return fmt.Errorf("field \"items\": %d ids but %d answers and %d answer_vars; the columns must have the same length", n, len(ks), len(vs))
	}
	k32 := make([]int32, n)
	for i, k := range ks {
		if !(k >= 1 && k <= 1e6) || k != math.Trunc(k) {
			return fmt.Errorf("field \"items.answers[%d]\": %v is not a whole number of answers from 1 to 1000000", i, k)
		}
		k32[i] = int32(k)
		v, m := vs[i], items.Score(i)
		most := 0.0
		if k > 1 {
			most = k / (k - 1) * m * (100 - m)
		}
		if !(v >= 0) || v > most*(1+figureTolerance)+figureTolerance {
			return fmt.Errorf("field \"items.answer_vars[%d]\" is %v but %v answers averaging %v vary by at most %.6g; the file was edited or is corrupt", i, v, k, m, most)
		}
	}
	items.SetAnswers(k32, vs)
	return nil
}

// figureTolerance is how far a stored figure may be from the one recomputed
// from the items: room for summation order and for a JSON tool that wrote
// fewer digits, far below any difference the gate acts on (max-drop is a
// relative 2% of a 0-100 score).
const figureTolerance = 1e-6

// checkFigures recomputes what the items determine and refuses a file whose
// stored figures disagree: the gate decides on the stored score, so a file
// edited to "score": 0 (or 100) must not be believed. The score is the mean
// of the item scores; the pass rate cannot exceed the share of items at or
// above the threshold (an item can also fail a critical criterion, which the
// items do not record). The per-criterion figures cannot be recomputed (the
// items keep no per-criterion scores); they only feed the report's table,
// never the decision, and are checked against their own histograms and the
// embedded rubric.
func (f *File) checkFigures() error {
	var sum float64
	atThreshold := 0
	threshold := math.Inf(1)
	if f.rb != nil {
		threshold = f.rb.Threshold - 1e-9 // as the gate compares
	}
	for _, s := range f.Items.Scores() {
		sum += s
		if s >= threshold {
			atThreshold++
		}
	}
	n := float64(f.Items.Len())
	if mean := sum / n; math.Abs(mean-f.Score) > figureTolerance {
		return fmt.Errorf("field \"score\" is %v but the %d items average %.6g; the file was edited or is corrupt", f.Score, f.Items.Len(), mean)
	}
	if f.rb == nil {
		return nil
	}
	if most := float64(atThreshold) / n; f.PassRate > most+figureTolerance {
		return fmt.Errorf("field \"pass_rate\" is %v but only %d of %d items reach the threshold %v (at most %.6g); the file was edited or is corrupt", f.PassRate, atThreshold, f.Items.Len(), f.rb.Threshold, most)
	}
	if len(f.Criteria) != len(f.rb.Criteria) {
		return fmt.Errorf("field \"criteria\": %d criteria but the embedded rubric has %d", len(f.Criteria), len(f.rb.Criteria))
	}
	// With answer samples an item's value per criterion is the mean of its
	// answers, binned like a judge-samples mean.
	means := f.Items.HasAnswers()
	for i := range f.Criteria {
		if err := checkCriterion(fmt.Sprintf("criteria[%d]", i), &f.Criteria[i], &f.rb.Criteria[i], f.Items.Len(), means); err != nil {
			return err
		}
	}
	return nil
}

// checkCriterion checks one criterion's figures against its rubric entry and
// its own histogram. means is true when items may score a criterion as the
// mean of answer samples (the file has answer columns).
func checkCriterion(field string, c *gate.CriterionStats, rc *rubric.Criterion, items int, means bool) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("field %q: "+format+"; the file was edited or is corrupt", append([]any{field}, a...)...)
	}
	if c.ID != rc.ID {
		return bad("criterion %q, but the embedded rubric has %q here", c.ID, rc.ID)
	}
	if c.Weight != rc.Weight {
		return bad("weight %v, but the embedded rubric says %v", c.Weight, rc.Weight)
	}
	if c.Scored < 0 || c.NA < 0 || c.BelowMin < 0 || c.Scored+c.NA > items {
		return bad("scored %d and na %d do not fit %d items", c.Scored, c.NA, items)
	}
	if rc.Continuous || c.Spread != nil || means {
		// Continuous scores and means of samples (judge samples, which
		// leave a spread, or answer samples) are binned, not counted per
		// level: the histogram cannot reproduce the mean or the count
		// below the minimum. Check what still must hold.
		if c.BelowMin > c.Scored {
			return bad("below_min %d exceeds scored %d", c.BelowMin, c.Scored)
		}
		if c.Scored == 0 {
			if c.Mean != nil || c.Normalized != nil {
				return bad("a mean with nothing scored")
			}
			return nil
		}
		if c.Mean == nil || !(*c.Mean >= float64(rc.Scale.Low)-figureTolerance && *c.Mean <= float64(rc.Scale.High)+figureTolerance) {
			return bad("mean is missing or off the scale %d..%d", rc.Scale.Low, rc.Scale.High)
		}
		norm := 100 * (*c.Mean - float64(rc.Scale.Low)) / float64(rc.Scale.High-rc.Scale.Low)
		if c.Normalized == nil || math.Abs(*c.Normalized-norm) > figureTolerance {
			return bad("normalized is not the normalised mean %.6g", norm)
		}
		return nil
	}
	var count, sum, below int
	for level, k := range c.Histogram {
		if level < rc.Scale.Low || level > rc.Scale.High || k < 0 {
			return bad("histogram level %d (count %d) is not on the scale %d..%d", level, k, rc.Scale.Low, rc.Scale.High)
		}
		count += k
		sum += level * k
		if !rc.Meets(float64(level)) {
			below += k
		}
	}
	if count != c.Scored {
		return bad("the histogram counts %d scores but scored is %d", count, c.Scored)
	}
	if c.BelowMin != below {
		return bad("below_min is %d but the histogram has %d below the minimum", c.BelowMin, below)
	}
	if c.Scored == 0 {
		if c.Mean != nil || c.Normalized != nil {
			return bad("a mean with nothing scored")
		}
		return nil
	}
	mean := float64(sum) / float64(c.Scored)
	norm := 100 * (mean - float64(rc.Scale.Low)) / float64(rc.Scale.High-rc.Scale.Low)
	if c.Mean == nil || math.Abs(*c.Mean-mean) > figureTolerance {
		return bad("mean is not the histogram's mean %.6g", mean)
	}
	if c.Normalized == nil || math.Abs(*c.Normalized-norm) > figureTolerance {
		return bad("normalized is not the histogram's normalised mean %.6g", norm)
	}
	return nil
}

// uniqueIDs refuses duplicate ids. The columns' id index finds whether
// any id repeats (and is kept for the gate's pairing); the exact check
// names the first repeat.
func uniqueIDs(items *gate.ItemColumns) error {
	if items.HasDuplicate() {
		return uniqueIDsExact(items)
	}
	return nil
}

func uniqueIDsExact(items *gate.ItemColumns) error {
	seen := make(map[string]int, items.Len())
	for i := range items.Len() {
		id := items.ID(i)
		if j, ok := seen[id]; ok {
			return dupError(i, j, id)
		}
		seen[id] = i
	}
	return nil
}

func dupError(i, j int, id string) error {
	return fmt.Errorf("field \"items.ids[%d]\": duplicate id %q (also items.ids[%d])", i, id, j)
}

func inRange(field string, v, lo, hi float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		return fmt.Errorf("field %q: %v is outside %v-%v", field, v, lo, hi)
	}
	return nil
}

func compactJSON(b []byte) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func hashOf(canon []byte) string {
	s := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(s[:])
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
