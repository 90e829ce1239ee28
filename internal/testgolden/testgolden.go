// Package testgolden compares test output with golden files in testdata/,
// for the tests of every package: `go test ./... -update` rewrites the files,
// and a mismatch shows the differing lines, numbered.
package testgolden

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// Update reports whether the test binary was run with -update.
func Update() bool { return *update }

// maxShown caps the differing lines a mismatch shows.
const maxShown = 20

// Check compares got with the golden file at path (relative to the test's
// package directory). With -update it writes got there instead.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it):\n%s", path, Diff(string(want), string(got)))
	}
}

// Diff lists the lines that differ between want and got, numbered: "-" the
// golden line, "+" the new one.
func Diff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			continue
		}
		if shown == maxShown {
			b.WriteString("... more lines differ\n")
			break
		}
		fmt.Fprintf(&b, "line %d:\n- %s\n+ %s\n", i+1, wl, gl)
		shown++
	}
	return b.String()
}
