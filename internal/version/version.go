// Package version holds rubricgate's version: the constant bumped with each
// release tag, and the version a built binary reports.
package version

import (
	"runtime/debug"
	"strings"
)

// Version is rubricgate's version, bumped in the commit that is tagged
// vX.Y.Z (the action's users pin rubricgate/rubricgate@v1). Every build
// reports it, the action's image included: nothing has to pass it in.
const Version = "1.0.0"

// String is the version this binary reports: the module version recorded by
// `go install github.com/rubricgate/rubricgate/cmd/rubricgate@vX.Y.Z` when
// there is one (it names exactly what was installed), else Version.
func String() string { return From(debug.ReadBuildInfo()) }

// From is String for the given build information (ok false: none).
func From(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return Version
	}
	v := bi.Main.Version
	// "" or "(devel)": built from a checkout without VCS information. A
	// pseudo-version (v1.2.4-0.20261201120000-abcdef123456) or "+dirty":
	// a commit between releases, which Version describes better.
	if v == "" || v == "(devel)" || !strings.HasPrefix(v, "v") || strings.Contains(v, "+") || isPseudo(v) {
		return Version
	}
	return strings.TrimPrefix(v, "v")
}

// isPseudo reports whether v is a Go pseudo-version: its last dash-separated
// part is a 12-digit commit hash, after a 14-digit timestamp.
func isPseudo(v string) bool {
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return false
	}
	hash, ts := parts[len(parts)-1], parts[len(parts)-2]
	if i := strings.LastIndex(ts, "."); i >= 0 {
		ts = ts[i+1:] // v1.2.4-0.20261201120000-abcdef123456, v1.2.4-pre.0.2026...
	}
	return len(hash) == 12 && len(ts) == 14 && isDigits(ts)
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
