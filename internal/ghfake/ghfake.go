// Package ghfake is an httptest fake of the parts of the GitHub REST API
// rubricgate uses, for tests only. It serves one repository under a path
// prefix (like go-github's own tests), so a request built with an absolute
// path fails loudly, and a second server plays the artifact storage host,
// which refuses any request carrying an Authorization header.
//
// Served: GET /repos/{owner}/{repo}/actions/artifacts (?name=, ?per_page=,
// ?page=, Link headers), GET .../actions/runs and
// .../actions/workflows/{workflow}/runs (?branch=, ?event=, ?status=,
// newest first, at most 1,000 results when filtered, like GitHub), GET
// .../actions/runs/{id}/artifacts (?name=), GET
// .../actions/artifacts/{id}/zip (302 to the storage server, 410 for
// expired artifacts), GET .../branches/{branch} and GET
// .../compare/{base}...{head} over a linear history per branch (see
// SetBranch); pull requests and issue
// comments once ServeIssues is called (see Issues). Other routes can be
// added with Handle. Faults are queued per route with Fail; AcceptTokens
// makes the API check the token; Requests is the request log.
//
// Answers follow GitHub's REST docs: JSON field names and shapes of the
// documented example responses, 1-based ?page=&per_page= pagination
// (default 30, max 100) announced with Link headers, and error bodies with
// message and documentation_url.
package ghfake

import (
	"encoding/base64"
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

	"github.com/google/go-github/v60/github"

	"github.com/rubricgate/rubricgate/internal/ghclient"
)

// Prefix is the path the fake API is mounted under.
const Prefix = "/api-v3"

// Route names for Fail and Count.
const (
	RouteList = "list" // GET /repos/o/r/actions/artifacts
	// RouteRuns is GET /repos/o/r/actions/runs and
	// /repos/o/r/actions/workflows/{workflow}/runs.
	RouteRuns         = "runs"
	RouteRunArtifacts = "run-artifacts" // GET /repos/o/r/actions/runs/{id}/artifacts
	RouteZip          = "zip"           // GET /repos/o/r/actions/artifacts/{id}/zip
	RouteStorage      = "storage"       // GET on the storage server
	RouteOther        = "other"         // routes added with Handle

	RoutePull          = "pull"           // GET /repos/o/r/pulls/{n}
	RoutePulls         = "pulls"          // GET /repos/o/r/pulls
	RouteCommitPulls   = "commit-pulls"   // GET /repos/o/r/commits/{sha}/pulls
	RouteComments      = "comments"       // GET /repos/o/r/issues/{n}/comments
	RouteCreateComment = "create-comment" // POST /repos/o/r/issues/{n}/comments
	RouteEditComment   = "edit-comment"   // PATCH /repos/o/r/issues/comments/{id}
	RouteIssueEvents   = "issue-events"   // GET /repos/o/r/issues/{n}/events
)

// Artifact is one artifact of the fake repository.
type Artifact struct {
	ID               int64
	Name             string
	CreatedAt        time.Time
	ExpiresAt        time.Time // zero: CreatedAt + 90 days
	Expired          bool
	RunID            int64
	RepositoryID     int64
	HeadRepositoryID int64
	HeadBranch       string
	HeadSHA          string
	// Zip is the archive the storage server serves.
	Zip []byte
	// StorageStatus, when set, is the storage server's answer instead of the
	// archive (e.g. 404 or 410).
	StorageStatus int
	// NoContentLength streams the archive without a Content-Length header.
	NoContentLength bool
	// SizeInBytes, when set, is the size the list reports instead of len(Zip).
	SizeInBytes int64

	// The run that made the artifact (RunID) is listed by the runs routes
	// unless added with AddRuns: its event is RunEvent (default "push", or
	// "pull_request" when HeadRepositoryID != RepositoryID, as a fork's run
	// is), its conclusion RunConclusion (default "success"), its workflow
	// file RunWorkflow (default "rubricgate.yml"), created at CreatedAt.
	RunEvent, RunConclusion, RunWorkflow string
	// RunTag makes the run a push of a tag named HeadBranch (GitHub reports
	// its head_branch as the tag's name): its commit is not taken to be on
	// a branch of that name.
	RunTag bool
}

// Run is one workflow run of the fake repository (see AddRuns; runs of
// added artifacts need not be added).
type Run struct {
	ID               int64
	Event            string // e.g. "push", "pull_request"
	Status           string // default "completed"
	Conclusion       string // e.g. "success", "failure"; "" while running
	Workflow         string // workflow file name, default "rubricgate.yml"
	HeadBranch       string
	HeadSHA          string
	RepositoryID     int64
	HeadRepositoryID int64
	CreatedAt        time.Time
	// Tag marks a push of a tag named HeadBranch (head_branch is the tag's
	// name, as GitHub reports it): not a commit of a branch of that name.
	Tag bool
}

// Fault is a canned answer.
type Fault struct {
	Status int
	Header http.Header
	Body   string
}

// Request is one request the fake saw.
type Request struct {
	Route  string
	Method string
	Path   string // path without the prefix; storage: the path on the storage server
	Query  string
	// Auth is the Authorization header, if any.
	Auth string
}

// String is "METHOD /path?query" (path without the prefix), as a request
// log line.
func (r Request) String() string {
	if r.Query == "" {
		return r.Method + " " + r.Path
	}
	return r.Method + " " + r.Path + "?" + r.Query
}

// Server is the fake. Create it with New; it closes itself when the test ends.
type Server struct {
	API     *httptest.Server
	Storage *httptest.Server
	Owner   string
	Repo    string
	// RepoID is the fake repository's id.
	RepoID int64

	t        testing.TB
	mu       sync.Mutex
	arts     []Artifact
	runs     []Run
	faults   map[string][]Fault
	reqs     []Request
	stray    []string
	inner    *http.ServeMux
	perPageD int
	tokens   []string
	// branches are the histories set with SetBranch.
	branches map[string][]string
}

// New starts a fake for owner/repo with the given repository id.
func New(t testing.TB, owner, repo string, repoID int64) *Server {
	t.Helper()
	s := &Server{Owner: owner, Repo: repo, RepoID: repoID, t: t, faults: map[string][]Fault{}, inner: http.NewServeMux(), perPageD: 30}
	base := "/repos/" + owner + "/" + repo
	s.handle("GET "+base+"/actions/artifacts", RouteList, s.list)
	s.handle("GET "+base+"/actions/artifacts/{id}/zip", RouteZip, s.zip)
	s.handle("GET "+base+"/actions/runs", RouteRuns, s.listRuns)
	s.handle("GET "+base+"/actions/workflows/{workflow}/runs", RouteRuns, s.listRuns)
	s.handle("GET "+base+"/actions/runs/{id}/artifacts", RouteRunArtifacts, s.runArtifacts)
	s.handle("GET "+base+"/branches/{branch...}", RouteBranch, s.branch)
	s.handle("GET "+base+"/compare/{basehead...}", RouteCompare, s.compare)
	s.inner.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest")
	})
	outer := http.NewServeMux()
	outer.Handle(Prefix+"/", http.StripPrefix(Prefix, s.inner))
	outer.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.stray = append(s.stray, r.Method+" "+r.URL.String())
		s.mu.Unlock()
		http.Error(w, "ghfake: request outside the API prefix "+Prefix+" (absolute path?): "+r.URL.Path, http.StatusBadRequest)
	})
	s.API = httptest.NewServer(outer)
	s.Storage = httptest.NewServer(http.HandlerFunc(s.storage))
	t.Cleanup(func() {
		s.API.Close()
		s.Storage.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, r := range s.stray {
			t.Errorf("ghfake: request outside the API prefix: %s", r)
		}
	})
	return s
}

// BaseURL is the API base URL, with the trailing slash go-github needs.
func (s *Server) BaseURL() string { return s.API.URL + Prefix + "/" }

// Client returns a go-github client for the fake, authenticated with token
// through the product's own constructor (internal/ghclient).
func (s *Server) Client(token string) *github.Client {
	c := github.NewClient(s.API.Client())
	if token != "" {
		var err error
		if c, err = ghclient.New(s.BaseURL(), token, s.API.Client()); err != nil {
			s.t.Fatalf("ghfake: %v", err)
		}
	}
	u, _ := url.Parse(s.BaseURL())
	c.BaseURL = u
	c.UploadURL = u
	return c
}

// Add adds artifacts; the list answers in the order they were added.
func (s *Server) Add(arts ...Artifact) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.arts = append(s.arts, arts...)
}

// AddRuns adds workflow runs (for runs that made no artifact, or to set a
// run's fields explicitly; an added run wins over one derived from an
// artifact with the same id).
func (s *Server) AddRuns(runs ...Run) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.runs = append(s.runs, runs...)
}

// allRuns returns the added runs and the runs of the artifacts.
func (s *Server) allRuns() []Run {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := map[int64]bool{}
	var out []Run
	for _, r := range s.runs {
		if r.Status == "" {
			r.Status = "completed"
		}
		if r.Workflow == "" {
			r.Workflow = "rubricgate.yml"
		}
		seen[r.ID] = true
		out = append(out, r)
	}
	for _, a := range s.arts {
		if seen[a.RunID] {
			continue
		}
		seen[a.RunID] = true
		r := Run{ID: a.RunID, Event: a.RunEvent, Status: "completed", Conclusion: a.RunConclusion, Workflow: a.RunWorkflow,
			HeadBranch: a.HeadBranch, HeadSHA: a.HeadSHA, RepositoryID: a.RepositoryID, HeadRepositoryID: a.HeadRepositoryID, CreatedAt: a.CreatedAt, Tag: a.RunTag}
		if r.Event == "" {
			r.Event = "push"
			if a.HeadRepositoryID != a.RepositoryID {
				r.Event = "pull_request"
			}
		}
		if r.Conclusion == "" {
			r.Conclusion = "success"
		}
		if r.Workflow == "" {
			r.Workflow = "rubricgate.yml"
		}
		out = append(out, r)
	}
	return out
}

// listRuns serves the workflow runs, newest first, filtered like GitHub.
func (s *Server) listRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	wf := r.PathValue("workflow")
	var sel []Run
	for _, run := range s.allRuns() {
		switch {
		case wf != "" && run.Workflow != wf && strconv.FormatInt(workflowID(run.Workflow), 10) != wf,
			q.Has("branch") && run.HeadBranch != q.Get("branch"),
			q.Has("event") && run.Event != q.Get("event"),
			q.Has("status") && run.Status != q.Get("status") && run.Conclusion != q.Get("status"):
			continue
		}
		sel = append(sel, run)
	}
	sort.SliceStable(sel, func(i, j int) bool {
		if !sel[i].CreatedAt.Equal(sel[j].CreatedAt) {
			return sel[i].CreatedAt.After(sel[j].CreatedAt)
		}
		return sel[i].ID > sel[j].ID
	})
	// GitHub: "up to 1,000 results for each search" with these filters.
	for _, k := range []string{"actor", "branch", "check_suite_id", "created", "event", "head_sha", "status"} {
		if q.Has(k) && len(sel) > 1000 {
			sel = sel[:1000]
		}
	}
	lo, hi, ok := s.paginate(w, r, len(sel))
	if !ok {
		return
	}
	out := make([]map[string]any, 0, hi-lo)
	for _, run := range sel[lo:hi] {
		out = append(out, s.runJSON(run))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(sel), "workflow_runs": out})
}

// workflowID is a stable fake id for a workflow file name.
func workflowID(file string) int64 {
	var h int64 = 7
	for _, c := range file {
		h = (h*31 + int64(c)) % 1_000_000
	}
	return h + 1
}

// runJSON renders a run with the fields of GitHub's documented example.
func (s *Server) runJSON(r Run) map[string]any {
	api := fmt.Sprintf("%s%s/repos/%s/%s", s.API.URL, Prefix, s.Owner, s.Repo)
	repo := func(id int64) map[string]any {
		return map[string]any{"id": id, "name": s.Repo, "full_name": s.Owner + "/" + s.Repo}
	}
	var concl any
	if r.Conclusion != "" {
		concl = r.Conclusion
	}
	return map[string]any{
		"id":              r.ID,
		"name":            strings.TrimSuffix(r.Workflow, ".yml"),
		"node_id":         base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("011:WorkflowRun%d", r.ID))),
		"head_branch":     r.HeadBranch,
		"head_sha":        r.HeadSHA,
		"path":            ".github/workflows/" + r.Workflow,
		"run_number":      r.ID,
		"run_attempt":     1,
		"event":           r.Event,
		"status":          r.Status,
		"conclusion":      concl,
		"workflow_id":     workflowID(r.Workflow),
		"url":             fmt.Sprintf("%s/actions/runs/%d", api, r.ID),
		"artifacts_url":   fmt.Sprintf("%s/actions/runs/%d/artifacts", api, r.ID),
		"pull_requests":   []any{},
		"created_at":      r.CreatedAt.UTC().Format(time.RFC3339),
		"updated_at":      r.CreatedAt.UTC().Format(time.RFC3339),
		"run_started_at":  r.CreatedAt.UTC().Format(time.RFC3339),
		"repository":      repo(r.RepositoryID),
		"head_repository": repo(r.HeadRepositoryID),
	}
}

// runArtifacts serves one run's artifacts (?name= filters).
func (s *Server) runArtifacts(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		apiError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/actions/artifacts#list-workflow-run-artifacts")
		return
	}
	q := r.URL.Query()
	s.mu.Lock()
	var sel []Artifact
	for _, a := range s.arts {
		if a.RunID == id && (!q.Has("name") || a.Name == q.Get("name")) {
			sel = append(sel, a)
		}
	}
	s.mu.Unlock()
	lo, hi, ok := s.paginate(w, r, len(sel))
	if !ok {
		return
	}
	out := make([]map[string]any, 0, hi-lo)
	for _, a := range sel[lo:hi] {
		out = append(out, s.artifactJSON(a))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(sel), "artifacts": out})
}

// AcceptTokens makes the API check the token, as for a private repository:
// a request whose Authorization header is not "Bearer " (or "token ") and
// one of tokens gets 401 "Bad credentials" ("Requires authentication" when
// it has none) before any queued fault. Without a call any token, or none,
// is accepted. The storage server never checks tokens.
func (s *Server) AcceptTokens(tokens ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.tokens = append(s.tokens, tokens...)
}

// authorized reports whether the Authorization header carries an accepted
// token (any header passes when no tokens were set).
func (s *Server) authorized(auth string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.tokens) == 0 {
		return true
	}
	scheme, tok, ok := strings.Cut(auth, " ")
	if !ok || !strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token") {
		return false
	}
	for _, t := range s.tokens {
		if t == tok {
			return true
		}
	}
	return false
}

// Fail queues faults for a route: the next requests to it get them, in order.
func (s *Server) Fail(route string, faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[route] = append(s.faults[route], faults...)
}

// Handle adds a route under the prefix, e.g. "GET /repos/o/r/labels".
// Requests to it are counted as RouteOther.
func (s *Server) Handle(pattern string, h http.HandlerFunc) {
	s.handle(pattern, RouteOther, h)
}

// handle adds an API route: its requests are logged under route, checked
// for the token and answered by a queued fault before h runs.
func (s *Server) handle(pattern, route string, h http.HandlerFunc) {
	s.inner.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if s.record(route, r, w) {
			return
		}
		h(w, r)
	})
}

// Requests returns the requests seen so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// ResetRequests empties the request log (Requests and Count).
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}

// Count returns the number of requests seen on a route ("" for all).
func (s *Server) Count(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, r := range s.reqs {
		if route == "" || r.Route == route {
			n++
		}
	}
	return n
}

// record logs a request, then answers it if the token is refused (API
// routes only) or a fault is queued for route, reporting whether it did.
func (s *Server) record(route string, r *http.Request, w http.ResponseWriter) bool {
	auth := r.Header.Get("Authorization")
	s.mu.Lock()
	s.reqs = append(s.reqs, Request{Route: route, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Auth: auth})
	s.mu.Unlock()
	if route != RouteStorage && !s.authorized(auth) {
		if auth == "" {
			apiError(w, http.StatusUnauthorized, "Requires authentication", "https://docs.github.com/rest")
		} else {
			apiError(w, http.StatusUnauthorized, "Bad credentials", "https://docs.github.com/rest")
		}
		return true
	}
	s.mu.Lock()
	var f *Fault
	if q := s.faults[route]; len(q) > 0 {
		f = &q[0]
		s.faults[route] = q[1:]
	}
	s.mu.Unlock()
	if f == nil {
		return false
	}
	for k, vs := range f.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	if f.Body != "" && w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
	}
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(f.Body))
	return true
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	name, byName := q.Get("name"), q.Has("name")
	s.mu.Lock()
	var sel []Artifact
	for _, a := range s.arts {
		if !byName || a.Name == name {
			sel = append(sel, a)
		}
	}
	s.mu.Unlock()
	lo, hi, ok := s.paginate(w, r, len(sel))
	if !ok {
		return
	}
	out := make([]map[string]any, 0, hi-lo)
	for _, a := range sel[lo:hi] {
		out = append(out, s.artifactJSON(a))
	}
	writeJSON(w, http.StatusOK, map[string]any{"total_count": len(sel), "artifacts": out})
}

// paginate cuts n items into the page ?page= and ?per_page= ask for
// (1-based; default 30, at most 100) and sets the Link header (prev, next,
// last, first, keeping the other query parameters). It answers 422 itself
// for a page or per_page that is not a positive number.
func (s *Server) paginate(w http.ResponseWriter, r *http.Request, n int) (lo, hi int, ok bool) {
	q := r.URL.Query()
	perPage, page := s.perPageD, 1
	if v := q.Get("per_page"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 {
			apiError(w, http.StatusUnprocessableEntity, "Invalid per_page", "https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api")
			return 0, 0, false
		}
		perPage = min(p, 100)
	}
	if v := q.Get("page"); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 {
			apiError(w, http.StatusUnprocessableEntity, "Invalid page", "https://docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api")
			return 0, 0, false
		}
		page = p
	}
	last := max((n+perPage-1)/perPage, 1)
	var links []string
	link := func(p int, rel string) {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("per_page", strconv.Itoa(perPage))
		v.Set("page", strconv.Itoa(p))
		links = append(links, fmt.Sprintf(`<%s%s%s?%s>; rel="%s"`, s.API.URL, Prefix, r.URL.Path, v.Encode(), rel))
	}
	if page > 1 {
		link(page-1, "prev")
	}
	if page < last {
		link(page+1, "next")
		link(last, "last")
	}
	if page > 1 {
		link(1, "first")
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo, hi = min((page-1)*perPage, n), min(page*perPage, n)
	return lo, hi, true
}

// artifactJSON renders an artifact exactly as the REST API does.
func (s *Server) artifactJSON(a Artifact) map[string]any {
	exp := a.ExpiresAt
	if exp.IsZero() {
		exp = a.CreatedAt.Add(90 * 24 * time.Hour)
	}
	size := a.SizeInBytes
	if size == 0 {
		size = int64(len(a.Zip))
	}
	api := fmt.Sprintf("%s%s/repos/%s/%s/actions/artifacts/%d", s.API.URL, Prefix, s.Owner, s.Repo, a.ID)
	return map[string]any{
		"id":                   a.ID,
		"node_id":              base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("08:Artifact%d", a.ID))),
		"name":                 a.Name,
		"size_in_bytes":        size,
		"url":                  api,
		"archive_download_url": api + "/zip",
		"expired":              a.Expired,
		"created_at":           a.CreatedAt.UTC().Format(time.RFC3339),
		"updated_at":           a.CreatedAt.UTC().Format(time.RFC3339),
		"expires_at":           exp.UTC().Format(time.RFC3339),
		"workflow_run": map[string]any{
			"id":                 a.RunID,
			"repository_id":      a.RepositoryID,
			"head_repository_id": a.HeadRepositoryID,
			"head_branch":        a.HeadBranch,
			"head_sha":           a.HeadSHA,
		},
	}
}

func (s *Server) find(idStr string) (Artifact, bool) {
	id, err := strconv.ParseInt(idStr, 10, 64)
	if err != nil {
		return Artifact{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.arts {
		if a.ID == id {
			return a, true
		}
	}
	return Artifact{}, false
}

func (s *Server) zip(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") == "" {
		apiError(w, http.StatusUnauthorized, "You must have the actions scope to download artifacts.", "https://docs.github.com/rest/actions/artifacts#download-an-artifact")
		return
	}
	a, ok := s.find(r.PathValue("id"))
	if !ok {
		apiError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/actions/artifacts#download-an-artifact")
		return
	}
	if a.Expired {
		apiError(w, http.StatusGone, "Artifact has expired", "https://docs.github.com/rest/actions/artifacts#download-an-artifact")
		return
	}
	loc := fmt.Sprintf("%s/artifacts/%d.zip?sv=2021-12-02&se=%s&sig=c2lnbmF0dXJl", s.Storage.URL, a.ID, url.QueryEscape(time.Now().Add(time.Minute).UTC().Format(time.RFC3339)))
	w.Header().Set("Location", loc)
	w.WriteHeader(http.StatusFound)
}

func (s *Server) storage(w http.ResponseWriter, r *http.Request) {
	if s.record(RouteStorage, r, w) {
		return
	}
	if r.Header.Get("Authorization") != "" {
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(http.StatusForbidden)
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code><Message>Authorization header not allowed with a signed URL</Message></Error>`))
		return
	}
	idStr, ok := strings.CutPrefix(r.URL.Path, "/artifacts/")
	idStr, ok2 := strings.CutSuffix(idStr, ".zip")
	a, found := s.find(idStr)
	if !ok || !ok2 || !found || r.URL.Query().Get("sig") == "" {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	if a.StorageStatus != 0 {
		w.WriteHeader(a.StorageStatus)
		return
	}
	w.Header().Set("Content-Type", "application/zip")
	if !a.NoContentLength {
		w.Header().Set("Content-Length", strconv.Itoa(len(a.Zip)))
	} else if f, ok := w.(http.Flusher); ok {
		w.WriteHeader(http.StatusOK)
		f.Flush() // force chunked encoding: no Content-Length
	}
	_, _ = w.Write(a.Zip)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError writes GitHub's error shape: message, documentation_url and
// the status as a string.
func apiError(w http.ResponseWriter, status int, message, doc string) {
	writeJSON(w, status, map[string]string{"message": message, "documentation_url": doc, "status": strconv.Itoa(status)})
}

// RateLimited is a primary rate-limit answer: 403 with
// X-RateLimit-Remaining: 0 and the reset time.
func RateLimited(reset time.Time) Fault {
	h := http.Header{}
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "0")
	h.Set("X-RateLimit-Used", "5000")
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(reset.Unix(), 10))
	return Fault{Status: http.StatusForbidden, Header: h,
		Body: `{"message":"API rate limit exceeded for installation ID 1.","documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"}`}
}

// SecondaryLimited is a secondary rate-limit answer: 403 with Retry-After.
func SecondaryLimited(retryAfter time.Duration) Fault {
	h := http.Header{}
	h.Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
	return Fault{Status: http.StatusForbidden, Header: h,
		Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.","documentation_url":"https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}
}

// TooMany is a 429 with Retry-After (omitted when retryAfter < 0).
func TooMany(retryAfter time.Duration) Fault {
	h := http.Header{}
	if retryAfter >= 0 {
		h.Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
	}
	return Fault{Status: http.StatusTooManyRequests, Header: h, Body: `{"message":"Too many requests"}`}
}

// Status is a plain JSON error answer with GitHub's message shape.
func Status(code int, message string) Fault {
	return Fault{Status: code, Body: fmt.Sprintf(`{"message":%q,"documentation_url":"https://docs.github.com/rest"}`, message)}
}
