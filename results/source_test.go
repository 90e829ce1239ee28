package results

import (
	"os"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// A Source scores stdin twice (the re-score under the baseline's rubric
// reads the results again).
func TestSourceStdinTwice(t *testing.T) {
	data, err := os.ReadFile("../rubrics/support.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rb, _, err := rubric.Load("support.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	run, err := os.ReadFile("../examples/support/run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	src, err := NewSource([]string{"-"}, "jsonl", strings.NewReader(string(run)))
	if err != nil {
		t.Fatal(err)
	}
	var items [2]int
	for i := range 2 {
		rep, err := src.Score(rb, native.ScoreOptions{})
		if err != nil {
			t.Fatal(err)
		}
		items[i] = rep.Items
	}
	if items[0] == 0 || items[0] != items[1] {
		t.Errorf("items %v", items)
	}
	if _, err := src.CheckBlocking(rb); err != nil {
		t.Error(err)
	}
	if _, err := NewSource([]string{"missing.jsonl"}, "", nil); err != nil {
		t.Errorf("a missing file fails when read, not before: %v", err)
	}
	bad, _ := NewSource([]string{"missing.jsonl"}, "", nil)
	if _, err := bad.Score(rb, native.ScoreOptions{}); err == nil {
		t.Error("no error for a missing file")
	}
	if _, err := bad.CheckBlocking(rb); err == nil {
		t.Error("no error for a missing file")
	}
}
