package gate

import (
	"hash/maphash"
	"math"
	"math/bits"
	"strings"
)

// ItemColumns are scored items kept without pointers: the ids concatenated
// in one string, their end offsets, and the scores. A million items take
// about 16 bytes each plus their ids, and the collector never scans them
// (a []ItemScore holds a million string headers it must rescan on every
// cycle). The zero value is empty and ready to use; use it by pointer (it
// must not be copied once appended to).
type ItemColumns struct {
	ids    strings.Builder
	end    []int
	scores []float64
	// answers and answerVars are the answer samples per item and the
	// variance of their scores; nil while every item has one answer.
	answers    []int32
	answerVars []float64
	// idx indexes the ids, built when first needed; nil after an append.
	idx *idIndex
	// hashes holds the items' InputHash, 32 bytes an item, up to the last
	// item given one (nil when none is: see SetInputHash).
	hashes []byte
}

// NewItemColumns returns empty columns with room for n items whose ids take
// idBytes bytes in all.
func NewItemColumns(n, idBytes int) *ItemColumns {
	c := &ItemColumns{end: make([]int, 0, n), scores: make([]float64, 0, n)}
	c.ids.Grow(idBytes)
	return c
}

// NewIDColumns returns empty columns with room for n ids of idBytes bytes
// in all, filled with AppendID and then given their scores with SetScores
// (a file's columns, read one after the other: no scores column is
// allocated only to be overwritten).
func NewIDColumns(n, idBytes int) *ItemColumns {
	c := &ItemColumns{end: make([]int, 0, n)}
	c.ids.Grow(idBytes)
	return c
}

// AppendID adds an id (its bytes, copied) without its score: the columns
// are not usable until SetScores gives the scores.
func (c *ItemColumns) AppendID(id []byte) {
	c.idx = nil
	c.ids.Grow(len(id)) // doubles
	c.ids.Write(id)
	if len(c.end) == cap(c.end) {
		c.end = append(make([]int, 0, max(2*cap(c.end), 1024)), c.end...)
	}
	c.end = append(c.end, c.ids.Len())
}

// SetScores gives the items their scores, one per item, in item order:
// the columns keep s. It reports false, changing nothing, when s is not as
// long as the items.
func (c *ItemColumns) SetScores(s []float64) bool {
	if len(s) != len(c.end) {
		return false
	}
	c.scores = s
	return true
}

// ColumnsOf copies items into columns.
func ColumnsOf(items []ItemScore) *ItemColumns {
	n := 0
	for _, it := range items {
		n += len(it.ID)
	}
	c := NewItemColumns(len(items), n)
	for _, it := range items {
		c.AppendAnswers(it.ID, it.Score, it.Answers, it.AnswerVar)
	}
	return c
}

// AppendAnswers adds one item whose score is the mean of k answer samples
// whose scores have variance v (k <= 1: one answer, v ignored).
func (c *ItemColumns) AppendAnswers(id string, score float64, k int, v float64) {
	c.Append(id, score)
	if k <= 1 {
		return
	}
	c.fillAnswers(c.Len())
	c.answers[c.Len()-1] = int32(min(k, math.MaxInt32))
	c.answerVars[c.Len()-1] = v
}

// oneAnswer extends the answer columns, when there are any, by one item
// of one answer.
func (c *ItemColumns) oneAnswer() {
	if c.answers != nil {
		c.answers = append(c.answers, 1)
		c.answerVars = append(c.answerVars, 0)
	}
}

// fillAnswers starts the answer columns at n items of one answer each.
func (c *ItemColumns) fillAnswers(n int) {
	if c.answers != nil {
		return
	}
	c.answers = make([]int32, n, max(n, 16))
	c.answerVars = make([]float64, n, max(n, 16))
	for i := range c.answers {
		c.answers[i] = 1
	}
}

// Answers is the i-th item's number of answer samples (1 without answer
// columns).
func (c *ItemColumns) Answers(i int) int {
	if c.answers == nil {
		return 1
	}
	return int(c.answers[i])
}

// AnswerVar is the variance of the i-th item's answer scores (0 without
// answer columns).
func (c *ItemColumns) AnswerVar(i int) float64 {
	if c.answerVars == nil {
		return 0
	}
	return c.answerVars[i]
}

// HasAnswers reports whether any item has more than one answer sample.
func (c *ItemColumns) HasAnswers() bool { return c != nil && c.answers != nil }

// SetAnswers sets every item's answer count and variance (a baseline
// file's columns; both as long as the items).
func (c *ItemColumns) SetAnswers(k []int32, v []float64) {
	c.answers, c.answerVars = k, v
}

// Append adds one item.
func (c *ItemColumns) Append(id string, score float64) {
	c.grow(len(id))
	c.ids.WriteString(id)
	c.end = append(c.end, c.ids.Len())
	c.scores = append(c.scores, score)
	c.oneAnswer()
}

// AppendBytes adds one item whose id is the bytes of id (copied).
func (c *ItemColumns) AppendBytes(id []byte, score float64) {
	c.grow(len(id))
	c.ids.Write(id)
	c.end = append(c.end, c.ids.Len())
	c.scores = append(c.scores, score)
	c.oneAnswer()
}

// grow makes room for one more item with an id of n bytes, doubling what
// is full (append grows a large slice by a quarter at a time: a million
// items collected one by one were copied and cleared about forty times
// over), and drops the index.
func (c *ItemColumns) grow(n int) {
	c.idx = nil
	c.ids.Grow(n) // doubles
	if len(c.end) == cap(c.end) || len(c.scores) == cap(c.scores) {
		k := max(2*cap(c.end), 1024)
		c.end = append(make([]int, 0, k), c.end...)
		c.scores = append(make([]float64, 0, k), c.scores...)
	}
}

// Len is the number of items; 0 for nil columns.
func (c *ItemColumns) Len() int {
	if c == nil {
		return 0
	}
	return len(c.end)
}

// ID is the i-th item's id (a substring of the concatenated ids: no copy).
func (c *ItemColumns) ID(i int) string {
	start := 0
	if i > 0 {
		start = c.end[i-1]
	}
	return c.ids.String()[start:c.end[i]]
}

// Score is the i-th item's score.
func (c *ItemColumns) Score(i int) float64 { return c.scores[i] }

// SetScore sets the i-th item's score.
func (c *ItemColumns) SetScore(i int, v float64) { c.scores[i] = v }

// Scores are the scores, in item order (the columns' own slice: read only).
func (c *ItemColumns) Scores() []float64 {
	if c == nil {
		return nil
	}
	return c.scores
}

// Items returns the items as a slice (each id a substring of the columns').
func (c *ItemColumns) Items() []ItemScore {
	out := make([]ItemScore, c.Len())
	for i := range out {
		out[i] = ItemScore{ID: c.ID(i), Score: c.scores[i]}
		if c.answers != nil {
			out[i].Answers, out[i].AnswerVar = c.Answers(i), c.AnswerVar(i)
		}
	}
	return out
}

// HasDuplicate reports whether an id repeats. It builds the columns' id
// index (kept for a [Pairer] of them, until the next append): one pass over
// the ids, where a map of a million strings would take seconds of the
// collector's time.
func (c *ItemColumns) HasDuplicate() bool {
	return !c.index().unique
}

// Index returns the position of the item with id, or -1 (of repeated
// ids, the last). The first call builds the columns' id index.
func (c *ItemColumns) Index(id string) int {
	if c == nil || c.Len() == 0 {
		return -1
	}
	return c.index().find(c, id)
}

// index returns the id index, building it when needed.
func (c *ItemColumns) index() *idIndex {
	if c.idx == nil {
		c.idx = newIDIndex(c)
	}
	return c.idx
}

// idIndex finds an item's position by id. The items' positions are
// counting-sorted on the top bits of a 64-bit hash of their ids, about four
// items a bucket, and a directory gives where each bucket starts: a lookup
// reads the directory and one bucket of a few entries, and compares the id
// only where an entry's tag matches. An entry is 32 bits: the position in
// the low bits and, in the bits a position does not need (12 for a million
// items), a tag from the id's hash, so neither a lookup nor the duplicate
// check reads the ids of other items whose hashes merely share a bucket.
// For a million items it takes 5 MB (a 1 MB directory, small enough to
// stay in cache while it is counted and filled), built in two passes over
// the ids, the hash recomputed in the second rather than kept.
type idIndex struct {
	seed    maphash.Seed
	shift   uint     // 64 - the number of bucket bits
	posMask uint32   // an entry's position bits; the others are its tag
	dir     []uint32 // bucket b's entries are pos[dir[b]:dir[b+1]]
	pos     []uint32 // entries: tag | position
	unique  bool     // no id repeats
}

// newIDIndex indexes the ids of c (at most 1<<32-1 items).
func newIDIndex(c *ItemColumns) *idIndex {
	n := c.Len()
	nb := uint(1)
	for 4<<nb < n && nb < 30 {
		nb++
	}
	x := &idIndex{seed: maphash.MakeSeed(), shift: 64 - nb, unique: true}
	x.posMask = uint32(uint64(1)<<bits.Len(uint(max(n-1, 0))) - 1)
	// Count each bucket's items, then place each item at its bucket's end,
	// last item first: dir[b] ends at the bucket's start, and the entries
	// of a bucket are in item order.
	x.dir = make([]uint32, 1<<nb+1)
	for i := range n {
		x.dir[maphash.String(x.seed, c.ID(i))>>x.shift]++
	}
	for b := 1; b < len(x.dir)-1; b++ {
		x.dir[b] += x.dir[b-1]
	}
	x.dir[len(x.dir)-1] = uint32(n)
	x.pos = make([]uint32, n)
	for i := n - 1; i >= 0; i-- {
		h := maphash.String(x.seed, c.ID(i))
		b := h >> x.shift
		x.dir[b]--
		x.pos[x.dir[b]] = uint32(h)&^x.posMask | uint32(i)
	}
	// A repeated id: two entries of a bucket with the same tag and id.
	for b := 0; b < len(x.dir)-1 && x.unique; b++ {
		bucket := x.pos[x.dir[b]:x.dir[b+1]]
		for i := 1; i < len(bucket) && x.unique; i++ {
			for j := range i {
				if (bucket[i]^bucket[j])&^x.posMask == 0 && c.ID(x.at(bucket[i])) == c.ID(x.at(bucket[j])) {
					x.unique = false
					break
				}
			}
		}
	}
	if !x.unique {
		x.keepLast(c)
	}
	return x
}

// at is the position of an entry.
func (x *idIndex) at(e uint32) int { return int(e & x.posMask) }

// keepLast keeps only the last item of each id (as a map would), so that a
// bucket never holds many copies of one id. Only a baseline built in memory
// gets here: a baseline file with a repeated id is refused.
func (x *idIndex) keepLast(c *ItemColumns) {
	last := make(map[string]int, c.Len())
	for i := range c.Len() {
		last[c.ID(i)] = i
	}
	w := uint32(0)
	for b := 0; b < len(x.dir)-1; b++ {
		from, to := x.dir[b], x.dir[b+1]
		x.dir[b] = w
		for _, e := range x.pos[from:to] {
			if i := x.at(e); last[c.ID(i)] == i {
				x.pos[w] = e
				w++
			}
		}
	}
	x.dir[len(x.dir)-1] = w
	x.pos = x.pos[:w]
}

// find returns the position of id in c, or -1; of repeated ids, the last.
func (x *idIndex) find(c *ItemColumns, id string) int {
	h := maphash.String(x.seed, id)
	tag := uint32(h) &^ x.posMask
	for _, e := range x.pos[x.dir[h>>x.shift]:x.dir[h>>x.shift+1]] {
		if e&^x.posMask == tag {
			if i := x.at(e); c.ID(i) == id {
				return i
			}
		}
	}
	return -1
}
