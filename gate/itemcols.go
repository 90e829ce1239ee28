package gate

import "strings"

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
}

// NewItemColumns returns empty columns with room for n items whose ids take
// idBytes bytes in all.
func NewItemColumns(n, idBytes int) *ItemColumns {
	c := &ItemColumns{end: make([]int, 0, n), scores: make([]float64, 0, n)}
	c.ids.Grow(idBytes)
	return c
}

// ColumnsOf copies items into columns.
func ColumnsOf(items []ItemScore) *ItemColumns {
	n := 0
	for _, it := range items {
		n += len(it.ID)
	}
	c := NewItemColumns(len(items), n)
	for _, it := range items {
		c.Append(it.ID, it.Score)
	}
	return c
}

// Append adds one item.
func (c *ItemColumns) Append(id string, score float64) {
	c.ids.WriteString(id)
	c.end = append(c.end, c.ids.Len())
	c.scores = append(c.scores, score)
}

// AppendBytes adds one item whose id is the bytes of id (copied).
func (c *ItemColumns) AppendBytes(id []byte, score float64) {
	c.ids.Write(id)
	c.end = append(c.end, c.ids.Len())
	c.scores = append(c.scores, score)
}

// Len is the number of items; 0 for nil columns.
func (c *ItemColumns) Len() int {
	if c == nil {
		return 0
	}
	return len(c.scores)
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
	}
	return out
}
