package gate

import (
	"strconv"
	"testing"
)

// Columns grown one item at a time from empty keep every id and score, in
// order, across their doublings; Items gives them back as a slice.
func TestItemColumnsAppend(t *testing.T) {
	var c ItemColumns
	const n = 100_000
	for i := range n {
		if i%2 == 0 {
			c.Append("id-"+strconv.Itoa(i), float64(i))
		} else {
			c.AppendBytes([]byte("id-"+strconv.Itoa(i)), float64(i))
		}
	}
	if c.Len() != n || len(c.Scores()) != n {
		t.Fatalf("len %d", c.Len())
	}
	items := c.Items()
	for i := range n {
		if c.ID(i) != "id-"+strconv.Itoa(i) || c.Score(i) != float64(i) || items[i] != (ItemScore{ID: c.ID(i), Score: float64(i)}) {
			t.Fatalf("item %d: %q %v", i, c.ID(i), c.Score(i))
		}
	}
	c.SetScore(5, 1.5)
	if c.Score(5) != 1.5 {
		t.Error("SetScore")
	}
	var nilCols *ItemColumns
	if nilCols.Len() != 0 || nilCols.Scores() != nil || len(nilCols.Items()) != 0 {
		t.Error("nil columns are not empty")
	}
}

// BenchmarkColumnsAppend collects a million items one by one, as the gate
// does for a new baseline.
func BenchmarkColumnsAppend(b *testing.B) {
	ids := make([]string, 1_000_000)
	for i := range ids {
		ids[i] = "eval-" + strconv.Itoa(1_000_000+i)
	}
	b.ReportAllocs()
	for b.Loop() {
		var c ItemColumns
		for i, id := range ids {
			c.Append(id, float64(i%101))
		}
	}
}

// BenchmarkIDIndex indexes a million ids (the duplicate check of a baseline
// and the pairer's lookups).
func BenchmarkIDIndex(b *testing.B) {
	var c ItemColumns
	for i := range 1_000_000 {
		c.Append("eval-"+strconv.Itoa(1_000_000+i), 0)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !newIDIndex(&c).unique {
			b.Fatal("repeat")
		}
	}
}

// Answer columns start at the first item with more than one answer, the
// items before it at one answer each, and follow every append after it.
func TestItemColumnsAnswers(t *testing.T) {
	var c ItemColumns
	c.Append("a", 50)
	if c.HasAnswers() || c.Answers(0) != 1 || c.AnswerVar(0) != 0 {
		t.Fatal("one answer")
	}
	c.AppendAnswers("b", 60, 4, 25)
	c.AppendBytes([]byte("c"), 70)
	c.AppendAnswers("d", 80, 1, 99) // one answer: no variance
	want := []ItemScore{{ID: "a", Score: 50, Answers: 1}, {ID: "b", Score: 60, Answers: 4, AnswerVar: 25}, {ID: "c", Score: 70, Answers: 1}, {ID: "d", Score: 80, Answers: 1}}
	got := c.Items()
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("item %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if cc := ColumnsOf(want); cc.Answers(1) != 4 || cc.AnswerVar(1) != 25 || cc.Answers(3) != 1 {
		t.Errorf("ColumnsOf lost the answers")
	}
}
