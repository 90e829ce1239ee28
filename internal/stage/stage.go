// Package stage writes a command's outputs all or nothing: each to a temp
// file beside its destination, renamed into place together once every one
// was written; a command that fails before then leaves nothing written, and
// a rename that fails puts back what was already renamed.
//
// A destination that is not a regular file (a device such as /dev/null, a
// FIFO, a socket, or a link such as /dev/stdout to one) is written in place
// instead, outside the all-or-nothing set: a rename would replace the
// device or pipe with a regular file (as root, /dev/null itself).
package stage

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// WriteAtomic writes one file via a temp file and rename, so a reader never
// sees it half-written and an error leaves the old file intact.
func WriteAtomic(path string, write func(io.Writer) error) error {
	return WriteAll(io.Discard, []Output{{path, write}})
}

// Output is one file a command writes once everything is computed: Path
// ("" for none, "-" for stdout) and the function writing its content.
type Output struct {
	Path  string
	Write func(io.Writer) error
}

// Set holds a command's outputs, each written to a temp file beside its
// destination, until commit renames them all into place. A command that
// fails before commit leaves nothing written: abort removes the temp files
// and the directories mkdirs created. commit itself is all or nothing: if
// one rename fails, the files already renamed are put back as they were.
type Set struct {
	// Confine, when set, is the workspace (the checkout) of a run whose
	// files a change request controls: an output named inside it whose
	// directory, or which itself, resolves outside it through a symbolic
	// link (a committed "reports -> /anywhere") is refused with an
	// *OutsideError before anything is written. A path named outside the
	// workspace (/dev/stdout, /tmp/x: the workflow's own choice) is
	// written as named.
	Confine string
	files   []file
	// late are written after the renames: stdout (path "") and the
	// destinations written in place (see [Direct]), in the order added.
	late []late
	// streams are destinations written in place as the command runs
	// (Create on a device or FIFO), closed by commit.
	streams []stream
	// dirs are the directories mkdirs created, outermost first.
	dirs []string
}

type late struct {
	path  string
	write func(io.Writer) error
}

type stream struct {
	f    *os.File
	path string
}

type file struct {
	f         *os.File
	tmp, path string
	// backup holds the destination's previous content while commit runs
	// ("" when there was none).
	backup string
	done   bool
}

// Mkdirs creates dir and its missing parents, remembering which it created
// so that abort removes them again.
func (s *Set) Mkdirs(dir string) error {
	if err := s.confined(filepath.Join(dir, ".")); err != nil {
		return err
	}
	var missing []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for i := len(missing) - 1; i >= 0; i-- {
		s.dirs = append(s.dirs, missing[i])
	}
	return nil
}

// Direct reports whether path is written in place rather than via a temp
// file and rename: it exists and is not a regular file or a directory (a
// character device, a FIFO, a socket), or it is a symbolic link to such a
// target or one under /dev or /proc (/dev/stdout, /dev/fd/1: a rename would
// replace the link, and as root the system's /dev entries).
func Direct(path string) bool {
	fi, err := os.Lstat(path)
	if err != nil {
		return false
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		if abs, err := filepath.Abs(path); err == nil {
			for _, sys := range []string{"/dev/", "/proc/"} {
				if strings.HasPrefix(abs, sys) {
					return true
				}
			}
		}
		if fi, err = os.Stat(path); err != nil {
			return false
		}
	}
	return !fi.Mode().IsRegular() && !fi.IsDir()
}

// openDirect opens a destination written in place: for writing, never
// created or truncated (appending, so that /dev/stdout redirected to a
// file keeps what the command printed before).
func openDirect(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return f, nil
}

// Create starts a temp file for path. A destination written in place
// ([Direct]) is opened at once and written as the command runs.
func (s *Set) Create(path string) (*os.File, error) {
	if path == "-" {
		return nil, errors.New("internal: staged file for stdout")
	}
	if err := s.confined(path); err != nil {
		return nil, err
	}
	if Direct(path) {
		f, err := openDirect(path)
		if err != nil {
			return nil, err
		}
		s.streams = append(s.streams, stream{f: f, path: path})
		return f, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		// The temporary file's name means nothing to the user: the error
		// names the output and the directory's problem.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("write %s: %w", path, pe.Err)
		}
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	s.files = append(s.files, file{f: f, tmp: f.Name(), path: path})
	return f, nil
}

// Add writes outputs to temp files ("-": kept for stdout until commit; a
// destination written in place, see [Direct], is kept the same way and
// written after the renames).
func (s *Set) Add(outs ...Output) error {
	for _, o := range outs {
		switch {
		case o.Path == "":
			continue
		case o.Path == "-":
			s.late = append(s.late, late{write: o.Write})
			continue
		}
		if err := s.confined(o.Path); err != nil {
			return err
		}
		switch {
		case Direct(o.Path):
			s.late = append(s.late, late{path: o.Path, write: o.Write})
			continue
		}
		f, err := s.Create(o.Path)
		if err != nil {
			return err
		}
		if err := o.Write(f); err != nil {
			return fmt.Errorf("write %s: %w", o.Path, err)
		}
	}
	return nil
}

// Commit closes the temp files (0644, synced) and renames each into place,
// then writes the stdout outputs and the destinations written in place
// ([Direct]; an error there comes after the renames, which stay). A
// destination that is a directory is refused before anything is renamed;
// when a rename fails anyway, the files renamed before it are restored (the
// old content, or removed) and the error returned.
func (s *Set) Commit(stdout io.Writer) error { return s.CommitThen(stdout, nil) }

// CommitThen is Commit with one more step of the set: once every file is
// renamed into place, last runs (e.g. appending the step outputs to a
// runner's file); when it fails, the renamed files are put back as they
// were and its error returned, so the files land only when last succeeds.
// A nil last is Commit.
func (s *Set) CommitThen(stdout io.Writer, last func() error) error {
	for _, st := range s.streams {
		if err := st.f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", st.path, err)
		}
	}
	s.streams = nil
	for _, sf := range s.files {
		// CreateTemp makes the file 0600; outputs are ordinary files.
		if err := sf.f.Chmod(0o644); err != nil {
			return fmt.Errorf("write %s: %w", sf.path, err)
		}
		if err := sf.f.Sync(); err != nil {
			return fmt.Errorf("write %s: %w", sf.path, err)
		}
		if err := sf.f.Close(); err != nil {
			return fmt.Errorf("write %s: %w", sf.path, err)
		}
	}
	for _, sf := range s.files {
		if fi, err := os.Stat(sf.path); err == nil && fi.IsDir() {
			return fmt.Errorf("write %s: is a directory", sf.path)
		}
	}
	for i := range s.files {
		if err := s.files[i].install(); err != nil {
			s.rollback()
			return err
		}
	}
	if last != nil {
		if err := last(); err != nil {
			s.rollback()
			return err
		}
	}
	for _, sf := range s.files {
		if sf.backup != "" {
			os.Remove(sf.backup)
		}
	}
	s.files, s.dirs = nil, nil
	lates := s.late
	s.late = nil
	for _, l := range lates {
		if l.path == "" {
			if err := l.write(stdout); err != nil {
				return err
			}
			continue
		}
		if err := writeDirect(l.path, l.write); err != nil {
			return err
		}
	}
	return nil
}

// writeDirect writes a destination in place.
func writeDirect(path string, write func(io.Writer) error) error {
	f, err := openDirect(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// install renames the temp file over the destination, first keeping the
// destination's old content as a backup (a hard link, so the destination
// never goes missing; a rename for a symlink or where links are not
// supported).
func (sf *file) install() error {
	if fi, err := os.Lstat(sf.path); err == nil {
		b, err := os.CreateTemp(filepath.Dir(sf.path), "."+filepath.Base(sf.path)+".old-*")
		if err != nil {
			return fmt.Errorf("write %s: %w", sf.path, err)
		}
		b.Close()
		os.Remove(b.Name())
		if !fi.Mode().IsRegular() || os.Link(sf.path, b.Name()) != nil {
			if err := os.Rename(sf.path, b.Name()); err != nil {
				return fmt.Errorf("write %s: %w", sf.path, err)
			}
		}
		sf.backup = b.Name()
	}
	if err := os.Rename(sf.tmp, sf.path); err != nil {
		if sf.backup != "" {
			os.Rename(sf.backup, sf.path)
			sf.backup = ""
		}
		return fmt.Errorf("write %s: %w", sf.path, err)
	}
	sf.tmp, sf.done = "", true
	return nil
}

// rollback puts back what commit renamed into place.
func (s *Set) rollback() {
	for i := len(s.files) - 1; i >= 0; i-- {
		sf := &s.files[i]
		if !sf.done {
			continue
		}
		if sf.backup != "" {
			os.Rename(sf.backup, sf.path)
		} else {
			os.Remove(sf.path)
		}
		sf.done, sf.backup = false, ""
	}
}

// Abort removes every temp file not yet renamed and the directories mkdirs
// created (when empty); safe after commit.
func (s *Set) Abort() {
	for _, st := range s.streams {
		st.f.Close()
	}
	s.streams, s.late = nil, nil
	for _, sf := range s.files {
		if sf.tmp != "" {
			sf.f.Close()
			os.Remove(sf.tmp)
		}
	}
	for i := len(s.dirs) - 1; i >= 0; i-- {
		os.Remove(s.dirs[i])
	}
	s.files, s.dirs = nil, nil
}

// OutsideError is an output path inside the workspace that resolves
// outside it through a symbolic link, refused on a change request's run
// (see Set.Confine).
type OutsideError struct {
	// Path is the output as named; Link is the symbolic link on its way
	// (a directory, or the path itself) and Target where it resolves.
	Path, Link, Target string
	// Workspace is the directory outputs must stay in.
	Workspace string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("write %s: %s is a symbolic link to %s, outside the workspace %s; on a change request's run an output is not written through a link the change request could have committed: write to a real directory in the workspace", e.Path, e.Link, e.Target, e.Workspace)
}

// confined checks path against s.Confine (see Set.Confine).
func (s *Set) confined(path string) error {
	if s.Confine == "" {
		return nil
	}
	return CheckConfined(s.Confine, path)
}

// CheckConfined returns an *OutsideError when path, named inside workspace
// (lexically: after making it absolute and cleaning it), resolves outside
// it: its deepest existing directory (or path itself, when it is a
// symbolic link) leads out through a symbolic link. A path named outside
// workspace is not checked (nil).
func CheckConfined(workspace, path string) error {
	root, err := filepath.Abs(workspace)
	if err != nil {
		return fmt.Errorf("write %s: workspace %s: %w", path, workspace, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if !within(root, abs) {
		return nil
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("write %s: workspace %s: %w", path, workspace, err)
	}
	// The path itself when it is a link, else its deepest existing
	// directory (the missing ones are created under it).
	probe := abs
	if fi, err := os.Lstat(abs); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		probe = filepath.Dir(abs)
		for {
			if _, err := os.Lstat(probe); err == nil || filepath.Dir(probe) == probe {
				break
			}
			probe = filepath.Dir(probe)
		}
	}
	real, err := filepath.EvalSymlinks(probe)
	if err != nil {
		// A dangling link, a loop: where it leads is unknown.
		return &OutsideError{Path: path, Link: probe, Target: "(" + err.Error() + ")", Workspace: workspace}
	}
	if within(realRoot, real) {
		return nil
	}
	// Name the link: the first component of the path that is one.
	link := probe
	for d := root; ; {
		rel, _ := filepath.Rel(d, probe)
		first, _, _ := strings.Cut(rel, string(filepath.Separator))
		if first == "." || first == "" {
			break
		}
		d = filepath.Join(d, first)
		if fi, err := os.Lstat(d); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			link = d
			break
		}
	}
	if rel, err := filepath.Rel(root, link); err == nil {
		link = rel
	}
	return &OutsideError{Path: path, Link: link, Target: real, Workspace: workspace}
}

// within reports whether path is dir or inside it (both clean and absolute).
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// WriteAll writes every output (stdout for "-") all or nothing: each file
// via a temp file, renamed into place only when all were written.
func WriteAll(stdout io.Writer, outs []Output) error { return WriteAllIn(stdout, "", outs) }

// WriteAllIn is WriteAll with the outputs confined to workspace (see
// Set.Confine; "" for none).
func WriteAllIn(stdout io.Writer, workspace string, outs []Output) error {
	s := Set{Confine: workspace}
	defer s.Abort()
	if err := s.Add(outs...); err != nil {
		return err
	}
	return s.Commit(stdout)
}
