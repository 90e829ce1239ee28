// Package gate reads eval results, scores them against a rubric, aggregates
// the run, compares it with a baseline and decides whether the gate passes.
// It is pure: readers in, values out. Rendering lives elsewhere.
package gate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/rubric"
)

// Format is the format of a results input.
type Format int

// Results formats.
const (
	// FormatAuto picks the format from the input's name.
	FormatAuto Format = iota
	// FormatJSONL is one JSON object a line (.jsonl, .json).
	FormatJSONL
	// FormatCSV is a review sheet with a header row (.csv).
	FormatCSV
)

// Input is one results stream (a file, a shard, or stdin).
type Input struct {
	// Name is used in error messages and to pick the format ("-" is stdin).
	Name string
	// R is the content.
	R io.Reader
	// Format overrides the format inferred from Name when not FormatAuto.
	Format Format
}

// State says whether an item carries a score for a criterion.
type State uint8

// Value states.
const (
	// Missing: the item has no value for the criterion.
	Missing State = iota
	// Scored: the item has an integer score on the criterion's scale.
	Scored
	// NA: the item says `na` for a criterion that allows it.
	NA
)

// Value is one criterion score on an item.
type Value struct {
	Score int
	State State
}

// Item is one judged item as read from results.
type Item struct {
	// ID identifies the item within the run.
	ID string
	// File and Line locate the item (CSV: the line its row starts on).
	File string
	Line int
	// Values are indexed like the rubric's Criteria. Empty when Error is set.
	Values []Value
	// Error is the judge's error for an unscored item.
	Error string
	// Reasoning is the judge's justification, if any.
	Reasoning string
	// Notes are a reviewer's notes, if any.
	Notes string
	// Reviewer names the reviewer of a review-sheet row, if any.
	Reviewer string
	// JudgeModel is the per-item judge_model field, if any.
	JudgeModel string
	// RetrievalMiss is the review sheet's retrieval_miss tag.
	RetrievalMiss bool
	// Pass is the review sheet's own pass column, nil when absent or empty.
	Pass *bool
	// Length is the answer length in characters when the results carry the
	// answer text (answer/output/response) or a length field; -1 otherwise.
	Length int
	// Meta holds other top-level fields, only when ReadOptions.KeepMeta.
	Meta map[string]json.RawMessage
}

// ReadOptions tune the readers.
type ReadOptions struct {
	// IgnoreUnknown skips keys and columns that name no criterion instead of
	// failing (used to re-score a run under an older rubric).
	IgnoreUnknown bool
	// AllowMissing leaves criteria the item lacks as Missing instead of failing.
	AllowMissing bool
	// KeepMeta keeps unknown top-level fields in Item.Meta.
	KeepMeta bool
	// MaxLine is the longest line accepted, in bytes (0: 1 MiB).
	MaxLine int
	// GatesOnly reads for a check of gates alone (see CheckBlocking): an item
	// with no weighted score is no error.
	GatesOnly bool
}

// InputError is bad input at a position in a results file.
type InputError struct {
	File string
	Line int
	Msg  string
}

// Error formats the error as "file:line: message" ("file: message" when the
// line is unknown).
func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// defaultMaxLine is the longest results line accepted when ReadOptions.MaxLine is 0.
const defaultMaxLine = 1 << 20

// ReadItems streams the items of one input to fn, in input order, validating
// each against the rubric. It does not detect duplicate ids across items
// (Score does). The *Item passed to fn is only valid during the call.
//
// Every error about the content is an *InputError naming the input and line;
// an error returned by fn is passed back unchanged.
func ReadItems(rb *rubric.Rubric, in Input, opts ReadOptions, fn func(*Item) error) error {
	sc, err := newSchema(rb, opts)
	if err != nil {
		return err
	}
	d := newDecoder(sc, in.Name)
	var it Item
	emit := func() error {
		d.raw.toItem(sc, &it, in.Name)
		return fn(&it)
	}
	switch formatOf(in) {
	case FormatCSV:
		cr, err := newCSVReader(sc, in)
		if err != nil {
			return err
		}
		for {
			row, line, err := cr.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := d.decodeCSV(cr.head, row, line); err != nil {
				return err
			}
			if err := emit(); err != nil {
				return err
			}
		}
	default:
		ch := newChunker(in, sc.maxLine, 64<<10)
		for {
			c, err := ch.next()
			if c != nil {
				for _, l := range c.lines {
					ok, derr := d.decodeJSON(c.buf[l.off:l.end], l.line)
					if derr != nil {
						return derr
					}
					if !ok {
						continue
					}
					if err := emit(); err != nil {
						return err
					}
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
}

// formatOf returns the input's format, inferred from its name when
// in.Format is FormatAuto: .csv is a review sheet, anything else JSON lines.
func formatOf(in Input) Format {
	if in.Format != FormatAuto {
		return in.Format
	}
	if strings.HasSuffix(strings.ToLower(in.Name), ".csv") {
		return FormatCSV
	}
	return FormatJSONL
}

// schema is the rubric prepared for fast decoding and scoring.
type schema struct {
	rb      *rubric.Rubric
	opts    ReadOptions
	maxLine int
	// lookup maps lower-cased ids and aliases to criterion indexes.
	lookup map[string]int
	// slowFold is set when an alias is not ASCII: a key that misses lookup
	// is then retried with rubric.Index (Unicode case folding).
	slowFold bool
	ids      []string
	weight   []float64
	low      []int
	high     []int
	span     []float64 // high - low
	critical []bool
	min      []int
	blocking []bool
	na       []bool
	// list names the criteria for "expected one of" messages.
	list string
}

func newSchema(rb *rubric.Rubric, opts ReadOptions) (*schema, error) {
	if rb == nil || len(rb.Criteria) == 0 {
		return nil, errors.New("gate: the rubric has no criteria")
	}
	n := len(rb.Criteria)
	sc := &schema{
		rb: rb, opts: opts, maxLine: opts.MaxLine,
		lookup: make(map[string]int, 2*n),
		ids:    make([]string, n), weight: make([]float64, n),
		low: make([]int, n), high: make([]int, n), span: make([]float64, n),
		critical: make([]bool, n), min: make([]int, n),
		blocking: make([]bool, n), na: make([]bool, n),
	}
	if sc.maxLine <= 0 {
		sc.maxLine = defaultMaxLine
	}
	add := func(k string, i int) {
		k = strings.TrimSpace(k)
		if !isASCII(k) {
			sc.slowFold = true
			return
		}
		k = strings.ToLower(k)
		if _, dup := sc.lookup[k]; !dup {
			sc.lookup[k] = i
		}
	}
	names := make([]string, n)
	for i := range rb.Criteria {
		c := &rb.Criteria[i]
		if c.Scale.High <= c.Scale.Low {
			return nil, fmt.Errorf("gate: criterion %q has an empty scale %d..%d", c.ID, c.Scale.Low, c.Scale.High)
		}
		if c.Weight < 0 || math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) {
			return nil, fmt.Errorf("gate: criterion %q has a bad weight %v", c.ID, c.Weight)
		}
		sc.ids[i] = c.ID
		names[i] = c.ID
		sc.weight[i] = c.Weight
		sc.low[i], sc.high[i] = c.Scale.Low, c.Scale.High
		sc.span[i] = float64(c.Scale.High - c.Scale.Low)
		if c.Critical != nil {
			sc.critical[i] = true
			sc.min[i] = *c.Critical
			sc.blocking[i] = c.Blocking
		}
		sc.na[i] = c.NA
	}
	// Ids first so that an alias never shadows another criterion's id
	// (rubric.Index checks criteria in order, ids and aliases together;
	// a valid rubric has no such clash).
	for i := range rb.Criteria {
		add(rb.Criteria[i].ID, i)
	}
	for i := range rb.Criteria {
		for _, a := range rb.Criteria[i].Aliases {
			add(a, i)
		}
	}
	sc.list = strings.Join(names, ", ")
	return sc, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// find returns the criterion index for a key or column name (id or alias,
// case-insensitive, surrounding space ignored), or -1.
func (sc *schema) find(key []byte) int {
	k := bytes.TrimSpace(key)
	var buf [64]byte
	if len(k) <= len(buf) {
		lower := buf[:len(k)]
		ascii := true
		for i, c := range k {
			if c >= utf8.RuneSelf {
				ascii = false
				break
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		if ascii {
			if i, ok := sc.lookup[string(lower)]; ok {
				return i
			}
			if !sc.slowFold {
				return -1
			}
		}
	}
	return sc.rb.Index(string(k))
}

// rawVal is a criterion value as found in the input, parsed once the whole
// item is read (an item with an error needs no valid scores).
type rawVal struct {
	set  bool
	cell bool     // from a CSV cell: text in raw
	kind jsonKind // from JSON
	raw  []byte   // JSON text, or the CSV cell
	str  []byte   // decoded JSON string
	key  []byte   // the key or column as written
}

// rawItem is one item as decoded from a line or row, before validation.
// Byte slices point into the line, the decoder's scratch, or CSV cells.
type rawItem struct {
	line          int
	id            []byte
	hasID         bool
	errMsg        []byte
	reasoning     []byte
	notes         []byte
	reviewer      []byte
	judgeModel    []byte
	retrievalMiss bool
	pass          int8 // -1 absent, 0 false, 1 true
	length        int  // -1 unknown
	answerLen     int  // -1 unknown
	raws          []rawVal
	vals          []Value
	meta          []metaField
}

type metaField struct {
	key string
	val json.RawMessage
}

func (r *rawItem) reset(n, line int) {
	r.line = line
	r.id, r.hasID = nil, false
	r.errMsg, r.reasoning, r.notes, r.reviewer, r.judgeModel = nil, nil, nil, nil, nil
	r.retrievalMiss = false
	r.pass = -1
	r.length, r.answerLen = -1, -1
	if cap(r.raws) < n {
		r.raws = make([]rawVal, n)
		r.vals = make([]Value, n)
	}
	r.raws = r.raws[:n]
	r.vals = r.vals[:n]
	for i := range r.raws {
		r.raws[i].set = false // the other fields are written with set
	}
	clear(r.vals)
	r.meta = r.meta[:0]
}

// unscored reports whether the item carries a judge error.
func (r *rawItem) unscored() bool { return len(bytes.TrimSpace(r.errMsg)) > 0 }

// decoder turns lines or rows of one input into validated raw items.
type decoder struct {
	sc   *schema
	file string
	s    scanner
	raw  rawItem
	hint int // index of the criterion expected next (see find)
	strs map[string]string
	// shard is the input's shard header, once read (see shardHeader).
	shard *ShardHeader
}

// intern returns b as a string, sharing the strings of values seen before
// (judge model names repeat on every line).
func (d *decoder) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.strs == nil {
		d.strs = make(map[string]string)
	}
	if len(d.strs) < 64 {
		d.strs[s] = s
	}
	return s
}

func newDecoder(sc *schema, file string) *decoder {
	return &decoder{sc: sc, file: file}
}

func (d *decoder) errf(line int, format string, args ...any) error {
	return &InputError{File: d.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// setVal records a criterion value, refusing a second one for the same
// criterion (twice by id and alias, or top-level and inside "scores").
func (d *decoder) setVal(i int, v rawVal) error {
	rv := &d.raw.raws[i]
	if rv.set {
		if bytes.Equal(rv.key, v.key) {
			return d.errf(d.raw.line, "criterion %q given twice (as %s)", d.sc.ids[i], quoteBytes(v.key))
		}
		return d.errf(d.raw.line, "criterion %q given twice (as %s and %s)", d.sc.ids[i], quoteBytes(rv.key), quoteBytes(v.key))
	}
	v.set = true
	*rv = v
	return nil
}

// finish validates the decoded item against the rubric: id, scores on
// scale, na where allowed, missing criteria, required notes, and that the
// item has a weighted criterion to score.
func (d *decoder) finish() error {
	r := &d.raw
	sc := d.sc
	line := r.line
	if !r.hasID {
		return d.errf(line, `missing "id": every item needs a non-empty id`)
	}
	if len(bytes.TrimSpace(r.id)) == 0 {
		return d.errf(line, `empty "id": every item needs a non-empty id`)
	}
	if r.length < 0 {
		r.length = r.answerLen
	}
	if r.unscored() {
		// The judge failed: scores, if any, are not looked at.
		clear(r.vals)
		return nil
	}
	var missing []string
	var weight float64
	for i := range r.raws {
		rv := &r.raws[i]
		if !rv.set {
			missing = append(missing, sc.ids[i])
			continue
		}
		v, err := sc.parseValue(i, rv)
		if err != nil {
			return d.errf(line, "criterion %q: %s", sc.ids[i], err.Error())
		}
		r.vals[i] = v
		if v.State == Scored {
			weight += sc.weight[i]
		}
	}
	if len(missing) > 0 && !sc.opts.AllowMissing {
		if len(missing) == 1 {
			return d.errf(line, "missing a score for criterion %q", missing[0])
		}
		return d.errf(line, "missing scores for criteria %s", strings.Join(quoteAll(missing), ", "))
	}
	if len(sc.rb.NotesRequiredFor) > 0 && len(bytes.TrimSpace(r.notes)) == 0 {
		for i, v := range r.vals {
			if v.State == Scored && sc.rb.NoteRequired(v.Score) {
				return d.errf(line, "criterion %q: a score of %d needs a note in \"notes\" (notes_required_for)", sc.ids[i], v.Score)
			}
		}
	}
	if !(weight > 0) && !sc.opts.GatesOnly {
		return d.errf(line, "item has no weighted criterion with a score (every weighted criterion is na or missing), so it has no score")
	}
	return nil
}

// parseValue turns a raw criterion value into a Value on the criterion's
// scale. The message of the error does not name the criterion.
func (sc *schema) parseValue(i int, rv *rawVal) (Value, error) {
	var n int
	var text []byte
	switch {
	case rv.cell:
		text = rv.raw
	case rv.kind == kindString:
		text = rv.str
	case rv.kind == kindNumber:
		if len(rv.raw) == 1 { // the common case: one digit
			return sc.onScale(i, int(rv.raw[0]-'0'))
		}
		v, ok := jsonInt(rv.raw)
		if !ok {
			return Value{}, fmt.Errorf("expected an integer score on %d..%d, got %s", sc.low[i], sc.high[i], quoteBytes(rv.raw))
		}
		return sc.onScale(i, v)
	default:
		return Value{}, fmt.Errorf("expected an integer score on %d..%d%s, got %s", sc.low[i], sc.high[i], sc.naHint(i), rv.kind)
	}
	t := bytes.TrimSpace(text)
	if len(t) == 2 && (t[0]|0x20) == 'n' && (t[1]|0x20) == 'a' {
		if !sc.na[i] {
			return Value{}, fmt.Errorf(`"na" is not allowed: the criterion does not set na: true (expected an integer score on %d..%d)`, sc.low[i], sc.high[i])
		}
		return Value{State: NA}, nil
	}
	// strconv.Atoi, not ParseFloat: ParseFloat would accept NaN, Inf and
	// hex floats such as 0x1p-2.
	n, err := strconv.Atoi(string(t))
	if err != nil {
		return Value{}, fmt.Errorf("expected an integer score on %d..%d%s, got %s", sc.low[i], sc.high[i], sc.naHint(i), quoteBytes(text))
	}
	return sc.onScale(i, n)
}

func (sc *schema) naHint(i int) string {
	if sc.na[i] {
		return ` or "na"`
	}
	return ""
}

func (sc *schema) onScale(i, v int) (Value, error) {
	if v < sc.low[i] || v > sc.high[i] {
		return Value{}, fmt.Errorf("score %d is outside its scale %d..%d", v, sc.low[i], sc.high[i])
	}
	return Value{Score: v, State: Scored}, nil
}

// jsonInt returns the integer value of a JSON number. Integer-valued numbers
// written with a fraction or exponent (4.0, 4e0, 40e-1) are accepted: Python's
// json module and others write whole floats that way. The check is exact, on
// the decimal digits: 4.9999999999999999 or 1e-400 are not integers, although
// a float64 would round them to one. The text has already been checked
// against the JSON number grammar.
func jsonInt(t []byte) (int, bool) {
	s := string(t)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(strings.TrimPrefix(expText, "+"))
		if err != nil || e > 1000 || e < -1000 {
			// Only zero is an integer of that magnitude that fits a scale.
			return 0, strings.Trim(mant, "0.") == ""
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	point := len(intPart) + exp // the decimal point's position in digits
	var whole string
	switch {
	case point <= 0:
		whole = ""
	case point >= len(digits):
		whole = digits + strings.Repeat("0", point-len(digits))
	default:
		whole = digits[:point]
	}
	if point < len(digits) && strings.Trim(digits[max(point, 0):], "0") != "" {
		return 0, false // a non-zero digit after the decimal point
	}
	whole = strings.TrimLeft(whole, "0")
	if len(whole) > 15 {
		return 0, false
	}
	v := 0
	if whole != "" {
		var err error
		if v, err = strconv.Atoi(whole); err != nil {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	return v, true
}

// toItem fills it from the validated raw item. Strings are copied.
func (r *rawItem) toItem(sc *schema, it *Item, file string) {
	vals := it.Values[:0]
	if !r.unscored() {
		vals = append(vals, r.vals...)
	}
	*it = Item{
		ID:            string(r.id),
		File:          file,
		Line:          r.line,
		Values:        vals,
		Error:         string(r.errMsg),
		Reasoning:     string(r.reasoning),
		Notes:         string(r.notes),
		Reviewer:      string(r.reviewer),
		JudgeModel:    string(r.judgeModel),
		RetrievalMiss: r.retrievalMiss,
		Length:        r.length,
	}
	if r.pass >= 0 {
		p := r.pass == 1
		it.Pass = &p
	}
	if sc.opts.KeepMeta && len(r.meta) > 0 {
		it.Meta = make(map[string]json.RawMessage, len(r.meta))
		for _, m := range r.meta {
			it.Meta[m.key] = m.val
		}
	}
}

// quoteBytes quotes untrusted text for a message: Go-quoted (control
// characters and invalid UTF-8 escaped) and cut to 64 bytes.
func quoteBytes(b []byte) string { return quote(string(b)) }

func quote(s string) string {
	const max = 64
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "..."
	}
	return strconv.Quote(s)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = quote(s)
	}
	return out
}

// truthy parses the yes/no cells of review sheets: yes/no/true/false/1/0,
// case-insensitive; empty means absent (-1).
func truthy(t []byte) (int8, bool) {
	t = bytes.TrimSpace(t)
	switch strings.ToLower(string(t)) {
	case "":
		return -1, true
	case "yes", "true", "1":
		return 1, true
	case "no", "false", "0":
		return 0, true
	}
	return -1, false
}
