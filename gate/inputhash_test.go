package gate

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"testing"
)

// The hash is the documented encoding, computed here by hand.
func TestHashTaskEncoding(t *testing.T) {
	var b []byte
	b = append(b, "rubricgate-task-v1"...)
	for _, s := range []string{"Q?", "ctx", ""} {
		b = binary.BigEndian.AppendUint64(b, uint64(len(s)))
		b = append(b, s...)
	}
	if want := InputHash(sha256.Sum256(b)); HashTask("Q?", "ctx", "") != want {
		t.Fatalf("HashTask = %s, want %s", HashTask("Q?", "ctx", ""), want)
	}
	// Every field counts, and a boundary moved between fields is another task.
	base := HashTask("a", "b", "c")
	for _, h := range []InputHash{HashTask("x", "b", "c"), HashTask("a", "x", "c"), HashTask("a", "b", "x"), HashTask("ab", "", "c"), HashTask("", "ab", "c")} {
		if h == base {
			t.Errorf("two tasks share the hash %s", h)
		}
	}
	if HashTask("", "", "").IsZero() {
		t.Error("the empty task has no hash")
	}
}

func TestParseInputHash(t *testing.T) {
	h := HashTask("q", "", "")
	got, ok := ParseInputHash([]byte(h.String()))
	if !ok || got != h {
		t.Fatalf("round trip of %s: %s %v", h, got, ok)
	}
	s := h.String()
	for _, bad := range []string{"", "sha256:", s[:len(s)-1], s + "0", "SHA256:" + s[7:], "sha1:" + s[7:], s[:7] + "A" + s[8:], "sha256:" + string(make([]byte, 64)),
		"sha256:0000000000000000000000000000000000000000000000000000000000000000"} {
		if _, ok := ParseInputHash([]byte(bad)); ok {
			t.Errorf("ParseInputHash(%q) accepted", bad)
		}
	}
}

// An item whose hash differs from the baseline's is the baseline's item
// removed and a new one added; when one side has no hash the items are
// paired by id and counted for the note.
func TestPairerTaskChanged(t *testing.T) {
	cols := ColumnsOf([]ItemScore{{ID: "same", Score: 80}, {ID: "swapped", Score: 20}, {ID: "nohash-now", Score: 70}, {ID: "nohash-base", Score: 60}, {ID: "swapped-err", Score: 30}})
	h := func(q string) InputHash { return HashTask(q, "", "") }
	cols.SetInputHash(0, h("same"))
	cols.SetInputHash(1, h("hard question"))
	cols.SetInputHash(2, h("x"))
	cols.SetInputHash(4, h("hard too"))
	pr := NewPairerColumns(cols, 5)
	for _, it := range []ItemResult{
		{ID: "same", Score: 80, InputHash: h("same")},
		{ID: "swapped", Score: 100, InputHash: h("easy question")},
		{ID: "nohash-now", Score: 70},
		{ID: "nohash-base", Score: 60, InputHash: h("y")},
		{ID: "swapped-err", Unscored: true, InputHash: h("other")},
	} {
		pr.Add(&it)
	}
	p := pr.Result()
	if p.Common != 3 || p.Added != 1 || p.Removed != 2 || p.Unscored != 0 {
		t.Fatalf("common/added/removed/unscored = %d/%d/%d/%d", p.Common, p.Added, p.Removed, p.Unscored)
	}
	if !slices.Equal(p.RemovedIDs, []string{"swapped", "swapped-err"}) || !slices.Equal(p.AddedIDs, []string{"swapped"}) {
		t.Errorf("removed %v added %v", p.RemovedIDs, p.AddedIDs)
	}
	if p.TaskChanged != 2 || !slices.Equal(p.TaskChangedIDs, []string{"swapped", "swapped-err"}) {
		t.Errorf("task changed %d %v", p.TaskChanged, p.TaskChangedIDs)
	}
	if p.UnboundBaseline != 1 || p.UnboundCurrent != 1 {
		t.Errorf("unbound baseline %d current %d, want 1 and 1", p.UnboundBaseline, p.UnboundCurrent)
	}
	if p.RemovedDigest != RemovedDigest([]string{"swapped", "swapped-err"}) {
		t.Error("the removed digest does not bind the swapped items")
	}
	if *p.CommonBaseline != 70 || *p.CommonCurrent != 70 {
		t.Errorf("common means %v → %v: the swapped item must not be compared", *p.CommonBaseline, *p.CommonCurrent)
	}
}

func TestItemColumnsInputHash(t *testing.T) {
	c := ColumnsOf([]ItemScore{{ID: "a", Score: 1}, {ID: "b", Score: 2}, {ID: "c", Score: 3}})
	if c.HasInputHashes() || !c.InputHash(1).IsZero() {
		t.Fatal("hashes before any was set")
	}
	c.SetInputHash(1, InputHash{}) // clearing nothing allocates nothing
	if c.hashes != nil {
		t.Error("a zero hash took room")
	}
	h := HashTask("b", "", "")
	c.SetInputHash(1, h)
	c.Append("d", 4)
	if !c.HasInputHashes() || c.InputHash(1) != h || !c.InputHash(0).IsZero() || !c.InputHash(3).IsZero() {
		t.Errorf("hashes %x", c.hashes)
	}
	c.SetInputHash(1, InputHash{})
	if c.HasInputHashes() {
		t.Error("a cleared hash is still there")
	}
}
