// Package testfs holds file-system helpers for the tests of every package.
package testfs

import (
	"io/fs"
	"path/filepath"
	"testing"
)

// Tree returns every path under dir, relative to it and in lexical order,
// for tests that check an operation wrote nothing (or exactly what it
// should). An error walking the tree fails the test.
func Tree(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir {
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list %s: %v", dir, err)
	}
	return out
}
