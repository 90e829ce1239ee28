// Package formats reads the result files of the eval tools users already run
// (promptfoo, Inspect AI, deepeval, openai/evals, ragas) into neutral
// records: one per item (or per sample of an item), each with its metrics in
// source order. The readers know nothing of rubrics or gating; Records
// hands a file's records to package gate, which maps metrics to criteria
// with the rubric's `from`. A format's Name is the rubric's `from` key
// (rubric.Sources): one name per tool, whichever of its files is read.
//
// Every reader is strict: bad input is an *record.InputError naming the file, the
// line (or JSON path or zip member) and what was expected; duplicate item
// ids are refused (Inspect's epochs are samples of one id, not duplicates);
// inputs are read under size limits. A value the tool recorded as missing
// (Inspect's NaN, a ragas NaN or empty cell, a null score) is the tool's
// failure to score, never a zero and never `na`: the metric is marked
// Unscored and the item is unscored; an item the tool failed to score
// carries Error, never a zero. None of these tools writes a not-applicable
// verdict: a criterion is `na` only where the rubric allows it and no metric
// of the item feeds it.
package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/record"
	"io"
	"path"
	"sort"
	"strings"
)

// Record is one scored (or unscored) item of a tool's output.
type Record struct {
	// ID identifies the item across runs; how each format derives it is
	// documented on the format.
	ID string
	// Loc says where the record was read.
	Loc Location
	// Metrics are the item's scores in source order.
	Metrics []Metric
	// Error, when non-empty, says the tool could not score the item: the
	// item is unscored (never a 0).
	Error string
	// Reasoning is the judge's reasoning, where the tool records one.
	Reasoning string
	// JudgeModel names the judge, where the tool records it.
	JudgeModel string
	// Meta holds other facts about the item (the provider, the epoch ...);
	// keys are documented on each format.
	Meta map[string]string
	// InputHash binds the record to its task (gate.HashTask of the input,
	// context and reference) where the format's file carries the input;
	// zero where it does not (see docs/results.md for which formats bind).
	InputHash gate.InputHash `json:"-"`
}

// Location is where a record was read.
type Location struct {
	// File is the name the reader was given.
	File string
	// Line is the 1-based line of the record's start, 0 if unknown.
	Line int
	// Path is the JSON path of the record, or the zip member it came from.
	Path string
}

// Metric is one score of a record.
type Metric struct {
	// Name is the metric's name in the tool (promptfoo's named metric,
	// Inspect's scorer or scorer/criterion, deepeval's metric name ...).
	Name string
	// Value is the score; 0 when Unscored.
	Value float64
	// Unscored reports that the tool recorded no value for this metric
	// (Inspect's NaN "unscored", a ragas NaN or empty cell, a null or NaN
	// score): the tool failed to score it, so the item is unscored (see
	// record.Metric.Unscored), never `na`.
	Unscored bool
	// Weight is the tool's own weight for the metric, 0 where it has none.
	Weight float64
	// Reason is the tool's explanation of this score, if any.
	Reason string
	// Direction is which way the tool defines the metric to improve
	// (deepeval's Toxicity is better lower); DirectionAssumed where the
	// tool does not say.
	Direction record.Direction
}

// Format is one tool's result format.
type Format struct {
	// Name is the --format name.
	Name string
	// Detect reports whether a file with this name, starting with head (up
	// to HeadSize bytes), is in this format.
	Detect func(name string, head []byte) bool
	// Read reads r, named name in errors, and calls fn with each record in
	// source order; it stops at fn's first error and returns it.
	Read func(name string, r io.Reader, fn func(*Record) error) error
	// ReadNoted, when set, is Read that also reports remarks on the file
	// that do not refuse it (a column it leaves out as not a metric): note
	// is called with each, before the records. Read then calls it with the
	// remarks dropped.
	ReadNoted func(name string, r io.Reader, fn func(*Record) error, note func(Note)) error
	// Directed says the tool's metrics differ in direction (deepeval's
	// Toxicity is better lower): a metric the reader leaves at
	// record.DirectionAssumed is warned about when a rubric maps it without
	// a source scale that says which way it goes.
	Directed bool
}

// Note is a remark on an input that was read anyway.
type Note struct {
	// Line is the 1-based line the remark is about, 0 for the whole file.
	Line int
	// Msg says what was read differently and why.
	Msg string
}

// HeadSize is how many leading bytes Detect looks at.
const HeadSize = 64 << 10

// Limits on input sizes. A result file is read whole or streamed under
// MaxFileBytes; one line of a JSON Lines or CSV file, or one zip member, is
// at most MaxRecordBytes.
const (
	MaxFileBytes   = 512 << 20
	MaxRecordBytes = 64 << 20
	// MaxZipMembers bounds the entries of an Inspect .eval archive.
	MaxZipMembers = 1 << 20
	// MaxUnzippedBytes bounds the bytes inflated from all the members of
	// one archive together (many small bombs are one big one).
	MaxUnzippedBytes = 4 << 30
)

// The limits in force; tests lower them.
var (
	maxFile   int64 = MaxFileBytes
	maxRecord int64 = MaxRecordBytes
	maxUnzip  int64 = MaxUnzippedBytes
)

// registry holds one format per tool; its names are the rubric's `from`
// keys (rubric.Sources), whatever file of the tool is read.
var registry = []*Format{
	promptfoo,
	inspect,
	deepevalJSON,
	openaiEvals,
	ragasCSV,
}

// All returns the formats, in a stable order.
func All() []*Format {
	return append([]*Format(nil), registry...)
}

// Names lists the format names, sorted.
func Names() []string {
	var n []string
	for _, f := range registry {
		n = append(n, f.Name)
	}
	sort.Strings(n)
	return n
}

// Lookup returns the format with this name.
func Lookup(name string) (*Format, bool) {
	for _, f := range registry {
		if f.Name == name {
			return f, true
		}
	}
	return nil, false
}

// ErrUnknownFormat is wrapped by Detect's error when no format matches.
var ErrUnknownFormat = errors.New("unknown result format")

// Detect returns the one format that claims a file by its name and its
// first bytes. No match wraps ErrUnknownFormat; two matches is an error too
// (pass the format by name).
func Detect(name string, head []byte) (*Format, error) {
	head = bytes.TrimPrefix(head, utf8BOM)
	var hits []*Format
	for _, f := range registry {
		if f.Detect(name, head) {
			hits = append(hits, f)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		return nil, fmt.Errorf("%s: %w: none of %s recognises it (name the format)", name, ErrUnknownFormat, strings.Join(Names(), ", "))
	}
	var n []string
	for _, f := range hits {
		n = append(n, f.Name)
	}
	return nil, fmt.Errorf("%s: ambiguous result format: it could be %s (name the format)", name, strings.Join(n, " or "))
}

// utf8BOM is the byte order mark some writers put before UTF-8 text
// (pandas' to_csv(..., encoding="utf-8-sig"), Windows editors).
var utf8BOM = []byte("\xef\xbb\xbf")

// skipBOM returns r without a leading UTF-8 byte order mark: no tool's
// reader sees it, so a header or a first key reads as written.
func skipBOM(r io.Reader) io.Reader {
	br := bufio.NewReaderSize(r, 64<<10)
	if b, err := br.Peek(len(utf8BOM)); err == nil && bytes.Equal(b, utf8BOM) {
		br.Discard(len(utf8BOM))
	}
	return br
}

// peekHead returns a reader of r's whole content and its first bytes (up to
// HeadSize), for a format whose files differ by content.
func peekHead(r io.Reader) (io.Reader, []byte) {
	br := bufio.NewReaderSize(r, HeadSize)
	head, _ := br.Peek(HeadSize) // a short or failing read shows in Read
	return br, head
}

// ext returns the lower-case extension of name, with its dot.
func ext(name string) string { return strings.ToLower(path.Ext(name)) }

// topKeys returns the keys of the top-level JSON object that start in head,
// in order, stopping quietly where head is cut or broken. It tolerates NaN
// tokens like the readers.
func topKeys(head []byte) []string {
	d := newJSONDecoder("", bytes.NewReader(head), 0)
	if d.skipSpace() != '{' {
		return nil
	}
	var keys []string
	for {
		if d.skipSpace() != '"' {
			return keys
		}
		k, err := d.str()
		if err != nil || d.skipSpace() != ':' {
			return keys
		}
		keys = append(keys, k)
		if _, err := d.value(); err != nil {
			return keys
		}
		if d.skipSpace() != ',' {
			return keys
		}
	}
}

func hasKey(keys []string, want ...string) bool {
	for _, k := range keys {
		for _, w := range want {
			if k == w {
				return true
			}
		}
	}
	return false
}

// firstLine returns head up to its first newline.
func firstLine(head []byte) []byte {
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		return head[:i]
	}
	return head
}

// ids refuses a duplicate record id within one file.
type ids struct {
	file string
	seen map[string]Location
}

func newIDs(file string) *ids { return &ids{file: file, seen: map[string]Location{}} }

// add records key (an id, or an id and a sample) at loc, or returns an error
// naming both places.
func (s *ids) add(key, shown string, loc Location, hint string) error {
	if prev, dup := s.seen[key]; dup {
		return &record.InputError{File: s.file, Line: loc.Line, Path: loc.Path,
			Msg: fmt.Sprintf("duplicate id %q (first at %s)%s", shown, where(prev), hint)}
	}
	s.seen[key] = loc
	return nil
}

func where(l Location) string {
	var parts []string
	if l.Line > 0 {
		parts = append(parts, fmt.Sprintf("line %d", l.Line))
	}
	if l.Path != "" {
		parts = append(parts, l.Path)
	}
	return strings.Join(parts, ", ")
}

// limitedReader returns r capped at limit bytes; reading past the cap is an
// error wrapping errLimit (not a silent truncation).
func limitedReader(r io.Reader, limit int64) io.Reader {
	return &capReader{r: r, left: limit, limit: limit}
}

type capReader struct {
	r     io.Reader
	left  int64
	limit int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		n, err := c.r.Read(one[:])
		if n > 0 {
			return 0, &limitError{c.limit}
		}
		return 0, err
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	return n, err
}

// limitError is the error of an input over its size limit; it wraps
// errLimit.
type limitError struct{ limit int64 }

func (e *limitError) Error() string { return fmt.Sprintf("%v of %d bytes", errLimit, e.limit) }
func (e *limitError) Unwrap() error { return errLimit }
