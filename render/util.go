package render

import (
	"net/url"
	"strings"
)

// isHTTPURL reports whether s is a plain http(s) URL that is safe to put in a
// markdown link target: no spaces, parentheses, angle brackets or quotes.
func isHTTPURL(s string) bool {
	if len(s) > 2000 || strings.ContainsAny(s, " \t\r\n()<>\"'`[]\\") {
		return false
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != ""
}

// isRunURL reports whether u is a run of this repository on this server:
// runs (see MarkdownOptions.RunsURL, an http(s) URL ending in "/") followed
// by a run number and nothing else. A link to anywhere else, however it is
// dressed, is not one.
func isRunURL(u, runs string) bool {
	if runs == "" || !strings.HasSuffix(runs, "/") || !isHTTPURL(runs) || !strings.HasPrefix(u, runs) {
		return false
	}
	n := u[len(runs):]
	if n == "" || len(n) > 19 || n[0] == '0' {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// chartLabel keeps the characters a mermaid label can carry without quoting
// trouble: letters, digits, '_' and '-'.
func chartLabel(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
		if b.Len() >= 40 {
			break
		}
	}
	if b.Len() == 0 {
		return "criterion"
	}
	return b.String()
}
