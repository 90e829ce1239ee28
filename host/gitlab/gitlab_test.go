package gitlab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/internal/glfake"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
)

func env(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// mrEnv is a merge request pipeline's environment, as GitLab documents
// the predefined variables.
func mrEnv() map[string]string {
	return map[string]string{
		"GITLAB_CI":                           "true",
		"CI_PROJECT_ID":                       "42",
		"CI_PROJECT_PATH":                     "acme/bot",
		"CI_PROJECT_URL":                      "https://gitlab.example/acme/bot",
		"CI_API_V4_URL":                       "https://gitlab.example/api/v4",
		"CI_SERVER_URL":                       "https://gitlab.example",
		"CI_PIPELINE_SOURCE":                  "merge_request_event",
		"CI_PIPELINE_ID":                      "1000",
		"CI_JOB_ID":                           "2000",
		"CI_JOB_URL":                          "https://gitlab.example/acme/bot/-/jobs/2000",
		"CI_JOB_NAME":                         "rubricgate",
		"CI_PIPELINE_NAME":                    "evals",
		"CI_COMMIT_SHA":                       "1111111111111111111111111111111111111111",
		"CI_COMMIT_REF_NAME":                  "feature",
		"CI_DEFAULT_BRANCH":                   "main",
		"CI_MERGE_REQUEST_IID":                "7",
		"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "release",
		"CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feature",
		"CI_MERGE_REQUEST_LABELS":             "bug,rubricgate:accept-regression",
		"CI_MERGE_REQUEST_PROJECT_ID":         "42",
		"CI_MERGE_REQUEST_SOURCE_PROJECT_ID":  "42",
	}
}

func TestReadBuild(t *testing.T) {
	b, err := ReadBuild(env(mrEnv()))
	if err != nil {
		t.Fatal(err)
	}
	want := host.Build{
		Host: "gitlab", Repository: "acme/bot", RepositoryID: 42, Event: "merge_request_event",
		SHA: "1111111111111111111111111111111111111111", HeadSHA: "1111111111111111111111111111111111111111",
		Ref: "refs/merge-requests/7/head", BaseBranch: "release", DefaultBranch: "main",
		ChangeRequest: 7, ChangeRequestEvent: true, Labels: []string{"bug", "rubricgate:accept-regression"},
		RunID: 2000, RunURL: "https://gitlab.example/acme/bot/-/jobs/2000", RunsURL: "https://gitlab.example/acme/bot/-/jobs/", Workflow: "evals", Job: "rubricgate",
		APIURL: "https://gitlab.example/api/v4",
	}
	if !reflect.DeepEqual(*b, want) {
		t.Errorf("merge request pipeline:\n got %+v\nwant %+v", *b, want)
	}
	baseline := host.ResolveBaselineBranch("", b, host.SaveInputs{WorkDir: t.TempDir()}).Branch
	if b.SaveBranch("") != "" || baseline != "release" || !b.HasLabel("rubricgate:accept-regression") {
		t.Errorf("policies: save %q baseline %q", b.SaveBranch(""), baseline)
	}
	if ok, _ := host.ShouldComment(host.CommentAuto, b); !ok {
		t.Error("auto does not comment on a merge request pipeline")
	}

	// Merged results pipeline: the head is the source branch's commit.
	v := mrEnv()
	v["CI_COMMIT_SHA"] = "3333333333333333333333333333333333333333"
	v["CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"] = "1111111111111111111111111111111111111111"
	if b, _ := ReadBuild(env(v)); b.SHA != "3333333333333333333333333333333333333333" || b.HeadSHA != "1111111111111111111111111111111111111111" {
		t.Errorf("merged results: %s %s", b.SHA, b.HeadSHA)
	}

	// A push to the default branch: the baseline run.
	push := map[string]string{
		"CI_PROJECT_ID": "42", "CI_PROJECT_PATH": "acme/bot", "CI_PIPELINE_SOURCE": "push",
		"CI_COMMIT_SHA": "2222222222222222222222222222222222222222", "CI_COMMIT_BRANCH": "main", "CI_COMMIT_REF_NAME": "main",
		"CI_DEFAULT_BRANCH": "main", "CI_SERVER_URL": "https://gitlab.example/", "CI_CONFIG_PATH": ".gitlab-ci.yml",
	}
	b, err = ReadBuild(env(push))
	if err != nil {
		t.Fatal(err)
	}
	if b.Branch != "main" || b.Ref != "refs/heads/main" || !b.OnBaselineBranch("main") || b.SaveBranch("") != "main" ||
		b.APIURL != "https://gitlab.example/api/v4" || b.Workflow != ".gitlab-ci.yml" || b.ChangeRequest != 0 {
		t.Errorf("push: %+v", b)
	}
	// A tag pipeline is no branch's run.
	delete(push, "CI_COMMIT_BRANCH")
	push["CI_COMMIT_TAG"] = "v1.0"
	if b, _ := ReadBuild(env(push)); b.Branch != "" || b.Ref != "refs/tags/v1.0" || b.BaselineEvent {
		t.Errorf("tag: %+v", b)
	}
	// A merge request pipeline never saves a baseline, even when GitLab
	// also sets a branch (branch pipelines for a merge request).
	v = mrEnv()
	v["CI_COMMIT_BRANCH"] = "feature"
	v["CI_PIPELINE_SOURCE"] = "push"
	if b, _ := ReadBuild(env(v)); b.Branch != "" || b.BaselineEvent || b.ChangeRequestEvent {
		t.Errorf("push with a merge request: %+v", b)
	}

	for _, name := range []string{"CI_PROJECT_ID", "CI_JOB_ID", "CI_MERGE_REQUEST_IID"} {
		v := mrEnv()
		v[name] = "7x"
		if _, err := ReadBuild(env(v)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s malformed: %v", name, err)
		}
	}
	if FromFork(env(mrEnv())) {
		t.Error("same-project merge request taken for a fork")
	}
	v = mrEnv()
	v["CI_MERGE_REQUEST_SOURCE_PROJECT_ID"] = "99"
	if !FromFork(env(v)) {
		t.Error("fork merge request not seen")
	}
}

func TestReporter(t *testing.T) {
	var out bytes.Buffer
	h, err := New(env(mrEnv()), &out)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []finding.Annotation{
		{Level: finding.Error, Message: "blocked\n\x1b[0Ksection_start:1:fake\r"},
		{Level: finding.Warning, File: "run.jsonl", Line: 4, Message: "judge error"},
		{Message: "m"},
	} {
		if err := h.Annotate(a); err != nil {
			t.Fatal(err)
		}
	}
	want := "ERROR: blocked %1B[0Ksection_start:1:fake\nWARNING: judge error (run.jsonl:4)\nWARNING: m\n"
	if out.String() != want {
		t.Errorf("log:\n got %q\nwant %q", out.String(), want)
	}
	if h.Summary("x") != nil || h.SetOutputs([]host.Output{{Name: "decision", Value: "pass"}}) != nil {
		t.Error("summary or outputs without a dotenv path failed")
	}
	h.DotenvPath = filepath.Join(t.TempDir(), "rubricgate.env")
	if err := h.SetOutputs([]host.Output{{Name: "decision", Value: "block"}, {Name: "baseline-score", Value: "81.5"}, {Name: "comment-url", Value: ""}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(h.DotenvPath); string(got) != "RUBRICGATE_DECISION=block\nRUBRICGATE_BASELINE_SCORE=81.5\nRUBRICGATE_COMMENT_URL=\n" {
		t.Errorf("dotenv %q", got)
	}
	if err := h.SetOutputs([]host.Output{{Name: "reasons", Value: "a\nb"}}); err == nil {
		t.Error("a multi-line value was written to the dotenv file")
	}
	if err := h.SetOutputs([]host.Output{{Name: "a b", Value: "x"}}); err == nil {
		t.Error("an invalid name was written")
	}
	st, dir, err := h.DefaultStore(host.StoreOptions{})
	if err != nil || dir == nil || dir.Root != DefaultDir || st.(*baseline.Dir) != dir {
		t.Errorf("store %v %v %v", st, dir, err)
	}
	n := h.Commenter("tok", true, "bot")
	if n.Project != "42" || n.MergeRequest != 7 || n.APIURL != "https://gitlab.example/api/v4" || !n.JobToken || n.ProjectURL != "https://gitlab.example/acme/bot" {
		t.Errorf("commenter %+v", n)
	}
}

const token = "glpat-secretTOKEN123"

func newNotes(f *glfake.Server) *Notes {
	return &Notes{APIURL: f.APIURL(), Project: "42", MergeRequest: 7, ProjectURL: "https://gitlab.example/acme/bot",
		Token: token, Author: "rubricgate-bot", HTTPClient: f.Srv.Client()}
}

func TestNotesCreateUpdate(t *testing.T) {
	f := glfake.New(t, "42", 7)
	f.Tokens[token] = "rubricgate-bot"
	ctx := context.Background()
	n := newNotes(f)
	// 230 earlier notes: three pages of 100.
	for i := range 230 {
		f.Add(fmt.Sprint("user", i%3), fmt.Sprint("note ", i), i%10 == 0)
	}
	r, err := n.Comment(ctx, "k", "first")
	if err != nil || r.Action != comment.ActionCreated {
		t.Fatalf("create: %+v %v", r, err)
	}
	id := f.NextID
	if want := fmt.Sprintf("https://gitlab.example/acme/bot/-/merge_requests/7#note_%d", id); r.URL != want {
		t.Errorf("URL %q, want %q", r.URL, want)
	}
	log := f.Log()
	wantLog := []string{
		"GET /api/v4/projects/42/merge_requests/7/notes?order_by=created_at&page=1&per_page=100&sort=asc",
		"GET /api/v4/projects/42/merge_requests/7/notes?order_by=created_at&page=2&per_page=100&sort=asc",
		"GET /api/v4/projects/42/merge_requests/7/notes?order_by=created_at&page=3&per_page=100&sort=asc",
		"POST /api/v4/projects/42/merge_requests/7/notes",
	}
	if strings.Join(log, "\n") != strings.Join(wantLog, "\n") {
		t.Errorf("requests:\n%s", strings.Join(log, "\n"))
	}
	if got, _ := f.Get(id); got.Body != comment.Marker("k")+"\nfirst" {
		t.Errorf("note body %q", got.Body)
	}
	// The note is on page 3: found, edited in place.
	if r, err := n.Comment(ctx, "k", "second"); err != nil || r.Action != comment.ActionUpdated {
		t.Fatalf("update: %+v %v", r, err)
	}
	if got, _ := f.Get(id); !strings.HasSuffix(got.Body, "\nsecond") {
		t.Errorf("not updated: %q", got.Body)
	}
	if r, err := n.Comment(ctx, "k", "second"); err != nil || r.Action != comment.ActionUnchanged {
		t.Errorf("unchanged: %+v %v", r, err)
	}
	// Pages announced with Link only.
	f.LinkOnly = true
	if r, err := n.Comment(ctx, "k", "third"); err != nil || r.Action != comment.ActionUpdated {
		t.Errorf("Link pagination: %+v %v", r, err)
	}
	// Another key is another note.
	if r, err := n.Comment(ctx, "other", "x"); err != nil || r.Action != comment.ActionCreated {
		t.Errorf("second key: %+v %v", r, err)
	}
	for _, tok := range f.Seen {
		if tok != token+"|" {
			t.Fatalf("token headers %q, want PRIVATE-TOKEN only", tok)
		}
	}
}

func TestNotesAdoption(t *testing.T) {
	f := glfake.New(t, "42", 7)
	f.Tokens[token] = "rubricgate-bot"
	ctx := context.Background()
	n := newNotes(f)
	marker := comment.Marker("k")
	// A note by someone else, a system note and a note quoting the marker
	// later in its body: none is adopted.
	f.Add("mallory", marker+"\nplanted", false)
	f.Add("rubricgate-bot", marker+"\nsystem", true)
	f.Add("rubricgate-bot", "quote:\n"+marker, false)
	r, err := n.Comment(ctx, "k", "mine")
	if err != nil || r.Action != comment.ActionCreated {
		t.Fatalf("%+v %v", r, err)
	}
	// Two marker notes by the bot (a past race): the oldest is edited.
	older := f.NextID
	f.Add("rubricgate-bot", marker+"\nnewer", false)
	if _, err := n.Comment(ctx, "k", "edited"); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.Get(older); !strings.HasSuffix(got.Body, "\nedited") {
		t.Errorf("the oldest was not edited: %q", got.Body)
	}
	// Any author: mallory's planted note is the oldest and is adopted; the
	// bot may not edit it (403): a new note is posted, the planted one
	// left as it was.
	n.Author = "*"
	before := f.NextID
	if r, err := n.Comment(ctx, "k", "x"); err != nil || r.Action != comment.ActionCreated || f.NextID != before+1 {
		t.Errorf("editing another's note: %+v %v", r, err)
	}
	if got, _ := f.Get(501); got.Body != marker+"\nplanted" {
		t.Errorf("the planted note changed: %q", got.Body)
	}
	// The note disappears between listing and editing: a new one.
	n.Author = "rubricgate-bot"
	f.BeforePut = func(id int64) { f.Delete(id) }
	if r, err := n.Comment(ctx, "k", "again"); err != nil || r.Action != comment.ActionCreated {
		t.Errorf("deleted before edit: %+v %v", r, err)
	}
}

// With the default comment-author the note adopted is the token's own
// user's, learnt from GET /user: a note the merge request's author posted
// first with the marker (a forged "passed") is neither adopted nor read
// back, and the gate's own note is posted and kept.
func TestNotesSquatted(t *testing.T) {
	f := glfake.New(t, "42", 7)
	f.Tokens[token] = "project_42_bot_1f2e"
	f.Tokens["glpat-author"] = "mallory"
	ctx := context.Background()
	marker := comment.Marker("k")
	forged := f.Add("mallory", marker+"\n<!-- rubricgate:accepted sha=0123456789012345678901234567890123456789 score=90 -->\n✅ passed", false)
	n := newNotes(f)
	n.Author = ""
	if body, ok, err := n.Existing(ctx, "k"); err != nil || ok || body != "" {
		t.Errorf("the forged note was read back: %q %v %v", body, ok, err)
	}
	r, err := n.Comment(ctx, "k", "❌ blocked")
	if err != nil || r.Action != comment.ActionCreated {
		t.Fatalf("the gate's note: %+v %v", r, err)
	}
	mine := f.NextID
	if got, _ := f.Get(mine); got.User != "project_42_bot_1f2e" || !strings.HasSuffix(got.Body, "blocked") {
		t.Errorf("posted %+v", got)
	}
	if r, err := n.Comment(ctx, "k", "❌ still blocked"); err != nil || r.Action != comment.ActionUpdated {
		t.Errorf("the gate's own note is edited next time: %+v %v", r, err)
	}
	if got, _ := f.Get(forged); !strings.HasSuffix(got.Body, "passed") {
		t.Errorf("the forged note changed: %q", got.Body)
	}
	if body, ok, err := n.Existing(ctx, "k"); err != nil || !ok || body != "❌ still blocked" {
		t.Errorf("read back %q %v %v", body, ok, err)
	}
	users := 0
	for _, l := range f.Log() {
		if l == "GET /api/v4/user" {
			users++
		}
	}
	if users != 1 {
		t.Errorf("GET /user asked %d times, want once", users)
	}
	// A job token cannot ask GET /user: an error, nothing adopted.
	jt := newNotes(f)
	jt.Author, jt.JobToken = "", true
	if _, err := jt.Comment(ctx, "k", "x"); err == nil || !strings.Contains(err.Error(), "comment-author") {
		t.Errorf("job token: %v", err)
	}
}

func TestNotesErrors(t *testing.T) {
	f := glfake.New(t, "42", 7)
	f.Tokens[token] = "rubricgate-bot"
	ctx := context.Background()

	n := newNotes(f)
	f.ReadOnly = true
	_, err := n.Comment(ctx, "k", "x")
	var pe *PermissionError
	if !errors.As(err, &pe) || pe.StatusCode != http.StatusForbidden || !strings.Contains(err.Error(), "CI_JOB_TOKEN cannot") {
		t.Errorf("read-only: %v", err)
	}
	f.ReadOnly = false

	bad := newNotes(f)
	bad.Token = "wrong"
	if _, err := bad.Comment(ctx, "k", "x"); !errors.As(err, &pe) || pe.StatusCode != http.StatusUnauthorized || pe.Write {
		t.Errorf("bad token: %v", err)
	}
	if strings.Contains(fmt.Sprint(err), "wrong") || strings.Contains(fmt.Sprint(err), token) {
		t.Errorf("the error shows the token: %v", err)
	}

	// The job token goes in JOB-TOKEN.
	f.Tokens["job-tok"] = "rubricgate-bot"
	jt := newNotes(f)
	jt.Token, jt.JobToken = "job-tok", true
	f.Seen = nil
	if _, err := jt.Comment(ctx, "j", "x"); err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Seen {
		if s != "|job-tok" {
			t.Errorf("headers %q, want JOB-TOKEN only", s)
		}
	}

	requests := len(f.Log())
	long := newNotes(f)
	if _, err := long.Comment(ctx, "k", strings.Repeat("x", MaxNoteChars)); !errors.Is(err, comment.ErrBodyTooLong) {
		t.Errorf("too long: %v", err)
	}
	if _, err := long.Comment(ctx, "k", "a\n"+comment.Marker("z")); err == nil {
		t.Error("a body with a marker was posted")
	}
	for name, n := range map[string]*Notes{
		"no token":   {APIURL: f.APIURL(), Project: "42", MergeRequest: 7},
		"no MR":      {APIURL: f.APIURL(), Project: "42", Token: token},
		"bad URL":    {APIURL: "ftp://x", Project: "42", MergeRequest: 7, Token: token},
		"no project": {APIURL: f.APIURL(), MergeRequest: 7, Token: token},
	} {
		if _, err := n.Comment(ctx, "k", "x"); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if len(f.Log()) != requests {
		t.Error("a request was made for a comment refused up front")
	}
	if n := newNotes(f); n.BodyLimit("k") != MaxNoteChars-len(comment.Marker("k"))-1 {
		t.Error("BodyLimit")
	}
	other := glfake.New(t, "42", 8)
	other.Tokens[token] = "rubricgate-bot"
	wrongMR := newNotes(other)
	if _, err := wrongMR.Comment(ctx, "k", "x"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown merge request: %v", err)
	}
}

func TestNotesRedirects(t *testing.T) {
	var leaked atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("PRIVATE-TOKEN") != "" || r.Header.Get("JOB-TOKEN") != "" {
			leaked.Add(1)
		}
		w.Write([]byte("[]"))
	}))
	defer evil.Close()
	f := glfake.New(t, "42", 7)
	f.Tokens[token] = "rubricgate-bot"
	f.Redirect = evil.URL + "/api/v4/projects/42/merge_requests/7/notes"
	n := newNotes(f)
	n.HTTPClient = nil
	_, err := n.Comment(context.Background(), "k", "x")
	if err == nil || !strings.Contains(err.Error(), "refusing a redirect") {
		t.Errorf("cross-host redirect: %v", err)
	}
	if leaked.Load() != 0 {
		t.Error("the token was sent to another host")
	}
	// A redirect on the same host is followed, with the token.
	f.Redirect = ""
	n = newNotes(f)
	n.APIURL = f.Srv.URL + "/moved/api/v4"
	f.Seen = nil
	if r, err := n.Comment(context.Background(), "k", "x"); err != nil || r.Action != comment.ActionCreated {
		t.Errorf("same-host redirect: %+v %v", r, err)
	}
	if log := f.Log(); !strings.HasPrefix(log[len(log)-1], "POST /api/v4/") || f.Seen[len(f.Seen)-1] != token+"|" {
		t.Errorf("redirected POST: %q, token headers %q", log[len(log)-1], f.Seen[len(f.Seen)-1])
	}
	same := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, f.Srv.URL+r.URL.RequestURI(), http.StatusTemporaryRedirect)
	}))
	defer same.Close()
	n.APIURL = strings.Replace(same.URL, "127.0.0.1", "localhost", 1) + "/api/v4"
	if _, err := n.Comment(context.Background(), "k", "x"); err == nil || !strings.Contains(err.Error(), "refusing a redirect") {
		t.Errorf("redirect from localhost to 127.0.0.1 (another host name): %v", err)
	}
	n.APIURL = same.URL + "/api/v4"
	if r, err := n.Comment(context.Background(), "k", "x"); err == nil && r.Action == comment.ActionCreated {
		// 127.0.0.1:portA -> 127.0.0.1:portB is another host (the port
		// differs): it must be refused too.
		t.Errorf("redirect to another port followed: %+v", r)
	}
}

func TestInCI(t *testing.T) {
	if !InCI(env(mrEnv())) || InCI(env(map[string]string{})) {
		t.Error("InCI")
	}
	h, err := New(env(mrEnv()), &bytes.Buffer{})
	if err != nil || h.Build().ChangeRequest != 7 {
		t.Errorf("New: %v", err)
	}
	if _, err := New(env(map[string]string{"CI_PROJECT_ID": "x"}), &bytes.Buffer{}); err == nil {
		t.Error("New accepted a malformed project id")
	}
	n := &Notes{MergeRequest: 7}
	if n.noteURL(5) != "" {
		t.Error("a note URL without the project URL")
	}
}

// Existing reads back the body of the author's own sticky note (without
// its marker line); a planted note by another user is not read.
func TestNotesExisting(t *testing.T) {
	f := glfake.New(t, "42", 7)
	f.Tokens[token] = "rubricgate-bot"
	ctx := context.Background()
	n := newNotes(f)
	f.Add("mallory", comment.Marker("k")+"\nplanted", false)
	if body, ok, err := n.Existing(ctx, "k"); err != nil || ok {
		t.Fatalf("before the gate's note: %q %v %v", body, ok, err)
	}
	if _, err := n.Comment(ctx, "k", "line one\nline two"); err != nil {
		t.Fatal(err)
	}
	if body, ok, err := n.Existing(ctx, "k"); err != nil || !ok || body != "line one\nline two" {
		t.Errorf("got %q %v %v", body, ok, err)
	}
}

// Who applied a label and who wrote the merge request, from GitLab's API:
// the merge request's author, and the user of the last "add" label event
// for the label (names without case) over every page; a removal, another
// label, or a deleted label's event (label null) changes nothing.
func TestLabelActor(t *testing.T) {
	f := glfake.New(t, "42", 7)
	f.Tokens[token] = "project_42_bot_1f2e"
	f.Author = "mallory"
	ctx := context.Background()
	n := newNotes(f)
	who, err := n.LabelActor(ctx, "rubricgate:accept-regression")
	if err != nil || who != (gate.Actor{Author: "mallory"}) {
		t.Errorf("no events: %+v %v", who, err)
	}
	f.AddLabelEvent("alice", "rubricgate:accept-regression", "add")
	for i := range 120 {
		f.AddLabelEvent("bob", fmt.Sprint("other-", i), "add")
	}
	f.AddLabelEvent("mallory", "rubricgate:accept-regression", "remove")
	f.AddLabelEvent("mallory", "RubricGate:Accept-Regression", "add")
	f.AddLabelEvent("carol", "", "add")
	if who, err := n.LabelActor(ctx, "rubricgate:accept-regression"); err != nil || who != (gate.Actor{AppliedBy: "mallory", Author: "mallory"}) {
		t.Errorf("applied by %+v %v", who, err)
	}
	f.AddLabelEvent("alice", "rubricgate:accept-regression", "add")
	if who, err := n.LabelActor(ctx, "rubricgate:accept-regression"); err != nil || who.AppliedBy != "alice" || who.Removed {
		t.Errorf("re-applied by %+v %v", who, err)
	}
	// Removed since (a retried job keeps the labels its pipeline started
	// with): the label is off.
	f.AddLabelEvent("alice", "Rubricgate:Accept-Regression", "remove")
	f.AddLabelEvent("bob", "other", "add")
	if who, err := n.LabelActor(ctx, "rubricgate:accept-regression"); err != nil || !who.Removed {
		t.Errorf("removed: %+v %v", who, err)
	}
	f.AddLabelEvent("carol", "rubricgate:accept-regression", "add")
	if who, err := n.LabelActor(ctx, "rubricgate:accept-regression"); err != nil || who.Removed || who.AppliedBy != "carol" {
		t.Errorf("added again: %+v %v", who, err)
	}
	bad := newNotes(f)
	bad.Token = "wrong"
	var pe *PermissionError
	if _, err := bad.LabelActor(ctx, "x"); !errors.As(err, &pe) || pe.StatusCode != http.StatusUnauthorized {
		t.Errorf("bad token: %v", err)
	}
}

// A label a bot account applied is marked so (the accept-by rule refuses
// it): the gate's own token's user, which a merge request's pipeline holds,
// and any project or group access token's bot; a person is not.
func TestLabelActorBot(t *testing.T) {
	f := glfake.New(t, "42", 7)
	f.Tokens[token] = "rg-gate-user"
	f.Author = "mallory"
	ctx := context.Background()
	const label = "rubricgate:accept-regression"
	for _, c := range []struct {
		user string
		bot  bool
	}{
		{"alice", false},
		{"rg-gate-user", true},
		{"RG-Gate-User", true},
		{"project_42_bot", true},
		{"project_42_bot3", true},
		{"project_42_bot_1f2e3d4c5b6a", true},
		{"group_9_bot_0a1b2c", true},
		{"project_bot_fan", false},
	} {
		f.AddLabelEvent(c.user, label, "add")
		for _, author := range []string{"", "someone-else"} {
			n := newNotes(f)
			n.Author = author
			who, err := n.LabelActor(ctx, label)
			if err != nil || who.AppliedBy != c.user || who.AppliedByBot != c.bot {
				t.Errorf("applied by %s (comment-author %q): %+v %v, want bot %v", c.user, author, who, err, c.bot)
			}
		}
	}
}

// The label events are read by id (ids grow with time), not by their place
// in the list: served newest first, the author's later "add" still counts
// over a reviewer's earlier one, and a later "remove" still removes.
func TestLabelActorOrder(t *testing.T) {
	ev := func(id int, user, action string) string {
		return fmt.Sprintf(`{"id":%d,"user":{"username":%q},"label":{"name":"rubricgate:accept-regression"},"action":%q}`, id, user, action)
	}
	for _, c := range []struct {
		name   string
		events string
		want   gate.Actor
	}{
		{"newest first", "[" + ev(3, "mallory", "add") + "," + ev(2, "alice", "remove") + "," + ev(1, "alice", "add") + "]",
			gate.Actor{AppliedBy: "mallory", Author: "mallory"}},
		{"removed last, newest first", "[" + ev(2, "alice", "remove") + "," + ev(1, "alice", "add") + "]",
			gate.Actor{Author: "mallory", Removed: true}},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			switch r.URL.Path {
			case "/api/v4/projects/42/merge_requests/7":
				fmt.Fprint(w, `{"iid":7,"author":{"username":"mallory"}}`)
			case "/api/v4/projects/42/merge_requests/7/resource_label_events":
				fmt.Fprint(w, c.events)
			case "/api/v4/user":
				fmt.Fprint(w, `{"username":"project_42_bot"}`)
			default:
				http.NotFound(w, r)
			}
		}))
		n := &Notes{APIURL: srv.URL + "/api/v4", Project: "42", MergeRequest: 7, Token: token, HTTPClient: srv.Client()}
		who, err := n.LabelActor(context.Background(), "rubricgate:accept-regression")
		srv.Close()
		if err != nil || who != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.name, who, err, c.want)
		}
	}
}
