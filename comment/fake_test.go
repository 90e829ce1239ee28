package comment

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-github/v60/github"
)

// The fake GitHub below follows the REST API closely enough for go-github:
// JSON shapes taken from the documented example responses, 1-based
// ?page=&per_page= pagination (default 30, max 100) announced with Link
// headers, 201 on create, 404/403/422 bodies with message and
// documentation_url. It is mounted under a path prefix, like go-github's own
// tests, so an absolute request path fails loudly.

const (
	apiPrefix = "/api-v3"
	testToken = "ghs_secretTOKEN1234567890"
	botLogin  = "github-actions[bot]"
)

type fakeComment struct {
	ID      int64
	Issue   int
	Body    string
	Login   string
	Created time.Time
	Updated time.Time
}

type fakePull struct {
	Number   int
	State    string // open, closed
	HeadSHA  string
	HeadRepo string // full name of the head repository
	Fork     bool   // head commits live only in a fork: unknown to commits/{sha}/pulls
}

type fakeGitHub struct {
	t      *testing.T
	server *httptest.Server

	mu       sync.Mutex
	comments []*fakeComment
	pulls    map[int]*fakePull
	nextID   int64
	clock    time.Time
	requests []string // "METHOD /path?query" without the prefix

	readOnly bool // writes answer 403 Resource not accessible by integration
	// hook, when set, may answer a request itself (return true).
	hook func(w http.ResponseWriter, r *http.Request) bool
}

func newFake(t *testing.T) *fakeGitHub {
	t.Helper()
	f := &fakeGitHub{t: t, pulls: map[int]*fakePull{}, nextID: 1000, clock: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	api := http.NewServeMux()
	api.HandleFunc("GET /repos/{owner}/{repo}/issues/{number}/comments", f.listComments)
	api.HandleFunc("POST /repos/{owner}/{repo}/issues/{number}/comments", f.createComment)
	api.HandleFunc("PATCH /repos/{owner}/{repo}/issues/comments/{id}", f.editComment)
	api.HandleFunc("GET /repos/{owner}/{repo}/pulls/{number}", f.getPull)
	api.HandleFunc("GET /repos/{owner}/{repo}/pulls", f.listPulls)
	api.HandleFunc("GET /repos/{owner}/{repo}/commits/{sha}/pulls", f.commitPulls)

	root := http.NewServeMux()
	root.Handle(apiPrefix+"/", http.StripPrefix(apiPrefix, f.wrap(api)))
	root.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("request outside the API prefix: %s %s", r.Method, r.URL)
		http.Error(w, "bad prefix", http.StatusInternalServerError)
	})
	f.server = httptest.NewServer(root)
	t.Cleanup(f.server.Close)
	return f
}

// wrap logs the request, checks authentication and runs the hook.
func (f *fakeGitHub) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
		hook := f.hook
		f.mu.Unlock()
		if r.Header.Get("Authorization") != "Bearer "+testToken {
			writeError(w, http.StatusUnauthorized, "Bad credentials", "https://docs.github.com/rest")
			return
		}
		if hook != nil && hook(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// service returns a Service talking to the fake with a bearer token.
func (f *fakeGitHub) service() (*Service, *[]string) {
	c := github.NewClient(nil).WithAuthToken(testToken)
	u, err := url.Parse(f.server.URL + apiPrefix + "/")
	if err != nil {
		f.t.Fatal(err)
	}
	c.BaseURL, c.UploadURL = u, u
	var logs []string
	s := &Service{Client: c, Owner: "octo-org", Repo: "evals", Logf: func(format string, args ...any) {
		logs = append(logs, fmt.Sprintf(format, args...))
	}}
	return s, &logs
}

func (f *fakeGitHub) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

func (f *fakeGitHub) resetLog() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = nil
}

// addComment stores a comment directly (as if posted earlier).
func (f *fakeGitHub) addComment(issue int, login, body string) *fakeComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.addLocked(issue, login, body)
}

func (f *fakeGitHub) addLocked(issue int, login, body string) *fakeComment {
	f.nextID++
	f.clock = f.clock.Add(time.Minute)
	c := &fakeComment{ID: f.nextID, Issue: issue, Body: body, Login: login, Created: f.clock, Updated: f.clock}
	f.comments = append(f.comments, c)
	return c
}

func (f *fakeGitHub) issueComments(issue int) []*fakeComment {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*fakeComment
	for _, c := range f.comments {
		if c.Issue == issue {
			out = append(out, c)
		}
	}
	return out
}

func (f *fakeGitHub) deleteComment(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, c := range f.comments {
		if c.ID == id {
			f.comments = append(f.comments[:i], f.comments[i+1:]...)
			return
		}
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg, doc string) {
	writeJSON(w, status, map[string]any{"message": msg, "documentation_url": doc, "status": strconv.Itoa(status)})
}

func (f *fakeGitHub) commentJSON(r *http.Request, c *fakeComment) map[string]any {
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	return map[string]any{
		"id":                 c.ID,
		"node_id":            fmt.Sprintf("IC_kwDO%08d", c.ID),
		"url":                fmt.Sprintf("%s%s/repos/%s/%s/issues/comments/%d", f.server.URL, apiPrefix, owner, repo, c.ID),
		"html_url":           fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", owner, repo, c.Issue, c.ID),
		"issue_url":          fmt.Sprintf("%s%s/repos/%s/%s/issues/%d", f.server.URL, apiPrefix, owner, repo, c.Issue),
		"body":               c.Body,
		"user":               map[string]any{"login": c.Login, "id": 41898282, "type": "Bot"},
		"created_at":         c.Created.Format(time.RFC3339),
		"updated_at":         c.Updated.Format(time.RFC3339),
		"author_association": "NONE",
	}
}

// paginate cuts n items into the requested page and sets the Link header.
func paginate(w http.ResponseWriter, r *http.Request, n int) (lo, hi int, ok bool) {
	q := r.URL.Query()
	per, page := 30, 1
	if v := q.Get("per_page"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 {
			writeError(w, http.StatusUnprocessableEntity, "Invalid per_page", "")
			return 0, 0, false
		}
		per = min(p, 100)
	}
	if v := q.Get("page"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 {
			writeError(w, http.StatusUnprocessableEntity, "Invalid page", "")
			return 0, 0, false
		}
		page = p
	}
	last := max(1, (n+per-1)/per)
	link := func(p int, rel string) string {
		u := *r.URL
		u.Scheme, u.Host = "http", r.Host
		u.Path = apiPrefix + r.URL.Path
		v := u.Query()
		v.Set("per_page", strconv.Itoa(per))
		v.Set("page", strconv.Itoa(p))
		u.RawQuery = v.Encode()
		return fmt.Sprintf("<%s>; rel=%q", u.String(), rel)
	}
	var links []string
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(page-1, "prev"), link(1, "first"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo, hi = min((page-1)*per, n), min(page*per, n)
	return lo, hi, true
}

func (f *fakeGitHub) listComments(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil {
		writeError(w, http.StatusNotFound, "Not Found", "")
		return
	}
	if n == 0 {
		f.t.Errorf("listed comments of issue 0 (every comment of the repository)")
	}
	cs := f.issueComments(n)
	sort.Slice(cs, func(i, j int) bool { return cs[i].ID < cs[j].ID })
	lo, hi, ok := paginate(w, r, len(cs))
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, c := range cs[lo:hi] {
		out = append(out, f.commentJSON(r, c))
	}
	writeJSON(w, http.StatusOK, out)
}

// readBody decodes a write request, which must be {"body": "..."} only.
func (f *fakeGitHub) readBody(w http.ResponseWriter, r *http.Request, doc string) (string, bool) {
	if f.readOnly {
		writeError(w, http.StatusForbidden, "Resource not accessible by integration", doc)
		return "", false
	}
	var in map[string]any
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
		writeError(w, http.StatusBadRequest, "Problems parsing JSON", doc)
		return "", false
	}
	body, ok := in["body"].(string)
	if !ok || len(in) != 1 {
		f.t.Errorf("%s %s: request fields %v, want only body", r.Method, r.URL.Path, in)
		writeError(w, http.StatusUnprocessableEntity, "Invalid request.", doc)
		return "", false
	}
	if utf8.RuneCountInString(body) > 65536 {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
			"message": "Validation Failed",
			"errors": []map[string]any{{"resource": "IssueComment", "code": "unprocessable", "field": "data",
				"message": "Body is too long (maximum is 65536 characters)"}},
			"documentation_url": doc,
		})
		return "", false
	}
	return body, true
}

func (f *fakeGitHub) createComment(w http.ResponseWriter, r *http.Request) {
	const doc = "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
	n, err := strconv.Atoi(r.PathValue("number"))
	f.mu.Lock()
	_, isPull := f.pulls[n]
	f.mu.Unlock()
	if err != nil || !isPull {
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	body, ok := f.readBody(w, r, doc)
	if !ok {
		return
	}
	f.mu.Lock()
	c := f.addLocked(n, botLogin, body)
	js := f.commentJSON(r, c)
	f.mu.Unlock()
	w.Header().Set("Location", js["url"].(string))
	writeJSON(w, http.StatusCreated, js)
}

func (f *fakeGitHub) editComment(w http.ResponseWriter, r *http.Request) {
	const doc = "https://docs.github.com/rest/issues/comments#update-an-issue-comment"
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		writeError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	body, ok := f.readBody(w, r, doc)
	if !ok {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, c := range f.comments {
		if c.ID == id {
			f.clock = f.clock.Add(time.Minute)
			c.Body, c.Updated = body, f.clock
			writeJSON(w, http.StatusOK, f.commentJSON(r, c))
			return
		}
	}
	writeError(w, http.StatusNotFound, "Not Found", doc)
}

func (f *fakeGitHub) pullJSON(r *http.Request, p *fakePull) map[string]any {
	owner, repo := r.PathValue("owner"), r.PathValue("repo")
	headRepo := p.HeadRepo
	if headRepo == "" {
		headRepo = owner + "/" + repo
	}
	return map[string]any{
		"id":       int64(p.Number) * 7919,
		"node_id":  fmt.Sprintf("PR_kwDO%06d", p.Number),
		"number":   p.Number,
		"state":    p.State,
		"html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", owner, repo, p.Number),
		"head": map[string]any{
			"label": strings.Split(headRepo, "/")[0] + ":feature",
			"ref":   "feature", "sha": p.HeadSHA,
			"repo": map[string]any{"full_name": headRepo, "fork": p.HeadRepo != ""},
		},
		"base": map[string]any{"label": owner + ":main", "ref": "main", "sha": strings.Repeat("b", 40),
			"repo": map[string]any{"full_name": owner + "/" + repo}},
	}
}

func (f *fakeGitHub) getPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("number"))
	f.mu.Lock()
	p, ok := f.pulls[n]
	f.mu.Unlock()
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/pulls/pulls#get-a-pull-request")
		return
	}
	writeJSON(w, http.StatusOK, f.pullJSON(r, p))
}

func (f *fakeGitHub) sortedPulls(keep func(*fakePull) bool) []*fakePull {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*fakePull
	for _, p := range f.pulls {
		if keep(p) {
			out = append(out, p)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number > out[j].Number }) // newest first, like GitHub
	return out
}

func (f *fakeGitHub) listPulls(w http.ResponseWriter, r *http.Request) {
	state := r.URL.Query().Get("state")
	if state == "" {
		state = "open"
	}
	ps := f.sortedPulls(func(p *fakePull) bool { return state == "all" || p.State == state })
	f.writePulls(w, r, ps)
}

func (f *fakeGitHub) writePulls(w http.ResponseWriter, r *http.Request, ps []*fakePull) {
	lo, hi, ok := paginate(w, r, len(ps))
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, p := range ps[lo:hi] {
		out = append(out, f.pullJSON(r, p))
	}
	writeJSON(w, http.StatusOK, out)
}

// commitPulls lists pull requests (open or closed) whose head is the
// commit, except those whose commits only exist in a fork.
func (f *fakeGitHub) commitPulls(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("sha")
	ps := f.sortedPulls(func(p *fakePull) bool { return !p.Fork && p.HeadSHA == sha })
	known := len(ps) > 0
	f.mu.Lock()
	for _, p := range f.pulls {
		if p.HeadSHA == sha && !p.Fork {
			known = true
		}
	}
	f.mu.Unlock()
	if !known && strings.HasPrefix(sha, "0") {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+sha,
			"https://docs.github.com/rest/commits/commits#list-pull-requests-associated-with-a-commit")
		return
	}
	f.writePulls(w, r, ps)
}
