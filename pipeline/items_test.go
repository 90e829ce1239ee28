package pipeline

import (
	"strconv"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// itemChunks keeps every item, in order, across chunk boundaries.
func TestItemChunks(t *testing.T) {
	var c itemChunks
	n := 2*itemChunk + 7
	for i := range n {
		c.add(gate.ItemScore{ID: strconv.Itoa(i), Score: float64(i)})
	}
	all := c.all()
	if len(all) != n || cap(all) != n {
		t.Fatalf("len %d cap %d", len(all), cap(all))
	}
	for i, it := range all {
		if it.ID != strconv.Itoa(i) || it.Score != float64(i) {
			t.Fatalf("item %d = %+v", i, it)
		}
	}
	var empty itemChunks
	if len(empty.all()) != 0 {
		t.Error("empty")
	}
}
