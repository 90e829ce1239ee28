package gitmeta

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/testfs"
)

const (
	sha1 = "1111111111111111111111111111111111111111"
	sha2 = "2222222222222222222222222222222222222222"
)

func TestRead(t *testing.T) {
	repo := t.TempDir()
	testfs.Write(t, repo, map[string]string{
		".git/HEAD":                       "ref: refs/heads/feature/x\n",
		".git/refs/heads/feature/x":       sha1 + "\n",
		".git/refs/remotes/origin/HEAD":   "ref: refs/remotes/origin/trunk\n",
		".git/packed-refs":                "# pack-refs with: peeled fully-peeled sorted\n" + sha2 + " refs/heads/packed\n",
		"sub/dir/file.txt":                "",
		".git/worktrees/wt/HEAD":          "ref: refs/heads/packed\n",
		".git/worktrees/wt/commondir":     "../..\n",
		".git/worktrees/det/HEAD":         sha2 + "\n",
		".git/worktrees/det/commondir":    "../..\n",
		".git/worktrees/unborn/HEAD":      "ref: refs/heads/new\n",
		".git/worktrees/unborn/commondir": "../..\n",
	})
	wt := t.TempDir()
	testfs.Write(t, wt, map[string]string{".git": "gitdir: " + filepath.Join(repo, ".git", "worktrees", "wt") + "\n"})
	det := filepath.Join(repo, "det") // relative gitdir, inside the main checkout's tree
	testfs.Write(t, det, map[string]string{".git": "gitdir: ../.git/worktrees/det\n"})
	unborn := t.TempDir()
	testfs.Write(t, unborn, map[string]string{".git": "gitdir: " + filepath.Join(repo, ".git", "worktrees", "unborn")})

	for _, tt := range []struct {
		name, dir string
		want      Git
	}{
		{"repository root", repo, Git{Branch: "feature/x", SHA: sha1, DefaultBranch: "trunk"}},
		{"subdirectory", filepath.Join(repo, "sub", "dir"), Git{Branch: "feature/x", SHA: sha1, DefaultBranch: "trunk"}},
		{"worktree (.git file), packed ref", wt, Git{Branch: "packed", SHA: sha2, DefaultBranch: "trunk"}},
		{"detached worktree, relative gitdir", det, Git{SHA: sha2, DefaultBranch: "trunk"}},
		{"unborn branch", unborn, Git{Branch: "new", DefaultBranch: "trunk"}},
		{"outside a repository", t.TempDir(), Git{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Read(tt.dir)
			if err != nil {
				t.Fatal(err)
			}
			if (g.Head == "") != (tt.want == Git{}) || g.Head != "" && filepath.Base(g.Head) != "HEAD" {
				t.Errorf("head %q", g.Head)
			}
			g.Head = ""
			if g != tt.want {
				t.Errorf("got %+v, want %+v", g, tt.want)
			}
		})
	}

	// Git writes "ref: " and "gitdir: "; a hand-written file without the
	// space is read too (as pipeline's own reader did before the fold).
	tight := t.TempDir()
	testfs.Write(t, tight, map[string]string{".git": "gitdir:" + filepath.Join(repo, ".git", "worktrees", "tight")})
	testfs.Write(t, repo, map[string]string{".git/worktrees/tight/HEAD": "ref:refs/heads/feature/x", ".git/worktrees/tight/commondir": "../.."})
	if g, err := Read(tight); err != nil || g.Branch != "feature/x" || g.SHA != sha1 || g.Head != filepath.Join(repo, ".git", "worktrees", "tight", "HEAD") {
		t.Errorf("no space after the colons: %+v, %v", g, err)
	}

	bad := t.TempDir()
	testfs.Write(t, bad, map[string]string{".git": "not a gitdir line"})
	if _, err := Read(bad); err == nil || !strings.Contains(err.Error(), "gitdir") {
		t.Errorf("bad .git file: %v", err)
	}
	big := t.TempDir()
	testfs.Write(t, big, map[string]string{".git": strings.Repeat("x", maxGitFile+1)})
	if _, err := Read(big); err == nil {
		t.Error("an oversized .git file was read")
	}
	nohead := t.TempDir()
	testfs.Write(t, nohead, map[string]string{".git/config": ""})
	if _, err := Read(nohead); err == nil || !strings.Contains(err.Error(), "HEAD") {
		t.Errorf("no HEAD: %v", err)
	}
}
