package baseline

import (
	"bytes"
	"encoding/json"
	"strings"
)

// readFast decodes data into w when the file has the shape Write gives it
// (whitespace and member order may differ): a top-level object whose
// "items" member is an object of exactly "count", "ids" and "scores" (and
// "answers" and "answer_vars" when items carry answer samples). The
// item columns are parsed by hand (checking the JSON grammar themselves);
// the rest of the file, with the items member cut out, goes through
// encoding/json, a few kilobytes instead of the 27 MiB of a million items
// that encoding/json would otherwise scan twice.
//
// It returns false, leaving w in any state, for anything else: a syntax or
// type error, a key folding to "items" that is not exactly it, a repeated
// or unknown key inside items, a column with a problem. The caller then
// decodes the whole file with encoding/json, which reads what this does
// not and names the problem. What it accepts decodes exactly as
// encoding/json decodes it.
func readFast(data []byte, w *wire) bool {
	i := skipWSb(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i++
	var items *wireItems
	cutFrom, cutTo := -1, -1
	comma := -1 // the comma before the current member; -1 for the first
	for first := true; ; first = false {
		i = skipWSb(data, i)
		if first && i < len(data) && data[i] == '}' {
			return false // no items: encoding/json says what is missing
		}
		if i >= len(data) || data[i] != '"' {
			return false
		}
		ks := i
		ke, ok := skipString(data, i)
		if !ok {
			return false
		}
		key := data[ks+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		if i = skipWSb(data, ke); i >= len(data) || data[i] != ':' {
			return false
		}
		i = skipWSb(data, i+1)
		isItems := strings.EqualFold(string(key), "items")
		var ve int
		if isItems {
			// encoding/json matches keys without regard to case, and the
			// last of repeated keys wins: leave those files to it.
			if string(key) != "items" || items != nil {
				return false
			}
			if items, ve, ok = readItems(data, i); !ok {
				return false
			}
		} else if ve, ok = skipValue(data, i); !ok {
			return false
		}
		i = skipWSb(data, ve)
		if i >= len(data) {
			return false
		}
		switch data[i] {
		case ',':
			if isItems {
				cutFrom, cutTo = ks, i+1
			}
			comma = i
			i++
			continue
		case '}':
			if isItems {
				cutFrom, cutTo = ks, ve
				if comma >= 0 {
					cutFrom = comma
				}
			}
			i++
		default:
			return false
		}
		break
	}
	if skipWSb(data, i) != len(data) || items == nil {
		return false
	}
	head := make([]byte, 0, len(data)-(cutTo-cutFrom))
	head = append(append(head, data[:cutFrom]...), data[cutTo:]...)
	if err := json.Unmarshal(head, w); err != nil || w.Items != nil {
		return false
	}
	w.Items = items
	return true
}

// readItems parses the items object at data[i:]: exactly the members
// "count", "ids" and "scores" (each at most once), none of them null. It
// returns the offset after the object.
func readItems(data []byte, i int) (*wireItems, int, bool) {
	if i >= len(data) || data[i] != '{' {
		return nil, 0, false
	}
	r := itemsReader{it: &wireItems{}}
	it := r.it
	defer func() {
		if r.spec != nil {
			<-r.spec.done // never leave it running
		}
	}()
	i = skipWSb(data, i+1)
	if i < len(data) && data[i] == '}' {
		return it, i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return nil, 0, false
		}
		ke, ok := skipString(data, i)
		if !ok {
			return nil, 0, false
		}
		key := string(data[i+1 : ke-1])
		if i = skipWSb(data, ke); i >= len(data) || data[i] != ':' {
			return nil, 0, false
		}
		i = skipWSb(data, i+1)
		// A column parses in place when the count came first (as Write puts
		// it) and is believable: it sizes the column, up to maxPresize
		// items (the column grows past that), so a file claiming more items
		// than it holds (padded with whitespace, say) cannot make the read
		// allocate many times its size; the count is checked afterwards.
		n := -1
		if it.Count != nil && *it.Count >= 0 && *it.Count <= (len(data)-i)/2 {
			n = min(*it.Count, maxPresize)
		}
		ve := r.member(data, key, i, n)
		if ve < 0 {
			return nil, 0, false
		}
		i = skipWSb(data, ve)
		if i < len(data) && data[i] == ',' {
			i = skipWSb(data, i+1)
			continue
		}
		if i < len(data) && data[i] == '}' {
			return it, i + 1, true
		}
		return nil, 0, false
	}
}

// itemsReader is the state of reading the "items" object in place: the
// members read so far and the scores column parsed ahead, if any.
type itemsReader struct {
	it   *wireItems
	spec *scoresAhead
}

// member reads the value of the member key at data[i], sizing a column for
// n items (-1: unknown), and returns where it ends (-1: not a file as Write
// makes it; encoding/json reads it instead).
func (r *itemsReader) member(data []byte, key string, i, n int) int {
	var ve int
	switch {
	case i+4 <= len(data) && string(data[i:i+4]) == "null":
		return -1
	case key == "count" && r.it.Count == nil:
		var ok bool
		if ve, ok = skipValue(data, i); !ok || json.Unmarshal(data[i:ve], &r.it.Count) != nil {
			return -1
		}
	case key == "ids" && r.it.IDs == nil:
		var c idColumn
		if e, ok := skipValue(data, i); ok && n > 0 {
			// Size the ids' buffer from the column's length (two quotes
			// and a comma an id): a guess per id overshoots by megabytes.
			c.idBytes = max(e-i-3*n, 1)
			if n >= parallelItems && r.it.Scores == nil && r.spec == nil {
				r.spec = parseScoresAhead(data, e, n)
			}
		}
		if ve = parseColumn(data, i, n, c.parse); ve < 0 {
			return -1
		}
		if r.spec != nil {
			c.cols.HasDuplicate() // index the ids while the scores are parsed
		}
		r.it.IDs = &c
	case key == "input_hashes" && r.it.InputHashes == nil:
		var c hashColumn
		if ve = parseColumn(data, i, n, c.parse); ve < 0 {
			return -1
		}
		r.it.InputHashes = &c
	case key == "scores" && r.it.Scores == nil:
		var c scoreColumn
		if r.spec != nil {
			<-r.spec.done
			if r.spec.at == i && r.spec.end >= 0 {
				c, ve = r.spec.c, i+r.spec.end
			}
			r.spec = nil
		}
		if ve == 0 {
			if ve = parseColumn(data, i, n, c.parse); ve < 0 {
				return -1
			}
		}
		r.it.Scores = &c
	case key == "answers" && r.it.Answers == nil:
		r.it.Answers = &answersColumn{}
		ve = parseNamed(data, i, n, &r.it.Answers.namedColumn, key)
	case key == "answer_vars" && r.it.AnswerVars == nil:
		r.it.AnswerVars = &answerVarsColumn{}
		ve = parseNamed(data, i, n, &r.it.AnswerVars.namedColumn, key)
	default:
		return -1
	}
	return ve
}

// parseNamed parses the column named field at data[i] into c (see
// parseColumn): the end, or -1.
func parseNamed(data []byte, i, n int, c *namedColumn, field string) int {
	c.field = field
	return parseColumn(data, i, n, c.parse)
}

// maxPresize caps the items a column is sized for from the file's count
// before it is read: about 40 MB of columns.
var maxPresize = 1 << 20

// parallelItems is the number of items from which the scores column is
// parsed on a second core while the ids are parsed and indexed.
const parallelItems = 50_000

// scoresAhead is the scores column parsed ahead of its turn.
type scoresAhead struct {
	at   int // where the column starts in the file
	c    scoreColumn
	end  int // parse's result
	done chan struct{}
}

// parseScoresAhead starts parsing, on another goroutine, the column of the
// "scores" member that follows the ids column ending at e: where Write puts
// it. The result is used only if the items object's own parse reaches that
// "scores" key at that very offset. nil when the next member is not
// "scores" (the columns are then parsed one after the other).
func parseScoresAhead(data []byte, e, n int) *scoresAhead {
	p := skipWSb(data, e)
	if p >= len(data) || data[p] != ',' {
		return nil
	}
	p = skipWSb(data, p+1)
	if !bytes.HasPrefix(data[p:], []byte(`"scores"`)) {
		return nil
	}
	q := skipWSb(data, p+len(`"scores"`))
	if q >= len(data) || data[q] != ':' {
		return nil
	}
	s := &scoresAhead{at: skipWSb(data, q+1), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.end = s.c.parse(data[s.at:], n)
	}()
	return s
}

// parseColumn parses the column at data[i:] with parse, given room for n
// elements (n < 0: unknown, counted from the column found by skipValue);
// it returns the offset after the column, or -1.
func parseColumn(data []byte, i, n int, parse func(raw []byte, n int) int) int {
	if n >= 0 {
		if e := parse(data[i:], n); e >= 0 {
			return i + e
		}
		return -1
	}
	ve, ok := skipValue(data, i)
	if !ok {
		return -1
	}
	if e := parse(data[i:ve], elements(data[i:ve])); e >= 0 {
		return i + e
	}
	return -1
}

// skipString returns the offset after the JSON string starting at data[i]
// (a '"'). It does not check what is inside.
func skipString(data []byte, i int) (int, bool) {
	j := i + 1
	for {
		k := bytes.IndexByte(data[j:], '"')
		if k < 0 {
			return 0, false
		}
		j += k
		// The quote is escaped when an odd number of backslashes precede it.
		bs := 0
		for p := j - 1; p > i && data[p] == '\\'; p-- {
			bs++
		}
		j++
		if bs%2 == 0 {
			return j, true
		}
	}
}

// skipValue returns the offset after the JSON value starting at data[i]:
// strings, objects and arrays are matched (brackets of the right kind), a
// scalar runs to the next delimiter. It does not validate scalars; the
// caller has what it skipped checked (by encoding/json or the column
// parsers).
func skipValue(data []byte, i int) (int, bool) {
	if i >= len(data) {
		return 0, false
	}
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
	default:
		j := i
		for j < len(data) {
			switch data[j] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				return j, j > i
			}
			j++
		}
		return j, j > i
	}
	var stack []byte
	for j := i; j < len(data); {
		switch c := data[j]; c {
		case '"':
			e, ok := skipString(data, j)
			if !ok {
				return 0, false
			}
			j = e
			continue
		case '{':
			stack = append(stack, '}')
		case '[':
			stack = append(stack, ']')
		case '}', ']':
			if len(stack) == 0 || stack[len(stack)-1] != c {
				return 0, false
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return j + 1, true
			}
		}
		j++
	}
	return 0, false
}
