// Package local is the host of a run outside any CI: a terminal. The
// branch comes from the --branch flag, else from the git repository's HEAD
// (read from the files, without running git; a worktree, whose .git is a
// file, works too; a detached HEAD is no branch). There are no comments;
// the reporter prints plain text; the baseline store is a local directory.
package local

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/boundedio"
)

// DefaultDir is the local baseline store's root when none is given.
const DefaultDir = host.DefaultLocalDir

// maxGitFile caps the git files read (HEAD, a ref, .git as a file);
// packed-refs gets maxPackedRefs.
const (
	maxGitFile    = 4 << 10
	maxPackedRefs = 16 << 20
)

// Options say where the run is.
type Options struct {
	// Branch is the --branch flag; empty: from the git HEAD.
	Branch string
	// Dir is where to look for the git repository (and its parents);
	// empty: the working directory.
	Dir string
	// Stderr receives annotations (nil: discarded).
	Stderr io.Writer
	// SkipGit leaves the git repository unread: the branch is only
	// Branch (the gate pipeline finds the checkout's branch itself).
	SkipGit bool
}

// Host is the local host.
type Host struct {
	build  host.Build
	stderr io.Writer
}

// New reads the branch and commit. A directory outside any git repository
// is not an error: the branch is then only what Options.Branch says.
func New(o Options) (*Host, error) {
	b := host.Build{Host: "local", Event: "local"}
	var g Git
	if !o.SkipGit {
		dir := o.Dir
		if dir == "" {
			var err error
			if dir, err = os.Getwd(); err != nil {
				return nil, fmt.Errorf("working directory: %w", err)
			}
		}
		var err error
		if g, err = ReadGit(dir); err != nil {
			return nil, err
		}
	}
	b.Branch, b.SHA, b.DefaultBranch = g.Branch, g.SHA, g.DefaultBranch
	if o.Branch != "" {
		b.Branch = o.Branch
	}
	b.HeadSHA = b.SHA
	if b.Branch != "" {
		b.Ref = "refs/heads/" + b.Branch
	}
	// The person at the terminal owns the run: it may save its branch's baseline.
	b.BaselineEvent = b.Branch != ""
	w := o.Stderr
	if w == nil {
		w = io.Discard
	}
	return &Host{build: b, stderr: w}, nil
}

// Build returns the run's build information.
func (h *Host) Build() *host.Build { return &h.build }

// Annotate prints "warning: MESSAGE" (or error:, notice:) as one safe
// line, with " (FILE:LINE)" when the annotation has a file its message
// does not already start with.
func (h *Host) Annotate(a finding.Annotation) error {
	level := string(a.Level)
	if level == "" {
		level = string(finding.Warning)
	}
	if _, err := fmt.Fprintf(h.stderr, "%s: %s\n", level, a.PlainLine()); err != nil {
		return fmt.Errorf("annotation: %w", err)
	}
	return nil
}

// Summary does nothing: a terminal has no job summary (write the markdown
// report with --markdown).
func (h *Host) Summary(string) error { return nil }

// SetOutputs does nothing: there are no later steps.
func (h *Host) SetOutputs([]host.Output) error { return nil }

// DefaultStore is a local directory (o.LocalDir, default DefaultDir),
// which a passing run saves into.
func (h *Host) DefaultStore(o host.StoreOptions) (baseline.Store, *baseline.Dir, error) {
	root := o.LocalDir
	if root == "" {
		root = DefaultDir
	}
	d := &baseline.Dir{Root: root}
	return d, d, nil
}

// Commenting is none: a terminal has no change request to comment on.
func (h *Host) Commenting(host.CommentOptions) host.Commenting { return host.Commenting{} }

// Git is what ReadGit finds.
type Git struct {
	// Branch is the checked-out branch; empty for a detached HEAD or
	// outside a repository.
	Branch string
	// SHA is the HEAD commit, when it could be resolved.
	SHA string
	// DefaultBranch is origin's default branch (refs/remotes/origin/HEAD),
	// when the clone recorded it.
	DefaultBranch string
	// Head is the path of the HEAD file read; empty outside a repository.
	Head string
}

// ReadGit finds the git repository holding dir (dir or a parent with a
// .git directory or file) and reads its HEAD. Outside a repository it
// returns a zero Git. A .git file (worktree, submodule) is followed to its
// gitdir; refs are read from the common directory a worktree shares. It is
// the one reader of git metadata (pipeline.GitBranch calls it).
func ReadGit(dir string) (Git, error) {
	gitDir, err := findGitDir(dir)
	if err != nil || gitDir == "" {
		return Git{}, err
	}
	common := gitDir
	if c, err := readSmall(filepath.Join(gitDir, "commondir")); err == nil {
		c = strings.TrimSpace(c)
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = filepath.Clean(c)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Git{}, err
	}
	headPath := filepath.Join(gitDir, "HEAD")
	head, err := readSmall(headPath)
	if err != nil {
		return Git{}, fmt.Errorf("git HEAD: %w", err)
	}
	head = strings.TrimSpace(head)
	g := Git{Head: headPath}
	if ref, ok := strings.CutPrefix(head, "ref:"); ok {
		ref = strings.TrimSpace(ref)
		g.Branch, _ = strings.CutPrefix(ref, "refs/heads/")
		if g.Branch == ref {
			g.Branch = "" // HEAD points outside refs/heads: no branch
		}
		g.SHA = resolveRef(common, gitDir, ref)
	} else if isSHA(head) {
		g.SHA = head // detached
	}
	if o, err := readSmall(filepath.Join(common, "refs", "remotes", "origin", "HEAD")); err == nil {
		if ref, ok := strings.CutPrefix(strings.TrimSpace(o), "ref: refs/remotes/origin/"); ok {
			g.DefaultBranch = ref
		}
	}
	return g, nil
}

// findGitDir walks up from dir to the first .git and returns the git
// directory ("" when there is none).
func findGitDir(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, ".git")
		fi, err := os.Stat(p)
		switch {
		case err == nil && fi.IsDir():
			return p, nil
		case err == nil:
			s, err := readSmall(p)
			if err != nil {
				return "", fmt.Errorf("git: %w", err)
			}
			gd, ok := strings.CutPrefix(strings.TrimSpace(s), "gitdir:")
			gd = strings.TrimSpace(gd)
			if !ok || gd == "" {
				return "", fmt.Errorf("git: %s: expected a line \"gitdir: PATH\"", p)
			}
			if !filepath.IsAbs(gd) {
				gd = filepath.Join(dir, gd)
			}
			return filepath.Clean(gd), nil
		case !errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("git: %w", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// resolveRef returns the commit of ref (a loose ref in the worktree's or
// the common directory, else packed-refs), or "" when it cannot be found
// (an unborn branch).
func resolveRef(common, gitDir, ref string) string {
	if strings.Contains(ref, "..") {
		return ""
	}
	for _, d := range []string{gitDir, common} {
		if s, err := readSmall(filepath.Join(d, filepath.FromSlash(ref))); err == nil && isSHA(strings.TrimSpace(s)) {
			return strings.TrimSpace(s)
		}
	}
	f, err := os.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxPackedRefs))
	for sc.Scan() {
		sha, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref && isSHA(sha) {
			return sha
		}
	}
	return ""
}

func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// readSmall reads a git metadata file of at most maxGitFile bytes.
func readSmall(path string) (string, error) {
	data, err := boundedio.ReadFile(path, maxGitFile)
	if err != nil {
		return "", err
	}
	return string(bytes.TrimRight(data, "\x00")), nil
}

// Interface checks.
var (
	_ host.Host      = (*Host)(nil)
	_ host.BuildInfo = (*Host)(nil)
	_ host.Reporter  = (*Host)(nil)
	_ host.Stores    = (*Host)(nil)
)
