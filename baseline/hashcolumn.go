package baseline

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/rubricgate/rubricgate/gate"
)

// The optional "input_hashes" column binds each item to its task (see
// gate.InputHash): one string, the standard base64 (with padding) of the
// items' 32-byte sha256 digests concatenated in item order, 32 zero bytes
// for an item without one. About 43 bytes an item, where an array of
// "sha256:<hex>" strings takes 72: a million items' hashes would otherwise
// bring a baseline near the 100 MiB artifact limit.

// hashBlock is the number of items encoded together: 3 digests are 96
// bytes, 128 base64 characters without padding.
const hashBlock = 3

// appendHashBlock appends the base64 of the digests of the items of c from
// i, hashBlock of them (fewer at the end).
func appendHashBlock(b []byte, c *gate.ItemColumns, i int) []byte {
	var raw [hashBlock * 32]byte
	k := 0
	for j := i; j < min(i+hashBlock, c.Len()); j++ {
		h := c.InputHash(j)
		k += copy(raw[k:], h[:])
	}
	return base64.StdEncoding.AppendEncode(b, raw[:k])
}

// hashColumn decodes the "input_hashes" column. Like the other columns it
// never fails the decoding; Read reports err.
type hashColumn struct {
	// data are the decoded digests, 32 bytes an item.
	data []byte
	err  *columnError
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *hashColumn) UnmarshalJSON(raw []byte) error {
	if i := c.parse(raw, -1); i >= 0 {
		if i = skipWSb(raw, i); i < len(raw) {
			c.fail(raw, i, "field \"items.input_hashes\": unexpected %q after the string", raw[i])
		}
	}
	return nil
}

func (c *hashColumn) fail(raw []byte, at int, format string, a ...any) int {
	c.data, c.err = nil, &columnError{raw: raw, at: at, msg: fmt.Sprintf(format, a...)}
	return -1
}

// parse parses the string at the start of raw (after whitespace) and
// returns the offset after it (-1 on an error). n is unused (the string
// says how many hashes it holds).
func (c *hashColumn) parse(raw []byte, _ int) int {
	c.data, c.err = nil, nil
	i := skipWSb(raw, 0)
	if i >= len(raw) || raw[i] != '"' {
		return c.fail(raw, i, "field \"items.input_hashes\": expected a base64 string of the items' sha256 digests, found JSON %s", kind(raw, i))
	}
	end, ok := skipString(raw, i)
	if !ok {
		return c.fail(raw, i, "field \"items.input_hashes\": unterminated string")
	}
	text := raw[i+1 : end-1]
	for k, ch := range text {
		// JSON allows no control character in a string (and base64
		// decoding would skip a newline): refused as encoding/json would.
		if ch < 0x20 {
			return c.fail(raw, i+1+k, "field \"items.input_hashes\": invalid character %q in string", ch)
		}
	}
	if bytes.IndexByte(text, '\\') >= 0 {
		// A JSON tool may have escaped a '/' ("\/"): decode the string.
		var s string
		if err := json.Unmarshal(raw[i:end], &s); err != nil {
			return c.fail(raw, i, "field \"items.input_hashes\": %v", err)
		}
		text = []byte(s)
	}
	data, err := base64.StdEncoding.AppendDecode(make([]byte, 0, base64.StdEncoding.DecodedLen(len(text))), text)
	if err != nil {
		return c.fail(raw, i, "field \"items.input_hashes\": not standard base64: %v", err)
	}
	if len(data)%32 != 0 {
		return c.fail(raw, i, "field \"items.input_hashes\": %d bytes, not 32 an item", len(data))
	}
	c.data = data
	return end
}
