package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/gate"
)

// The item columns of a baseline file ("ids" and "scores") are parsed by
// hand: a million ids decoded by encoding/json cost a million small
// allocations. The ids are cut from one string holding the column's bytes
// (ids with escapes, or that are not valid UTF-8, go through encoding/json
// as before). encoding/json has already checked that the file is valid JSON.

// columnError is a problem in a column: msg, at byte at of raw (the column's
// bytes inside the file, for a line and column).
type columnError struct {
	raw []byte
	at  int
	msg string
}

// idColumn decodes the "ids" column into columns (scores left 0). It never
// fails the decoding (so the schema is still read); Read reports err.
type idColumn struct {
	cols *gate.ItemColumns
	err  *columnError
	// idBytes is the room to make for the ids (0: a guess from the bytes).
	idBytes int
}

// scoreColumn decodes the "scores" column, like idColumn.
type scoreColumn struct {
	scores []float64
	err    *columnError
	// field is the column's name in "items" ("" is "scores").
	field string
}

// namedColumn is a column of numbers other than "scores": "answers" (the
// answer samples per item) or "answer_vars" (the variance of their scores).
type namedColumn struct {
	scoreColumn
}

// answersColumn and answerVarsColumn decode those two columns.
type answersColumn struct{ namedColumn }
type answerVarsColumn struct{ namedColumn }

// UnmarshalJSON implements json.Unmarshaler.
func (c *answersColumn) UnmarshalJSON(raw []byte) error {
	c.field = "answers"
	return c.scoreColumn.UnmarshalJSON(raw)
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *answerVarsColumn) UnmarshalJSON(raw []byte) error {
	c.field = "answer_vars"
	return c.scoreColumn.UnmarshalJSON(raw)
}

// name is the column's name in "items".
func (c *scoreColumn) name() string {
	if c.field == "" {
		return "scores"
	}
	return c.field
}

// The column parsers check the JSON grammar of what they accept themselves
// (control characters in strings, the number grammar, nothing after the
// array), so that readFast may hand them bytes encoding/json has not seen.

// UnmarshalJSON implements json.Unmarshaler.
func (c *idColumn) UnmarshalJSON(raw []byte) error {
	n := elements(raw)
	// Two quotes and a comma an id: room enough.
	c.idBytes = max(len(raw)-3*n, 1)
	if i := c.parse(raw, n); i >= 0 {
		if i = skipWSb(raw, i); i < len(raw) {
			c.fail(raw, i, "field \"items.ids\": unexpected %q after the array", raw[i])
		}
	}
	return nil
}

func (c *idColumn) fail(raw []byte, at int, format string, a ...any) int {
	c.cols, c.err = nil, &columnError{raw: raw, at: at, msg: fmt.Sprintf(format, a...)}
	return -1
}

// parse parses the array of strings at the start of raw (after whitespace),
// with room for n ids, and returns the offset after it (-1 on an error,
// which c.err holds).
func (c *idColumn) parse(raw []byte, n int) int {
	c.cols, c.err = nil, nil
	i := skipWSb(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return c.fail(raw, i, "field \"items.ids\": expected an array of strings, found JSON %s", kind(raw, i))
	}
	if c.idBytes <= 0 {
		// raw runs past the column: guess 13 bytes an id (it grows).
		c.idBytes = max(min(len(raw), 16*n)-3*n, 0)
	}
	c.cols = gate.NewIDColumns(n, c.idBytes)
	i = skipWSb(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return i + 1
	}
	for {
		k := c.cols.Len()
		if i >= len(raw) || raw[i] != '"' {
			return c.fail(raw, i, "field \"items.ids[%d]\": expected a string, found JSON %s", k, kind(raw, i))
		}
		start, plain := i, true
		i++
		for i < len(raw) && raw[i] != '"' {
			switch ch := raw[i]; {
			case ch == '\\':
				plain = false
				i++
			case ch >= utf8.RuneSelf:
				plain = false
			case ch < 0x20:
				return c.fail(raw, i, "field \"items.ids[%d]\": invalid character %q in string", k, ch)
			}
			i++
		}
		if i >= len(raw) {
			return c.fail(raw, start, "field \"items.ids[%d]\": unterminated string", k)
		}
		i++
		if plain {
			c.cols.AppendID(raw[start+1 : i-1])
		} else {
			var id string
			if err := json.Unmarshal(raw[start:i], &id); err != nil {
				return c.fail(raw, start, "field \"items.ids[%d]\": %v", k, err)
			}
			c.cols.AppendID([]byte(id))
		}
		if i = skipWSb(raw, i); i < len(raw) && raw[i] == ',' {
			i = skipWSb(raw, i+1)
			continue
		}
		if i < len(raw) && raw[i] == ']' {
			return i + 1
		}
		return c.fail(raw, i, "field \"items.ids\": expected , or ] after element %d", k)
	}
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *scoreColumn) UnmarshalJSON(raw []byte) error {
	if i := c.parse(raw, elements(raw)); i >= 0 {
		if i = skipWSb(raw, i); i < len(raw) {
			c.fail(raw, i, "field \"items.%s\": unexpected %q after the array", c.name(), raw[i])
		}
	}
	return nil
}

func (c *scoreColumn) fail(raw []byte, at int, format string, a ...any) int {
	c.scores, c.err = nil, &columnError{raw: raw, at: at, msg: fmt.Sprintf(format, a...)}
	return -1
}

// parse parses the array of numbers at the start of raw (after
// whitespace), with room for n, and returns the offset after it (-1 on an
// error, which c.err holds).
func (c *scoreColumn) parse(raw []byte, n int) int {
	c.scores, c.err = nil, nil
	i := skipWSb(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return c.fail(raw, i, "field \"items.%s\": expected an array of numbers, found JSON %s", c.name(), kind(raw, i))
	}
	c.scores = make([]float64, 0, n)
	nc := new(numCache)
	i = skipWSb(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return i + 1
	}
	for {
		start := i
		for i < len(raw) && numberChar(raw[i]) {
			i++
		}
		if start == i {
			return c.fail(raw, start, "field \"items.%s[%d]\": expected a number, found JSON %s", c.name(), len(c.scores), kind(raw, start))
		}
		v, bad := nc.number(raw[start:i])
		if bad != "" {
			return c.fail(raw, start, "field \"items.%s[%d]\": %s is not a %s", c.name(), len(c.scores), raw[start:i], bad)
		}
		c.scores = append(c.scores, v)
		if i = skipWSb(raw, i); i < len(raw) && raw[i] == ',' {
			i = skipWSb(raw, i+1)
			continue
		}
		if i < len(raw) && raw[i] == ']' {
			return i + 1
		}
		return c.fail(raw, i, "field \"items.%s[%d]\": expected a number", c.name(), len(c.scores))
	}
}

// numCache remembers the values of numbers strconv converted: a run's
// scores take few distinct values, and the ones parseNumber declines
// (sixteen digits from 90.07 up, exponents) repeat.
type numCache struct {
	text [1 << 10][24]byte
	n    [1 << 10]uint8 // 0: empty
	v    [1 << 10]float64
}

func numSlot(b []byte) uint32 {
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	return h >> (32 - 10)
}

// numberChar reports whether c may be part of a JSON number.
func numberChar(c byte) bool {
	return c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || (c >= '0' && c <= '9')
}

// number converts b, an element of a numbers column made of the number
// grammar's characters, to its value; bad says what it is not ("JSON
// number", "finite number"), "" when it converts.
func (c *numCache) number(b []byte) (v float64, bad string) {
	v, ok := parseNumber(b)
	if !ok {
		v, ok = c.get(b)
	}
	if ok {
		return v, ""
	}
	if !jsonNumber(b) {
		return 0, "JSON number"
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, "finite number"
	}
	c.put(b, v)
	return v, ""
}

// get returns the value of the number b when it is cached.
func (c *numCache) get(b []byte) (float64, bool) {
	k := numSlot(b)
	if n := int(c.n[k]); n > 0 && n == len(b) && string(c.text[k][:n]) == string(b) {
		return c.v[k], true
	}
	return 0, false
}

// put caches the value v of the number b (when it fits).
func (c *numCache) put(b []byte, v float64) {
	if len(b) == 0 || len(b) > len(c.text[0]) {
		return
	}
	k := numSlot(b)
	copy(c.text[k][:], b)
	c.n[k], c.v[k] = uint8(len(b)), v
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseNumber converts the common plain decimals (-?digits(.digits)?, at
// most 2^53 as an integer without the point, at most 22 decimals) exactly
// as strconv.ParseFloat does, without its generality: the digits are an
// exact float64 and one division by an exact power of ten rounds correctly
// (Clinger's fast path, which strconv takes for these too). ok is false
// for anything else (exponents, more digits, a lone '-', leading zeros):
// the caller checks those with the JSON grammar and strconv.
func parseNumber(b []byte) (float64, bool) {
	i, neg := 0, false
	if i < len(b) && b[i] == '-' {
		neg = true
		i++
	}
	start := i
	var m uint64
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if m >= 1<<53/10 {
			return 0, false // may pass 2^53: strconv's job
		}
		m = m*10 + uint64(b[i]-'0')
		i++
	}
	if i == start || (b[start] == '0' && i-start > 1) {
		return 0, false
	}
	frac := 0
	if i < len(b) && b[i] == '.' {
		i++
		fs := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if m >= 1<<53/10 {
				return 0, false
			}
			m = m*10 + uint64(b[i]-'0')
			i++
		}
		frac = i - fs
		if frac == 0 || frac >= len(pow10) {
			return 0, false
		}
	}
	if i != len(b) {
		return 0, false
	}
	v := float64(m) / pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

// jsonNumber reports whether b is a number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func jsonNumber(b []byte) bool {
	i := 0
	digits := func() bool {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(b)
}

// elements bounds the number of elements of a flat JSON array by its commas
// (commas inside strings count too: an upper bound, for the capacity).
func elements(raw []byte) int {
	return bytes.Count(raw, []byte{','}) + 1
}

func skipWSb(s []byte, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	return i
}

// offsetIn returns where sub starts inside data, when sub is a slice of it
// (as encoding/json hands an Unmarshaler its value).
func offsetIn(data, sub []byte) (int, bool) {
	if len(sub) == 0 || cap(sub) > cap(data) {
		return 0, false
	}
	off := cap(data) - cap(sub)
	if off+len(sub) > len(data) || &data[off] != &sub[0] {
		return 0, false
	}
	return off, true
}

// appendJSONString appends s as encoding/json writes it with HTML escaping
// off: plain printable ASCII as is, anything else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return appendJSONSlow(b, s)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendJSONSlow(b []byte, s string) []byte {
	var buf jsonBuf
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, buf.b[:len(buf.b)-1]...)
}

type jsonBuf struct{ b []byte }

func (j *jsonBuf) Write(p []byte) (int, error) { j.b = append(j.b, p...); return len(p), nil }

// appendJSONFloat appends a finite f as encoding/json writes a float64.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 to e-9, as encoding/json does
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

// floatCache remembers how recent scores were written: a run's scores take
// few distinct values (weighted means of a few integer levels), and
// formatting each of a million took most of Write's time.
type floatCache struct {
	bits [1 << 10]uint64
	n    [1 << 10]uint8 // 0: empty
	text [1 << 10][32]byte
}

// append appends f as appendJSONFloat does.
func (c *floatCache) append(b []byte, f float64) []byte {
	bits := math.Float64bits(f)
	k := (bits * 0x9e3779b97f4a7c15) >> (64 - 10)
	if n := c.n[k]; n > 0 && c.bits[k] == bits {
		return append(b, c.text[k][:n]...)
	}
	start := len(b)
	b = appendJSONFloat(b, f)
	if n := len(b) - start; n <= len(c.text[k]) {
		c.bits[k], c.n[k] = bits, uint8(n)
		copy(c.text[k][:], b[start:])
	}
	return b
}

// kind names the JSON value starting at raw[i], as encoding/json does.
func kind(raw []byte, i int) string {
	if i >= len(raw) {
		return "nothing"
	}
	switch c := raw[i]; {
	case c == '"':
		return "string"
	case c == '[':
		return "array"
	case c == '{':
		return "object"
	case c == 't' || c == 'f':
		return "bool"
	case c == 'n':
		return "null"
	}
	return "number"
}
