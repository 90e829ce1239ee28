// Package native reads results into items: rubricgate's own JSON lines and
// review sheets (CSV), and the neutral records the formats package turns
// other tools' files into (see Record). Score reads every input in parallel,
// validates each item against the rubric and hands it to gate's scoring;
// bad input is an *InputError naming the file and line. Which reader a file
// gets is decided by the results package (it opens and detects); gate
// scores, compares and decides, and reads no file.
package native

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/gate"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"
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
	// Records, when set, replaces R and Format: the input is records already
	// decoded from another tool's output (see Records).
	Records Records
}

// Item is one judged item as read from results.
type Item struct {
	// ID identifies the item within the run.
	ID string
	// File and Line locate the item (CSV: the line its row starts on).
	File string
	Line int
	// Values are indexed like the rubric's Criteria. On an unscored item
	// only the integer values of blocking criteria are kept (see Unscored);
	// the others are Missing.
	Values []gate.Value
	// Error is the judge's error: non-empty exactly when the item is
	// unscored. An error field that is blank (see IsBlank) is no error and
	// reads as "".
	Error string
	// Samples is the number of judgings the values sum up (1 for a line
	// without "samples"; 0 for an unscored item).
	Samples int
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
	// InputHash is the input_hash field: what binds the item to its task
	// (see gate.InputHash); zero when absent.
	InputHash gate.InputHash
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
	// realScales, when set (CheckBlocking), holds per criterion the scale a
	// `from` source value is mapped onto: the criterion's real scale, kept
	// beside the widened one the check reads with.
	realScales []rubric.Scale
}

// InputError is bad input at a position in an input file: the file, the
// line (0 if unknown), the JSON path or zip member when known, and what was
// expected. It is the one input error of every reader: results/native's,
// formats' (which return it) and judge's answers (judge.InputError is this
// type).
type InputError struct {
	File string
	Line int
	Path string
	Msg  string
	// Err is the underlying error of a read failure, if any.
	Err error
}

// Unwrap returns the underlying read error, if any.
func (e *InputError) Unwrap() error { return e.Err }

// Error formats the error as "file:line: message" ("file: message" when the
// line is unknown; "file:line: at path: message" with a path).
func (e *InputError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Path != "" && e.Path != "$" {
		return fmt.Sprintf("%s: at %s: %s", loc, e.Path, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
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
	if in.Records != nil {
		return readRecords(d, in.Records, emit)
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
	low      []float64
	high     []float64
	span     []float64 // high - low
	critical []bool
	min      []float64
	blocking []bool
	na       []bool
	cont     []bool // continuous
	// levels is the number of histogram bins: the scale's levels, or
	// rubric.ContinuousBins.
	levels []int
	// list names the criteria for "expected one of" messages.
	list string
}

// fromSource maps a value reported on criterion i's source scale for format
// onto the criterion's real scale (see ReadOptions.realScales).
func (sc *schema) fromSource(i int, format string, v float64) float64 {
	c := &sc.rb.Criteria[i]
	if i < len(sc.opts.realScales) {
		cc := *c
		cc.Scale = sc.opts.realScales[i]
		return cc.FromSource(format, v)
	}
	return c.FromSource(format, v)
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
		low: make([]float64, n), high: make([]float64, n), span: make([]float64, n),
		critical: make([]bool, n), min: make([]float64, n),
		blocking: make([]bool, n), na: make([]bool, n),
		cont: make([]bool, n), levels: make([]int, n),
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
		sc.low[i], sc.high[i] = float64(c.Scale.Low), float64(c.Scale.High)
		sc.span[i] = float64(c.Scale.High - c.Scale.Low)
		sc.cont[i] = c.Continuous
		sc.levels[i] = c.Scale.Levels()
		if c.Continuous {
			sc.levels[i] = rubric.ContinuousBins
		}
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
	// direct is a value handed over already decoded (Records): directNum
	// with the number in f, or directNA.
	direct uint8
	f      float64
}

// direct values of a rawVal.
const (
	directNum = 1 + iota
	directNA
)

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
	inputHash     gate.InputHash
	retrievalMiss bool
	pass          int8 // -1 absent, 0 false, 1 true
	length        int  // -1 unknown
	answerLen     int  // -1 unknown
	raws          []rawVal
	vals          []gate.Value
	meta          []metaField
	// hasScores is set when the line has a "scores" object or a top-level
	// criterion key; samples holds the "samples" array, nSamples long
	// (-1: no "samples" key).
	hasScores bool
	// noLine marks a record without a line: line is then its ordinal,
	// used only to tell records apart.
	noLine   bool
	nSamples int
	samples  []sampleRaw
	// answers is set when the array is "answers" (regenerated answers,
	// each judged once) rather than "samples" (judgings of one answer);
	// arrSeen when either key was read. answerVar is the variance of the
	// answers' weighted scores, set by finishSamples.
	answers, arrSeen bool
	answerVar        float64
	// answerScores are the answers' own weighted scores, in input order
	// (set with answerVar; reused between items).
	answerScores []float64
	// why holds, per criterion, the reasoning of the first sample below its
	// critical minimum (nil: use the item's reasoning).
	why [][]byte
}

// sampleRaw is one element of a line's "samples" array.
type sampleRaw struct {
	raws      []rawVal
	reasoning []byte
	hasScores bool
}

type metaField struct {
	key string
	val json.RawMessage
}

func (r *rawItem) reset(n, line int) {
	r.line = line
	r.id, r.hasID = nil, false
	r.errMsg, r.reasoning, r.notes, r.reviewer, r.judgeModel = nil, nil, nil, nil, nil
	r.inputHash = gate.InputHash{}
	r.retrievalMiss = false
	r.pass = -1
	r.length, r.answerLen = -1, -1
	if cap(r.raws) < n {
		r.raws = make([]rawVal, n)
		r.vals = make([]gate.Value, n)
	}
	r.raws = r.raws[:n]
	r.vals = r.vals[:n]
	for i := range r.raws {
		r.raws[i].set = false // the other fields are written with set
	}
	clear(r.vals)
	r.meta = r.meta[:0]
	r.hasScores, r.noLine = false, false
	r.nSamples = -1
	r.answers, r.arrSeen, r.answerVar = false, false, 0
	r.answerScores = r.answerScores[:0]
	if r.why != nil {
		clear(r.why)
	}
}

// arrName is the name of the line's array of samples: "samples" or "answers".
func (r *rawItem) arrName() string {
	if r.answers {
		return "answers"
	}
	return "samples"
}

// nextSample returns the next sample slot, reset, for n criteria.
func (r *rawItem) nextSample(n int) *sampleRaw {
	if r.nSamples < 0 {
		r.nSamples = 0
	}
	if r.nSamples == len(r.samples) {
		r.samples = append(r.samples, sampleRaw{})
	}
	s := &r.samples[r.nSamples]
	r.nSamples++
	if cap(s.raws) < n {
		s.raws = make([]rawVal, n)
	}
	s.raws = s.raws[:n]
	for i := range s.raws {
		s.raws[i].set = false
	}
	s.reasoning, s.hasScores = nil, false
	return s
}

// unscored reports whether the item carries a judge error: an error field
// that is not blank. This is the one definition of an unscored item; Item.Error
// is set from it, and every gate reads it from there.
func (r *rawItem) unscored() bool { return !IsBlank(r.errMsg) }

// IsBlank reports whether b shows nothing: it is empty or holds only white
// space (Unicode White_Space: ' ', tab, newlines, U+00A0, U+3000, ...),
// control and format characters (U+200B zero width space, U+FEFF, U+2060,
// U+00AD soft hyphen, ...) and other default-ignorable code points (U+3164
// Hangul filler, variation selectors, ...). Invalid UTF-8 is not blank.
//
// It is the one meaning of "blank" in results: an error field that is blank
// is no judge error, a note that is blank is no note, an id that is blank is
// no id.
func IsBlank(b []byte) bool {
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			if c > ' ' && c != 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(b[i:])
		if !isBlankRune(r) || r == utf8.RuneError && n == 1 {
			return false
		}
		i += n
	}
	return true
}

// isBlankRune reports whether r shows nothing (see IsBlank).
func isBlankRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r <= ' ' || r == 0x7f
	}
	return unicode.IsSpace(r) || unicode.In(r, unicode.Cc, unicode.Cf, unicode.Other_Default_Ignorable_Code_Point, unicode.Variation_Selector)
}

// trimID trims what shows nothing (IsBlank's characters) from both ends of
// an id and returns the first control or format character (Unicode Cc, Cf:
// a tab, U+200B zero width space, U+202E right-to-left override, ...) left
// inside it, or -1. An id containing one would look like another id, or
// reorder the text shown around it. All-ASCII ids take a byte loop.
// InvisibleInID returns the first control or format character inside id
// (after the trimming every reader does), which the readers refuse: an id
// must show what it is. ok is false when there is none.
func InvisibleInID(id string) (r rune, ok bool) {
	_, bad := trimID([]byte(id))
	return bad, bad >= 0
}

func trimID(b []byte) ([]byte, rune) {
	ascii := true
	for _, c := range b {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		for len(b) > 0 && (b[0] <= ' ' || b[0] == 0x7f) {
			b = b[1:]
		}
		for len(b) > 0 && (b[len(b)-1] <= ' ' || b[len(b)-1] == 0x7f) {
			b = b[:len(b)-1]
		}
		for _, c := range b {
			if c < ' ' || c == 0x7f {
				return b, rune(c)
			}
		}
		return b, -1
	}
	b = bytes.TrimFunc(b, isBlankRune)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r >= utf8.RuneSelf && unicode.In(r, unicode.Cc, unicode.Cf) || r < utf8.RuneSelf && (r < ' ' || r == 0x7f) {
			return b, r
		}
		i += n
	}
	return b, -1
}

// decoder turns lines or rows of one input into validated raw items.
type decoder struct {
	sc   *schema
	file string
	s    scanner
	raw  rawItem
	view gate.Judged // raw as scoring reads it (see judged)
	hint int         // index of the criterion expected next (see find)
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
	d.raw.hasScores = true
	rv := &d.raw.raws[i]
	if rv.set {
		return d.twice(rv, i, v)
	}
	v.set = true
	*rv = v
	return nil
}

// setIn records a criterion value in raws (the item's or a sample's).
func (d *decoder) setIn(raws []rawVal, i int, v rawVal) error {
	rv := &raws[i]
	if rv.set {
		return d.twice(rv, i, v)
	}
	v.set = true
	*rv = v
	return nil
}

// twice is the error for a criterion given a second time.
func (d *decoder) twice(rv *rawVal, i int, v rawVal) error {
	if bytes.Equal(rv.key, v.key) {
		return d.errf(d.raw.line, "criterion %q given twice (as %s)", d.sc.ids[i], quoteBytes(v.key))
	}
	return d.errf(d.raw.line, "criterion %q given twice (as %s and %s)", d.sc.ids[i], quoteBytes(rv.key), quoteBytes(v.key))
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
	// One rule for JSON lines and review sheets: surrounding white space
	// and invisible characters are not part of an id ("a", "a " and
	// "a\u200b" are one item); one inside it is refused (see trimID).
	id, bad := trimID(r.id)
	r.id = id
	if len(id) == 0 {
		return d.errf(line, `empty "id": every item needs a non-empty id`)
	}
	if bad >= 0 {
		return d.errf(line, `"id" %s contains the invisible character U+%04X (a control or format character: zero width, bidi override, ...): an id must show what it is`, quoteBytes(id), bad)
	}
	if r.length < 0 {
		r.length = r.answerLen
	}
	if r.nSamples == 0 && r.answers {
		return d.errf(line, `"answers" is empty: expected one object {"scores": {...}, "reasoning": "..."} per answer`)
	}
	if r.nSamples == 0 {
		return d.errf(line, `"samples" is empty: expected one object {"scores": {...}, "reasoning": "..."} per judging`)
	}
	if r.nSamples > 0 && r.hasScores && r.answers {
		return d.errf(line, `the item has both "answers" and scores: put every answer's scores in "answers", or give one "scores" without "answers"`)
	}
	if r.nSamples > 0 && r.hasScores {
		return d.errf(line, `the item has both "samples" and scores: put every judging's scores in "samples", or give one "scores" without "samples"`)
	}
	if r.unscored() {
		// The judge failed: the item has no score. But a value it carries for
		// a blocking criterion is still checked by that gate (see
		// partial.add and CheckBlocking): an error field must not switch a
		// safety gate off. Values that are not integers (null, "", "na",
		// text) are placeholders of the failed judge and are ignored. The
		// values inside "samples" are checked the same way, the lowest
		// across samples: a failing sample blocks (no majority is taken
		// among the judgings of a failed judge).
		clear(r.vals)
		for i := range r.raws {
			if !sc.blocking[i] {
				continue
			}
			sc.unscoredValue(i, &r.raws[i], &r.vals[i])
			for j := 0; j < r.nSamples; j++ {
				sc.unscoredValue(i, &r.samples[j].raws[i], &r.vals[i])
			}
		}
		return nil
	}
	if r.nSamples > 0 {
		return d.finishSamples()
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
		if v.State == gate.Scored {
			weight += sc.weight[i]
		}
	}
	if len(missing) > 0 && !sc.opts.AllowMissing {
		if len(missing) == 1 {
			return d.errf(line, "missing a score for criterion %q", missing[0])
		}
		return d.errf(line, "missing scores for criteria %s", strings.Join(quoteAll(missing), ", "))
	}
	if len(sc.rb.NotesRequiredFor) > 0 && IsBlank(r.notes) {
		for i, v := range r.vals {
			if v.State == gate.Scored && !sc.cont[i] && sc.rb.NoteRequired(v.Score) {
				return d.errf(line, "criterion %q: a score of %s needs a note in \"notes\" (notes_required_for)", sc.ids[i], fmtNum(v.Score))
			}
		}
	}
	if !(weight > 0) && !sc.opts.GatesOnly {
		return d.errf(line, "item has no weighted criterion with a score (every weighted criterion is na or missing), so it has no score")
	}
	return nil
}

// unscoredValue checks a value an unscored item carries for blocking
// criterion i and keeps it in *v when it is the lowest so far: an integer
// (on the scale, or off it: then the gate cannot be shown to hold and it
// fails). Other values are the failed judge's placeholders and ignored.
func (sc *schema) unscoredValue(i int, rv *rawVal, v *gate.Value) {
	if !rv.set {
		return
	}
	var nv gate.Value
	if pv, err := sc.parseValue(i, rv); err == nil && pv.State == gate.Scored {
		nv = pv
	} else if n, ok := sc.looseInt(rv); ok {
		f := float64(n)
		nv = gate.Value{Score: f, Min: f, Max: f, N: 1, State: gate.Scored, Below: true}
	} else {
		return
	}
	if i < len(sc.opts.realScales) {
		// CheckBlocking reads on a widened scale: off the real one fails.
		if rs := sc.opts.realScales[i]; nv.Score < float64(rs.Low) || nv.Score > float64(rs.High) {
			nv.Below = true
		}
	}
	if v.State != gate.Scored || nv.Below && !v.Below || nv.Below == v.Below && nv.Score < v.Score {
		*v = nv
	}
}

// finishSamples validates an item judged several times and sums each
// criterion's samples up into one Value: `na` when more than half of the
// samples say na, else the mean of the scored samples; the critical minimum
// is met when more than half of the scored samples meet it (a tie fails).
// Every sample must score the same criteria; notes_required_for applies to
// every sample's score.
func (d *decoder) finishSamples() error {
	r := &d.raw
	sc := d.sc
	line := r.line
	k := r.nSamples
	samples := r.samples[:k]
	for j := range samples {
		if !samples[j].hasScores {
			return d.errf(line, `%s[%d]: expected an object with "scores" (and "reasoning")`, r.arrName(), j)
		}
	}
	needNote := len(sc.rb.NotesRequiredFor) > 0 && len(bytes.TrimSpace(r.notes)) == 0
	var weight float64
	var missing []string
	for i := range sc.ids {
		present := 0
		for j := range samples {
			if samples[j].raws[i].set {
				present++
			}
		}
		if present == 0 {
			missing = append(missing, sc.ids[i])
			continue
		}
		if present < k {
			for j := range samples {
				if !samples[j].raws[i].set {
					return d.errf(line, "%s[%d]: missing a score for criterion %q (every %s scores the same criteria)", r.arrName(), j, sc.ids[i], strings.TrimSuffix(r.arrName(), "s"))
				}
			}
		}
		var v gate.Value
		var sum, sumSq float64
		meets := 0
		firstBelow := -1
		for j := range samples {
			sv, err := sc.parseValue(i, &samples[j].raws[i])
			if err != nil {
				return d.errf(line, "%s[%d]: criterion %q: %s", r.arrName(), j, sc.ids[i], err.Error())
			}
			if sv.State == gate.NA {
				v.NAs++
				continue
			}
			if needNote && !sc.cont[i] && sc.rb.NoteRequired(sv.Score) {
				return d.errf(line, "%s[%d]: criterion %q: a score of %s needs a note in \"notes\" (notes_required_for)", r.arrName(), j, sc.ids[i], fmtNum(sv.Score))
			}
			if v.N == 0 || sv.Score < v.Min {
				v.Min = sv.Score
			}
			if v.N == 0 || sv.Score > v.Max {
				v.Max = sv.Score
			}
			v.N++
			sum += sv.Score
			if !sc.critical[i] || sv.Score >= sc.min[i] {
				meets++
			} else if firstBelow < 0 {
				firstBelow = j
			}
		}
		if 2*int(v.NAs) > k {
			v.State = gate.NA
			v.Min, v.Max = 0, 0
			r.vals[i] = v
			continue
		}
		v.State = gate.Scored
		n := float64(v.N)
		v.Score = sum / n
		// The mean of values within the scale lies within it; rounding
		// cannot take it out.
		v.Score = min(max(v.Score, v.Min), v.Max)
		if v.N > 1 && !r.answers { // the judge's spread; answer noise goes to the gate's resolution
			for j := range samples {
				rv := &samples[j].raws[i]
				sv, _ := sc.parseValue(i, rv)
				if sv.State == gate.Scored {
					dv := sv.Score - v.Score
					sumSq += dv * dv
				}
			}
			v.Spread = math.Sqrt(sumSq / (n - 1))
		}
		// Judge samples decide a gate by majority; answer samples are
		// answers a user may get, so one failing answer fails it.
		if sc.critical[i] && !r.answers && 2*meets > int(v.N) && firstBelow >= 0 {
			v.Outvoted = true
		}
		if sc.critical[i] && (2*meets <= int(v.N) || r.answers && meets < int(v.N)) {
			v.Below = true
			if firstBelow >= 0 && len(samples[firstBelow].reasoning) > 0 {
				if r.why == nil {
					r.why = make([][]byte, len(sc.ids))
				}
				r.why[i] = samples[firstBelow].reasoning
			}
		}
		r.vals[i] = v
		weight += sc.weight[i]
	}
	if len(missing) > 0 && !sc.opts.AllowMissing {
		if len(missing) == 1 {
			return d.errf(line, "missing a score for criterion %q", missing[0])
		}
		return d.errf(line, "missing scores for criteria %s", strings.Join(quoteAll(missing), ", "))
	}
	if len(bytes.TrimSpace(r.reasoning)) == 0 {
		for j := range samples {
			if len(bytes.TrimSpace(samples[j].reasoning)) > 0 {
				r.reasoning = samples[j].reasoning
				break
			}
		}
	}
	if !(weight > 0) && !sc.opts.GatesOnly {
		return d.errf(line, "item has no weighted criterion with a score (every weighted criterion is na or missing), so it has no score")
	}
	if r.answers && k > 1 {
		r.answerVar, r.answerScores = d.answerVariance(samples, r.answerScores[:0])
	}
	return nil
}

// answerVariance is the variance (n - 1) of the answers' own weighted
// scores (0-100, each over the criteria it scores, as an item's score),
// the between-answer noise the gate's interval and resolution count.
// Answers with no weighted score are left out. The answers' scores are
// appended to xs, in input order, and returned.
func (d *decoder) answerVariance(answers []sampleRaw, xs []float64) (float64, []float64) {
	sc := d.sc
	var n int
	var mean, m2 float64
	for j := range answers {
		var num, den float64
		for i := range sc.ids {
			if !answers[j].raws[i].set {
				continue
			}
			v, err := sc.parseValue(i, &answers[j].raws[i])
			if err != nil || v.State != gate.Scored {
				continue
			}
			num += sc.weight[i] * (v.Score - sc.low[i]) / sc.span[i]
			den += sc.weight[i]
		}
		if !(den > 0) {
			continue
		}
		x := 100 * num / den
		xs = append(xs, x)
		n++
		dx := x - mean
		mean += dx / float64(n)
		m2 += dx * (x - mean)
	}
	if n < 2 {
		return 0, xs
	}
	return m2 / float64(n-1), xs
}

// fmtNum formats a score for a message: 3, 0.35.
func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// parseValue turns a raw criterion value into a Value on the criterion's
// scale (one judging: N or NAs is 1, Below set against the critical
// minimum). The message of the error does not name the criterion.
func (sc *schema) parseValue(i int, rv *rawVal) (gate.Value, error) {
	if rv.kind == kindNumber && len(rv.raw) == 1 { // the common case: one digit
		if s := float64(rv.raw[0] - '0'); s >= sc.low[i] && s <= sc.high[i] {
			return gate.Value{Score: s, Min: s, Max: s, N: 1, State: gate.Scored, Below: sc.critical[i] && s < sc.min[i]}, nil
		}
	}
	return sc.parseSlow(i, rv)
}

// parseSlow is parseValue for every other value.
func (sc *schema) parseSlow(i int, rv *rawVal) (gate.Value, error) {
	var text []byte
	switch {
	case rv.direct == directNA:
		if !sc.na[i] {
			return gate.Value{}, fmt.Errorf(`"na" is not allowed: the criterion does not set na: true (expected %s)`, sc.want(i))
		}
		return gate.Value{State: gate.NA, NAs: 1}, nil
	case rv.direct == directNum:
		f := rv.f
		if !sc.cont[i] && f != math.Trunc(f) {
			return gate.Value{}, fmt.Errorf("expected %s, got %s", sc.want(i), fmtNum(f))
		}
		return sc.onScale(i, f)
	case rv.cell:
		text = rv.raw
	case rv.kind == kindString:
		text = rv.str
	case rv.kind == kindNumber:
		if len(rv.raw) == 1 { // the common case: one digit
			return sc.onScale(i, float64(rv.raw[0]-'0'))
		}
		if sc.cont[i] {
			return sc.decimal(i, rv.raw)
		}
		v, ok := jsonInt(rv.raw)
		if !ok {
			return gate.Value{}, fmt.Errorf("expected %s, got %s", sc.want(i), quoteBytes(rv.raw))
		}
		return sc.onScale(i, float64(v))
	default:
		return gate.Value{}, fmt.Errorf("expected %s%s, got %s", sc.want(i), sc.naHint(i), rv.kind)
	}
	t := bytes.TrimSpace(text)
	if len(t) == 2 && (t[0]|0x20) == 'n' && (t[1]|0x20) == 'a' {
		if !sc.na[i] {
			return gate.Value{}, fmt.Errorf(`"na" is not allowed: the criterion does not set na: true (expected %s)`, sc.want(i))
		}
		return gate.Value{State: gate.NA, NAs: 1}, nil
	}
	if sc.cont[i] {
		if !isJSONNumber(t) {
			return gate.Value{}, fmt.Errorf("expected %s%s, got %s", sc.want(i), sc.naHint(i), quoteBytes(text))
		}
		return sc.decimal(i, t)
	}
	// strconv.Atoi, not ParseFloat: ParseFloat would accept NaN, Inf and
	// hex floats such as 0x1p-2.
	n, err := strconv.Atoi(string(t))
	if err != nil {
		return gate.Value{}, fmt.Errorf("expected %s%s, got %s", sc.want(i), sc.naHint(i), quoteBytes(text))
	}
	return sc.onScale(i, float64(n))
}

// want describes the scores a criterion takes, for messages.
func (sc *schema) want(i int) string {
	if sc.cont[i] {
		return fmt.Sprintf("a number within %s..%s", fmtNum(sc.low[i]), fmtNum(sc.high[i]))
	}
	return fmt.Sprintf("an integer score on %s..%s", fmtNum(sc.low[i]), fmtNum(sc.high[i]))
}

// decimal parses a number already checked against the JSON number grammar
// (so no NaN, Inf, hex or underscores) for a continuous criterion.
func (sc *schema) decimal(i int, t []byte) (gate.Value, error) {
	f, err := strconv.ParseFloat(string(t), 64)
	if err != nil || math.IsInf(f, 0) {
		return gate.Value{}, fmt.Errorf("expected %s, got %s", sc.want(i), quoteBytes(t))
	}
	if f == 0 {
		f = 0 // no negative zero
	}
	return sc.onScale(i, f)
}

// isJSONNumber reports whether t is a number in JSON's grammar, with an
// optional leading '+' (review sheets are typed by people).
func isJSONNumber(t []byte) bool {
	if len(t) > 0 && t[0] == '+' {
		t = t[1:]
	}
	var s scanner
	s.reset(t)
	_, err := s.number()
	return err == nil && s.i == len(t)
}

// looseInt reads a raw value as an integer, on the scale or not; false when
// it is not one (na, null, text, a fraction).
func (sc *schema) looseInt(rv *rawVal) (int, bool) {
	var text []byte
	switch {
	case rv.cell:
		text = rv.raw
	case rv.kind == kindString:
		text = rv.str
	case rv.kind == kindNumber:
		return jsonInt(rv.raw)
	default:
		return 0, false
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(text)))
	return n, err == nil
}

func (sc *schema) naHint(i int) string {
	if sc.na[i] {
		return ` or "na"`
	}
	return ""
}

// boundSlack is how far past a scale's end a score may lie and still be
// read as that end, in units of the scale's range: 4 ulps of it. Tools that
// compute scores in floating point write 1.0000000000000002 for 1 (or
// -5.551115123125783e-17 for 0); a real out-of-scale value is far larger.
const boundSlack = 4 * 0x1p-52

func (sc *schema) onScale(i int, v float64) (gate.Value, error) {
	if slack := boundSlack * sc.span[i]; v < sc.low[i] && v >= sc.low[i]-slack {
		v = sc.low[i]
	} else if v > sc.high[i] && v <= sc.high[i]+slack {
		v = sc.high[i]
	}
	if !(v >= sc.low[i] && v <= sc.high[i]) {
		return gate.Value{}, fmt.Errorf("score %s is outside its scale %s..%s", fmtNum(v), fmtNum(sc.low[i]), fmtNum(sc.high[i]))
	}
	return gate.Value{Score: v, Min: v, Max: v, N: 1, State: gate.Scored, Below: sc.critical[i] && v < sc.min[i]}, nil
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

// itemLine is the line to show for the item: 0 for a record without one.
// judged returns the decoded item as scoring reads it (in d.view, reused);
// keep also interns its judge model.
func (d *decoder) judged(keep bool) *gate.Judged {
	r, j := &d.raw, &d.view
	*j = gate.Judged{ID: r.id, Line: r.line, ItemLine: r.itemLine(), Values: r.vals, Unscored: r.unscored(), Error: r.errMsg,
		Reasoning: r.reasoning, Notes: r.notes, Why: r.why, Length: r.length, Pass: r.pass, RetrievalMiss: r.retrievalMiss, Samples: r.nSamples, InputHash: r.inputHash}
	if r.answers {
		j.Samples, j.Answers, j.AnswerVar, j.AnswerScores = 1, r.nSamples, r.answerVar, r.answerScores
	}
	if keep {
		j.JudgeModel = d.intern(r.judgeModel)
	}
	return j
}

func (r *rawItem) itemLine() int {
	if r.noLine {
		return 0
	}
	return r.line
}

// samplesN is the number of judgings of a scored item.
func (r *rawItem) samplesN() int {
	switch {
	case r.unscored():
		return 0
	case r.nSamples > 0 && !r.answers:
		return r.nSamples
	}
	return 1
}

// toItem fills it from the validated raw item. Strings are copied.
func (r *rawItem) toItem(sc *schema, it *Item, file string) {
	vals := append(it.Values[:0], r.vals...)
	errMsg := ""
	if r.unscored() {
		errMsg = string(r.errMsg)
	}
	*it = Item{
		ID:            string(r.id),
		File:          file,
		Line:          r.itemLine(),
		Values:        vals,
		Error:         errMsg,
		Samples:       r.samplesN(),
		Reasoning:     string(r.reasoning),
		Notes:         string(r.notes),
		Reviewer:      string(r.reviewer),
		JudgeModel:    string(r.judgeModel),
		RetrievalMiss: r.retrievalMiss,
		Length:        r.length,
		InputHash:     r.inputHash,
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

// quoteASCII is quote with every non-ASCII rune escaped: for ids that look
// the same and differ only in their code points.
func quoteASCII(s string) string {
	q := quote(s)
	if u, err := strconv.Unquote(strings.TrimSuffix(q, "...")); err == nil {
		return strconv.QuoteToASCII(u) + q[len(strings.TrimSuffix(q, "...")):]
	}
	return q
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

// inputHash sets the item's input_hash from its text v: "sha256:" and 64
// lowercase hex digits, as the judge writes it; anything else is refused
// (a hash misread as none would let the item's task change unseen).
func (d *decoder) inputHash(v []byte) error {
	h, ok := gate.ParseInputHash(v)
	if !ok {
		return d.errf(d.raw.line, `"input_hash" must be "sha256:" and 64 lowercase hex digits (as rubricgate judge writes it), got %s`, quoteBytes(v))
	}
	d.raw.inputHash = h
	return nil
}
