package stage

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/testfs"
)

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.json")
	if err := WriteAtomic(p, func(w io.Writer) error { _, err := io.WriteString(w, "old"); return err }); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(p)
	if err != nil || st.Mode().Perm() != 0o644 {
		t.Fatalf("mode %v, err %v", st.Mode(), err)
	}
	// A failing writer leaves the old file and no temp file behind.
	err = WriteAtomic(p, func(w io.Writer) error {
		io.WriteString(w, "half")
		return errors.New("disk full")
	})
	if err == nil {
		t.Fatal("no error")
	}
	data, _ := os.ReadFile(p)
	entries, _ := os.ReadDir(dir)
	if string(data) != "old" || len(entries) != 1 {
		t.Fatalf("content %q, %d entries", data, len(entries))
	}
}

// A rename that fails half-way through commit puts back what was already
// renamed: the old content where there was one, nothing where there was none.
func TestStagedCommitRollsBack(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	if err := os.WriteFile(a, []byte("old a"), 0o644); err != nil {
		t.Fatal(err)
	}
	// b is a symlink: put back as the link it was.
	if err := os.WriteFile(filepath.Join(dir, "target"), []byte("target"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("target", b); err != nil {
		t.Fatal(err)
	}
	var s Set
	defer s.Abort()
	w := func(text string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, text); return err }
	}
	if err := s.Add(Output{a, w("new a")}, Output{b, w("new b")}, Output{c, w("new c")}); err != nil {
		t.Fatal(err)
	}
	// The last temp file vanishes: its rename fails after a and b were renamed.
	if err := os.Remove(s.files[2].tmp); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(io.Discard); err == nil {
		t.Fatal("commit succeeded")
	}
	s.Abort()
	if data, _ := os.ReadFile(a); string(data) != "old a" {
		t.Errorf("a = %q, want its old content", data)
	}
	if l, err := os.Readlink(b); err != nil || l != "target" {
		t.Errorf("b is no longer the link it was: %q %v", l, err)
	}
	if got := testfs.Tree(t, dir); strings.Join(got, " ") != "a b target" {
		t.Errorf("left behind: %v", got)
	}
}

// CommitThen's last step failing puts back the renamed files.
func TestCommitThenLastFails(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.WriteFile(a, []byte("old a"), 0o644); err != nil {
		t.Fatal(err)
	}
	var s Set
	defer s.Abort()
	w := func(text string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, text); return err }
	}
	if err := s.Add(Output{a, w("new a")}, Output{b, w("new b")}); err != nil {
		t.Fatal(err)
	}
	ran := false
	err := s.CommitThen(io.Discard, func() error {
		ran = true
		if data, _ := os.ReadFile(b); string(data) != "new b" {
			t.Errorf("last ran before the files were in place: b = %q", data)
		}
		return os.ErrPermission
	})
	if !ran || err != os.ErrPermission {
		t.Fatalf("ran %v, err %v", ran, err)
	}
	if data, _ := os.ReadFile(a); string(data) != "old a" {
		t.Errorf("a = %q, want the old content", data)
	}
	if _, err := os.Stat(b); !os.IsNotExist(err) {
		t.Errorf("b left behind: %v", err)
	}
}
