package cliflag

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Help is a command's -h: one line on what it does, its usage line, its
// flags in groups and an example. The groups are built from the flag set's
// declarations when the help is written, so a flag declared anywhere shows
// up: in the first group whose names or prefixes claim it, else in Rest.
type Help struct {
	Usage, Summary string
	Groups         []Group
	// Rest titles the flags no group claims ("flags" when empty).
	Rest    string
	Example string
}

// Group is one titled block of flags: those named, then those whose name
// starts with one of the prefixes.
type Group struct {
	Title    string
	Names    []string
	Prefixes []string
}

func (g Group) claims(name string) bool {
	if slices.Contains(g.Names, name) {
		return true
	}
	for _, p := range g.Prefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// Write writes the help for the flags of fs.
func (h *Help) Write(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "%s\n\nUsage:\n  %s\n", h.Summary, h.Usage)
	blocks := make([][]*flag.Flag, len(h.Groups)+1)
	fs.VisitAll(func(f *flag.Flag) {
		i := slices.IndexFunc(h.Groups, func(g Group) bool { return g.claims(f.Name) })
		if i < 0 {
			i = len(h.Groups)
		}
		blocks[i] = append(blocks[i], f)
	})
	for i, fl := range blocks {
		if len(fl) == 0 {
			continue
		}
		title := h.Rest
		if i < len(h.Groups) {
			title = h.Groups[i].Title
			// Named flags in the order given, then the prefixed ones by name.
			g := h.Groups[i]
			slices.SortStableFunc(fl, func(a, b *flag.Flag) int { return rank(g, a.Name) - rank(g, b.Name) })
		}
		if title == "" {
			title = "flags"
		}
		fmt.Fprintf(w, "\n%s%s:\n", strings.ToUpper(title[:1]), title[1:])
		for _, f := range fl {
			writeFlag(w, f)
		}
	}
	if h.Example != "" {
		fmt.Fprintf(w, "\nExample:\n%s\n", indent(h.Example))
	}
}

func rank(g Group, name string) int {
	if i := slices.Index(g.Names, name); i >= 0 {
		return i
	}
	return len(g.Names)
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = "  " + l
	}
	return strings.Join(lines, "\n")
}

// writeFlag writes one flag: "--name VALUE", its help and its default.
func writeFlag(w io.Writer, f *flag.Flag) {
	kind, help := flag.UnquoteUsage(f)
	if _, ok := f.Value.(interface{ writtenAsText() }); ok {
		kind = "string" // a [Value]: written as text, parsed when set
	}
	name := "--" + f.Name
	if len(f.Name) == 1 {
		name = "-" + f.Name
	}
	switch kind {
	case "":
	case "value":
		name += " list"
	default:
		name += " " + kind
	}
	if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "0s" {
		help += fmt.Sprintf(" (default %s)", f.DefValue)
	}
	if len(name) <= 24 {
		fmt.Fprintf(w, "  %-24s  %s\n", name, help)
		return
	}
	fmt.Fprintf(w, "  %s\n  %-24s  %s\n", name, "", help)
}
