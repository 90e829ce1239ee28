// Package safe turns untrusted text (item ids, judge reasoning, notes,
// rubric names, anything that came from a results file, a rubric or the
// network) into text that can be shown in GitHub-flavoured markdown or
// printed to a GitHub Actions log without changing the meaning of the
// surrounding document.
//
// Every function is pure, never panics, accepts any byte string (invalid
// UTF-8 becomes U+FFFD) and always returns valid UTF-8.
//
// The markdown helpers guarantee that the text cannot open HTML tags or
// comments (and so cannot close rubricgate's hidden comment marker), cannot
// create links, images, emphasis, math or code spans, cannot @mention a user or a
// team, cannot be auto-linked as a bare URL (a zero-width joiner follows the
// ':' of every "://" and the "www" of every "www.", so "https://evil.example"
// and "www.evil.example" stay readable text, not links), cannot reference
// an issue, a pull request or another object of the host (see below), and,
// for [Cell], cannot break out of a table cell.
//
// The markdown helpers break every reference GitHub or GitLab would link
// (and record in the referenced object's timeline) with a zero-width
// joiner, as they break mentions:
//
//   - GitHub: #26, GH-26 (any case), owner/repo#26, and user@SHA and
//     owner/repo@SHA (through the mention rule);
//   - GitLab: #26 (issue), !26 (merge request), $26 (snippet), &26 (epic),
//     ~bug, ~26 or ~"a label" (label), %v1.0, %26, %*v1 or %"a milestone"
//     (milestone), *iteration:26 and [vulnerability:26], and the same with
//     a project or group path before them.
//
// The joiner follows the sigil (#, !, $, &, ~, %, * or [) when a reference
// follows it, and the '-' of "GH-" before a digit. The text reads the
// same. A bare commit SHA is left alone: both hosts link it only to a
// commit of the repository itself and record nothing in any timeline,
// while a joiner inside would break copying the hashes and ids the gate
// shows (rubric hashes, digests).
//
// Lengths are counted in runes of the visible text, before escaping: a
// result of Cell(s, 40) shows at most 40 characters (the last one being an
// ellipsis when s was cut) although the markdown source can be longer.
// A max of zero or less means no limit.
package safe

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ellipsis is appended (within the limit) to text that was truncated.
const Ellipsis = "…"

// zwj is inserted between '@' and a name character so that GitHub does not
// turn the text into a user or team mention.
const zwj = "\u200d"

// zwsp is inserted between '<' and '!' inside code spans, where entities
// are not decoded, so that the comment source never contains "<!".
const zwsp = "\u200b"

// isBidi reports the invisible bidirectional controls that can reorder the
// displayed text ("trojan source"); they are treated like control characters.
func isBidi(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// isBreakLike reports runes that must not reach a single-line context:
// control characters (C0, DEL, C1), line and paragraph separators, and
// bidirectional controls.
func isBreakLike(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' || isBidi(r)
}

// oneLine decodes s (invalid UTF-8 becomes U+FFFD), turns every run of
// whitespace and control characters into one space and trims the ends.
// With max > 0 it stops once it has more than max runes, which is enough
// for truncate to see that the text was cut.
func oneLine(s string, max int) []rune {
	out := make([]rune, 0, min(len(s), 1024))
	pendingSpace := false
	for _, r := range s { // invalid bytes decode as utf8.RuneError == U+FFFD
		if max > 0 && len(out) > max {
			break
		}
		if isBreakLike(r) || unicode.IsSpace(r) {
			pendingSpace = len(out) > 0
			continue
		}
		if pendingSpace {
			out = append(out, ' ')
			pendingSpace = false
		}
		out = append(out, r)
	}
	return out
}

// truncate cuts rs to at most max runes, the last one being the ellipsis
// when anything was cut. max <= 0 means no limit.
func truncate(rs []rune, max int) []rune {
	if max <= 0 || len(rs) <= max {
		return rs
	}
	cut := rs[:max-1]
	// Do not leave a dangling space before the ellipsis.
	for len(cut) > 0 && (cut[len(cut)-1] == ' ' || cut[len(cut)-1] == '\n') {
		cut = cut[:len(cut)-1]
	}
	out := make([]rune, 0, len(cut)+1)
	out = append(out, cut...)
	return append(out, []rune(Ellipsis)...)
}

// isNameChar reports characters that may follow '@' in a GitHub mention.
func isNameChar(r rune) bool {
	return r < utf8.RuneSelf && (r == '-' || r == '_' || r == '/' ||
		'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
}

// escapeInline writes the markdown-escaped form of rs to b. lineStart asks
// for the block-level escapes needed when rs starts a markdown line
// (headings, list markers, setext underlines).
func escapeInline(b *strings.Builder, rs []rune, lineStart bool) {
	start := 0
	if lineStart {
		start = escapeLineStart(b, rs)
	}
	if start > 0 && rs[start-1] == '#' && isRef(rs, start-1) {
		// A leading "#26" escaped as a heading is still a reference.
		b.WriteString(zwj)
	}
	for i := start; i < len(rs); i++ {
		r := rs[i]
		switch r {
		case '\\', '|', '`', '_', ']':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '*', '~', '[', '!', '$':
			b.WriteByte('\\')
			b.WriteRune(r)
			refBreak(b, rs, i)
		case '#', '%':
			b.WriteRune(r)
			refBreak(b, rs, i)
		case '-':
			// GH-26 (any case).
			b.WriteByte('-')
			if i >= 2 && (rs[i-2] == 'G' || rs[i-2] == 'g') && (rs[i-1] == 'H' || rs[i-1] == 'h') &&
				i+1 < len(rs) && '0' <= rs[i+1] && rs[i+1] <= '9' {
				b.WriteString(zwj)
			}
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			b.WriteString("&amp;")
			refBreak(b, rs, i)
		case '@':
			b.WriteByte('@')
			if i+1 < len(rs) && isNameChar(rs[i+1]) {
				b.WriteString(zwj)
			}
		case ':':
			// GitHub auto-links "scheme://..." (http, https, ftp): a
			// joiner between ':' and "//" breaks it.
			b.WriteByte(':')
			if i+2 < len(rs) && rs[i+1] == '/' && rs[i+2] == '/' {
				b.WriteString(zwj)
			}
		case 'w', 'W':
			// ... and "www." (any case, to be safe): "www" + joiner + ".".
			if i+3 < len(rs) && isW(rs[i+1]) && isW(rs[i+2]) && rs[i+3] == '.' {
				b.WriteString(string(rs[i : i+3]))
				b.WriteString(zwj)
				i += 2
				continue
			}
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
}

// isRefStart reports runes that may start a reference's name after a
// sigil: an ASCII letter or digit, '_', a quote (~"a label") or '*'
// (%*v1, a group milestone).
func isRefStart(r rune) bool {
	return r == '_' || r == '"' || r == '*' ||
		'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
}

// isW reports a 'w' of either case.
func isW(r rune) bool { return r == 'w' || r == 'W' }

// refBreak writes the joiner after the sigil rs[i] when a reference
// follows it (see the package documentation): a number after #, !, $ and
// &; a name, number or quote after ~ and %; "iteration:" after *; a word
// and a colon after [.
func refBreak(b *strings.Builder, rs []rune, i int) {
	if isRef(rs, i) {
		b.WriteString(zwj)
	}
}

func isRef(rs []rune, i int) bool {
	if i+1 >= len(rs) {
		return false
	}
	next := rs[i+1]
	switch rs[i] {
	case '#', '!', '$', '&':
		return '0' <= next && next <= '9'
	case '~', '%':
		return isRefStart(next)
	case '*':
		return hasPrefixFold(rs[i+1:], "iteration:")
	case '[':
		j := i + 1
		for j < len(rs) && (rs[j] == '_' || 'a' <= rs[j] && rs[j] <= 'z' || 'A' <= rs[j] && rs[j] <= 'Z') {
			j++
		}
		return j > i+1 && j < len(rs) && rs[j] == ':'
	}
	return false
}

// hasPrefixFold reports whether rs starts with the ASCII prefix p, in any
// case.
func hasPrefixFold(rs []rune, p string) bool {
	if len(rs) < len(p) {
		return false
	}
	for k := 0; k < len(p); k++ {
		r := rs[k]
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		if r != rune(p[k]) {
			return false
		}
	}
	return true
}

// escapeLineStart escapes a leading block marker of rs and returns how many
// runes it consumed.
func escapeLineStart(b *strings.Builder, rs []rune) int {
	if len(rs) == 0 {
		return 0
	}
	switch rs[0] {
	case '#', '-', '+', '=':
		b.WriteByte('\\')
		b.WriteRune(rs[0])
		return 1
	}
	// Ordered list marker: up to 9 digits then '.' or ')'.
	n := 0
	for n < len(rs) && n < 10 && rs[n] >= '0' && rs[n] <= '9' {
		n++
	}
	if n > 0 && n < len(rs) && (rs[n] == '.' || rs[n] == ')') {
		b.WriteString(string(rs[:n]))
		b.WriteByte('\\')
		b.WriteRune(rs[n])
		return n + 1
	}
	return 0
}

// Cell returns s ready to be placed in a markdown table cell: one line,
// with '|' escaped, HTML and markdown syntax escaped, mentions neutralised,
// and at most max visible runes.
func Cell(s string, max int) string {
	var b strings.Builder
	escapeInline(&b, truncate(oneLine(s, max), max), false)
	return b.String()
}

// Inline returns s ready to be placed in a paragraph or a list item: like
// [Cell], and also safe at the start of a line (it cannot become a
// heading, a list item or a setext underline).
func Inline(s string, max int) string {
	var b strings.Builder
	escapeInline(&b, truncate(oneLine(s, max), max), true)
	return b.String()
}

// Block returns multi-line s for a collapsed section (<details>) or, via
// [Quote], a blockquote. Line breaks are kept (CRLF and CR become LF, runs
// of blank lines become one blank line); every line is escaped like
// [Inline], so no line can open a code fence, an HTML block, a heading or
// a list. Leading spaces become no-break spaces so that indentation is
// shown without creating an indented code block. max counts runes of the
// text including line breaks.
func Block(s string, max int) string {
	lines := blockLines(s, max)
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		writeBlockLine(&b, line)
	}
	return b.String()
}

// Quote returns s as a markdown blockquote: [Block] with every line
// prefixed by "> " (blank lines by ">"), so the quote cannot be ended by a
// blank line in s.
func Quote(s string, max int) string {
	lines := blockLines(s, max)
	var b strings.Builder
	for i, line := range lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		if len(line) == 0 {
			b.WriteByte('>')
			continue
		}
		b.WriteString("> ")
		writeBlockLine(&b, line)
	}
	return b.String()
}

// blockLines decodes s into trimmed lines: control characters other than
// line breaks become spaces, trailing whitespace is removed, runs of blank
// lines collapse to one, blank lines at both ends are dropped, and the
// whole is truncated to max runes (line breaks included).
func blockLines(s string, max int) [][]rune {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var lines [][]rune
	var cur []rune
	flush := func() {
		for len(cur) > 0 && unicode.IsSpace(cur[len(cur)-1]) {
			cur = cur[:len(cur)-1]
		}
		if len(cur) == 0 && (len(lines) == 0 || len(lines[len(lines)-1]) == 0) {
			cur = nil
			return // leading blank line or second blank line in a row
		}
		lines = append(lines, cur)
		cur = nil
	}
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029':
			flush()
		case r == '\t':
			cur = append(cur, ' ', ' ', ' ', ' ')
		case isBreakLike(r):
			cur = append(cur, ' ')
		default:
			cur = append(cur, r)
		}
	}
	flush()
	for len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	if max <= 0 {
		return lines
	}
	var joined []rune
	for i, line := range lines {
		if i > 0 {
			joined = append(joined, '\n')
		}
		joined = append(joined, line...)
	}
	if len(joined) <= max {
		return lines
	}
	lines = lines[:0]
	cur = nil
	for _, r := range truncate(joined, max) {
		if r == '\n' {
			lines = append(lines, cur)
			cur = nil
			continue
		}
		cur = append(cur, r)
	}
	return append(lines, cur)
}

// writeBlockLine escapes one line of a block: leading spaces become no-break
// spaces, the rest is escaped as a line start.
func writeBlockLine(b *strings.Builder, line []rune) {
	i := 0
	for i < len(line) && line[i] == ' ' {
		b.WriteRune('\u00a0')
		i++
	}
	escapeInline(b, line[i:], true)
}

// Code returns s as an inline code span for a paragraph or list item: one
// line, at most max visible runes, fenced with more backticks than the
// longest backtick run in s. Inside a code span GitHub neither renders HTML
// nor links mentions. An empty s gives "` `". For a table cell use
// [CellCode]. "<!" is written with an invisible zero-width space between
// the two characters, so the markdown source never contains an HTML
// comment opener (rubricgate finds its comment by such a marker).
func Code(s string, max int) string {
	return code(s, max, false)
}

// CellCode is [Code] for a table cell: '|' is written as "\|", which GitHub
// tables turn back into '|' even inside a code span (the table removes the
// one backslash right before each pipe, whatever precedes it).
func CellCode(s string, max int) string {
	return code(s, max, true)
}

func code(s string, max int, cell bool) string {
	rs := truncate(oneLine(s, max), max)
	if len(rs) == 0 {
		return "` `"
	}
	longest, run := 0, 0
	for _, r := range rs {
		if r == '`' {
			run++
			if run > longest {
				longest = run
			}
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	var b strings.Builder
	b.WriteString(fence)
	pad := rs[0] == '`' || rs[len(rs)-1] == '`' || rs[0] == ' ' || rs[len(rs)-1] == ' '
	if pad {
		b.WriteByte(' ')
	}
	for i, r := range rs {
		if cell && r == '|' {
			b.WriteString(`\|`)
			continue
		}
		if r == '<' && i+1 < len(rs) && rs[i+1] == '!' {
			// Keep "<!--" out of the comment source, so that no code span
			// can look like (or open) an HTML comment such as our marker.
			b.WriteString("<" + zwsp)
			continue
		}
		b.WriteRune(r)
	}
	if pad {
		b.WriteByte(' ')
	}
	b.WriteString(fence)
	return b.String()
}

// LogLine returns s as one line that is safe to print to a GitHub Actions
// log: it can never be read by the runner as a workflow command.
//
// The runner reads a line as a command only when it starts (after
// whitespace) with "::", or holds "##[": so CR becomes "%0D" and LF "%0A",
// every other control character (including ESC, so no terminal escape
// sequences), the Unicode line and paragraph separators and bidirectional
// controls are percent-encoded byte by byte, a ':' that would make the line
// start with "::" becomes "%3A", and the '[' of every "##[" becomes "%5B".
// '%' itself is left alone, so "2%" reads as "2%" in the log. Text inside a
// workflow command's message needs the command escaping instead.
func LogLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	hashes := 0 // run of '#' just written
	for _, r := range s {
		switch {
		case r == '[' && hashes >= 2:
			b.WriteString("%5B")
		case r == '\t':
			b.WriteByte('\t')
		case isBreakLike(r):
			var buf [utf8.UTFMax]byte
			n := utf8.EncodeRune(buf[:], r)
			for _, c := range buf[:n] {
				b.WriteByte('%')
				b.WriteByte("0123456789ABCDEF"[c>>4])
				b.WriteByte("0123456789ABCDEF"[c&15])
			}
		default:
			b.WriteRune(r) // U+FFFD for invalid bytes
		}
		if r == '#' {
			hashes++
		} else {
			hashes = 0
		}
	}
	out := b.String()
	rest := strings.TrimLeftFunc(out, unicode.IsSpace)
	if strings.HasPrefix(rest, "::") {
		out = out[:len(out)-len(rest)] + "%3A" + rest[1:]
	}
	return out
}

// MaxMarkerKey is the maximum length of a [MarkerKey] result.
const MaxMarkerKey = 64

// markerKeyHash is the number of hex digits of SHA-256 appended to a key
// that had to change.
const markerKeyHash = 12

// MarkerKey returns key in a form that can be placed inside an HTML comment
// such as "<!-- rubricgate:comment key=KEY -->": printable ASCII from the
// set [A-Za-z0-9._:/=+-], no "--", at most [MaxMarkerKey] bytes, never empty.
// A key that already satisfies this is returned unchanged. Otherwise other
// characters become '_', every second '-' of a pair becomes '_', the
// result is shortened, and '#' plus 12 hex digits of the SHA-256 of the
// original key is appended, so two different keys that needed changes do
// not collide, and cannot collide with an unchanged key (which never
// contains '#').
func MarkerKey(key string) string {
	var b strings.Builder
	changed := key == ""
	prevDash := false
	for i := 0; i < len(key); i++ {
		c := key[i]
		ok := c == '.' || c == '_' || c == ':' || c == '/' || c == '=' || c == '+' || c == '-' ||
			'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		if c == '-' && prevDash {
			ok = false
		}
		if !ok {
			c = '_'
			changed = true
		}
		prevDash = c == '-'
		b.WriteByte(c)
	}
	out := b.String()
	if !changed && len(out) <= MaxMarkerKey {
		return out
	}
	sum := sha256.Sum256([]byte(key))
	suffix := "#" + hex.EncodeToString(sum[:])[:markerKeyHash]
	if keep := MaxMarkerKey - len(suffix); len(out) > keep {
		out = out[:keep]
	}
	return out + suffix
}
