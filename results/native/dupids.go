package native

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// dupBlock is the number of records sorted together. Records are kept in
// blocks, sorted as each fills, and merged at the end, so memory stays at 16
// bytes an item with no doubling copy.
const dupBlock = 1 << 16

// dupStore collects the dupRec of every item of a run.
type dupStore struct {
	blocks  [][]dupRec
	cur     []dupRec
	scratch []dupRec // radix sort buffer, one block
}

// sortBlock sorts a block by (h, position): an LSD radix sort on h, 16 bits
// a pass, which is stable, so records with equal h stay in arrival order
// (input order); the rare runs of equal h are then sorted in full.
func (s *dupStore) sortBlock(b []dupRec) {
	if cap(s.scratch) < len(b) {
		s.scratch = make([]dupRec, dupBlock)
	}
	src, dst := b, s.scratch[:len(b)]
	var count [1 << 16]int
	for shift := uint(0); shift < 64; shift += 16 {
		clear(count[:])
		for _, r := range src {
			count[(r.h>>shift)&0xffff]++
		}
		sum := 0
		for k, c := range count {
			count[k] = sum
			sum += c
		}
		for _, r := range src {
			d := (r.h >> shift) & 0xffff
			dst[count[d]] = r
			count[d]++
		}
		src, dst = dst, src
	}
	// Four passes: the sorted data is back in b.
	for i := 0; i < len(b); {
		j := i + 1
		for j < len(b) && b[j].h == b[i].h {
			j++
		}
		if j-i > 1 {
			slices.SortFunc(b[i:j], cmpRec)
		}
		i = j
	}
}

func cmpRec(a, b dupRec) int {
	if a.h != b.h {
		if a.h < b.h {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.low(), b.low())
}

func (s *dupStore) add(recs []dupRec) {
	for len(recs) > 0 {
		if s.cur == nil {
			s.cur = make([]dupRec, 0, dupBlock)
		}
		n := min(len(recs), cap(s.cur)-len(s.cur))
		s.cur = append(s.cur, recs[:n]...)
		recs = recs[n:]
		if len(s.cur) == cap(s.cur) {
			s.sortBlock(s.cur)
			s.blocks = append(s.blocks, s.cur)
			s.cur = nil
		}
	}
}

// dupPair is a later item whose id hash equals an earlier one's.
type dupPair struct{ first, dup dupRec }

// pairs merges the sorted blocks and returns every (first, later) pair of
// records with the same id hash, ordered by the later record's position.
func (s *dupStore) pairs() []dupPair {
	if len(s.cur) > 0 {
		s.sortBlock(s.cur)
		s.blocks = append(s.blocks, s.cur)
		s.cur = nil
	}
	// k-way merge with a binary heap of block heads.
	type head struct{ b, i int }
	h := make([]head, 0, len(s.blocks))
	lessH := func(x, y head) bool { return s.blocks[x.b][x.i].less(s.blocks[y.b][y.i]) }
	down := func(i int) {
		for {
			l := 2*i + 1
			if l >= len(h) {
				return
			}
			m := l
			if r := l + 1; r < len(h) && lessH(h[r], h[l]) {
				m = r
			}
			if !lessH(h[m], h[i]) {
				return
			}
			h[i], h[m] = h[m], h[i]
			i = m
		}
	}
	for b := range s.blocks {
		if len(s.blocks[b]) > 0 {
			h = append(h, head{b, 0})
		}
	}
	for i := len(h)/2 - 1; i >= 0; i-- {
		down(i)
	}
	var out []dupPair
	var first dupRec
	started := false
	for len(h) > 0 {
		top := h[0]
		r := s.blocks[top.b][top.i]
		if started && first.sameID(r) {
			out = append(out, dupPair{first: first, dup: r})
		} else {
			first, started = r, true
		}
		if top.i+1 < len(s.blocks[top.b]) {
			h[0].i++
		} else {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		}
		down(0)
	}
	slices.SortFunc(out, func(a, b dupPair) int { return cmpPos(a.dup, b.dup) })
	return out
}

func cmpPos(a, b dupRec) int {
	if a.posLess(b) {
		return -1
	}
	if b.posLess(a) {
		return 1
	}
	return 0
}

// maxDupChecks bounds the hash matches re-checked against the real ids.
const maxDupChecks = 64

// dupError turns hash matches into the duplicate-id error. When the inputs
// can be re-read (an io.Seeker whose start offset is known) the real ids are
// compared and a hash collision between different ids is skipped; otherwise
// the match is reported as is (see idHash for the odds of a false match).
func dupError(sc *schema, inputs []Input, starts []int64, pairs []dupPair) error {
	if len(pairs) == 0 {
		return nil
	}
	check := pairs
	if len(check) > maxDupChecks {
		check = check[:maxDupChecks]
	}
	// Lines to fetch, per input.
	want := make(map[int]map[int]string)
	for _, p := range check {
		for _, r := range []dupRec{p.first, p.dup} {
			in := int(r.input)
			if starts[in] < 0 && inputs[in].Records == nil {
				continue
			}
			if want[in] == nil {
				want[in] = make(map[int]string)
			}
			want[in][int(r.line)] = ""
		}
	}
	ok := make(map[int]bool)
	labels := make(map[int]map[int]*Record)
	for in, lines := range want {
		if inputs[in].Records != nil {
			labels[in] = make(map[int]*Record)
			ok[in] = recordIDsAt(sc, inputs[in], lines, labels[in]) == nil
			continue
		}
		ok[in] = idsAt(sc, inputs[in], starts[in], lines) == nil
	}
	// at returns the place of a record for a message, and the line for an
	// *InputError (0 for a record without one).
	at := func(in int, pos uint32) (string, int) {
		if rec := labels[in][int(pos)]; rec != nil {
			return recordLabel(inputs[in].Name, rec), rec.Line
		}
		return fmt.Sprintf("%s:%d", inputs[in].Name, pos), int(pos)
	}
	for _, p := range check {
		a, b := int(p.first.input), int(p.dup.input)
		where, _ := at(a, p.first.line)
		if ok[a] && ok[b] {
			ida, idb := want[a][int(p.first.line)], want[b][int(p.dup.line)]
			if !bytes.Equal(idKey([]byte(ida)), idKey([]byte(idb))) {
				continue // a hash collision between different ids
			}
			dupAt, line := at(b, p.dup.line)
			msg := fmt.Sprintf("duplicate id %s (first at %s)", quote(idb), where)
			if ida != idb {
				msg = fmt.Sprintf("duplicate id %s (first at %s as %s: the same id once Unicode is normalised, NFC)", quoteASCII(idb), where, quoteASCII(ida))
			}
			if line == 0 && labels[b] != nil {
				msg = strings.TrimPrefix(dupAt, inputs[b].Name+": ") + ": " + msg
			}
			return &InputError{File: inputs[b].Name, Line: line, Msg: msg}
		}
		return &InputError{File: inputs[b].Name, Line: int(p.dup.line), Msg: fmt.Sprintf("duplicate id (the same id as at %s; the input cannot be re-read to show it)", where)}
	}
	return nil
}

// recordIDsAt walks a Records input again and fills lines with the ids of
// the records at those positions (Line, or the ordinal without one), as the
// decoder reads them, and recs with the records.
func recordIDsAt(sc *schema, in Input, lines map[int]string, recs map[int]*Record) error {
	d := newDecoder(sc, in.Name)
	format := in.Records.Format()
	k := 0
	return in.Records.Each(func(rec *Record) error {
		k++
		pos := rec.Line
		if pos <= 0 {
			pos = k
		}
		if _, want := lines[pos]; want {
			if err := d.decodeRecord(rec, format, pos); err != nil {
				return err
			}
			lines[pos] = string(d.raw.id)
			recs[pos] = rec
		}
		return nil
	})
}

// idsAt re-reads an input from its start offset and fills lines with the
// ids of the items on those lines.
func idsAt(sc *schema, in Input, start int64, lines map[int]string) error {
	s, ok := in.R.(io.Seeker)
	if !ok {
		return fmt.Errorf("not seekable")
	}
	if _, err := s.Seek(start, io.SeekStart); err != nil {
		return err
	}
	left := len(lines)
	errStop := fmt.Errorf("done")
	err := ReadItems(sc.rb, in, sc.opts, func(it *Item) error {
		if _, want := lines[it.Line]; want {
			lines[it.Line] = it.ID
			left--
			if left == 0 {
				return errStop
			}
		}
		return nil
	})
	if err == errStop || (err == nil && left == 0) {
		return nil
	}
	if err == nil {
		err = fmt.Errorf("lines not found")
	}
	return err
}

// dupRec is the 16-byte trace an item leaves for duplicate-id detection:
// an 80-bit hash of its id and its position.
type dupRec struct {
	h     uint64
	h2    uint16
	input uint16
	line  uint32
}

func newDupRec(id []byte, input, line int) dupRec {
	h1, h2 := idHash(idKey(id))
	if line > math.MaxUint32 {
		line = math.MaxUint32
	}
	return dupRec{h: h1, h2: h2, input: uint16(input), line: uint32(line)}
}

// IDKey returns the form of id under which the readers compare ids: trimmed
// of what shows nothing at either end (white space, zero width and other
// invisible characters: see [IsBlank]), as every reader trims ids, and in
// Unicode normalisation form C. Two ids with one key are one id to the
// gate, so a second is a duplicate; an id whose key is "" is refused as
// empty. It is for writers that must not produce ids the gate would merge
// or refuse (the judge's answers of one item).
func IDKey(id string) string {
	b, _ := trimID([]byte(id))
	return string(idKey(b))
}

// idKey is the form of an id that duplicate detection compares: its Unicode
// normalisation form C, so that "é" written precomposed (U+00E9) and
// decomposed (e U+0301), which look the same everywhere they are shown, are
// one id. Ids are already trimmed. An all-ASCII id is its own NFC and is
// returned as is, with no allocation.
func idKey(id []byte) []byte {
	for _, c := range id {
		if c >= utf8.RuneSelf {
			if norm.NFC.IsNormal(id) {
				return id
			}
			return norm.NFC.Bytes(id)
		}
	}
	return id
}

// idHash is FNV-1a (64 bits) plus 16 bits of an independent multiplicative
// hash: 80 bits in all, so among n ids a false match has probability about
// n^2/2^81 (4e-13 for a million ids), and is then re-checked against the
// real ids when the inputs can be re-read.
func idHash(id []byte) (uint64, uint16) {
	h := uint64(14695981039346656037)
	g := uint64(0x9E3779B97F4A7C15)
	for _, c := range id {
		h ^= uint64(c)
		h *= 1099511628211
		g = (g ^ uint64(c)) * 0xff51afd7ed558ccd
		g ^= g >> 32
	}
	return h, uint16(g >> 48)
}

// low packs the fields after h, in sort order.
func (a dupRec) low() uint64 {
	return uint64(a.h2)<<48 | uint64(a.input)<<32 | uint64(a.line)
}

func (a dupRec) less(b dupRec) bool {
	if a.h != b.h {
		return a.h < b.h
	}
	return a.low() < b.low()
}

func (a dupRec) sameID(b dupRec) bool { return a.h == b.h && a.h2 == b.h2 }

// posLess orders records by position in the run.
func (a dupRec) posLess(b dupRec) bool {
	if a.input != b.input {
		return a.input < b.input
	}
	return a.line < b.line
}
