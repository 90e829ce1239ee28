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
}

// scoreColumn decodes the "scores" column, like idColumn.
type scoreColumn struct {
	scores []float64
	err    *columnError
}

// The column parsers check the JSON grammar of what they accept themselves
// (control characters in strings, the number grammar, nothing after the
// array), so that readFast may hand them bytes encoding/json has not seen.

// UnmarshalJSON implements json.Unmarshaler.
func (c *idColumn) UnmarshalJSON(raw []byte) error {
	c.cols, c.err = nil, nil
	fail := func(at int, format string, a ...any) error {
		c.cols, c.err = nil, &columnError{raw: raw, at: at, msg: fmt.Sprintf(format, a...)}
		return nil
	}
	i := skipWSb(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return fail(i, "field \"items.ids\": expected an array of strings, found JSON %s", kind(raw, i))
	}
	// The ids take the column's bytes less two quotes and a comma each.
	n := elements(raw)
	c.cols = gate.NewItemColumns(n, max(len(raw)-3*n, 0))
	i = skipWSb(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return c.end(raw, i+1, fail)
	}
	for {
		k := c.cols.Len()
		if i >= len(raw) || raw[i] != '"' {
			return fail(i, "field \"items.ids[%d]\": expected a string, found JSON %s", k, kind(raw, i))
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
				return fail(i, "field \"items.ids[%d]\": invalid character %q in string", k, ch)
			}
			i++
		}
		if i >= len(raw) {
			return fail(start, "field \"items.ids[%d]\": unterminated string", k)
		}
		i++
		if plain {
			c.cols.AppendBytes(raw[start+1:i-1], 0)
		} else {
			var id string
			if err := json.Unmarshal(raw[start:i], &id); err != nil {
				return fail(start, "field \"items.ids[%d]\": %v", k, err)
			}
			c.cols.Append(id, 0)
		}
		if i = skipWSb(raw, i); i < len(raw) && raw[i] == ',' {
			i = skipWSb(raw, i+1)
			continue
		}
		if i < len(raw) && raw[i] == ']' {
			return c.end(raw, i+1, fail)
		}
		return fail(i, "field \"items.ids\": expected , or ] after element %d", k)
	}
}

// end checks that only whitespace follows the array.
func (c *idColumn) end(raw []byte, i int, fail func(int, string, ...any) error) error {
	if i = skipWSb(raw, i); i < len(raw) {
		return fail(i, "field \"items.ids\": unexpected %q after the array", raw[i])
	}
	return nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *scoreColumn) UnmarshalJSON(raw []byte) error {
	c.scores, c.err = nil, nil
	fail := func(at int, format string, a ...any) error {
		c.scores, c.err = nil, &columnError{raw: raw, at: at, msg: fmt.Sprintf(format, a...)}
		return nil
	}
	i := skipWSb(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return fail(i, "field \"items.scores\": expected an array of numbers, found JSON %s", kind(raw, i))
	}
	c.scores = make([]float64, 0, elements(raw))
	i = skipWSb(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return c.end(raw, i+1, fail)
	}
	for {
		start := i
		for i < len(raw) && (raw[i] == '-' || raw[i] == '+' || raw[i] == '.' || raw[i] == 'e' || raw[i] == 'E' || (raw[i] >= '0' && raw[i] <= '9')) {
			i++
		}
		if start == i {
			return fail(start, "field \"items.scores[%d]\": expected a number, found JSON %s", len(c.scores), kind(raw, start))
		}
		if !jsonNumber(raw[start:i]) {
			return fail(start, "field \"items.scores[%d]\": %s is not a JSON number", len(c.scores), raw[start:i])
		}
		v, err := strconv.ParseFloat(string(raw[start:i]), 64)
		if err != nil || math.IsInf(v, 0) {
			return fail(start, "field \"items.scores[%d]\": %s is not a finite number", len(c.scores), raw[start:i])
		}
		c.scores = append(c.scores, v)
		if i = skipWSb(raw, i); i < len(raw) && raw[i] == ',' {
			i = skipWSb(raw, i+1)
			continue
		}
		if i < len(raw) && raw[i] == ']' {
			return c.end(raw, i+1, fail)
		}
		return fail(i, "field \"items.scores[%d]\": expected a number", len(c.scores))
	}
}

// end checks that only whitespace follows the array.
func (c *scoreColumn) end(raw []byte, i int, fail func(int, string, ...any) error) error {
	if i = skipWSb(raw, i); i < len(raw) {
		return fail(i, "field \"items.scores\": unexpected %q after the array", raw[i])
	}
	return nil
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
