package testfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTree(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"b/c.txt", "a.txt"} {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := strings.Join([]string{"a.txt", "b", filepath.Join("b", "c.txt")}, " ")
	if got := strings.Join(Tree(t, dir), " "); got != want {
		t.Errorf("Tree = %q, want %q", got, want)
	}
}
