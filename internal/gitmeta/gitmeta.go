// Package gitmeta reads a git checkout's metadata (the branch HEAD is on,
// the HEAD commit, origin's default branch) from the files, without running
// git: the one reader of git metadata, used by the local host and by the
// baseline-branch and save rules.
package gitmeta

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

	"github.com/rubricgate/rubricgate/internal/boundedio"
)

// maxGitFile caps the git files read (HEAD, a ref, .git as a file);
// packed-refs gets maxPackedRefs.
const (
	maxGitFile    = 4 << 10
	maxPackedRefs = 16 << 20
)

// Git is what Read finds.
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

// Read finds the git repository holding dir (dir or a parent with a
// .git directory or file) and reads its HEAD. Outside a repository it
// returns a zero Git. A .git file (worktree, submodule) is followed to its
// gitdir; refs are read from the common directory a worktree shares. It is
// the one reader of git metadata (host/local and pipeline call it).
func Read(dir string) (Git, error) {
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
