package local

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/host"
)

const (
	sha1 = "1111111111111111111111111111111111111111"
	sha2 = "2222222222222222222222222222222222222222"
)

// write creates files under root: path -> content.
func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestReadGit(t *testing.T) {
	repo := t.TempDir()
	write(t, repo, map[string]string{
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
	write(t, wt, map[string]string{".git": "gitdir: " + filepath.Join(repo, ".git", "worktrees", "wt") + "\n"})
	det := filepath.Join(repo, "det") // relative gitdir, inside the main checkout's tree
	write(t, det, map[string]string{".git": "gitdir: ../.git/worktrees/det\n"})
	unborn := t.TempDir()
	write(t, unborn, map[string]string{".git": "gitdir: " + filepath.Join(repo, ".git", "worktrees", "unborn")})

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
			g, err := ReadGit(tt.dir)
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
	write(t, tight, map[string]string{".git": "gitdir:" + filepath.Join(repo, ".git", "worktrees", "tight")})
	write(t, repo, map[string]string{".git/worktrees/tight/HEAD": "ref:refs/heads/feature/x", ".git/worktrees/tight/commondir": "../.."})
	if g, err := ReadGit(tight); err != nil || g.Branch != "feature/x" || g.SHA != sha1 || g.Head != filepath.Join(repo, ".git", "worktrees", "tight", "HEAD") {
		t.Errorf("no space after the colons: %+v, %v", g, err)
	}

	bad := t.TempDir()
	write(t, bad, map[string]string{".git": "not a gitdir line"})
	if _, err := ReadGit(bad); err == nil || !strings.Contains(err.Error(), "gitdir") {
		t.Errorf("bad .git file: %v", err)
	}
	big := t.TempDir()
	write(t, big, map[string]string{".git": strings.Repeat("x", maxGitFile+1)})
	if _, err := ReadGit(big); err == nil {
		t.Error("an oversized .git file was read")
	}
	nohead := t.TempDir()
	write(t, nohead, map[string]string{".git/config": ""})
	if _, err := ReadGit(nohead); err == nil || !strings.Contains(err.Error(), "HEAD") {
		t.Errorf("no HEAD: %v", err)
	}
}

func TestBuild(t *testing.T) {
	repo := t.TempDir()
	write(t, repo, map[string]string{".git/HEAD": "ref: refs/heads/dev\n", ".git/refs/heads/dev": sha1})
	h, err := New(Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	b := h.Build()
	want := host.Build{Host: "local", Event: "local", Branch: "dev", Ref: "refs/heads/dev", SHA: sha1, HeadSHA: sha1, BaselineEvent: true}
	if !reflect.DeepEqual(*b, want) {
		t.Errorf("build %+v, want %+v", *b, want)
	}
	if b.SaveBranch("") != "dev" || b.BaselineBranch("") != "dev" {
		t.Errorf("save %q, baseline %q", b.SaveBranch(""), b.BaselineBranch(""))
	}
	h, err = New(Options{Dir: repo, Branch: "release"})
	if err != nil || h.Build().Branch != "release" {
		t.Errorf("--branch: %+v %v", h.Build(), err)
	}
	// Detached HEAD: no branch, so nothing is saved unless --branch says.
	write(t, repo, map[string]string{".git/HEAD": sha2})
	h, _ = New(Options{Dir: repo})
	if b := h.Build(); b.Branch != "" || b.BaselineEvent || b.SaveBranch("") != "" || b.SHA != sha2 {
		t.Errorf("detached: %+v", b)
	}
}

func TestReporterAndStore(t *testing.T) {
	var errOut bytes.Buffer
	h, err := New(Options{Dir: t.TempDir(), Stderr: &errOut})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []finding.Annotation{
		{Level: finding.Warning, File: "r.yaml", Line: 3, Message: "r.yaml:3: weight 0"},
		{Level: finding.Warning, File: "run.jsonl", Line: 9, Message: "judge error"},
		{Level: finding.Error, Message: "drop\n::error::x\x1b[2J"},
		{Message: "plain"},
	} {
		if err := h.Annotate(a); err != nil {
			t.Fatal(err)
		}
	}
	want := "warning: r.yaml:3: weight 0\nwarning: judge error (run.jsonl:9)\nerror: drop ::error::x%1B[2J\nwarning: plain\n"
	if errOut.String() != want {
		t.Errorf("stderr:\n got %q\nwant %q", errOut.String(), want)
	}
	if h.Summary("x") != nil || h.SetOutputs([]host.Output{{Name: "a", Value: "b"}}) != nil {
		t.Error("summary or outputs failed")
	}
	st, dir, err := h.DefaultStore(host.StoreOptions{})
	if err != nil || dir == nil || dir.Root != DefaultDir || st.(*baseline.Dir) != dir {
		t.Errorf("store %v %v %v", st, dir, err)
	}
	_, dir, _ = h.DefaultStore(host.StoreOptions{LocalDir: "b"})
	if dir.Root != "b" {
		t.Errorf("LocalDir ignored: %q", dir.Root)
	}
	h.stderr = failing{}
	if err := h.Annotate(finding.Annotation{Message: "x"}); err == nil {
		t.Error("no error from a failing stderr")
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("closed") }

// SkipGit leaves the checkout unread: the branch is only the one given;
// a terminal has no comments.
func TestSkipGit(t *testing.T) {
	h, err := New(Options{Branch: "main", Dir: t.TempDir(), SkipGit: true})
	if err != nil {
		t.Fatal(err)
	}
	if b := h.Build(); b.Branch != "main" || b.SHA != "" || !b.BaselineEvent {
		t.Errorf("build %+v", b)
	}
	if c := h.Commenting(host.CommentOptions{Mode: host.CommentAlways}); c.Noun != "" || c.Commenter != nil {
		t.Errorf("commenting %+v", c)
	}
}
