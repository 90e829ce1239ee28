// Package cliflag holds the command line's flag helpers: flags among the
// positional arguments, and a repeatable list flag.
package cliflag

import (
	"flag"
	"strings"
)

// Parse parses flags wherever they stand among the arguments, as users
// write them ("--results a.jsonl b.jsonl --json out.json"), and returns the
// positional arguments. "--" ends the flags.
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// List is a repeatable flag; each value may hold several entries
// separated by newlines or spaces (as action inputs do).
type List []string

// String joins the entries with spaces.
func (s *List) String() string { return strings.Join(*s, " ") }

// Set adds the value's entries.
func (s *List) Set(v string) error {
	*s = append(*s, strings.Fields(v)...)
	return nil
}
