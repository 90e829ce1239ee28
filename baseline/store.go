package baseline

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// Query says which baseline to look for.
type Query struct {
	// Rubric is the rubric name; baselines are kept per rubric.
	Rubric string
	// Branch is the baseline branch (chosen by the caller, usually the
	// default branch).
	Branch string
	// Key, when set, names the baseline slot instead of Rubric, so that the
	// slot is chosen outside the rubric file a pull request edits (the
	// baseline-key input). Dir keys its sub-directory on it and accepts a
	// baseline for any rubric name in that slot: a different name is then
	// a rubric change for the gate to judge. The GitHub store ignores it
	// (its key is the artifact name, GitHub.ArtifactName).
	Key string
}

// slot is the name the baseline is kept under: Key, else Rubric.
func (q Query) slot() string {
	if q.Key != "" {
		return q.Key
	}
	return q.Rubric
}

// OtherRubricsError means the store holds no baseline for the asked rubric
// name on the branch but does hold baselines under other names there. The
// rubric name comes from the rubric file, which a pull request controls: a
// renamed rubric must not find an empty slot and start afresh, so this is
// not ErrNotFound. The caller should block (a renamed rubric is a rubric
// change; accepting it starts a new baseline) or pin the slot with
// Query.Key. Detect it with errors.As.
type OtherRubricsError struct {
	// Rubric is the name asked for, Branch the baseline branch.
	Rubric, Branch string
	// Found lists the other names holding a baseline on Branch, sorted.
	Found []string
	// Dir is the store's root directory.
	Dir string
}

// Error names the asked rubric, the branch and the names found.
func (e *OtherRubricsError) Error() string {
	q := make([]string, len(e.Found))
	for i, f := range e.Found {
		q[i] = strconv.Quote(f)
	}
	return fmt.Sprintf("no baseline for rubric %q on branch %q in %s, but the store holds baselines for %s on that branch: a renamed rubric is a rubric change, not a fresh start (accepting the change starts a new baseline; a baseline-key pins the slot)",
		e.Rubric, e.Branch, e.Dir, strings.Join(q, ", "))
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
	what := "rubric name"
	if q.Key != "" {
		what = "baseline key"
	}
	r, err := escapeName(what, q.slot())
	if err != nil {
		return "", err
	}
	b, err := escapeName("branch", q.Branch)
	if err != nil {
		return "", err
	}
	return filepath.Join(d.Root, r, b+".json"), nil
}

// Latest reads Root/<rubric>/<branch>.json (Root/<key>/<branch>.json when
// q.Key is set). A missing file is ErrNotFound, unless (without a Key) the
// branch has baselines under other rubric names: that is an
// *OtherRubricsError. With a Key, a baseline for another rubric name is
// returned: the gate sees a rubric change.
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
		if q.Key == "" {
			found, oerr := d.others(q)
			if oerr != nil {
				return nil, gate.BaselineSource{}, oerr
			}
			if len(found) > 0 {
				return nil, gate.BaselineSource{}, &OtherRubricsError{Rubric: q.Rubric, Branch: q.Branch, Found: found, Dir: d.Root}
			}
		}
		return nil, gate.BaselineSource{}, fmt.Errorf("%w for rubric %q on branch %q: %s does not exist", ErrNotFound, q.Rubric, q.Branch, path)
	}
	if err != nil {
		return nil, gate.BaselineSource{}, err
	}
	if q.Key == "" && f.Rubric.Name != q.Rubric {
		return nil, gate.BaselineSource{}, fmt.Errorf("%s: holds a baseline for rubric %q, not %q", path, f.Rubric.Name, q.Rubric)
	}
	return f, f.source(gate.BaselineSource{Kind: "dir", Location: path}), nil
}

// RenamedFrom lists the other rubric names holding a baseline on q.Branch
// whose rubric is rb under another name, when rb's own slot does not hold
// rb exactly (its name and version aside): rb is one of them renamed, onto
// an empty slot or onto another rubric's baseline. What identifies a
// rubric here is what the judge is asked (samePrompt: its criteria ids
// in order, their scales and the texts its prompt shows), not its
// weights, threshold, minimums or blocking flags, which a pull request
// tweaks along with the name: a rubric renamed onto a slot with a changed
// threshold is still the rubric it was. Nil when the own slot holds this
// very rubric (a rename that merged, or one rubric kept under two names),
// and with q.Key set, where the workflow, not the rubric's name, picks the
// slot. It reads each other baseline of the branch in full; an unreadable
// one is an error.
func (d Dir) RenamedFrom(q Query, rb *rubric.Rubric) ([]string, error) {
	if q.Key != "" || rb == nil {
		return nil, nil
	}
	others, err := d.others(q)
	if err != nil || len(others) == 0 {
		return nil, err
	}
	id := identity(rb)
	if own, err := d.Path(q); err != nil {
		return nil, err
	} else if f, err := readPath(own); err == nil {
		if orb, err := rubric.FromCanonical(f.RubricCanonical); err == nil && bytes.Equal(identity(orb), id) {
			return nil, nil
		}
	}
	var found []string
	for _, name := range others {
		path, err := d.Path(Query{Rubric: name, Branch: q.Branch})
		if err != nil {
			return nil, err
		}
		f, err := readPath(path)
		if err != nil {
			return nil, err
		}
		orb, err := rubric.FromCanonical(f.RubricCanonical)
		if err != nil {
			return nil, fmt.Errorf("%s: embedded rubric: %w", path, err)
		}
		if samePrompt(orb, rb) {
			found = append(found, name)
		}
	}
	return found, nil
}

// samePrompt reports whether two rubrics ask the judge the same: the same
// criteria ids in the same order, the same scales and the same texts the
// judge prompt shows (rubric.PromptChanges finds none), whatever their
// names, versions, weights, thresholds, minimums and blocking flags.
func samePrompt(a, b *rubric.Rubric) bool {
	return a != nil && b != nil && len(rubric.PromptChanges(a, b)) == 0
}

// identity is a rubric's canonical form without its name and version: the
// rubric a slot holds exactly.
func identity(rb *rubric.Rubric) []byte {
	c := *rb
	c.Name, c.Version = "", ""
	return c.Canonical()
}

// others lists the rubric names (unescaped directory names) other than
// q.Rubric that hold a baseline file for q.Branch.
func (d Dir) others(q Query) ([]string, error) {
	b, err := escapeName("branch", q.Branch)
	if err != nil {
		return nil, err
	}
	ents, err := os.ReadDir(d.Root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("baseline directory: %w", err)
	}
	var found []string
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		name, ok := unescapeName(e.Name())
		if !ok || name == q.Rubric {
			continue
		}
		if st, err := os.Stat(filepath.Join(d.Root, e.Name(), b+".json")); err == nil && st.Mode().IsRegular() {
			found = append(found, name)
		}
	}
	sort.Strings(found)
	return found, nil
}

// Save writes f as the baseline of q, atomically: a temporary file in the
// same directory is written, synced and renamed over the old one. On any
// error the temporary file is removed and the old baseline is left intact.
func (d Dir) Save(q Query, f *File) (err error) {
	if f == nil {
		return errors.New("baseline directory: no baseline to save")
	}
	if q.Key == "" && f.Rubric.Name != q.Rubric {
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

// Latest reads the file. A baseline for another rubric name than q.Rubric
// is returned as is: the user chose the file, and a different rubric is a
// rubric change for the gate to judge.
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
	return f, f.source(gate.BaselineSource{Kind: "file", Location: s.Path}), nil
}

func readPath(path string) (*File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err // the caller names the baseline
	}
	defer fh.Close()
	return Read(fh, path, DefaultMaxSize) // Read sizes its buffer from the file
}

// unescapeName reverses escapeName; ok is false for a name escapeName
// cannot have made.
func unescapeName(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", false
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", false
		}
		b.WriteByte(byte(v))
		i += 2
	}
	if b.Len() == 0 {
		return "", false
	}
	return b.String(), true
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
