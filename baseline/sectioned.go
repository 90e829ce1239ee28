package baseline

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/gate"
)

// A large baseline file on disk is read in sections instead of whole: its
// item columns are parsed from the file through small buffers, so the
// file's bytes are never held in memory at once. Reading a million-item
// file whole puts 27 MB of fresh memory under the parse, and on a virtual
// machine touching fresh memory costs more than parsing it (about 0.1 s of
// page faults for those 27 MB, the parse itself about as much).
//
// Only a file laid out exactly as Write writes it is read this way (an
// indented header, then the items member last: its count, then its columns
// each on one line, in Write's order), and only when every id is plain
// text (no escapes, no control characters). Anything
// else, every error included, is read whole as before, so errors are the
// same, name the same line and column, and a file is read the same either
// way (FuzzReadSectioned checks that the two agree).

// sectionedMin is the size from which a file is read in sections (a
// variable for tests).
var sectionedMin int64 = 1 << 20

// maxSectionHead bounds the header a file read in sections may have (the
// indented JSON before the items): a file laid out otherwise (on one line,
// with CRLF line ends) stops being scanned there and is read whole.
const maxSectionHead = 8 << 20

// sectionBuf is the size of the buffers the sections are read through.
const sectionBuf = 1 << 16

// The lines of the items member as Write writes them.
const (
	itemsLine   = "  \"items\": {\n"
	countPrefix = "    \"count\": "
	itemsClose  = "  }\n}\n"
)

// fileAt is a file Read can read in sections: at offsets, with its size,
// and at offset 0 (what Read would otherwise read from).
type fileAt interface {
	io.ReaderAt
	io.Seeker
	Stat() (os.FileInfo, error)
}

// readSectioned reads r in sections when it is a regular file of at least
// sectionedMin bytes, at most limit, laid out as Write writes it; ok is
// false, with nothing read from r's offset, otherwise.
func readSectioned(r io.Reader, limit int64) (w *wire, ok bool) {
	f, isFile := r.(fileAt)
	if !isFile {
		return nil, false
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() || st.Size() < sectionedMin || st.Size() > limit {
		return nil, false
	}
	if off, err := f.Seek(0, io.SeekCurrent); err != nil || off != 0 {
		return nil, false
	}
	size := st.Size()
	lay, ok := layoutOf(io.NewSectionReader(f, 0, size), size)
	if !ok {
		return nil, false
	}
	w = &wire{}
	if err := json.Unmarshal(lay.head, w); err != nil || w.Items != nil {
		return nil, false
	}
	items, ok := lay.columns(f)
	if !ok {
		return nil, false
	}
	w.Items = items
	return w, true
}

// layout is where a file's parts are: the header with the items member cut
// out (what readFast hands to encoding/json), the count, and the columns.
type layout struct {
	head                               []byte
	count                              int
	ids, scores, answers, vars, hashes section
}

// section is where a column is in the file, from its first byte ('[' or
// '"') to its last; n is 0 for a column the file does not have.
type section struct{ at, n int64 }

// reader reads the section of f through a small buffer.
func (s section) reader(f io.ReaderAt) *bufio.Reader {
	return bufio.NewReaderSize(io.NewSectionReader(f, s.at, s.n), sectionBuf)
}

// columnOrder is the columns of the items member in Write's order after
// the ids, the optional ones where Write leaves them out.
func (lay *layout) columnOrder() []struct {
	key      string
	sec      *section
	optional bool
} {
	return []struct {
		key      string
		sec      *section
		optional bool
	}{{"scores", &lay.scores, false}, {"answers", &lay.answers, true}, {"answer_vars", &lay.vars, true}, {"input_hashes", &lay.hashes, true}}
}

// layoutOf finds the parts of a file of size bytes laid out as Write
// writes it, reading it once through a small buffer (the columns are
// skipped, not kept).
func layoutOf(r io.Reader, size int64) (layout, bool) {
	var lay layout
	br := bufio.NewReaderSize(r, sectionBuf)
	var head []byte
	for {
		start := len(head)
		for {
			chunk, err := br.ReadSlice('\n')
			if len(head)+len(chunk) > maxSectionHead {
				return lay, false // not a header as Write writes it: read whole
			}
			head = append(head, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return lay, false
			}
			break
		}
		if string(head[start:]) == itemsLine {
			head = head[:start]
			break
		}
		if !headerLine(head[start:]) {
			return lay, false
		}
	}
	off := int64(len(head) + len(itemsLine))
	// The items member is the last: cut out with the comma before it, the
	// header is closed as the file closes it (what readFast hands on).
	head, ok := bytes.CutSuffix(head, []byte(",\n"))
	if !ok {
		return lay, false
	}
	lay.head = append(head, "\n}\n"...)

	line, err := br.ReadSlice('\n')
	if err != nil || !bytes.HasPrefix(line, []byte(countPrefix)) || !bytes.HasSuffix(line, []byte(",\n")) {
		return lay, false
	}
	num := line[len(countPrefix) : len(line)-2]
	if string(num) == "null" || json.Unmarshal(num, &lay.count) != nil || lay.count < 0 || int64(lay.count) > size/2 {
		return lay, false
	}
	off += int64(len(line))

	last := byte(',')
	if lay.ids, last, ok = columnLine(br, "ids", off); !ok || last != ',' {
		return lay, false
	}
	off = lay.ids.at + lay.ids.n + 2
	for _, c := range lay.columnOrder() {
		if last != ',' {
			break
		}
		if p, _ := br.Peek(len(columnPrefix(c.key))); c.optional && string(p) != columnPrefix(c.key) {
			continue
		}
		if *c.sec, last, ok = columnLine(br, c.key, off); !ok {
			return lay, false
		}
		off = c.sec.at + c.sec.n + 1
		if last == ',' {
			off++
		}
	}
	// The answer columns come together; then the file closes.
	if last != '\n' || (lay.answers.n == 0) != (lay.vars.n == 0) {
		return lay, false
	}
	rest := make([]byte, len(itemsClose)+1)
	n, _ := io.ReadFull(br, rest)
	return lay, string(rest[:n]) == itemsClose && off+int64(n) == size
}

// columnPrefix is what a column's line starts with: its key, indented.
func columnPrefix(key string) string { return "    \"" + key + "\": " }

// headerLine reports whether a line of the header may be read with the
// items cut out: a member of the top-level object (two spaces of indent)
// whose key has no escape and is not "items" in any case, which readFast
// leaves to encoding/json.
func headerLine(line []byte) bool {
	rest, ok := bytes.CutPrefix(line, []byte(`  "`))
	if !ok {
		return true // not a top-level member
	}
	k := bytes.IndexByte(rest, '"')
	if k < 0 {
		return false
	}
	key := rest[:k]
	return bytes.IndexByte(key, '\\') < 0 && !strings.EqualFold(string(key), "items")
}

// columnLine reads the line of the column key (an array; input_hashes a
// string), and for every column but the last a comma; at is the line's
// offset in the file. It returns the column's section and the byte after it
// (',' or '\n').
func columnLine(br *bufio.Reader, key string, at int64) (sec section, after byte, ok bool) {
	prefix := columnPrefix(key)
	open, close := byte('['), byte(']')
	if key == "input_hashes" {
		open, close = '"', '"'
	}
	first := true
	var n int64
	var tail [3]byte // the line's last bytes
	for {
		chunk, err := br.ReadSlice('\n')
		if first {
			if !bytes.HasPrefix(chunk, []byte(prefix)) || len(chunk) < len(prefix)+1 || chunk[len(prefix)] != open {
				return sec, 0, false
			}
			first = false
		}
		n += int64(len(chunk))
		for _, b := range chunk[max(len(chunk)-3, 0):] {
			tail[0], tail[1], tail[2] = tail[1], tail[2], b
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return sec, 0, false
		}
		break
	}
	sec.at = at + int64(len(prefix))
	switch {
	case tail[1] == close && tail[2] == '\n':
		sec.n = n - int64(len(prefix)) - 1
		return sec, '\n', sec.n >= 2
	case tail[0] == close && tail[1] == ',' && tail[2] == '\n':
		sec.n = n - int64(len(prefix)) - 2
		return sec, ',', sec.n >= 2
	}
	return sec, 0, false
}

// columns parses the columns from f: the ids, indexed once parsed, and
// from parallelItems items the other columns on a second core meanwhile.
func (lay *layout) columns(f io.ReaderAt) (*wireItems, bool) {
	n := min(lay.count, maxPresize)
	count := lay.count
	it := &wireItems{Count: &count}
	othersOK := false
	done := make(chan struct{})
	others := func() {
		defer close(done)
		othersOK = lay.otherColumns(f, n, it)
	}
	parallel := n >= parallelItems
	if parallel {
		go others()
	}
	cols, idsOK := idsSection(lay.ids.reader(f), n, int(max(lay.ids.n-3*int64(n), 1)))
	if idsOK && parallel {
		cols.HasDuplicate() // index the ids while the other columns are parsed
	}
	if !parallel {
		others()
	}
	<-done // never leave it reading the file
	if !idsOK || !othersOK {
		return nil, false
	}
	it.IDs = &idColumn{cols: cols}
	return it, true
}

// otherColumns parses the columns after the ids into it.
func (lay *layout) otherColumns(f io.ReaderAt, n int, it *wireItems) bool {
	scores, ok := numbersSection(lay.scores.reader(f), n)
	if !ok {
		return false
	}
	it.Scores = &scoreColumn{scores: scores}
	if lay.answers.n > 0 {
		ks, ok := numbersSection(lay.answers.reader(f), n)
		if !ok {
			return false
		}
		vs, ok := numbersSection(lay.vars.reader(f), n)
		if !ok {
			return false
		}
		it.Answers, it.AnswerVars = &answersColumn{}, &answerVarsColumn{}
		it.Answers.field, it.Answers.scores = "answers", ks
		it.AnswerVars.field, it.AnswerVars.scores = "answer_vars", vs
	}
	if lay.hashes.n > 0 {
		data, ok := hashesSection(io.NewSectionReader(f, lay.hashes.at+1, lay.hashes.n-2), lay.hashes.n-2)
		if !ok {
			return false
		}
		it.InputHashes = &hashColumn{data: data}
	}
	return true
}

// idsSection parses an ids column of plain ids, read through br, with room for n ids of idBytes bytes, as idColumn.parse parses
// them. ok is false for anything else (an escape, a control character, an
// id longer than the buffer, a grammar error): the file is then read whole.
func idsSection(br *bufio.Reader, n, idBytes int) (*gate.ItemColumns, bool) {
	if b, err := br.ReadByte(); err != nil || b != '[' {
		return nil, false
	}
	cols := gate.NewIDColumns(n, idBytes)
	if b, err := br.Peek(1); err == nil && b[0] == ']' {
		br.ReadByte()
		return cols, atEOF(br)
	}
	var quoted []byte
	for {
		if b, err := br.ReadByte(); err != nil || b != '"' {
			return nil, false
		}
		s, err := br.ReadSlice('"')
		if err != nil {
			return nil, false
		}
		id, plain := s[:len(s)-1], true
		for _, ch := range id {
			switch {
			case ch == '\\' || ch < 0x20:
				return nil, false
			case ch >= utf8.RuneSelf:
				plain = false
			}
		}
		if plain {
			cols.AppendID(id)
		} else {
			// As idColumn.parse: encoding/json decodes it (an invalid
			// UTF-8 byte becomes U+FFFD).
			quoted = append(append(append(quoted[:0], '"'), id...), '"')
			var dec string
			if json.Unmarshal(quoted, &dec) != nil {
				return nil, false
			}
			cols.AppendID([]byte(dec))
		}
		switch b, err := br.ReadByte(); {
		case err == nil && b == ',':
		case err == nil && b == ']':
			return cols, atEOF(br)
		default:
			return nil, false
		}
	}
}

// numbersSection parses a column of numbers (scores, answers,
// answer_vars) read through br, with room for n, as scoreColumn.parse
// parses it; ok is false for anything else.
func numbersSection(br *bufio.Reader, n int) ([]float64, bool) {
	if b, err := br.ReadByte(); err != nil || b != '[' {
		return nil, false
	}
	scores := make([]float64, 0, n)
	if b, err := br.Peek(1); err == nil && b[0] == ']' {
		br.ReadByte()
		return scores, atEOF(br)
	}
	nc := new(numCache)
	for {
		s, err := br.ReadSlice(',')
		last := err == io.EOF && len(s) > 0 && s[len(s)-1] == ']'
		if err != nil && !last {
			return nil, false
		}
		num := s[:len(s)-1]
		if len(num) == 0 {
			return nil, false
		}
		for _, ch := range num {
			if !numberChar(ch) {
				return nil, false
			}
		}
		v, bad := nc.number(num)
		if bad != "" {
			return nil, false
		}
		scores = append(scores, v)
		if last {
			return scores, true
		}
	}
}

// hashesSection decodes the input_hashes column's text (the string without
// its quotes, size bytes) read from r, as hashColumn.parse decodes it: in
// blocks of whole base64 quanta, padding only in the last. ok is false for
// anything else (an escape, a control character, bad base64, not 32 bytes
// an item).
func hashesSection(r io.Reader, size int64) ([]byte, bool) {
	data := make([]byte, 0, base64.StdEncoding.DecodedLen(int(size)))
	buf := make([]byte, sectionBuf) // a multiple of 4
	for left := size; left > 0; {
		k, err := io.ReadFull(r, buf[:min(int64(len(buf)), left)])
		if err != nil {
			return nil, false
		}
		left -= int64(k)
		text := buf[:k]
		for _, ch := range text {
			if ch < 0x20 || ch == '\\' || ch == '=' && left > 0 {
				return nil, false
			}
		}
		if data, err = base64.StdEncoding.AppendDecode(data, text); err != nil {
			return nil, false
		}
	}
	return data, len(data)%32 == 0
}

// atEOF reports whether br has nothing left.
func atEOF(br *bufio.Reader) bool {
	_, err := br.ReadByte()
	return err == io.EOF
}
