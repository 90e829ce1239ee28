package native

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth bounds the nesting of JSON values in one line. encoding/json allows
// 10000; a results line never needs more than a few levels, and a small bound
// keeps the recursive scanner's stack small.
const maxDepth = 256

// jsonKind is the kind of a JSON value.
type jsonKind uint8

const (
	kindString jsonKind = iota + 1
	kindNumber
	kindTrue
	kindFalse
	kindNull
	kindObject
	kindArray
)

func (k jsonKind) String() string {
	switch k {
	case kindString:
		return "a string"
	case kindNumber:
		return "a number"
	case kindTrue, kindFalse:
		return "a boolean"
	case kindNull:
		return "null"
	case kindObject:
		return "an object"
	case kindArray:
		return "an array"
	}
	return "nothing"
}

// syntaxError is a JSON syntax error at a byte offset of the line.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("malformed JSON at column %d: %s", e.off+1, e.msg)
}

// scanner is a strict JSON scanner over one line. It accepts exactly what
// encoding/json accepts (RFC 8259), except that nesting deeper than maxDepth
// is refused, and it reports a duplicate key in any object, comparing keys
// after unescaping. Decoded strings follow encoding/json: invalid UTF-8 and
// lone surrogates become U+FFFD.
type scanner struct {
	b []byte
	i int
	// scratch holds unescaped strings. It is only appended to while one line
	// is decoded, so earlier slices into it stay valid (a reallocation leaves
	// them pointing at the old array).
	scratch []byte
	// keys is the stack of keys of the nested objects being skipped.
	keys [][]byte
}

func (s *scanner) reset(line []byte) {
	s.b = line
	s.i = 0
	s.scratch = s.scratch[:0]
	s.keys = s.keys[:0]
}

func (s *scanner) errf(format string, args ...any) error {
	return &syntaxError{off: s.i, msg: fmt.Sprintf(format, args...)}
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// describe names the byte at the cursor for an error message.
func (s *scanner) describe() string {
	if s.i >= len(s.b) {
		return "end of line"
	}
	c := s.b[s.i]
	if c >= 0x20 && c < 0x7f {
		return fmt.Sprintf("%q", rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

// expect consumes c after optional whitespace.
func (s *scanner) expect(c byte, what string) error {
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return nil
	}
	return s.errf("expected %s, found %s", what, s.describe())
}

// peekKind returns the kind of the value at the cursor (after whitespace)
// without consuming it.
func (s *scanner) peekKind() (jsonKind, error) {
	s.ws()
	if s.i >= len(s.b) {
		return 0, s.errf("expected a value, found end of line")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return kindString, nil
	case c == '-' || (c >= '0' && c <= '9'):
		return kindNumber, nil
	case c == 't':
		return kindTrue, nil
	case c == 'f':
		return kindFalse, nil
	case c == 'n':
		return kindNull, nil
	case c == '{':
		return kindObject, nil
	case c == '[':
		return kindArray, nil
	}
	return 0, s.errf("expected a value, found %s", s.describe())
}

// str decodes the string at the cursor (which is '"'). The result points into
// the line when the string needs no unescaping, else into scratch.
func (s *scanner) str() ([]byte, error) {
	start := s.i + 1
	i := start
	b := s.b
	// Skip 8 plain bytes at a time: no quote, backslash, control byte or
	// non-ASCII byte in the word.
	for i+8 <= len(b) {
		w := binary.LittleEndian.Uint64(b[i:])
		const ones, highs = 0x0101010101010101, 0x8080808080808080
		q := w ^ (ones * '"')
		bs := w ^ (ones * '\\')
		special := ((q - ones) &^ q) | ((bs - ones) &^ bs) | (w - ones*0x20) | w
		if special&highs != 0 {
			break
		}
		i += 8
	}
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return b[start:i], nil
		case c == '\\':
			return s.strSlow(start)
		case c < 0x20:
			s.i = i
			return nil, s.errf("control character 0x%02x in string", c)
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				return s.strSlow(start)
			}
			i += n
		default:
			i++
		}
	}
	s.i = i
	return nil, s.errf("unterminated string")
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}

// strSlow decodes a string with escapes or invalid UTF-8 into scratch.
func (s *scanner) strSlow(start int) ([]byte, error) {
	b := s.b
	out := len(s.scratch)
	i := start
	for i < len(b) {
		c := b[i]
		switch {
		case c == '"':
			s.i = i + 1
			return s.scratch[out:], nil
		case c < 0x20:
			s.i = i
			return nil, s.errf("control character 0x%02x in string", c)
		case c == '\\':
			if i+1 >= len(b) {
				s.i = i
				return nil, s.errf("unterminated string")
			}
			e := b[i+1]
			i += 2
			switch e {
			case '"', '\\', '/':
				s.scratch = append(s.scratch, e)
			case 'b':
				s.scratch = append(s.scratch, '\b')
			case 'f':
				s.scratch = append(s.scratch, '\f')
			case 'n':
				s.scratch = append(s.scratch, '\n')
			case 'r':
				s.scratch = append(s.scratch, '\r')
			case 't':
				s.scratch = append(s.scratch, '\t')
			case 'u':
				r, ok := hex4(b[i:])
				if !ok {
					s.i = i - 2
					return nil, s.errf(`bad \u escape in string`)
				}
				i += 4
				if utf16.IsSurrogate(r) {
					// Same as encoding/json: a valid pair decodes to one
					// rune; anything else gives U+FFFD and the following
					// escape is read on its own.
					if i+1 < len(b) && b[i] == '\\' && b[i+1] == 'u' {
						if r2, ok := hex4(b[i+2:]); ok {
							if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
								i += 6
								s.scratch = utf8.AppendRune(s.scratch, d)
								continue
							}
						}
					}
					r = utf8.RuneError
				}
				s.scratch = utf8.AppendRune(s.scratch, r)
			default:
				s.i = i - 2
				return nil, s.errf(`bad escape \%c in string`, e)
			}
		case c < utf8.RuneSelf:
			s.scratch = append(s.scratch, c)
			i++
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				s.scratch = utf8.AppendRune(s.scratch, utf8.RuneError)
			} else {
				s.scratch = append(s.scratch, b[i:i+n]...)
			}
			i += n
		}
	}
	s.i = i
	return nil, s.errf("unterminated string")
}

// number scans a JSON number at the cursor and returns its text.
func (s *scanner) number() ([]byte, error) {
	b := s.b
	start := s.i
	i := start
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		s.i = i
		return nil, s.errf("bad number: expected a digit, found %s", s.describe())
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.i = i
			return nil, s.errf("bad number: expected a digit after '.', found %s", s.describe())
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.i = i
			return nil, s.errf("bad number: expected a digit in the exponent, found %s", s.describe())
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return b[start:i], nil
}

func (s *scanner) literal(word string) error {
	if bytes.HasPrefix(s.b[s.i:], []byte(word)) {
		s.i += len(word)
		return nil
	}
	return s.errf("expected a value, found %s", s.describe())
}

// value scans one value at the cursor (after whitespace), checking nested
// objects for duplicate keys, and returns its kind and raw text. For a string
// it also returns the decoded text in str.
func (s *scanner) value(depth int) (kind jsonKind, raw, str []byte, err error) {
	kind, err = s.peekKind()
	if err != nil {
		return 0, nil, nil, err
	}
	start := s.i
	switch kind {
	case kindString:
		str, err = s.str()
	case kindNumber:
		_, err = s.number()
	case kindTrue:
		err = s.literal("true")
	case kindFalse:
		err = s.literal("false")
	case kindNull:
		err = s.literal("null")
	case kindObject:
		err = s.skipObject(depth + 1)
	case kindArray:
		err = s.skipArray(depth + 1)
	}
	if err != nil {
		return 0, nil, nil, err
	}
	return kind, s.b[start:s.i], str, nil
}

// linearKeys is how many keys of one object are checked for duplicates by
// linear search before a map takes over.
const linearKeys = 16

func (s *scanner) skipObject(depth int) error {
	if depth > maxDepth {
		return s.errf("nesting deeper than %d levels", maxDepth)
	}
	return s.objectMembers(func([]byte, int) error {
		_, _, _, err := s.value(depth)
		return err
	})
}

func (s *scanner) skipArray(depth int) error {
	if depth > maxDepth {
		return s.errf("nesting deeper than %d levels", maxDepth)
	}
	s.i++ // '['
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		if _, _, _, err := s.value(depth); err != nil {
			return err
		}
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return nil
		}
		return s.errf("expected ',' or ']' after array element, found %s", s.describe())
	}
}

// arrayElems iterates over the elements of the array at the cursor (which
// must be '['), calling fn with each element's index; fn must consume the
// element.
func (s *scanner) arrayElems(fn func(j int) error) error {
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return s.errf("expected a JSON array, found %s", s.describe())
	}
	s.i++
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for j := 0; ; j++ {
		s.ws()
		if err := fn(j); err != nil {
			return err
		}
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return nil
		}
		return s.errf("expected ',' or ']' after array element, found %s", s.describe())
	}
}

// objectKeys iterates over the members of the object at the cursor (which
// must be '{'), calling fn with each unescaped key and the key's offset; fn
// must consume the value. Duplicate keys are reported here.
func (s *scanner) objectMembers(fn func(key []byte, at int) error) error {
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return s.errf("expected a JSON object, found %s", s.describe())
	}
	s.i++
	base := len(s.keys)
	defer func() { s.keys = s.keys[:base] }()
	// Keys are compared linearly while an object is small (the common case,
	// no allocation) and through a map past linearKeys, so a line with a
	// huge object cannot make the check quadratic.
	var seen map[string]struct{}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.errf("expected a string key, found %s", s.describe())
		}
		at := s.i
		k, err := s.str()
		if err != nil {
			return err
		}
		dup := false
		if seen == nil && len(s.keys)-base >= linearKeys {
			seen = make(map[string]struct{}, 2*linearKeys)
			for _, prev := range s.keys[base:] {
				seen[string(prev)] = struct{}{}
			}
		}
		if seen != nil {
			_, dup = seen[string(k)]
			seen[string(k)] = struct{}{}
		} else {
			for _, prev := range s.keys[base:] {
				if bytes.Equal(prev, k) {
					dup = true
					break
				}
			}
		}
		if dup {
			s.i = at
			return s.errf("duplicate key %s", quoteBytes(k))
		}
		s.keys = append(s.keys, k)
		if err := s.expect(':', "':' after object key"); err != nil {
			return err
		}
		s.ws()
		if err := fn(k, at); err != nil {
			return err
		}
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ',' {
			s.i++
			continue
		}
		if s.i < len(s.b) && s.b[s.i] == '}' {
			s.i++
			return nil
		}
		return s.errf("expected ',' or '}' after object value, found %s", s.describe())
	}
}
