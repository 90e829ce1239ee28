package native

import (
	"bytes"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// OnItem gets every item, in order, over many chunks and tallies (whose
// buffers are reused), with its reasoning unless WantReasoning declines
// it; asked, WantReasoning sees the item with its reasoning still empty.
func TestWantReasoning(t *testing.T) {
	data := genRun(20000, 3)
	rb := prodRubric()
	var want []gate.ItemResult
	if _, err := Score(rb, []Input{{Name: "r.jsonl", R: bytes.NewReader(data)}}, ScoreOptions{Workers: 4, OnItem: func(it *gate.ItemResult) error {
		want = append(want, *it)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	withWhy := 0
	for _, it := range want {
		if it.Reasoning != "" {
			withWhy++
		}
	}
	if len(want) != 20000 || withWhy < 10000 {
		t.Fatalf("%d items, %d with reasoning", len(want), withWhy)
	}
	k, asked := 0, 0
	_, err := Score(rb, []Input{{Name: "r.jsonl", R: bytes.NewReader(data)}}, ScoreOptions{Workers: 4,
		WantReasoning: func(it *gate.ItemResult) bool {
			if it.Reasoning != "" {
				t.Fatalf("asked about %s with its reasoning set", it.ID)
			}
			asked++
			return asked%2 == 0
		},
		OnItem: func(it *gate.ItemResult) error {
			w := want[k]
			if asked%2 != 0 || w.Reasoning == "" {
				w.Reasoning = "" // declined, or none to give
			}
			if it.ID != w.ID || it.Score != w.Score || it.Reasoning != w.Reasoning || it.Unscored != w.Unscored || len(it.Failed) != len(w.Failed) || len(it.NA) != len(w.NA) {
				t.Fatalf("item %d: %+v, want %+v", k, *it, w)
			}
			k++
			return nil
		}})
	if err != nil || k != len(want) {
		t.Fatalf("%v, %d items", err, k)
	}
}
