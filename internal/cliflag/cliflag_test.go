package cliflag

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// Flags after positional arguments are parsed; "--" ends the flags; a
// list takes several whitespace-separated entries and repeats.
func TestParse(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var l List
	fs.Var(&l, "results", "")
	json := fs.String("json", "", "")
	pos, err := Parse(fs, []string{"--results", "a b\nc", "x", "--json", "o.json", "--results=d", "--", "--json"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(l, List{"a", "b", "c", "d"}) || *json != "o.json" || !slices.Equal(pos, []string{"x", "--json"}) || l.String() != "a b c d" {
		t.Errorf("list %v json %q pos %v", l, *json, pos)
	}
	if _, err := Parse(fs, []string{"x", "--nope"}); err == nil {
		t.Error("an unknown flag after a positional argument was accepted")
	}
}
