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

// On a change request's run (Confine set) an output inside the workspace
// is not written through a symbolic link that leads outside it (a
// committed "reports -> /anywhere"): an *OutsideError before anything is
// written. Links that stay inside, real directories, directories still to
// create and paths named outside the workspace are written.
func TestConfineRefusesLinksOutOfTheWorkspace(t *testing.T) {
	ws, victim := t.TempDir(), t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(victim, filepath.Join(ws, "outdir")))
	must(os.Mkdir(filepath.Join(ws, "real"), 0o755))
	must(os.Symlink(filepath.Join(ws, "real"), filepath.Join(ws, "inside")))
	must(os.Symlink(filepath.Join(victim, "f.md"), filepath.Join(ws, "file.md")))
	must(os.Symlink(filepath.Join(ws, "missing"), filepath.Join(ws, "dangling")))
	out := func(p string) Output {
		return Output{Path: p, Write: func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }}
	}
	for _, p := range []string{"outdir/x.md", "outdir/new/dir/x.md", "file.md", "dangling/x.md"} {
		err := WriteAllIn(io.Discard, ws, []Output{out(filepath.Join(ws, "ok.md")), out(filepath.Join(ws, p))})
		var oe *OutsideError
		if !errors.As(err, &oe) {
			t.Errorf("%s: err %v, want an *OutsideError", p, err)
			continue
		}
		if !strings.Contains(err.Error(), "outside the workspace") {
			t.Errorf("%s: message %q", p, err)
		}
		if ents, _ := os.ReadDir(victim); len(ents) != 0 {
			t.Fatalf("%s: written outside the workspace: %v", p, ents)
		}
		if _, err := os.Stat(filepath.Join(ws, "ok.md")); err == nil {
			t.Fatalf("%s: the other output was written", p)
		}
	}
	var oe *OutsideError
	if err := CheckConfined(ws, filepath.Join(ws, "outdir/x.md")); !errors.As(err, &oe) || oe.Link != "outdir" || oe.Target != mustEval(t, victim) {
		t.Errorf("the error names link %q and target %q, want outdir and %s", oe.Link, oe.Target, victim)
	}
	// Mkdirs through the link is refused too.
	s := Set{Confine: ws}
	if err := s.Mkdirs(filepath.Join(ws, "outdir", "sub")); !errors.As(err, &oe) {
		t.Errorf("Mkdirs through the link: %v", err)
	}
	s.Abort()
	if err := s.Mkdirs(filepath.Join(ws, "new", "dir")); err != nil {
		t.Errorf("Mkdirs of a new directory: %v", err)
	}
	for _, p := range []string{filepath.Join(ws, "inside/x.md"), filepath.Join(ws, "real/y.md"), filepath.Join(victim, "named.md")} {
		must(WriteAllIn(io.Discard, ws, []Output{out(p)}))
	}
	// Without Confine (not a change request's run) the link is followed.
	must(WriteAll(io.Discard, []Output{out(filepath.Join(ws, "outdir/x.md"))}))
	if _, err := os.Stat(filepath.Join(victim, "x.md")); err != nil {
		t.Error(err)
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
