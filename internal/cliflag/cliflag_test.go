package cliflag

import (
	"errors"
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/usage"
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

// An unknown flag is found before anything is parsed, named with the
// closest declared flag, and is a usage error; a flag's value that starts
// with a dash is not taken for a flag; -h calls Usage and returns ErrHelp.
func TestParseUnknownAndHelp(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("rubric", "", "")
	fs.String("max-drop", "", "")
	verbose := fs.Bool("verbose", false, "")
	helped := 0
	fs.Usage = func() { helped++ }
	for _, tt := range []struct {
		args    []string
		name    string
		suggest string
	}{
		{[]string{"--rubirc", "x"}, "rubirc", "rubric"},
		{[]string{"x", "-max-dorp=2"}, "max-dorp", "max-drop"},
		{[]string{"--rub"}, "rub", "rubric"},
		{[]string{"--zzzzzzzz"}, "zzzzzzzz", ""},
		{[]string{"--verbose", "--nope"}, "nope", ""},
	} {
		_, err := Parse(fs, tt.args)
		var u *UnknownFlagError
		var ue *usage.Error
		if !errors.As(err, &u) || !errors.As(err, &ue) || u.Name != tt.name || u.Suggest != tt.suggest {
			t.Errorf("%v: %v (%#v)", tt.args, err, u)
		}
	}
	if _, err := Parse(fs, []string{"--max-drop", "-5", "--verbose", "pos"}); err != nil || !*verbose {
		t.Errorf("a value starting with a dash: %v", err)
	}
	var ue *usage.Error
	if _, err := Parse(fs, []string{"--verbose=maybe"}); !errors.As(err, &ue) {
		t.Errorf("a bad value is not a usage error: %v", err)
	}
	if helped != 0 {
		t.Errorf("Usage called %d times for errors", helped)
	}
	if _, err := Parse(fs, []string{"x", "--help"}); !errors.Is(err, flag.ErrHelp) || helped != 1 {
		t.Errorf("--help: %v, usage called %d times", err, helped)
	}
}

// The help lists the flags by group, in the order the group names them, and
// the flags no group claims under Rest, with their defaults.
func TestHelpWrite(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("json", "", "the report")
	fs.String("rubric", "", "the rubric")
	fs.String("max-drop", "2%", "the drop")
	fs.String("baseline-dir", "", "the store")
	fs.Int("later", 0, "a flag added later")
	h := &Help{Summary: "t: a test", Usage: "t [flags]", Example: "t --rubric r.yaml",
		Groups: []Group{{Title: "inputs", Names: []string{"rubric"}}, {Title: "decision", Names: []string{"max-drop"}},
			{Title: "baseline", Prefixes: []string{"baseline"}}, {Title: "outputs", Names: []string{"json"}}}}
	var b strings.Builder
	h.Write(&b, fs)
	want := `t: a test

Usage:
  t [flags]

Inputs:
  --rubric string           the rubric

Decision:
  --max-drop string         the drop (default 2%)

Baseline:
  --baseline-dir string     the store

Outputs:
  --json string             the report

Flags:
  --later int               a flag added later

Example:
  t --rubric r.yaml
`
	if b.String() != want {
		t.Errorf("help:\n%s\nwant:\n%s", b.String(), want)
	}
}
