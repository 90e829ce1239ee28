package formats

import (
	"fmt"
	"github.com/rubricgate/rubricgate/record"
	"math"
	"sort"
	"strconv"
	"strings"
)

// node is a decoded value with the place it came from, for errors.
type node struct {
	v    *value
	file string
	path string
	// line is used when v is nil (a missing member): its parent's line.
	line int
}

func (n node) lineNo() int {
	if n.v != nil {
		return n.v.line
	}
	return n.line
}

func (n node) errf(format string, args ...any) error {
	return &record.InputError{File: n.file, Line: n.lineNo(), Path: n.path, Msg: fmt.Sprintf(format, args...)}
}

// at returns the member key of an object node (v nil when absent).
func (n node) at(key string) node {
	return node{v: n.v.get(key), file: n.file, path: n.path + pathKey(key), line: n.lineNo()}
}

// index returns element i of an array node.
func (n node) index(i int) node {
	return node{v: n.v.arr[i], file: n.file, path: fmt.Sprintf("%s[%d]", n.path, i), line: n.lineNo()}
}

func (n node) missing() bool { return n.v == nil }
func (n node) null() bool    { return n.v.isNull() }

func (n node) want(what string) error {
	if n.v == nil {
		return n.errf("missing; expected %s", what)
	}
	return n.errf("expected %s, found %s", what, n.v.kind)
}

// object checks that the node is an object.
func (n node) object() error {
	if n.v == nil || n.v.kind != kObject {
		return n.want("an object")
	}
	return nil
}

// array checks that the node is an array and returns its length.
func (n node) array() (int, error) {
	if n.v == nil || n.v.kind != kArray {
		return 0, n.want("an array")
	}
	return len(n.v.arr), nil
}

// str returns a required string.
func (n node) str() (string, error) {
	if n.v == nil || n.v.kind != kString {
		return "", n.want("a string")
	}
	return n.v.s, nil
}

// optStr returns a string, or "" when absent or null.
func (n node) optStr() (string, error) {
	if n.null() {
		return "", nil
	}
	return n.str()
}

// num returns a required finite number.
func (n node) num() (float64, error) {
	if n.v == nil || n.v.kind != kNumber {
		return 0, n.want("a finite number")
	}
	return n.v.f, nil
}

// optNum returns a finite number, ok false when absent or null.
func (n node) optNum() (float64, bool, error) {
	if n.null() {
		return 0, false, nil
	}
	f, err := n.num()
	return f, err == nil, err
}

// optBool returns a boolean, "" when absent or null, else "true"/"false".
func (n node) optBool() (string, error) {
	if n.null() {
		return "", nil
	}
	if n.v.kind != kBool {
		return "", n.want("a boolean")
	}
	return strconv.FormatBool(n.v.b), nil
}

// score reads a score that may be recorded as missing: null or NaN is
// unscored (the tool's failure to score); Infinity is refused.
func (n node) score() (f float64, unscored bool, err error) {
	switch {
	case n.v == nil:
		return 0, false, n.want("a score")
	case n.v.kind == kNull:
		return 0, true, nil
	case n.v.kind == kNonFinite && math.IsNaN(n.v.f):
		return 0, true, nil
	case n.v.kind == kNumber:
		return n.v.f, false, nil
	case n.v.kind == kNonFinite:
		return 0, false, n.errf("score is %s; expected a finite number (or NaN for unscored)", fmtFloat(n.v.f))
	}
	return 0, false, n.want("a number")
}

// scalar renders a string, number or boolean as text, for ids and Meta.
func (n node) scalar() (string, bool) {
	if n.v == nil {
		return "", false
	}
	switch n.v.kind {
	case kString:
		return n.v.s, true
	case kNumber:
		return n.v.s, true
	case kBool:
		return strconv.FormatBool(n.v.b), true
	}
	return "", false
}

func fmtFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// canonical renders a value as compact JSON with object keys sorted, for a
// stable id built from data.
func canonical(v *value, b *strings.Builder) {
	switch v.kind {
	case kNull:
		b.WriteString("null")
	case kBool:
		b.WriteString(strconv.FormatBool(v.b))
	case kNumber:
		b.WriteString(v.s)
	case kNonFinite:
		b.WriteString(fmtFloat(v.f))
	case kString:
		b.WriteString(strconv.Quote(v.s))
	case kArray:
		b.WriteByte('[')
		for i, e := range v.arr {
			if i > 0 {
				b.WriteByte(',')
			}
			canonical(e, b)
		}
		b.WriteByte(']')
	case kObject:
		idx := make([]int, len(v.keys))
		for i := range idx {
			idx[i] = i
		}
		sortIdx(idx, v.keys)
		b.WriteByte('{')
		for j, i := range idx {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(v.keys[i]))
			b.WriteByte(':')
			canonical(v.vals[i], b)
		}
		b.WriteByte('}')
	}
}

func sortIdx(idx []int, keys []string) {
	sort.Slice(idx, func(a, b int) bool { return keys[idx[a]] < keys[idx[b]] })
}
