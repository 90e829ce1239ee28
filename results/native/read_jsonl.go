package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"unicode/utf8"
)

// lineRef locates one line inside a chunk's buffer.
type lineRef struct {
	off, end int
	line     int
}

// chunk is a run of whole lines (JSONL) or rows (CSV) of one input.
type chunk struct {
	seq   int // position in the whole run, across inputs
	input int // index of the input
	file  string
	buf   []byte
	lines []lineRef
	// rows and rowLines hold CSV records and the lines they start on.
	rows     [][]string
	rowLines []int
	head     *csvHeader
	// recs, recPos and format hold the records of a Records input, their
	// positions and the tool's format name.
	recs   []*Record
	recPos []int
	format string
	// err is a read error found after the lines above.
	err error
	// sharded is set on every chunk of a JSON lines input whose first line
	// names a shard header: its items' ids are then traced (shardIDs).
	sharded bool
}

// chunker splits an input into chunks of whole lines. Each chunk's buffer is
// filled completely before it is split, so chunk boundaries depend only on
// the content, never on how the reader happens to return data: that keeps
// the chunked sums (and so the report) bit-identical from run to run.
type chunker struct {
	r       io.Reader
	file    string
	maxLine int
	size    int
	left    []byte
	line    int // lines handed out so far
	first   bool
	done    bool
	spare   []byte // holds the partial line carried to the next chunk
	pool    *bufPool
}

// bufPool recycles chunk buffers between the reader and the workers. It is
// a bounded free list rather than a sync.Pool, which the GC empties.
type bufPool struct{ free chan []byte }

func newBufPool(n int) *bufPool { return &bufPool{free: make(chan []byte, n)} }

func (bp *bufPool) get(size int) []byte {
	select {
	case b := <-bp.free:
		if cap(b) == size {
			return b[:size]
		}
	default:
	}
	return make([]byte, size)
}

// put returns a chunk's buffer; only full-size buffers are kept.
func (bp *bufPool) put(b []byte, size int) {
	if cap(b) != size {
		return
	}
	select {
	case bp.free <- b:
	default:
	}
}

func newChunker(in Input, maxLine, size int) *chunker {
	return &chunker{r: in.R, file: in.Name, maxLine: maxLine, size: size, first: true}
}

// next returns the next chunk; io.EOF after the last. A chunk may come with
// a non-EOF error (the lines before a read error or an over-long line).
func (c *chunker) next() (*chunk, error) {
	if c.done {
		return nil, io.EOF
	}
	size := c.size
	for {
		if size < 2*len(c.left) {
			size = 2 * len(c.left)
		}
		var buf []byte
		if size == c.size && c.pool != nil {
			buf = c.pool.get(size)
		} else {
			buf = make([]byte, size)
		}
		k := copy(buf, c.left)
		n, rerr := io.ReadFull(c.r, buf[k:])
		data := buf[:k+n]
		eof := rerr == io.EOF || rerr == io.ErrUnexpectedEOF
		if rerr != nil && !eof {
			c.done = true
			return nil, &InputError{File: c.file, Line: c.line + 1, Msg: fmt.Sprintf("read error: %v", rerr)}
		}
		if c.first {
			c.first = false
			if bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) {
				data = data[3:]
			}
		}
		last := bytes.LastIndexByte(data, '\n')
		if last < 0 && !eof {
			// One line fills the whole buffer.
			if len(data) > c.maxLine {
				c.done = true
				return nil, c.tooLong(c.line + 1)
			}
			c.left = append(c.spare[:0], data...)
			c.spare = c.left
			size *= 2
			continue
		}
		ch := &chunk{file: c.file, buf: data}
		whole := data
		if !eof {
			whole = data[:last+1]
			// Copied: the buffer goes back to the pool once the chunk is done.
			c.left = append(c.spare[:0], data[last+1:]...)
			c.spare = c.left
		} else {
			c.left = nil
			c.done = true
		}
		off := 0
		for off < len(whole) {
			end := off + bytes.IndexByte(whole[off:], '\n')
			next := end + 1
			if end < off { // last line without a newline
				end = len(whole)
				next = end
			}
			c.line++
			if end-off > c.maxLine {
				c.done = true
				ch.err = c.tooLong(c.line)
				return ch, ch.err
			}
			e := end
			if e > off && whole[e-1] == '\r' {
				e--
			}
			ch.lines = append(ch.lines, lineRef{off: off, end: e, line: c.line})
			off = next
		}
		if c.done {
			return ch, io.EOF
		}
		return ch, nil
	}
}

func (c *chunker) tooLong(line int) error {
	return &InputError{File: c.file, Line: line, Msg: fmt.Sprintf("line is longer than %d bytes: expected one judged item per line (is a line break missing, or a field far too long?)", c.maxLine)}
}

// blank reports whether a line holds only JSON whitespace.
func blank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// decodeJSON decodes one JSON line into d.raw and validates it. ok is false
// for a blank line (no item).
func (d *decoder) decodeJSON(line []byte, lineNo int) (ok bool, err error) {
	if blank(line) {
		return false, nil
	}
	if lineNo == 1 {
		// A sharded judge run's header is metadata, not an item.
		if h, ok, err := shardHeader(line); ok {
			if err != nil {
				return false, d.errf(lineNo, "%s", err.Error())
			}
			d.shard = h
			return false, nil
		}
	}
	d.raw.reset(len(d.sc.ids), lineNo)
	d.hint = 0
	s := &d.s
	s.reset(line)
	s.ws()
	if s.i < len(s.b) && s.b[s.i] != '{' {
		return false, d.errf(lineNo, "expected a JSON object (JSON lines: one object a line), found %s", s.describe())
	}
	err = s.objectMembers(d.topMember)
	if err != nil {
		return false, d.wrap(lineNo, err)
	}
	s.ws()
	if s.i < len(s.b) {
		if s.i > 0 && s.b[s.i-1] == '\r' {
			// ws skipped a carriage return: the objects are separated by
			// bare CRs (old Mac line ends), which JSON lines does not allow.
			return false, d.errf(lineNo, "objects separated by a bare carriage return (CR line ends): expected one object a line, lines ending in LF or CRLF")
		}
		return false, d.wrap(lineNo, s.errf("unexpected %s after the JSON object (one object a line)", s.describe()))
	}
	if err := d.finish(); err != nil {
		return false, err
	}
	return true, nil
}

// wrap turns a scanner error into an *InputError at lineNo.
func (d *decoder) wrap(lineNo int, err error) error {
	if _, ok := err.(*InputError); ok {
		return err
	}
	return d.errf(lineNo, "%s", err.Error())
}

// stringField decodes a string-or-null field.
func (d *decoder) stringField(key []byte) ([]byte, error) {
	kind, _, str, err := d.s.value(0)
	if err != nil {
		return nil, err
	}
	switch kind {
	case kindString:
		return str, nil
	case kindNull:
		return nil, nil
	}
	return nil, d.errf(d.raw.line, "%s must be a string, got %s", quoteBytes(key), kind)
}

// boolField decodes retrieval_miss or pass: true/false, null, 0/1 or a
// yes/no/true/false/1/0 string.
func (d *decoder) boolField(key []byte) (int8, error) {
	kind, raw, str, err := d.s.value(0)
	if err != nil {
		return -1, err
	}
	switch kind {
	case kindTrue:
		return 1, nil
	case kindFalse:
		return 0, nil
	case kindNull:
		return -1, nil
	case kindString, kindNumber:
		t := raw
		if kind == kindString {
			t = str
		}
		if v, ok := truthy(t); ok {
			return v, nil
		}
	}
	return -1, d.errf(d.raw.line, "%s must be true/false (or yes/no, 1/0), got %s", quoteBytes(key), quoteBytes(raw))
}

func (d *decoder) topMember(key []byte, _ int) error {
	r := &d.raw
	var err error
	switch string(key) {
	case "id":
		return d.idMember()
	case "error":
		r.errMsg, err = d.stringField(key)
		return err
	case "reasoning":
		r.reasoning, err = d.stringField(key)
		return err
	case "notes":
		r.notes, err = d.stringField(key)
		return err
	case "reviewer":
		r.reviewer, err = d.stringField(key)
		return err
	case "judge_model":
		r.judgeModel, err = d.stringField(key)
		return err
	case "input_hash":
		v, err := d.stringField(key)
		if err != nil || v == nil {
			return err
		}
		return d.inputHash(v)
	case "retrieval_miss":
		v, err := d.boolField(key)
		r.retrievalMiss = v == 1
		return err
	case "pass":
		r.pass, err = d.boolField(key)
		return err
	case "length":
		return d.lengthMember()
	case "scores":
		return d.scoresMember()
	case "samples", "answers":
		return d.samplesMember(string(key) == "answers")
	}
	return d.otherMember(key)
}

// idMember reads "id": a string, or a number kept as its literal text.
func (d *decoder) idMember() error {
	r := &d.raw
	kind, raw, str, err := d.s.value(0)
	if err != nil {
		return err
	}
	switch kind {
	case kindString:
		r.id = str
	case kindNumber:
		r.id = raw // kept as its literal text
	default:
		return d.errf(r.line, `"id" must be a string or a number, got %s`, kind)
	}
	r.hasID = true
	return nil
}

// lengthMember reads "length": a non-negative integer, or null.
func (d *decoder) lengthMember() error {
	r := &d.raw
	kind, raw, _, err := d.s.value(0)
	if err != nil {
		return err
	}
	switch kind {
	case kindNull:
		return nil
	case kindNumber:
		if n, ok := jsonInt(raw); ok && n >= 0 {
			r.length = n
			return nil
		}
	}
	return d.errf(r.line, `"length" must be a non-negative integer, got %s`, quoteBytes(raw))
}

// scoresMember reads "scores": an object of criterion scores, or null.
func (d *decoder) scoresMember() error {
	r := &d.raw
	kind, err := d.s.peekKind()
	if err != nil {
		return err
	}
	switch kind {
	case kindNull:
		return d.s.literal("null")
	case kindObject:
		r.hasScores = true
		return d.s.objectMembers(d.scoreMember)
	}
	return d.errf(r.line, `"scores" must be an object of criterion scores, got %s`, kind)
}

// samplesMember reads "samples" (judgings of one answer) or "answers"
// (regenerated answers, ans): an array, or null; never both in one item.
func (d *decoder) samplesMember(ans bool) error {
	r := &d.raw
	kind, err := d.s.peekKind()
	if err != nil {
		return err
	}
	if r.arrSeen && r.answers != ans {
		return d.errf(r.line, `the item has both "samples" (judgings of one answer) and "answers" (regenerated answers): give one of them`)
	}
	r.arrSeen, r.answers = true, ans
	switch kind {
	case kindNull:
		return d.s.literal("null")
	case kindArray:
		r.nSamples = 0
		return d.s.arrayElems(d.sample)
	}
	if ans {
		return d.errf(r.line, `"answers" must be an array of answers {"scores": {...}, "reasoning": "..."}, got %s`, kind)
	}
	return d.errf(r.line, `"samples" must be an array of judgings {"scores": {...}, "reasoning": "..."}, got %s`, kind)
}

// otherMember reads any other member: a criterion at the top level (the
// production template's judge JSON), the answer's text for its length,
// else metadata.
func (d *decoder) otherMember(key []byte) error {
	r := &d.raw
	kind, raw, str, err := d.s.value(0)
	if err != nil {
		return err
	}
	if i := d.find(key); i >= 0 {
		return d.setVal(i, rawVal{kind: kind, raw: raw, str: str, key: key})
	}
	switch string(key) {
	case "answer", "output", "response":
		if kind == kindString && r.answerLen < 0 {
			r.answerLen = utf8.RuneCount(str)
		}
	}
	if d.sc.opts.KeepMeta {
		r.meta = append(r.meta, metaField{key: string(key), val: json.RawMessage(bytes.Clone(raw))})
	}
	return nil
}

func (d *decoder) scoreMember(key []byte, _ int) error {
	kind, raw, str, err := d.s.value(0)
	if err != nil {
		return err
	}
	i := d.find(key)
	if i < 0 {
		if d.sc.opts.IgnoreUnknown {
			return nil
		}
		return d.errf(d.raw.line, `unknown criterion %s in "scores" (expected one of: %s)`, quoteBytes(key), d.sc.list)
	}
	return d.setVal(i, rawVal{kind: kind, raw: raw, str: str, key: key})
}

// MaxSamples bounds the elements of a line's "samples" or "answers":
// the judgings, or the regenerated answers, of one item (the judge
// refuses an input with more answers for one id).
const MaxSamples = 1000

// sample decodes one element of "samples": an object with "scores" and an
// optional "reasoning" (a string or null); other keys are skipped.
func (d *decoder) sample(j int) error {
	r := &d.raw
	kind, err := d.s.peekKind()
	if err != nil {
		return err
	}
	if kind != kindObject {
		return d.errf(r.line, `%s[%d] must be an object {"scores": {...}, "reasoning": "..."}, got %s`, r.arrName(), j, kind)
	}
	if j >= MaxSamples {
		return d.errf(r.line, `%q has more than %d elements`, r.arrName(), MaxSamples)
	}
	sm := r.nextSample(len(d.sc.ids))
	d.hint = 0
	return d.s.objectMembers(func(key []byte, _ int) error {
		switch string(key) {
		case "scores":
			kind, err := d.s.peekKind()
			if err != nil {
				return err
			}
			if kind != kindObject {
				return d.errf(r.line, `%s[%d].scores must be an object of criterion scores, got %s`, r.arrName(), j, kind)
			}
			sm.hasScores = true
			return d.s.objectMembers(func(key []byte, _ int) error {
				kind, raw, str, err := d.s.value(0)
				if err != nil {
					return err
				}
				i := d.find(key)
				if i < 0 {
					if d.sc.opts.IgnoreUnknown {
						return nil
					}
					return d.errf(r.line, `%s[%d]: unknown criterion %s in "scores" (expected one of: %s)`, r.arrName(), j, quoteBytes(key), d.sc.list)
				}
				if err := d.setIn(sm.raws, i, rawVal{kind: kind, raw: raw, str: str, key: key}); err != nil {
					return d.errf(r.line, "%s[%d]: %s", r.arrName(), j, err.(*InputError).Msg)
				}
				return nil
			})
		case "reasoning":
			v, err := d.stringField([]byte("reasoning"))
			sm.reasoning = v
			return err
		}
		_, _, _, err := d.s.value(0)
		return err
	})
}

// find is schema.find with a fast path: results usually list the criteria by
// id in rubric order, so the criterion after the last one found is tried
// first with an exact comparison.
func (d *decoder) find(key []byte) int {
	if j := d.hint; j < len(d.sc.ids) && string(key) == d.sc.ids[j] {
		d.hint = j + 1
		return j
	}
	i := d.sc.find(key)
	if i >= 0 {
		d.hint = i + 1
	}
	return i
}
