package pipeline

import "github.com/rubricgate/rubricgate/gate"

// itemChunks collects items in fixed-size chunks: a growing slice of a
// million items copies itself over and over (a third of a first baseline's
// write time).
type itemChunks struct {
	chunks [][]gate.ItemScore
	n      int
}

const itemChunk = 1 << 15

func (c *itemChunks) add(it gate.ItemScore) {
	if k := len(c.chunks); k == 0 || len(c.chunks[k-1]) == itemChunk {
		c.chunks = append(c.chunks, make([]gate.ItemScore, 0, itemChunk))
	}
	k := len(c.chunks) - 1
	c.chunks[k] = append(c.chunks[k], it)
	c.n++
}

// all returns the items in order, in one slice.
func (c *itemChunks) all() []gate.ItemScore {
	out := make([]gate.ItemScore, 0, c.n)
	for _, ch := range c.chunks {
		out = append(out, ch...)
	}
	return out
}
