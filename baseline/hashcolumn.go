package baseline

import (
	"fmt"

	"github.com/rubricgate/rubricgate/gate"
)

// hashColumn decodes the optional "input_hashes" column: one string an
// item, "sha256:<64 hex>" (gate.InputHash's text form) or "" for an item
// without a hash. Like the other columns it never fails the decoding; Read
// reports err.
type hashColumn struct {
	hashes []gate.InputHash
	err    *columnError
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *hashColumn) UnmarshalJSON(raw []byte) error {
	if i := c.parse(raw, elements(raw)); i >= 0 {
		if i = skipWSb(raw, i); i < len(raw) {
			c.fail(raw, i, "field \"items.input_hashes\": unexpected %q after the array", raw[i])
		}
	}
	return nil
}

func (c *hashColumn) fail(raw []byte, at int, format string, a ...any) int {
	c.hashes, c.err = nil, &columnError{raw: raw, at: at, msg: fmt.Sprintf(format, a...)}
	return -1
}

// parse parses the array at the start of raw (after whitespace), with room
// for n hashes, and returns the offset after it (-1 on an error). Only the
// two forms the writer gives are accepted, so no escape is ever decoded.
func (c *hashColumn) parse(raw []byte, n int) int {
	c.hashes, c.err = nil, nil
	i := skipWSb(raw, 0)
	if i >= len(raw) || raw[i] != '[' {
		return c.fail(raw, i, "field \"items.input_hashes\": expected an array of strings, found JSON %s", kind(raw, i))
	}
	c.hashes = make([]gate.InputHash, 0, max(n, 0))
	i = skipWSb(raw, i+1)
	if i < len(raw) && raw[i] == ']' {
		return i + 1
	}
	for {
		k := len(c.hashes)
		if i >= len(raw) || raw[i] != '"' {
			return c.fail(raw, i, "field \"items.input_hashes[%d]\": expected a string, found JSON %s", k, kind(raw, i))
		}
		start := i
		i++
		for i < len(raw) && raw[i] != '"' && raw[i] != '\\' {
			i++
		}
		if i >= len(raw) || raw[i] != '"' {
			return c.fail(raw, start, "field \"items.input_hashes[%d]\": expected \"sha256:<64 hex digits>\" or \"\"", k)
		}
		var h gate.InputHash
		if s := raw[start+1 : i]; len(s) > 0 {
			var ok bool
			if h, ok = gate.ParseInputHash(s); !ok {
				return c.fail(raw, start, "field \"items.input_hashes[%d]\": expected \"sha256:<64 hex digits>\" or \"\", found %q", k, s)
			}
		}
		c.hashes = append(c.hashes, h)
		i++
		if i = skipWSb(raw, i); i < len(raw) && raw[i] == ',' {
			i = skipWSb(raw, i+1)
			continue
		}
		if i < len(raw) && raw[i] == ']' {
			return i + 1
		}
		return c.fail(raw, i, "field \"items.input_hashes\": expected , or ] after element %d", k)
	}
}
