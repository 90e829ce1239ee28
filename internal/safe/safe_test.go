package safe

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/internal/testgolden"
)

func TestCell(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"plain", "hello world", 0, "hello world"},
		{"pipe", "a|b", 0, `a\|b`},
		{"backslash before pipe", `a\|b`, 0, `a\\\|b`},
		{"newlines and tabs collapse", "a\n\n\tb\r\nc", 0, "a b c"},
		{"control chars", "a\x00b\x1b[31mc\x7f", 0, "a b \\[31mc"},
		{"trim ends", "  \n x \t", 0, "x"},
		{"html tag", "<img src=x onerror=alert(1)>", 0, "&lt;img src=x onerror=alert(1)&gt;"},
		{"html comment close", "--> <!-- x", 0, "--&gt; &lt;\\!-- x"},
		{"details", "<details><summary>", 0, "&lt;details&gt;&lt;summary&gt;"},
		{"entity", "&lt; &#64;", 0, "&amp;lt; &amp;#" + zwj + "64;"},
		{"mention", "ping @octocat now", 0, "ping @\u200doctocat now"},
		{"team mention", "@org/team", 0, "@\u200dorg/team"},
		{"lone at", "a @ b and @", 0, "a @ b and @"},
		{"email", "me@example.com", 0, "me@\u200dexample.com"},
		{"issue ref broken", "fixes #123", 0, "fixes #" + zwj + "123"},
		{"link", "[click](https://evil.example)", 0, `\[click\](https:` + zwj + `//evil.example)`},
		{"image", "![x](http://e/x.png)", 0, `\!\[x\](http:` + zwj + `//e/x.png)`},
		{"bare url", "see https://evil.example/auto", 0, "see https:" + zwj + "//evil.example/auto"},
		{"www", "go to www.evil.example or WwW.x.y", 0, "go to www" + zwj + ".evil.example or WwW" + zwj + ".x.y"},
		{"not a url", "a: b // c, www, wwwx.", 0, "a: b // c, www, wwwx."},
		{"emphasis", "*a* _b_ ~c~ `d`", 0, "\\*a\\* \\_b\\_ \\~" + zwj + "c\\~ \\`d\\`"},
		{"math", "$\\Huge{PASS}$", 0, `\$\\Huge{PASS}\$`},
		{"heading not escaped in cell", "# h", 0, "# h"},
		{"invalid utf8", "a\xffb", 0, "a\uFFFDb"},
		{"bidi override", "abc\u202Edef", 0, "abc def"},
		{"line separator", "a\u2028b", 0, "a b"},
		{"truncate", "abcdefghij", 5, "abcd…"},
		{"truncate exact", "abcde", 5, "abcde"},
		{"truncate runes", "日本語テキスト", 4, "日本語…"},
		{"truncate before escape", "||||||", 3, `\|\|…`},
		{"truncate trims space", "ab cdef", 4, "ab…"},
		{"truncate max 1", "abc", 1, "…"},
		{"max zero no limit", strings.Repeat("x", 300), 0, strings.Repeat("x", 300)},
		{"empty", "", 10, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Cell(tt.in, tt.max); got != tt.want {
				t.Errorf("Cell(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

// TestReferences: no reference GitHub or GitLab links (and records in the
// referenced issue's timeline) survives in untrusted text, in any of the
// markdown helpers; text that only looks alike is left as it was.
func TestReferences(t *testing.T) {
	tests := []struct{ in, want string }{
		// GitHub.
		{"fixes #12 and #3", "fixes #" + zwj + "12 and #" + zwj + "3"},
		{"see GH-26, gh-7", "see GH-" + zwj + "26, gh-" + zwj + "7"},
		{"octo/repo#4039", "octo/repo#" + zwj + "4039"},
		{"jlord/sheetsee.js#26.", "jlord/sheetsee.js#" + zwj + "26."},
		{"jlord@a5c3785", "jlord@" + zwj + "a5c3785"},
		{"jlord/sheetsee.js@a5c3785", "jlord/sheetsee.js@" + zwj + "a5c3785"},
		// A bare SHA links only to this repository's commit: kept whole.
		{"rubric a5c3785ed8d6", "rubric a5c3785ed8d6"},
		// GitLab.
		{"!42 $7 &3", "\\!" + zwj + "42 \\$" + zwj + "7 &amp;" + zwj + "3"},
		{`~bug ~"needs review" ~12`, "\\~" + zwj + "bug \\~" + zwj + `"needs review" \~` + zwj + "12"},
		{`%v1.0 %"Release 2" %*8.6 %12`, "%" + zwj + "v1.0 %" + zwj + `"Release 2" %` + zwj + "\\*8.6 %" + zwj + "12"},
		{"group/project!5", "group/project\\!" + zwj + "5"},
		{"*iteration:5 [vulnerability:9]", "\\*" + zwj + "iteration:5 \\[" + zwj + "vulnerability:9\\]"},
		// Alike, not references: left alone.
		{"50% off, #hashtag, C# code, a-1, GH-x", "50% off, #hashtag, C# code, a-1, GH-x"},
		{"phone 1234567, id deadbee_x, cafe", "phone 1234567, id deadbee\\_x, cafe"},
		{"word abcdefg", "word abcdefg"},
	}
	for _, tt := range tests {
		for name, f := range map[string]func(string, int) string{"Cell": Cell, "Inline": Inline, "Block": Block} {
			if got := f(tt.in, 0); got != tt.want {
				t.Errorf("%s(%q) = %q, want %q", name, tt.in, got, tt.want)
			}
		}
	}
	// A leading issue reference is escaped as a heading and broken.
	if got := Inline("#12 regressed", 0); got != "\\#"+zwj+"12 regressed" {
		t.Errorf("Inline(#12 regressed) = %q", got)
	}
	if got := Quote("#12\n!3", 0); got != "> \\#"+zwj+"12\n> \\!"+zwj+"3" {
		t.Errorf("Quote = %q", got)
	}
}

func TestInline(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"heading", "# title", 0, `\# title`},
		{"list dash", "- item", 0, `\- item`},
		{"list plus", "+ item", 0, `\+ item`},
		{"setext", "===", 0, `\===`},
		{"ordered", "12. x", 0, `12\. x`},
		{"ordered paren", "3) x", 0, `3\) x`},
		{"number not list", "3 apples", 0, "3 apples"},
		{"quote", "> q", 0, "&gt; q"},
		{"fence", "```go", 0, "\\`\\`\\`go"},
		{"leading space trimmed then heading", "  # x", 0, `\# x`},
		{"newline", "a\n# b", 0, "a # b"},
		{"mention", "@user", 0, "@\u200duser"},
		{"pipe", "a|b", 0, `a\|b`},
		{"truncate", "- abcdef", 4, `\- a…`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Inline(tt.in, tt.max); got != tt.want {
				t.Errorf("Inline(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func TestBlock(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
	}{
		{"keeps lines", "one\ntwo", 0, "one\ntwo"},
		{"crlf and cr", "a\r\nb\rc", 0, "a\nb\nc"},
		{"blank runs collapse", "a\n\n\n\nb", 0, "a\n\nb"},
		{"trim blank ends", "\n\n a \n\n", 0, "\u00a0a"},
		{"fence", "```\ncode\n```", 0, "\\`\\`\\`\ncode\n\\`\\`\\`"},
		{"tilde fence", "~~~", 0, `\~\~\~`},
		{"indented code", "    x = 1", 0, "\u00a0\u00a0\u00a0\u00a0x = 1"},
		{"tab indent", "\tx", 0, "\u00a0\u00a0\u00a0\u00a0x"},
		{"setext under text", "title\n---", 0, "title\n\\---"},
		{"html block", "<details>\n</details>", 0, "&lt;details&gt;\n&lt;/details&gt;"},
		{"comment close", "-->", 0, `\--&gt;`},
		{"list", "1. a\n- b", 0, "1\\. a\n\\- b"},
		{"mention", "cc @team", 0, "cc @\u200dteam"},
		{"truncate across lines", "abc\ndef\nghi", 6, "abc\nd…"},
		{"truncate at break", "abc\ndef", 4, "abc…"},
		{"control", "a\x00b", 0, "a b"},
		{"empty", "\n\n", 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Block(tt.in, tt.max); got != tt.want {
				t.Errorf("Block(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
		})
	}
}

func TestQuote(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"a\n\nb", "> a\n>\n> b"},
		{"# x\n> y", "> \\# x\n> &gt; y"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Quote(tt.in, 0); got != tt.want {
			t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCode(t *testing.T) {
	tests := []struct {
		name, in string
		max      int
		want     string
		cellWant string
	}{
		{"plain", "abc", 0, "`abc`", "`abc`"},
		{"html literal", "<b>@x</b>", 0, "`<b>@x</b>`", "`<b>@x</b>`"},
		{"one backtick", "a`b", 0, "``a`b``", "``a`b``"},
		{"run of three", "a```b`", 0, "```` a```b` ````", "```` a```b` ````"},
		{"leading backtick", "`a", 0, "`` `a ``", "`` `a ``"},
		{"spaces trimmed", " a ", 0, "`a`", "`a`"},
		{"newline", "a\nb", 0, "`a b`", "`a b`"},
		{"pipe", "a|b", 0, "`a|b`", "`a\\|b`"},
		{"backslash pipe", `a\|b`, 0, "`a\\|b`", "`a\\\\|b`"},
		{"comment opener", "<!-- x -->", 0, "`<\u200b!-- x -->`", "`<\u200b!-- x -->`"},
		{"empty", "", 0, "` `", "` `"},
		{"truncate", "abcdef", 3, "`ab…`", "`ab…`"},
		{"invalid", "\xff", 0, "`\uFFFD`", "`\uFFFD`"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Code(tt.in, tt.max); got != tt.want {
				t.Errorf("Code(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
			}
			if got := CellCode(tt.in, tt.max); got != tt.cellWant {
				t.Errorf("CellCode(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.cellWant)
			}
		})
	}
}

func TestLogLine(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "hello", "hello"},
		{"set-output after newline", "x\n::set-output name=decision::pass", "x%0A::set-output name=decision::pass"},
		{"leading command", "::add-mask::", "%3A:add-mask::"},
		{"leading command after spaces", "  \t::error::x", "  \t%3A:error::x"},
		{"leading command after nbsp", "\u00a0::error::x", "\u00a0%3A:error::x"},
		{"percent kept", "dropped 2% (50%0A)", "dropped 2% (50%0A)"},
		{"encoded newline stays text", "%0A::error::", "%0A::error::"},
		{"cr", "a\r::warning::b", "a%0D::warning::b"},
		{"legacy command", "##[error]boom", "##%5Berror]boom"},
		{"legacy mid-line", "see ###[set-env name=x]y", "see ###%5Bset-env name=x]y"},
		{"single hash kept", "#[x] and # [y]", "#[x] and # [y]"},
		{"ansi escape", "\x1b[2Khidden", "%1B[2Khidden"},
		{"c1 control", "a\u0085b", "a%C2%85b"},
		{"line separator", "a\u2028::x", "a%E2%80%A8::x"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"colon in middle", "key: ::value", "key: ::value"},
		{"single colon start", ":x", ":x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LogLine(tt.in)
			if got != tt.want {
				t.Errorf("LogLine(%q) = %q, want %q", tt.in, got, tt.want)
			}
			checkLogLine(t, tt.in, got)
		})
	}
}

func TestMarkerKey(t *testing.T) {
	long := strings.Repeat("k", 80)
	tests := []struct {
		name, in string
		same     bool // returned unchanged
		prefix   string
	}{
		{"simple", "rubricgate", true, ""},
		{"path-like", "evals/rag.yaml:v1", true, ""},
		{"single dashes", "a-b-c", true, ""},
		{"double dash", "a--b", false, "a-_b#"},
		{"comment close", "x-->", false, "x-_&#"},
		{"space", "my key", false, "my_key#"},
		{"unicode", "clé", false, "cl__#"},
		{"empty", "", false, "#"},
		{"long", long, false, strings.Repeat("k", MaxMarkerKey-1-markerKeyHash) + "#"},
		{"exactly max", strings.Repeat("k", MaxMarkerKey), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := MarkerKey(tt.in)
			checkMarkerKey(t, got)
			if tt.same && got != tt.in {
				t.Errorf("MarkerKey(%q) = %q, want it unchanged", tt.in, got)
			}
			if !tt.same {
				if !strings.HasPrefix(got, strings.ReplaceAll(tt.prefix, "&", "_")) {
					t.Errorf("MarkerKey(%q) = %q, want prefix %q", tt.in, got, tt.prefix)
				}
				if len(got) != len(strings.ReplaceAll(tt.prefix, "&", "_"))+markerKeyHash {
					t.Errorf("MarkerKey(%q) = %q: want %d hash digits after the prefix", tt.in, got, markerKeyHash)
				}
			}
		})
	}
	// Keys that sanitise to the same text stay distinct.
	if MarkerKey("a b") == MarkerKey("a\tb") || MarkerKey("a b") == MarkerKey("a_b") {
		t.Errorf("collision: %q %q %q", MarkerKey("a b"), MarkerKey("a\tb"), MarkerKey("a_b"))
	}
	if MarkerKey(long) == MarkerKey(long+"x") {
		t.Errorf("long keys collide: %q", MarkerKey(long))
	}
}

// escapedAt reports whether s[i] is preceded by an odd number of backslashes.
func escapedAt(s string, i int) bool {
	n := 0
	for j := i - 1; j >= 0 && s[j] == '\\'; j-- {
		n++
	}
	return n%2 == 1
}

// unescape reverses the markdown escaping of Cell/Inline (ZWJs dropped).
func unescape(s string) string {
	s = strings.ReplaceAll(s, zwj, "")
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case strings.HasPrefix(s[i:], "&lt;"):
			b.WriteByte('<')
			i += 3
		case strings.HasPrefix(s[i:], "&gt;"):
			b.WriteByte('>')
			i += 3
		case strings.HasPrefix(s[i:], "&amp;"):
			b.WriteByte('&')
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// checkInlineText checks the markdown invariants shared by Cell, Inline and
// every line of Block.
func checkInlineText(t *testing.T, fn, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("%s(%q) = %q: invalid UTF-8", fn, in, out)
	}
	if strings.ContainsAny(out, "<>\r\x00") {
		t.Fatalf("%s(%q) = %q: raw '<', '>', CR or NUL", fn, in, out)
	}
	for i := 0; i < len(out); i++ {
		switch out[i] {
		case '|', '[', ']', '`', '*', '_', '~', '!', '$':
			if !escapedAt(out, i) {
				t.Fatalf("%s(%q) = %q: unescaped %q at byte %d", fn, in, out, out[i], i)
			}
		case '@':
			if r, _ := utf8.DecodeRuneInString(out[i+1:]); isNameChar(r) {
				t.Fatalf("%s(%q) = %q: '@' followed by name char %q", fn, in, out, r)
			}
		case '&':
			if !strings.HasPrefix(out[i:], "&lt;") && !strings.HasPrefix(out[i:], "&gt;") && !strings.HasPrefix(out[i:], "&amp;") {
				t.Fatalf("%s(%q) = %q: raw '&' at byte %d", fn, in, out, i)
			}
		}
	}
	// No bare URL GitHub would auto-link.
	if strings.Contains(out, "://") || strings.Contains(strings.ToLower(out), "www.") {
		t.Fatalf("%s(%q) = %q: a bare URL GitHub auto-links", fn, in, out)
	}
	for _, r := range out {
		if isBidi(r) || (unicode.IsControl(r) && r != '\n') {
			t.Fatalf("%s(%q) = %q: control or bidi rune %U", fn, in, out, r)
		}
	}
}

// normalised is what Cell shows for s with no limit: decoded runes with
// whitespace runs collapsed.
func normalised(s string) string { return string(oneLine(s, 0)) }

func checkCell(t *testing.T, in string, max int) {
	t.Helper()
	out := Cell(in, max)
	checkInlineText(t, "Cell", in, out)
	if strings.Contains(out, "\n") {
		t.Fatalf("Cell(%q) = %q: newline", in, out)
	}
	vis := unescape(out)
	if max > 0 && utf8.RuneCountInString(vis) > max {
		t.Fatalf("Cell(%q, %d) = %q shows %d runes", in, max, out, utf8.RuneCountInString(vis))
	}
	if max <= 0 && vis != strings.ReplaceAll(normalised(in), zwj, "") {
		t.Fatalf("Cell(%q) = %q does not show the text: %q", in, out, vis)
	}
}

func checkLogLine(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("LogLine(%q) = %q: invalid UTF-8", in, out)
	}
	if strings.ContainsAny(out, "\n\r\x1b\u2028\u2029") {
		t.Fatalf("LogLine(%q) = %q: line break or escape", in, out)
	}
	if strings.HasPrefix(strings.TrimLeftFunc(out, unicode.IsSpace), "::") {
		t.Fatalf("LogLine(%q) = %q: starts with a workflow command", in, out)
	}
	if strings.Contains(out, "##[") {
		t.Fatalf("LogLine(%q) = %q: legacy command prefix", in, out)
	}
}

func checkMarkerKey(t *testing.T, k string) {
	t.Helper()
	if k == "" || len(k) > MaxMarkerKey {
		t.Fatalf("MarkerKey = %q: length %d", k, len(k))
	}
	if strings.Contains(k, "--") || strings.ContainsAny(k, "> <!") {
		t.Fatalf("MarkerKey = %q: unsafe in an HTML comment", k)
	}
	for i := 0; i < len(k); i++ {
		if k[i] <= ' ' || k[i] > '~' {
			t.Fatalf("MarkerKey = %q: byte %#x", k, k[i])
		}
	}
}

func checkCode(t *testing.T, fn, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) || strings.ContainsAny(out, "\n\r") {
		t.Fatalf("%s(%q) = %q: invalid UTF-8 or newline", fn, in, out)
	}
	n := len(out) - len(strings.TrimLeft(out, "`"))
	if n == 0 || len(out) < 2*n+1 || !strings.HasSuffix(out, strings.Repeat("`", n)) {
		t.Fatalf("%s(%q) = %q: not fenced", fn, in, out)
	}
	inner := out[n : len(out)-n]
	if strings.Contains(inner, strings.Repeat("`", n)) {
		t.Fatalf("%s(%q) = %q: content closes the fence early", fn, in, out)
	}
	if strings.Contains(out, "<!") {
		t.Fatalf("%s(%q) = %q: contains \"<!\"", fn, in, out)
	}
	if inner[0] == '`' || inner[len(inner)-1] == '`' {
		t.Fatalf("%s(%q) = %q: backtick touches the fence", fn, in, out)
	}
}

func FuzzCell(f *testing.F) {
	for _, s := range []string{"a|b", "<!-- x -->", "@octo/team", "\xff\xfe", "![i](u)", "x\n::set-output", "日本", "https://evil.example", "wwww.x", "ww.www."} {
		f.Add(s, 5)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 200
		checkCell(t, s, max)
		out := Inline(s, max)
		checkInlineText(t, "Inline", s, out)
		if strings.Contains(out, "\n") {
			t.Fatalf("Inline(%q) = %q: newline", s, out)
		}
		if max > 0 && utf8.RuneCountInString(unescape(out)) > max {
			t.Fatalf("Inline(%q, %d) = %q too long", s, max, out)
		}
	})
}

func FuzzBlock(f *testing.F) {
	for _, s := range []string{"a\n\n```\nb", "    code", "<details>\n\n</details>", "x\r\n---"} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 500
		for _, fn := range []string{"Block", "Quote"} {
			var out string
			if fn == "Block" {
				out = Block(s, max)
			} else {
				out = Quote(s, max)
			}
			visible := 0
			for _, line := range strings.Split(out, "\n") {
				if fn == "Quote" {
					if line != "" && line != ">" && !strings.HasPrefix(line, "> ") {
						t.Fatalf("Quote(%q) = %q: line %q not quoted", s, out, line)
					}
					line = strings.TrimPrefix(strings.TrimPrefix(line, ">"), " ")
				}
				checkInlineText(t, fn, s, line)
				if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
					t.Fatalf("%s(%q) = %q: line %q starts with whitespace", fn, s, out, line)
				}
				if line != "" && strings.ContainsRune("#-+=", rune(line[0])) {
					t.Fatalf("%s(%q) = %q: line %q starts a block", fn, s, out, line)
				}
				visible += utf8.RuneCountInString(unescape(line)) + 1
			}
			if max > 0 && visible-1 > max {
				t.Fatalf("%s(%q, %d) = %q: %d runes", fn, s, max, out, visible-1)
			}
		}
	})
}

func FuzzCode(f *testing.F) {
	for _, s := range []string{"a`b", "``", " ` ", "a|b\\|"} {
		f.Add(s, 0)
	}
	f.Fuzz(func(t *testing.T, s string, max int) {
		max %= 200
		checkCode(t, "Code", s, Code(s, max))
		out := CellCode(s, max)
		checkCode(t, "CellCode", s, out)
		for i := 0; i < len(out); i++ {
			if out[i] == '|' && (i == 0 || out[i-1] != '\\') {
				t.Fatalf("CellCode(%q) = %q: unescaped pipe", s, out)
			}
		}
	})
}

func FuzzLogLine(f *testing.F) {
	for _, s := range []string{"x\n::set-output name=decision::pass", "::add-mask::", "%0A::error::", "##[error]x", " \u00a0::x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkLogLine(t, s, LogLine(s))
	})
}

func FuzzMarkerKey(f *testing.F) {
	f.Add("a--b", "a-_b")
	f.Add("", "#")
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, kb := MarkerKey(a), MarkerKey(b)
		checkMarkerKey(t, ka)
		if a != b && ka == kb {
			t.Fatalf("MarkerKey(%q) == MarkerKey(%q) == %q", a, b, ka)
		}
	})
}

// TestGoldenHostile renders a corpus of hostile strings with every helper
// into one markdown document, so a reviewer can paste it into GitHub and
// see that nothing escapes.
func TestGoldenHostile(t *testing.T) {
	hostile := []string{
		"plain text",
		"pipe | in | cell",
		"<img src=x onerror=alert(1)>",
		"--> closes the marker <!-- opens one",
		"<details open><summary>fake</summary>",
		"[click me](https://evil.example) ![pixel](https://evil.example/p.png)",
		"@octocat and @github/security please look",
		"**bold** _it_ ~~strike~~ `code` ```fence```",
		"# heading\n- list\n1. ordered\n> quote\n\n    indented code\n---",
		"x\n::set-output name=decision::pass",
		"##[error]legacy\r\n%0A::error::encoded",
		"trojan \u202Eevil\u202C source",
		"bad utf8 \xff\xfe end",
		"math $\\Huge\\text{PASS}$ and > [!WARNING] alert",
		"bare https://evil.example/auto www.evil.example WWW.Evil.example ftp://x.example/f http://a:b@evil.example",
	}
	var b bytes.Buffer
	b.WriteString("| # | Cell | CellCode |\n|---|---|---|\n")
	for i, s := range hostile {
		fmt.Fprintf(&b, "| %d | %s | %s |\n", i, Cell(s, 60), CellCode(s, 60))
	}
	for i, s := range hostile {
		fmt.Fprintf(&b, "\n## Case %d\n\n- inline: %s\n- code: %s\n- log: %s\n\n%s\n\n<details><summary>block</summary>\n\n%s\n\n</details>\n",
			i, Inline(s, 80), Code(s, 80), Code(LogLine(s), 0), Quote(s, 200), Block(s, 200))
	}
	b.WriteString("\n<!-- key: " + MarkerKey("evil --> key") + " -->\n")
	testgolden.Check(t, filepath.Join("testdata", "hostile.golden.md"), b.Bytes())
}
