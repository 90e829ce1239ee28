package native

import (
	"bytes"
	"encoding/json"
	"github.com/rubricgate/rubricgate/gate"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

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
