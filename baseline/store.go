package baseline

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
)

// Query says which baseline to look for.
type Query struct {
	// Rubric is the rubric name; baselines are kept per rubric.
	Rubric string
	// Branch is the baseline branch (chosen by the caller, usually the
	// default branch).
	Branch string
}

// ErrNotFound means the store holds no baseline for the query. Test for it
// with errors.Is; every other error is a store error (the store could not be
// read, or every candidate failed) and must not be taken as "no baseline".
var ErrNotFound = errors.New("no baseline found")

// Store finds the latest baseline for a query.
type Store interface {
	// Latest returns the newest usable baseline and where it came from, an
	// error wrapping ErrNotFound when there is none, or a store error.
	Latest(ctx context.Context, q Query) (*File, gate.BaselineSource, error)
}

// Dir keeps baselines in a local directory, one file per rubric and branch:
// Root/<rubric>/<branch>.json.
//
// Both path parts are escaped reversibly: bytes other than ASCII letters,
// digits, '-', '_' and '.' become %XX (so "release/1.2" is "release%2F1.2"
// and '%' itself is "%25"), and a leading '.' is escaped too, so no part is
// empty, hidden, "." or "..", or holds a separator. Distinct names give
// distinct paths, except on case-insensitive file systems where names that
// differ only in case share a file. Names longer than 200 bytes once escaped
// are refused.
type Dir struct {
	// Root is the directory holding one sub-directory per rubric.
	Root string

	// wrap, when set (tests), wraps the temporary file's writer in Save.
	wrap func(io.Writer) io.Writer
}

// Path returns the file a query maps to.
func (d Dir) Path(q Query) (string, error) {
	if d.Root == "" {
		return "", errors.New("baseline directory: no root directory given")
	}
	r, err := escapeName("rubric name", q.Rubric)
	if err != nil {
		return "", err
	}
	b, err := escapeName("branch", q.Branch)
	if err != nil {
		return "", err
	}
	return filepath.Join(d.Root, r, b+".json"), nil
}

// Latest reads Root/<rubric>/<branch>.json. A missing file is ErrNotFound.
func (d Dir) Latest(ctx context.Context, q Query) (*File, gate.BaselineSource, error) {
	if err := ctx.Err(); err != nil {
		return nil, gate.BaselineSource{}, err
	}
	path, err := d.Path(q)
	if err != nil {
		return nil, gate.BaselineSource{}, err
	}
	f, err := readPath(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, gate.BaselineSource{}, fmt.Errorf("%w for rubric %q on branch %q: %s does not exist", ErrNotFound, q.Rubric, q.Branch, path)
	}
	if err != nil {
		return nil, gate.BaselineSource{}, err
	}
	if f.Rubric.Name != q.Rubric {
		return nil, gate.BaselineSource{}, fmt.Errorf("%s: holds a baseline for rubric %q, not %q", path, f.Rubric.Name, q.Rubric)
	}
	return f, f.source(gate.BaselineSource{Kind: "dir", Location: path}), nil
}

// Save writes f as the baseline of q, atomically: a temporary file in the
// same directory is written, synced and renamed over the old one. On any
// error the temporary file is removed and the old baseline is left intact.
func (d Dir) Save(q Query, f *File) (err error) {
	if f == nil {
		return errors.New("baseline directory: no baseline to save")
	}
	if f.Rubric.Name != q.Rubric {
		return fmt.Errorf("baseline directory: the baseline is for rubric %q, not %q", f.Rubric.Name, q.Rubric)
	}
	path, err := d.Path(q)
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("baseline directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return fmt.Errorf("baseline directory: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	var fw io.Writer = tmp
	if d.wrap != nil {
		fw = d.wrap(fw)
	}
	bw := bufio.NewWriterSize(fw, 1<<20)
	if err := f.Write(bw); err != nil {
		return fmt.Errorf("baseline directory: write %s: %w", tmp.Name(), err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("baseline directory: write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("baseline directory: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("baseline directory: sync %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("baseline directory: close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("baseline directory: %w", err)
	}
	// Make the rename durable; not every system can sync a directory.
	if df, derr := os.Open(dir); derr == nil {
		_ = df.Sync()
		_ = df.Close()
	}
	return nil
}

// FileStore reads one baseline file the user named (--baseline FILE). A
// missing file is an error, not ErrNotFound: the user asked for that file.
type FileStore struct {
	Path string
}

// Latest reads the file. When q.Rubric is set, the file must be for that
// rubric.
func (s FileStore) Latest(ctx context.Context, q Query) (*File, gate.BaselineSource, error) {
	if err := ctx.Err(); err != nil {
		return nil, gate.BaselineSource{}, err
	}
	if s.Path == "" {
		return nil, gate.BaselineSource{}, errors.New("baseline file: no path given")
	}
	f, err := readPath(s.Path)
	if err != nil {
		return nil, gate.BaselineSource{}, err
	}
	if q.Rubric != "" && f.Rubric.Name != q.Rubric {
		return nil, gate.BaselineSource{}, fmt.Errorf("%s: holds a baseline for rubric %q, not %q", s.Path, f.Rubric.Name, q.Rubric)
	}
	return f, f.source(gate.BaselineSource{Kind: "file", Location: s.Path}), nil
}

func readPath(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	defer fh.Close()
	return Read(fh, path, DefaultMaxSize) // Read sizes its buffer from the file
}

// escapeName escapes one path part (see Dir).
func escapeName(what, s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("baseline directory: empty %s", what)
	}
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
			c == '-' || c == '_' || c == '.' && i > 0
		if ok {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	if b.Len() > 200 {
		return "", fmt.Errorf("baseline directory: %s %q is too long for a file name (%d bytes escaped, at most 200)", what, s, b.Len())
	}
	return b.String(), nil
}
