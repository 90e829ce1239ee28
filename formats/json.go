package formats

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/record"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// kind is the type of a decoded JSON value.
type kind uint8

const (
	kNull kind = iota
	kBool
	kNumber
	kString
	kArray
	kObject
	// kNonFinite is a bare NaN, Infinity or -Infinity token, as Python's
	// json module and pydantic's ser_json_inf_nan="constants" write them.
	// Strict JSON refuses them; the decoder accepts them in value position
	// only, and each reader decides where one may stand (a score: unscored).
	kNonFinite
)

func (k kind) String() string {
	switch k {
	case kNull:
		return "null"
	case kBool:
		return "a boolean"
	case kNumber:
		return "a number"
	case kString:
		return "a string"
	case kArray:
		return "an array"
	case kObject:
		return "an object"
	default:
		return "a non-finite number (NaN or Infinity)"
	}
}

// value is one decoded JSON value. Objects keep their keys in source order;
// a key that appears twice is refused by the decoder.
type value struct {
	kind kind
	line int     // line of the value's first byte, 1-based
	b    bool    // kBool
	s    string  // kString: the text; kNumber: the literal
	f    float64 // kNumber and kNonFinite: the number
	arr  []*value
	keys []string
	vals []*value
}

// get returns the member named key of an object, or nil.
func (v *value) get(key string) *value {
	if v == nil || v.kind != kObject {
		return nil
	}
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

// isNull reports whether v is absent or null.
func (v *value) isNull() bool { return v == nil || v.kind == kNull }

// maxDepth bounds nesting, so a hostile file cannot exhaust the stack.
const maxDepth = 256

// jsonDecoder is a strict JSON tokenizer over a stream, with three
// departures from encoding/json: duplicate object keys are refused, invalid
// UTF-8 is refused (not replaced), and the bare tokens NaN, Infinity and
// -Infinity are accepted where a value stands (never as a key, never inside
// a string). Errors name the file, the line and the JSON path.
type jsonDecoder struct {
	r     *bufio.Reader
	name  string
	line  int
	read  int64
	limit int64 // bytes; 0: no limit
	depth int
	path  []step // JSON path of the value being decoded, for errors
	err   error  // first I/O error (not io.EOF)
	last  byte   // the last byte read, for unread
}

func newJSONDecoder(name string, r io.Reader, limit int64) *jsonDecoder {
	size := 64 << 10
	if br, ok := r.(*bytes.Reader); ok && br.Len() < size {
		size = br.Len() // a JSON Lines line: no 64 KB buffer per line
	}
	return &jsonDecoder{r: bufio.NewReaderSize(r, size), name: name, line: 1, limit: limit}
}

// step is one step of a JSON path: an object key, or an array index when
// key is empty and idx >= 0.
type step struct {
	key string
	idx int
}

func (d *jsonDecoder) pathString() string {
	var b strings.Builder
	b.WriteByte('$')
	for _, s := range d.path {
		if s.idx >= 0 {
			fmt.Fprintf(&b, "[%d]", s.idx)
		} else {
			b.WriteString(pathKey(s.key))
		}
	}
	return b.String()
}

func (d *jsonDecoder) errorf(format string, args ...any) error {
	if d.err != nil {
		return &record.InputError{File: d.name, Line: d.line, Path: d.pathString(), Msg: "read: " + d.err.Error(), Err: d.err}
	}
	return &record.InputError{File: d.name, Line: d.line, Path: d.pathString(), Msg: fmt.Sprintf(format, args...)}
}

// errLimit is wrapped by the error of an input over its size limit.
var errLimit = errors.New("input exceeds the size limit")

// next returns the next byte, or -1 at the end of input (or on an error,
// kept in d.err).
func (d *jsonDecoder) next() int {
	if d.limit > 0 && d.read >= d.limit {
		if _, err := d.r.Peek(1); err == nil {
			d.err = fmt.Errorf("%w of %d bytes", errLimit, d.limit)
		}
		return -1
	}
	c, err := d.r.ReadByte()
	if err != nil {
		if err != io.EOF {
			d.err = err
		}
		return -1
	}
	d.read++
	d.last = c
	if c == '\n' {
		d.line++
	}
	return int(c)
}

func (d *jsonDecoder) unread() {
	_ = d.r.UnreadByte()
	d.read--
	if d.last == '\n' {
		d.line--
	}
}

// skipSpace skips JSON whitespace and returns the next byte (-1 at end).
func (d *jsonDecoder) skipSpace() int {
	for {
		c := d.next()
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
}

// peek returns the next non-space byte without consuming it (-1 at end).
func (d *jsonDecoder) peek() int {
	c := d.skipSpace()
	if c >= 0 {
		d.unread()
	}
	return c
}

func describe(c int) string {
	if c < 0 {
		return "the end of the input"
	}
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// end checks that nothing but whitespace follows the top-level value.
func (d *jsonDecoder) end() error {
	if c := d.skipSpace(); c >= 0 || d.err != nil {
		return d.errorf("expected the end of the input after the top-level value, found %s", describe(c))
	}
	return nil
}

// value decodes one complete value.
func (d *jsonDecoder) value() (*value, error) {
	c := d.skipSpace()
	line := d.line
	switch {
	case c == '{':
		return d.object(line)
	case c == '[':
		return d.array(line)
	case c == '"':
		s, err := d.str()
		if err != nil {
			return nil, err
		}
		return &value{kind: kString, s: s, line: line}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return d.number(c, line)
	case c == 't':
		return &value{kind: kBool, b: true, line: line}, d.literal("rue", "true")
	case c == 'f':
		return &value{kind: kBool, line: line}, d.literal("alse", "false")
	case c == 'n':
		return &value{kind: kNull, line: line}, d.literal("ull", "null")
	case c == 'N':
		return &value{kind: kNonFinite, f: math.NaN(), line: line}, d.literal("aN", "NaN")
	case c == 'I':
		return &value{kind: kNonFinite, f: math.Inf(1), line: line}, d.literal("nfinity", "Infinity")
	}
	return nil, d.errorf("expected a value, found %s", describe(c))
}

func (d *jsonDecoder) literal(rest, whole string) error {
	for i := 0; i < len(rest); i++ {
		if c := d.next(); c != int(rest[i]) {
			return d.errorf("expected %s, found %s", whole, describe(c))
		}
	}
	// A literal must not run on into letters or digits ("truex", "NaNa").
	if c := d.next(); c >= 0 {
		d.unread()
		if c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return d.errorf("expected %s, found %s after it", whole, describe(c))
		}
	}
	return nil
}

func (d *jsonDecoder) enter(st step) error {
	d.depth++
	if d.depth > maxDepth {
		return d.errorf("nesting deeper than %d levels", maxDepth)
	}
	d.path = append(d.path, st)
	return nil
}

func (d *jsonDecoder) leave() {
	d.depth--
	d.path = d.path[:len(d.path)-1]
}

// object decodes the members of an object whose '{' has been read.
func (d *jsonDecoder) object(line int) (*value, error) {
	v := &value{kind: kObject, line: line}
	var seen map[string]struct{}
	if c := d.skipSpace(); c == '}' {
		return v, nil
	} else if c >= 0 {
		d.unread()
	}
	for {
		c := d.skipSpace()
		if c != '"' {
			return nil, d.errorf("expected a string key, found %s", describe(c))
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		if len(v.keys) >= 16 {
			if seen == nil {
				seen = make(map[string]struct{}, 32)
				for _, k := range v.keys {
					seen[k] = struct{}{}
				}
			}
			if _, dup := seen[k]; dup {
				return nil, d.errorf("duplicate key %q", k)
			}
			seen[k] = struct{}{}
		} else {
			for _, e := range v.keys {
				if e == k {
					return nil, d.errorf("duplicate key %q", k)
				}
			}
		}
		if c := d.skipSpace(); c != ':' {
			return nil, d.errorf("expected ':' after key %q, found %s", k, describe(c))
		}
		if err := d.enter(step{key: k, idx: -1}); err != nil {
			return nil, err
		}
		m, err := d.value()
		if err != nil {
			return nil, err
		}
		d.leave()
		v.keys = append(v.keys, k)
		v.vals = append(v.vals, m)
		switch c := d.skipSpace(); c {
		case ',':
		case '}':
			return v, nil
		default:
			return nil, d.errorf("expected ',' or '}' after the value of %q, found %s", k, describe(c))
		}
	}
}

// array decodes the elements of an array whose '[' has been read.
func (d *jsonDecoder) array(line int) (*value, error) {
	v := &value{kind: kArray, line: line}
	if c := d.skipSpace(); c == ']' {
		return v, nil
	} else if c >= 0 {
		d.unread()
	}
	for {
		if err := d.enter(step{idx: len(v.arr)}); err != nil {
			return nil, err
		}
		e, err := d.value()
		if err != nil {
			return nil, err
		}
		d.leave()
		v.arr = append(v.arr, e)
		switch c := d.skipSpace(); c {
		case ',':
		case ']':
			return v, nil
		default:
			return nil, d.errorf("expected ',' or ']' after an array element, found %s", describe(c))
		}
	}
}

// pathKey renders an object key as a JSON path step.
func pathKey(k string) string {
	simple := k != ""
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			simple = false
			break
		}
	}
	if simple {
		return "." + k
	}
	return "[" + strconv.Quote(k) + "]"
}

// number decodes a number whose first byte c has been read; "-Infinity" is
// the one non-finite token starting with '-'.
func (d *jsonDecoder) number(c int, line int) (*value, error) {
	var b strings.Builder
	b.WriteByte(byte(c))
	if c == '-' {
		c = d.next()
		if c == 'I' {
			if err := d.literal("nfinity", "-Infinity"); err != nil {
				return nil, err
			}
			return &value{kind: kNonFinite, f: math.Inf(-1), line: line}, nil
		}
		if c < '0' || c > '9' {
			return nil, d.errorf("expected a digit after '-', found %s", describe(c))
		}
		b.WriteByte(byte(c))
	}
	digits := func() int {
		n := 0
		for {
			c := d.next()
			if c < '0' || c > '9' {
				if c >= 0 {
					d.unread()
				}
				return n
			}
			b.WriteByte(byte(c))
			n++
		}
	}
	lead := b.String()
	if lead[len(lead)-1] == '0' {
		if c := d.next(); c >= '0' && c <= '9' {
			return nil, d.errorf("a number may not have a leading zero")
		} else if c >= 0 {
			d.unread()
		}
	} else {
		digits()
	}
	if c := d.next(); c == '.' {
		b.WriteByte('.')
		if digits() == 0 {
			return nil, d.errorf("expected a digit after the decimal point")
		}
	} else if c >= 0 {
		d.unread()
	}
	if c := d.next(); c == 'e' || c == 'E' {
		b.WriteByte(byte(c))
		if c := d.next(); c == '+' || c == '-' {
			b.WriteByte(byte(c))
		} else if c >= 0 {
			d.unread()
		}
		if digits() == 0 {
			return nil, d.errorf("expected a digit in the exponent")
		}
	} else if c >= 0 {
		d.unread()
	}
	if c := d.next(); c >= 0 {
		d.unread()
		if c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			return nil, d.errorf("expected a number, found %s after %s", describe(c), b.String())
		}
	}
	lit := b.String()
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return nil, d.errorf("number %s is out of range", lit)
	}
	return &value{kind: kNumber, s: lit, f: f, line: line}, nil
}

// str decodes a string whose opening quote has been read.
func (d *jsonDecoder) str() (string, error) {
	var b []byte
	for {
		// Fast path: copy the run of plain bytes already buffered.
		if n := d.r.Buffered(); n > 0 {
			if d.limit > 0 && int64(n) > d.limit-d.read {
				n = int(d.limit - d.read)
			}
			buf, _ := d.r.Peek(n)
			k := 0
			for k < len(buf) && buf[k] >= 0x20 && buf[k] != '"' && buf[k] != '\\' {
				k++
			}
			if k > 0 {
				b = append(b, buf[:k]...)
				_, _ = d.r.Discard(k)
				d.read += int64(k)
				d.last = buf[k-1]
			}
		}
		c := d.next()
		switch {
		case c < 0:
			return "", d.errorf("unterminated string")
		case c == '"':
			if !utf8.Valid(b) {
				return "", d.errorf("string is not valid UTF-8")
			}
			return string(b), nil
		case c < 0x20:
			return "", d.errorf("control character %s in a string (it must be escaped)", describe(c))
		case c == '\\':
			e := d.next()
			switch e {
			case '"', '\\', '/':
				b = append(b, byte(e))
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r, err := d.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) {
					// Only a high surrogate followed by a low one is a
					// character; a lone half is refused.
					ok := false
					if r < 0xdc00 && d.next() == '\\' && d.next() == 'u' {
						lo, err := d.hex4()
						if err != nil {
							return "", err
						}
						r = utf16.DecodeRune(r, lo)
						ok = r != utf8.RuneError
					}
					if !ok {
						return "", d.errorf("invalid UTF-16 surrogate escape in a string")
					}
				}
				b = utf8.AppendRune(b, r)
			default:
				return "", d.errorf("invalid escape \\%s in a string", describe(e))
			}
		default:
			b = append(b, byte(c))
		}
	}
}

func (d *jsonDecoder) hex4() (rune, error) {
	var r rune
	for i := 0; i < 4; i++ {
		c := d.next()
		var h int
		switch {
		case c >= '0' && c <= '9':
			h = c - '0'
		case c >= 'a' && c <= 'f':
			h = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			h = c - 'A' + 10
		default:
			return 0, d.errorf("expected 4 hex digits after \\u, found %s", describe(c))
		}
		r = r<<4 | rune(h)
	}
	return r, nil
}

// decodeAll decodes one JSON document (a single value, then only
// whitespace) from r, reading at most limit bytes.
func decodeAll(name string, r io.Reader, limit int64) (*value, error) {
	return decodeAt(name, r, limit, 1)
}

// decodeAt is decodeAll for a document that starts on line (of a JSON
// Lines file).
func decodeAt(name string, r io.Reader, limit int64, line int) (*value, error) {
	d := newJSONDecoder(name, r, limit)
	d.line = line
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	if err := d.end(); err != nil {
		return nil, err
	}
	return v, nil
}

// eachMember reads an object from the stream member by member: fn is called
// with each key and must consume its value (with d.value or a nested each).
// Duplicate keys are refused, as in a whole decode.
func (d *jsonDecoder) eachMember(fn func(key string, line int) error) error {
	if c := d.skipSpace(); c != '{' {
		return d.errorf("expected an object, found %s", describe(c))
	}
	if c := d.skipSpace(); c == '}' {
		return nil
	} else if c >= 0 {
		d.unread()
	}
	seen := map[string]struct{}{}
	for {
		c := d.skipSpace()
		line := d.line
		if c != '"' {
			return d.errorf("expected a string key, found %s", describe(c))
		}
		k, err := d.str()
		if err != nil {
			return err
		}
		if _, dup := seen[k]; dup {
			return d.errorf("duplicate key %q", k)
		}
		seen[k] = struct{}{}
		if c := d.skipSpace(); c != ':' {
			return d.errorf("expected ':' after key %q, found %s", k, describe(c))
		}
		if err := d.enter(step{key: k, idx: -1}); err != nil {
			return err
		}
		if err := fn(k, line); err != nil {
			return err
		}
		d.leave()
		switch c := d.skipSpace(); c {
		case ',':
		case '}':
			return nil
		default:
			return d.errorf("expected ',' or '}' after the value of %q, found %s", k, describe(c))
		}
	}
}

// eachElement reads an array from the stream element by element: fn is
// called with each index and must consume the element.
func (d *jsonDecoder) eachElement(fn func(i int) error) error {
	if c := d.skipSpace(); c != '[' {
		return d.errorf("expected an array, found %s", describe(c))
	}
	if c := d.skipSpace(); c == ']' {
		return nil
	} else if c >= 0 {
		d.unread()
	}
	for i := 0; ; i++ {
		if err := d.enter(step{idx: i}); err != nil {
			return err
		}
		if err := fn(i); err != nil {
			return err
		}
		d.leave()
		switch c := d.skipSpace(); c {
		case ',':
		case ']':
			return nil
		default:
			return d.errorf("expected ',' or ']' after an array element, found %s", describe(c))
		}
	}
}
