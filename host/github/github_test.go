package github

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/ghfake"
)

// env returns a getenv over vars.
func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// actionsEnv is the environment of a run of event on the recorded
// repository Codertocat/Hello-World, with the payload at eventPath.
func actionsEnv(event, ref, eventPath string) map[string]string {
	return map[string]string{
		"GITHUB_ACTIONS":    "true",
		"GITHUB_EVENT_NAME": event,
		"GITHUB_EVENT_PATH": eventPath,
		"GITHUB_REF":        ref,
		"GITHUB_SHA":        "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
		"GITHUB_REPOSITORY": "Codertocat/Hello-World",
		"GITHUB_RUN_ID":     "6789",
		"GITHUB_SERVER_URL": "https://github.com",
		"GITHUB_API_URL":    "https://api.github.com",
		"GITHUB_WORKFLOW":   "evals",
		"GITHUB_JOB":        "gate",
	}
}

// forkPayload is the recorded pull_request.opened payload with its head in
// a fork, as GitHub sends a fork's pull request: head.repo is another
// repository (its own id, name and owner) with fork true.
func forkPayload(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("testdata/pull_request.opened.json")
	if err != nil {
		t.Fatal(err)
	}
	var ev map[string]any
	if err := json.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	pr := ev["pull_request"].(map[string]any)
	head := pr["head"].(map[string]any)
	repo := map[string]any{}
	for k, v := range head["repo"].(map[string]any) {
		repo[k] = v
	}
	repo["id"] = float64(999001)
	repo["full_name"] = "forker/Hello-World"
	repo["name"] = "Hello-World"
	repo["fork"] = true
	repo["owner"] = map[string]any{"login": "forker", "id": float64(999002), "type": "User"}
	head["repo"] = repo
	head["label"] = "forker:changes"
	out, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "fork.json")
	if err := os.WriteFile(p, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadBuildRecordedPayloads(t *testing.T) {
	const head = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"
	const sha = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
	prBuild := func(labels ...string) host.Build {
		return host.Build{
			Host: "github", Repository: "Codertocat/Hello-World", RepositoryID: 186853002, Event: "pull_request",
			SHA: sha, HeadSHA: head, Ref: "refs/pull/2/merge", BaseBranch: "master", DefaultBranch: "master",
			ChangeRequest: 2, ChangeRequestEvent: true, Labels: labels, RunID: 6789, Author: "Codertocat",
			RunURL: "https://github.com/Codertocat/Hello-World/actions/runs/6789", RunsURL: "https://github.com/Codertocat/Hello-World/actions/runs/", Workflow: "evals", Job: "gate",
			APIURL: "https://api.github.com",
		}
	}
	tests := []struct {
		name, event, ref, payload string
		fork                      bool
		want                      host.Build
		fromFork                  bool
	}{
		{name: "pull_request opened", event: "pull_request", ref: "refs/pull/2/merge", payload: "testdata/pull_request.opened.json", want: prBuild()},
		{name: "pull_request synchronize", event: "pull_request", ref: "refs/pull/2/merge", payload: "testdata/pull_request.synchronize.json", want: prBuild("bug")},
		{name: "pull_request labeled", event: "pull_request", ref: "refs/pull/2/merge", payload: "testdata/pull_request.labeled.json", want: func() host.Build {
			// The label the event added: the moment an accept label takes effect.
			// Its sender applied it (here the pull request's own author).
			b := prBuild("bug")
			b.LabelAdded, b.LabelAddedBy = "bug", "Codertocat"
			return b
		}()},
		{name: "pull_request from a fork", event: "pull_request", ref: "refs/pull/2/merge", fork: true, want: prBuild(), fromFork: true},
		{name: "pull_request_target", event: "pull_request_target", ref: "refs/heads/master", payload: "testdata/pull_request.opened.json", want: func() host.Build {
			b := prBuild()
			b.Event, b.Ref = "pull_request_target", "refs/heads/master"
			return b
		}()},
		{name: "push to a branch", event: "push", ref: "refs/heads/master", payload: "testdata/push.branch.json", want: host.Build{
			Host: "github", Repository: "Codertocat/Hello-World", RepositoryID: 186853002, Event: "push", SHA: sha, HeadSHA: sha,
			Ref: "refs/heads/master", Branch: "master", DefaultBranch: "master", RunID: 6789,
			RunURL: "https://github.com/Codertocat/Hello-World/actions/runs/6789", RunsURL: "https://github.com/Codertocat/Hello-World/actions/runs/", Workflow: "evals", Job: "gate",
			APIURL: "https://api.github.com", BaselineEvent: true,
		}},
		{name: "push of a tag", event: "push", ref: "refs/tags/simple-tag", payload: "testdata/push.tag.json", want: host.Build{
			Host: "github", Repository: "Codertocat/Hello-World", RepositoryID: 186853002, Event: "push", SHA: sha, HeadSHA: sha,
			Ref: "refs/tags/simple-tag", DefaultBranch: "master", RunID: 6789,
			RunURL: "https://github.com/Codertocat/Hello-World/actions/runs/6789", RunsURL: "https://github.com/Codertocat/Hello-World/actions/runs/", Workflow: "evals", Job: "gate",
			APIURL: "https://api.github.com",
		}},
		{name: "workflow_run", event: "workflow_run", ref: "refs/heads/master", payload: "testdata/workflow_run.completed.json", want: host.Build{
			Host: "github", Repository: "Codertocat/Hello-World", RepositoryID: 300029405, Event: "workflow_run", SHA: sha, HeadSHA: sha,
			Ref: "refs/heads/master", Branch: "master", DefaultBranch: "master", RunID: 6789,
			RunURL: "https://github.com/Codertocat/Hello-World/actions/runs/6789", RunsURL: "https://github.com/Codertocat/Hello-World/actions/runs/", Workflow: "evals", Job: "gate",
			APIURL: "https://api.github.com",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.payload
			if tt.fork {
				p = forkPayload(t)
			}
			b, ev, err := ReadBuild(env(actionsEnv(tt.event, tt.ref, p)))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*b, tt.want) {
				t.Errorf("build:\n got %+v\nwant %+v", *b, tt.want)
			}
			if ev.FromFork() != tt.fromFork {
				t.Errorf("FromFork = %v, want %v", ev.FromFork(), tt.fromFork)
			}
		})
	}
}

func TestBuildPolicies(t *testing.T) {
	b, _, err := ReadBuild(env(actionsEnv("pull_request", "refs/pull/2/merge", "testdata/pull_request.labeled.json")))
	if err != nil {
		t.Fatal(err)
	}
	if !b.HasLabel("BUG") || b.HasLabel("rubricgate:accept-regression") {
		t.Errorf("labels %q", b.Labels)
	}
	if got := host.ResolveBaselineBranch("", b, host.SaveInputs{WorkDir: t.TempDir()}).Branch; got != "master" {
		t.Errorf("baseline branch %q, want the base branch", got)
	}
	if got := b.SaveBranch(""); got != "" {
		t.Errorf("a pull request's run saves under %q; it must never save", got)
	}
	if ok, _ := host.ShouldComment(host.CommentAuto, b); !ok {
		t.Error("auto does not comment on a pull_request run")
	}
	push, _, err := ReadBuild(env(actionsEnv("push", "refs/heads/master", "testdata/push.branch.json")))
	if err != nil {
		t.Fatal(err)
	}
	if !push.OnBaselineBranch("master") || push.OnBaselineBranch("main") || push.SaveBranch("") != "master" {
		t.Errorf("push run: on master %v, save branch %q", push.OnBaselineBranch("master"), push.SaveBranch(""))
	}
	if ok, w := host.ShouldComment(host.CommentAuto, push); ok || w != "" {
		t.Errorf("auto on a push: %v %q", ok, w)
	}
	if ok, w := host.ShouldComment(host.CommentAlways, push); ok || !strings.Contains(w, "not for a pull request") {
		t.Errorf("always on a push: %v %q", ok, w)
	}
	// A workflow_run runs on the default branch but works on another
	// run's data: it must not save a baseline.
	wr, ev, err := ReadBuild(env(actionsEnv("workflow_run", "refs/heads/master", "testdata/workflow_run.completed.json")))
	if err != nil {
		t.Fatal(err)
	}
	if wr.BaselineEvent || wr.OnBaselineBranch("master") || wr.SaveBranch("") != "" {
		t.Errorf("workflow_run may save a baseline: %+v", wr)
	}
	run := ev.WorkflowRun
	if run == nil || run.ID != 289782451 || run.HeadSHA != "3484a3fb816e0859fd6e1cea078d76385ff50625" || run.Repository.FullName != "octo-org/octo-repo" ||
		len(run.PullRequests) != 1 || run.PullRequests[0].Number != 2 {
		t.Errorf("workflow_run = %+v", run)
	}
}

func TestReadBuildErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	os.WriteFile(bad, []byte(`{"pull_request": {"number": "two"}}`), 0o644)
	for name, vars := range map[string]map[string]string{
		"repository without owner": {"GITHUB_REPOSITORY": "hello"},
		"repository with a path":   {"GITHUB_REPOSITORY": "a/b/c"},
		"run id not a number":      {"GITHUB_RUN_ID": "12x"},
		"run attempt zero":         {"GITHUB_RUN_ATTEMPT": "0"},
		"run attempt not a number": {"GITHUB_RUN_ATTEMPT": "2nd"},
		"malformed payload":        {"GITHUB_EVENT_PATH": bad},
		"payload is a directory":   {"GITHUB_EVENT_PATH": t.TempDir()},
	} {
		if _, _, err := ReadBuild(env(vars)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	// A missing payload file is no payload, as on a runner without one.
	b, _, err := ReadBuild(env(map[string]string{"GITHUB_EVENT_PATH": filepath.Join(t.TempDir(), "none.json"), "GITHUB_REF_NAME": "dev"}))
	if err != nil || b.Branch != "dev" || b.APIURL != "https://api.github.com" {
		t.Errorf("missing payload: %+v, %v", b, err)
	}
	// "Re-run jobs" raises the attempt; the event stays the first one's.
	b, _, err = ReadBuild(env(map[string]string{"GITHUB_RUN_ATTEMPT": "3"}))
	if err != nil || b.RunAttempt != 3 {
		t.Errorf("attempt 3: %+v, %v", b, err)
	}
}

func newHost(t *testing.T, vars map[string]string) (*Host, *bytes.Buffer) {
	t.Helper()
	var out bytes.Buffer
	h, err := New(env(vars), &out)
	if err != nil {
		t.Fatal(err)
	}
	return h, &out
}

func TestAnnotate(t *testing.T) {
	h, out := newHost(t, actionsEnv("push", "refs/heads/master", "testdata/push.branch.json"))
	anns := []finding.Annotation{
		{Level: finding.Warning, File: "rubrics/a,b:c.yaml", Line: 3, Title: "rubricgate", Message: "weight 0"},
		{Level: finding.Error, Title: "rubricgate blocked", Message: "drop 2%\n::error::pwned\x1b[31m"},
		{Level: finding.Notice, Message: "ok"},
		{Level: finding.Warning, Message: "a\u200bb"},
	}
	for _, a := range anns {
		if err := h.Annotate(a); err != nil {
			t.Fatal(err)
		}
	}
	want := "::warning file=rubrics/a%2Cb%3Ac.yaml,line=3,title=rubricgate::weight 0\n" +
		"::error title=rubricgate blocked::drop 2%25%250A::error::pwned%251B[31m\n" +
		"::notice title=rubricgate::ok\n" +
		"::warning title=rubricgate::a%25E2%2580%258Bb\n"
	if out.String() != want {
		t.Errorf("annotations:\n got %q\nwant %q", out.String(), want)
	}
	// A failing stdout is an error, never a panic.
	h.out.w = &failing{}
	if err := h.Annotate(anns[0]); err == nil {
		t.Error("no error from a failing writer")
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestSummaryAndOutputs(t *testing.T) {
	dir := t.TempDir()
	vars := actionsEnv("push", "refs/heads/master", "testdata/push.branch.json")
	h, _ := newHost(t, vars)
	// Unset files: nothing written, no panic, no error.
	if err := h.Summary("# x"); err != nil {
		t.Error(err)
	}
	if err := h.SetOutputs([]host.Output{{Name: "decision", Value: "pass"}}); err != nil {
		t.Error(err)
	}
	vars["GITHUB_STEP_SUMMARY"] = filepath.Join(dir, "summary.md")
	vars["GITHUB_OUTPUT"] = filepath.Join(dir, "output")
	os.WriteFile(vars["GITHUB_OUTPUT"], []byte("earlier=1\n"), 0o644)
	if err := h.Summary("# report"); err != nil {
		t.Fatal(err)
	}
	if err := h.SetOutputs([]host.Output{{Name: "decision", Value: "block"}, {Name: "reasons", Value: "a\nb"}, {Name: "comment-url", Value: ""}}); err != nil {
		t.Fatal(err)
	}
	if s, _ := os.ReadFile(vars["GITHUB_STEP_SUMMARY"]); string(s) != "# report\n" {
		t.Errorf("summary %q", s)
	}
	o, _ := os.ReadFile(vars["GITHUB_OUTPUT"])
	lines := strings.Split(string(o), "\n")
	if len(lines) != 8 || lines[0] != "earlier=1" || lines[1] != "decision=block" || !strings.HasPrefix(lines[2], "reasons<<ghadelimiter_") ||
		lines[3] != "a" || lines[4] != "b" || lines[5] != strings.TrimPrefix(lines[2], "reasons<<") || lines[6] != "comment-url=" {
		t.Errorf("outputs file:\n%s", o)
	}
	if err := h.SetOutputs([]host.Output{{Name: "a=b", Value: "x"}}); err == nil {
		t.Error("an output name with '=' was written")
	}
	vars["GITHUB_OUTPUT"] = dir // a directory: cannot be appended to
	vars["GITHUB_STEP_SUMMARY"] = dir
	if err := h.SetOutputs([]host.Output{{Name: "decision", Value: "pass"}}); err == nil {
		t.Error("no error when the outputs file cannot be written")
	}
	if err := h.Summary("x"); err == nil {
		t.Error("no error when the summary cannot be written")
	}
}

func TestDefaultStore(t *testing.T) {
	h, _ := newHost(t, actionsEnv("push", "refs/heads/master", "testdata/push.branch.json"))
	_, _, err := h.DefaultStore(host.StoreOptions{})
	var ce *host.ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "github-token") {
		t.Errorf("no token: %v", err)
	}
	st, dir, err := h.DefaultStore(host.StoreOptions{Token: "t", ArtifactName: "rubricgate-baseline", MaxArchive: 1 << 20})
	if err != nil || dir != nil {
		t.Fatalf("store: %v, dir %v", err, dir)
	}
	gh, ok := st.(baseline.GitHub)
	if !ok || gh.Owner != "Codertocat" || gh.Repo != "Hello-World" || gh.RepoID != 186853002 || gh.ArtifactName != "rubricgate-baseline" || gh.MaxArchive != 1<<20 || gh.Download == nil {
		t.Errorf("store = %+v", st)
	}
	noID, _ := newHost(t, actionsEnv("push", "refs/heads/master", ""))
	if _, _, err := noID.DefaultStore(host.StoreOptions{Token: "t"}); err == nil || !strings.Contains(err.Error(), "repository.id") {
		t.Errorf("no repository id: %v", err)
	}
}

const token = "ghs_secretTOKEN1234567890"

func fakeCommenter(t *testing.T) (*ghfake.Server, *ghfake.Issues, *Commenter) {
	t.Helper()
	f := ghfake.New(t, "octo-org", "evals", 1296269)
	f.AcceptTokens(token)
	is := f.ServeIssues()
	is.AddPull(ghfake.PullRequest{Number: 7, HeadSHA: "abc123"})
	c := &Commenter{APIURL: strings.TrimSuffix(f.BaseURL(), "/"), Owner: "octo-org", Repo: "evals", PullRequest: 7,
		HeadSHA: "abc123", Token: token, HTTPClient: f.API.Client()}
	return f, is, c
}

// Who applied a label, when no labeled event says: the actor of the last
// "labeled" event for it among the pull request's issue events, read over
// every page; an unlabeled event in between does not erase who applied it
// again later.
func TestLabelActor(t *testing.T) {
	f, is, c := fakeCommenter(t)
	ctx := context.Background()
	if who, err := c.LabelActor(ctx, "rubricgate:accept-regression"); err != nil || who != (gate.Actor{}) {
		t.Errorf("no events: %+v %v", who, err)
	}
	is.AddEvent(7, "alice", "labeled", "rubricgate:accept-regression")
	for i := range 150 {
		is.AddEvent(7, "bob", "labeled", fmt.Sprint("other-", i))
	}
	is.AddEvent(7, "mallory", "unlabeled", "rubricgate:accept-regression")
	is.AddEvent(7, "mallory", "labeled", "RubricGate:Accept-Regression")
	is.AddEvent(7, "carol", "closed", "")
	is.AddEvent(8, "alice", "labeled", "rubricgate:accept-regression")
	who, err := c.LabelActor(ctx, "rubricgate:accept-regression")
	if err != nil || who.AppliedBy != "mallory" {
		t.Errorf("applied by %+v %v, want mallory", who, err)
	}
	if n := f.Count(ghfake.RouteIssueEvents); n != 3 {
		t.Errorf("%d event pages asked, want 2 (+1 before)", n)
	}
	c.PullRequest = 99
	if _, err := c.LabelActor(ctx, "x"); err == nil {
		t.Error("an unknown pull request's events: no error")
	}
}

func TestCommenter(t *testing.T) {
	_, is, c := fakeCommenter(t)
	ctx := context.Background()
	r, err := c.Comment(ctx, "k", "first")
	if err != nil || r.Action != comment.ActionCreated || r.URL == "" {
		t.Fatalf("create: %+v %v", r, err)
	}
	r, err = c.Comment(ctx, "k", "second")
	if err != nil || r.Action != comment.ActionUpdated {
		t.Fatalf("update: %+v %v", r, err)
	}
	if cs := is.Comments(7); len(cs) != 1 || !strings.HasSuffix(cs[0].Body, "\nsecond") || !strings.HasPrefix(cs[0].Body, comment.Marker("k")) {
		t.Errorf("comments %+v", cs)
	}
	if c.BodyLimit("k") != comment.BodyLimit("k") {
		t.Error("BodyLimit differs from comment.BodyLimit")
	}
	// A marker comment by someone else is not adopted by default.
	is.AddComment(7, "mallory", comment.Marker("other")+"\nplanted")
	if r, err := c.Comment(ctx, "other", "x"); err != nil || r.Action != comment.ActionCreated {
		t.Errorf("planted comment adopted: %+v %v", r, err)
	}
	// The head moved on: stale, nothing written.
	c.HeadSHA = "def456"
	if r, err := c.Comment(ctx, "k", "third"); err != nil || r.Action != comment.ActionSkippedStale {
		t.Errorf("stale: %+v %v", r, err)
	}
	c.HeadSHA = "abc123"
	// A fork's read-only token: a permission error, for a warning.
	is.SetReadOnly(true)
	_, err = c.Comment(ctx, "k", "fourth")
	var pe *comment.PermissionError
	if !errors.As(err, &pe) || pe.StatusCode != 403 {
		t.Errorf("read-only token: %v", err)
	}
	is.SetReadOnly(false)
	c.Token = ""
	if _, err := c.Comment(ctx, "k", "x"); err == nil || !strings.Contains(err.Error(), "no github-token") {
		t.Errorf("no token: %v", err)
	}
	c.Token, c.PullRequest = token, 0
	if _, err := c.Comment(ctx, "k", "x"); err == nil {
		t.Error("commented without a pull request")
	}
}

func TestRunPullRequest(t *testing.T) {
	f, is, c := fakeCommenter(t)
	ctx := context.Background()
	_, ev, err := ReadBuild(env(actionsEnv("workflow_run", "refs/heads/master", "testdata/workflow_run.completed.json")))
	if err != nil {
		t.Fatal(err)
	}
	run := ev.WorkflowRun
	// The recorded pull request's head is not the run's head: it is not
	// taken, the API is asked for the run's head commit.
	is.AddPull(ghfake.PullRequest{Number: 11, HeadSHA: run.HeadSHA})
	if n, err := c.RunPullRequest(ctx, run); err != nil || n != 11 {
		t.Errorf("by head SHA: %d %v", n, err)
	}
	if f.Count(ghfake.RouteCommitPulls) != 1 {
		t.Errorf("commit pulls asked %d times", f.Count(ghfake.RouteCommitPulls))
	}
	run.PullRequests[0].Head.SHA = run.HeadSHA
	if n, err := c.RunPullRequest(ctx, run); err != nil || n != 2 {
		t.Errorf("from the payload: %d %v", n, err)
	}
	if f.Count(ghfake.RouteCommitPulls) != 1 {
		t.Error("the API was asked although the payload named the pull request")
	}
}

func TestCheckProvenance(t *testing.T) {
	b, ev, err := ReadBuild(env(map[string]string{
		"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": "testdata/workflow_run.completed.json",
		"GITHUB_REPOSITORY": "octo-org/octo-repo",
	}))
	if err != nil {
		t.Fatal(err)
	}
	run := ev.WorkflowRun
	good := gate.RunContext{Repository: "octo-org/octo-repo", RunID: run.ID, HeadSHA: run.HeadSHA}
	if err := CheckProvenance(&good, b, run); err != nil {
		t.Errorf("matching report refused: %v", err)
	}
	for name, mod := range map[string]func(*gate.RunContext){
		"other repository": func(r *gate.RunContext) { r.Repository = "evil/octo-repo" },
		"other run":        func(r *gate.RunContext) { r.RunID++ },
		"other commit":     func(r *gate.RunContext) { r.HeadSHA = "0000000000000000000000000000000000000000" },
	} {
		rc := good
		mod(&rc)
		if err := CheckProvenance(&rc, b, run); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := CheckProvenance(&good, b, nil); err == nil || !strings.Contains(err.Error(), "workflow_run") {
		t.Errorf("no workflow_run: %v", err)
	}
	if err := CheckProvenance(nil, b, run); err == nil {
		t.Error("report without context accepted")
	}
	other := *b
	other.Repository = "someone/else"
	if err := CheckProvenance(&good, &other, run); err == nil {
		t.Error("a run in another repository than the payload's accepted")
	}
}

func TestHostCommenter(t *testing.T) {
	vars := actionsEnv("pull_request", "refs/pull/2/merge", "testdata/pull_request.opened.json")
	if !InActions(env(vars)) || InActions(env(map[string]string{})) {
		t.Error("InActions")
	}
	vars["GITHUB_API_URL"] = "https://ghe.example/api/v3/"
	h, _ := newHost(t, vars)
	c := h.Commenter("tok", "*")
	if c.APIURL != "https://ghe.example/api/v3" || c.Owner != "Codertocat" || c.Repo != "Hello-World" || c.PullRequest != 2 ||
		c.HeadSHA != "ec26c3e57ca3a959ca5aad62de7213c562f8c821" || c.Token != "tok" || c.Author != "*" {
		t.Errorf("commenter %+v", c)
	}
	if h.Build().ChangeRequest != 2 || h.Event().PullRequest == nil {
		t.Error("Build or Event not kept")
	}
}

// WriteAnnotation is the one encoding of an annotation, also for the
// commands that have no Host (cmd's errors and warnings): whatever the
// message, one workflow command line, with no control, bidirectional or
// zero width character and no "##[" (a "::" inside the line is text: the
// runner reads a command only at the start of a line).
func TestWriteAnnotationHostile(t *testing.T) {
	for _, msg := range []string{
		"dropped 2% (50%0A)", "a\r\n::set-output name=x::y", "a\n::error::pwned", "q-1\u202eevil", "a\u2066b\u2069c",
		"a\u200bb\ufeff", "\x1b[2Khidden", "a\u2028b", "##[error]x", "x\n##[group]y", "a\xffb",
	} {
		var b bytes.Buffer
		if err := WriteAnnotation(&b, finding.Annotation{Level: finding.Error, File: "f,1:x\n", Line: 3, Message: msg}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if strings.Count(out, "\n") != 1 || !strings.HasSuffix(out, "\n") || !strings.HasPrefix(out, "::error file=") {
			t.Errorf("%q: not one ::error line: %q", msg, out)
		}
		body := strings.TrimSuffix(out, "\n")
		if strings.ContainsFunc(body, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' }) {
			t.Errorf("%q: a control or format character reaches the log: %q", msg, out)
		}
		if strings.Contains(body, "##[") {
			t.Errorf("%q: a ##[ command: %q", msg, out)
		}
	}
}

// GitHub documents no order for a pull request's issue events: who applied
// the label is read by the events' times (then ids), not their place in the
// list. Served newest first, the author's later labeled event still counts
// over a reviewer's earlier one, and a later removal still removes.
func TestLabelActorOrder(t *testing.T) {
	ev := func(id int64, at, actor, event string) map[string]any {
		return map[string]any{"id": id, "event": event, "created_at": at,
			"actor": map[string]any{"login": actor, "type": "User"},
			"label": map[string]any{"name": "rubricgate:accept-regression"}}
	}
	for _, c := range []struct {
		name   string
		events []map[string]any
		want   gate.Actor
	}{
		{"newest first", []map[string]any{
			ev(3, "2026-12-01T10:02:00Z", "mallory", "labeled"),
			ev(2, "2026-12-01T10:01:00Z", "alice", "unlabeled"),
			ev(1, "2026-12-01T10:00:00Z", "alice", "labeled"),
		}, gate.Actor{AppliedBy: "mallory"}},
		{"removed last, newest first", []map[string]any{
			ev(2, "2026-12-01T10:01:00Z", "alice", "unlabeled"),
			ev(1, "2026-12-01T10:00:00Z", "alice", "labeled"),
		}, gate.Actor{Removed: true}},
		{"same second, by id", []map[string]any{
			ev(5, "2026-12-01T10:00:00Z", "mallory", "labeled"),
			ev(4, "2026-12-01T10:00:00Z", "alice", "labeled"),
		}, gate.Actor{AppliedBy: "mallory"}},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/repos/octo-org/evals/issues/7/events" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(c.events)
		}))
		cm := &Commenter{APIURL: srv.URL, Owner: "octo-org", Repo: "evals", PullRequest: 7, Token: token, HTTPClient: srv.Client()}
		who, err := cm.LabelActor(context.Background(), "rubricgate:accept-regression")
		srv.Close()
		if err != nil || who != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.name, who, err, c.want)
		}
	}
}
