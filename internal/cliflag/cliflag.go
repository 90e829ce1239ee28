// Package cliflag holds the command line's flag helpers: flags among the
// positional arguments, a repeatable list flag, a command's grouped help,
// and unknown flags named with the closest known one.
package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/rubricgate/rubricgate/internal/usage"
)

// UnknownFlagError is a flag the command does not declare, with the
// closest declared flag when one is near ("" when none is).
type UnknownFlagError struct {
	Name, Suggest string
}

func (e *UnknownFlagError) Error() string {
	if e.Suggest != "" {
		return fmt.Sprintf("unknown flag --%s (did you mean --%s?)", e.Name, e.Suggest)
	}
	return fmt.Sprintf("unknown flag --%s", e.Name)
}

// Parse parses flags wherever they stand among the arguments, as users
// write them ("--results a.jsonl b.jsonl --json out.json"), and returns the
// positional arguments. "--" ends the flags. -h, -help and --help call
// fs.Usage and return flag.ErrHelp; an unknown flag is a
// *usage.Error wrapping an *UnknownFlagError, any other mistake a
// *usage.Error, and neither prints anything (fs.Usage is not called for them).
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	if err := check(fs, args); err != nil {
		if errors.Is(err, flag.ErrHelp) && fs.Usage != nil {
			fs.Usage()
		}
		return nil, err
	}
	saved, out := fs.Usage, fs.Output()
	fs.Usage = func() {}
	fs.SetOutput(io.Discard)
	defer func() { fs.Usage = saved; fs.SetOutput(out) }()
	var setErr error
	defer recordSets(fs, &setErr)()
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if ue := setError(setErr); ue != nil {
				return nil, ue // the setting's own message, naming it
			}
			return nil, usage.Wrap(err)
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

// check walks the arguments as the flag package reads them and finds a
// request for help or an unknown flag before anything is parsed.
func check(fs *flag.FlagSet, args []string) error {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return nil
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name := strings.TrimPrefix(a[1:], "-")
		name, _, hasValue := strings.Cut(name, "=")
		f := fs.Lookup(name)
		switch {
		case f == nil && (name == "h" || name == "help"):
			return flag.ErrHelp
		case f == nil:
			return usage.Wrap(&UnknownFlagError{Name: name, Suggest: closest(fs, name)})
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if !hasValue {
			i++ // the next argument is the value
		}
	}
	return nil
}

// closest is the declared flag nearest to name by edit distance, when it
// is near enough to be a typo (or name is a prefix of it).
func closest(fs *flag.FlagSet, name string) string {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return Closest(name, names)
}

// Closest is the candidate nearest to name by edit distance, when it is
// near enough to be a typo (or name is a prefix of it); "" else. The
// first of equally near candidates wins.
func Closest(name string, candidates []string) string {
	best, bestD := "", 0
	for _, c := range candidates {
		d := distance(name, c)
		if strings.HasPrefix(c, name) && len(name) >= 3 {
			d = min(d, 1)
		}
		if best == "" || d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > max(2, len(name)/3) {
		return ""
	}
	return best
}

// distance is the Damerau-Levenshtein (optimal string alignment) distance:
// a swapped pair of letters counts once, as typists make it.
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
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
