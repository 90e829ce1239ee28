package local

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/testfs"
)

const (
	sha1 = "1111111111111111111111111111111111111111"
	sha2 = "2222222222222222222222222222222222222222"
)

func TestBuild(t *testing.T) {
	repo := t.TempDir()
	testfs.Write(t, repo, map[string]string{".git/HEAD": "ref: refs/heads/dev\n", ".git/refs/heads/dev": sha1})
	h, err := New(Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	b := h.Build()
	want := host.Build{Host: "local", Event: "local", Branch: "dev", Ref: "refs/heads/dev", SHA: sha1, HeadSHA: sha1, BaselineEvent: true}
	if !reflect.DeepEqual(*b, want) {
		t.Errorf("build %+v, want %+v", *b, want)
	}
	if b.SaveBranch("") != "dev" {
		t.Errorf("save %q", b.SaveBranch(""))
	}
	h, err = New(Options{Dir: repo, Branch: "release"})
	if err != nil || h.Build().Branch != "release" {
		t.Errorf("--branch: %+v %v", h.Build(), err)
	}
	// Detached HEAD: no branch, so nothing is saved unless --branch says.
	testfs.Write(t, repo, map[string]string{".git/HEAD": sha2})
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
