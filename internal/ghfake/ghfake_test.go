package ghfake

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestListPagingAndShape(t *testing.T) {
	s := New(t, "o", "r", 7)
	for i := range 5 {
		s.Add(Artifact{ID: int64(i + 1), Name: "a", CreatedAt: time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC), RepositoryID: 7, HeadRepositoryID: 7, HeadBranch: "main"})
	}
	s.Add(Artifact{ID: 9, Name: "b"})
	resp, err := http.Get(s.BaseURL() + "repos/o/r/actions/artifacts?name=a&per_page=2&page=2")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body struct {
		TotalCount int              `json:"total_count"`
		Artifacts  []map[string]any `json:"artifacts"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if body.TotalCount != 5 || len(body.Artifacts) != 2 || body.Artifacts[0]["id"] != float64(3) {
		t.Fatalf("page 2: %+v", body)
	}
	for _, k := range []string{"id", "node_id", "name", "size_in_bytes", "url", "archive_download_url", "expired", "created_at", "updated_at", "expires_at", "workflow_run"} {
		if _, ok := body.Artifacts[0][k]; !ok {
			t.Errorf("artifact lacks %q", k)
		}
	}
	if got := body.Artifacts[0]["created_at"]; got != "2026-01-01T00:00:02Z" {
		t.Errorf("created_at %v", got)
	}
	link := resp.Header.Get("Link")
	for _, w := range []string{`page=3&per_page=2>; rel="next"`, `page=1&per_page=2>; rel="prev"`, `page=3&per_page=2>; rel="last"`, `page=1&per_page=2>; rel="first"`, "name=a", s.BaseURL() + "repos/o/r/actions/artifacts?"} {
		if !strings.Contains(link, w) {
			t.Errorf("Link %q lacks %q", link, w)
		}
	}
}

func TestZipRedirectAndStorageAuth(t *testing.T) {
	s := New(t, "o", "r", 7)
	s.Add(Artifact{ID: 3, Name: "a", Zip: []byte("PK-data")})
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(c *http.Client, url, auth string) *http.Response {
		req, _ := http.NewRequest("GET", url, nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	if r := get(noRedirect, s.BaseURL()+"repos/o/r/actions/artifacts/3/zip", ""); r.StatusCode != http.StatusUnauthorized {
		t.Errorf("zip without token: %d", r.StatusCode)
	}
	r := get(noRedirect, s.BaseURL()+"repos/o/r/actions/artifacts/3/zip", "Bearer x")
	loc := r.Header.Get("Location")
	if r.StatusCode != http.StatusFound || !strings.HasPrefix(loc, s.Storage.URL) {
		t.Fatalf("zip: %d %q", r.StatusCode, loc)
	}
	if r := get(http.DefaultClient, loc, "Bearer x"); r.StatusCode != http.StatusForbidden {
		t.Errorf("storage with a token: %d, want 403", r.StatusCode)
	}
	r = get(http.DefaultClient, loc, "")
	b, _ := io.ReadAll(r.Body)
	if r.StatusCode != http.StatusOK || string(b) != "PK-data" || r.ContentLength != 7 {
		t.Errorf("storage: %d %q %d", r.StatusCode, b, r.ContentLength)
	}
	if n := s.Count(RouteStorage); n != 2 {
		t.Errorf("storage count %d", n)
	}
	// Faults are served in order, then normal answers resume.
	s.Fail(RouteList, Status(http.StatusInternalServerError, "boom"))
	if r := get(http.DefaultClient, s.BaseURL()+"repos/o/r/actions/artifacts", ""); r.StatusCode != 500 {
		t.Errorf("fault: %d", r.StatusCode)
	}
	if r := get(http.DefaultClient, s.BaseURL()+"repos/o/r/actions/artifacts", ""); r.StatusCode != 200 {
		t.Errorf("after fault: %d", r.StatusCode)
	}
}

func TestIssuesRoutes(t *testing.T) {
	s := New(t, "o", "r", 7)
	s.AcceptTokens("tok")
	is := s.ServeIssues()
	is.AddPull(PullRequest{Number: 1, HeadSHA: "a"})
	is.AddPull(PullRequest{Number: 2, HeadSHA: "b", State: "closed"})
	is.AddPull(PullRequest{Number: 3, HeadSHA: "c", HeadRepo: "fork/r", Fork: true})
	is.UnknownCommit("c")
	for range 3 {
		is.AddComment(1, "octocat", "hi")
	}
	do := func(method, path, auth, body string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(method, s.BaseURL()+path, strings.NewReader(body))
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if r, b := do("GET", "repos/o/r/pulls/1", "Bearer wrong", ""); r.StatusCode != 401 || !strings.Contains(b, "Bad credentials") {
		t.Errorf("wrong token: %d %s", r.StatusCode, b)
	}
	if r, b := do("GET", "repos/o/r/pulls/1", "", ""); r.StatusCode != 401 || !strings.Contains(b, "Requires authentication") {
		t.Errorf("no token: %d %s", r.StatusCode, b)
	}
	r, b := do("GET", "repos/o/r/issues/1/comments?per_page=2", "Bearer tok", "")
	if r.StatusCode != 200 || !strings.Contains(r.Header.Get("Link"), `page=2&per_page=2>; rel="next"`) || !strings.Contains(b, `"login":"octocat"`) || !strings.Contains(b, `"type":"User"`) {
		t.Errorf("list comments: %d %q %s", r.StatusCode, r.Header.Get("Link"), b)
	}
	r, b = do("POST", "repos/o/r/issues/1/comments", "token tok", `{"body":"new"}`)
	if r.StatusCode != 201 || !strings.HasSuffix(r.Header.Get("Location"), "/repos/o/r/issues/comments/1004") || !strings.Contains(b, `"login":"`+BotLogin+`"`) {
		t.Errorf("create: %d %q %s", r.StatusCode, r.Header.Get("Location"), b)
	}
	if r, b := do("POST", "repos/o/r/issues/9/comments", "Bearer tok", `{"body":"x"}`); r.StatusCode != 404 {
		t.Errorf("create on an unknown pull request: %d %s", r.StatusCode, b)
	}
	long := strings.Repeat("é", MaxCommentChars+1)
	if r, b := do("PATCH", "repos/o/r/issues/comments/1004", "Bearer tok", `{"body":"`+long+`"}`); r.StatusCode != 422 || !strings.Contains(b, "Body is too long") {
		t.Errorf("too long: %d %.200s", r.StatusCode, b)
	}
	if r, b := do("PATCH", "repos/o/r/issues/comments/1004", "Bearer tok", `{"body":"`+long[:2*MaxCommentChars]+`"}`); r.StatusCode != 200 || is.Comment(1004).Body != long[:2*MaxCommentChars] {
		t.Errorf("at the limit: %d %.200s", r.StatusCode, b)
	}
	is.SetReadOnly(true)
	if r, _ := do("PATCH", "repos/o/r/issues/comments/1004", "Bearer tok", `{"body":"x"}`); r.StatusCode != 403 {
		t.Errorf("read-only: %d", r.StatusCode)
	}
	if _, b := do("GET", "repos/o/r/pulls?state=all", "Bearer tok", ""); strings.Index(b, `"number":3`) > strings.Index(b, `"number":2`) || !strings.Contains(b, `"repo":{"fork":true,"full_name":"fork/r"}`) {
		t.Errorf("pulls: want newest first and the fork's head repo: %s", b)
	}
	if _, b := do("GET", "repos/o/r/pulls", "Bearer tok", ""); strings.Contains(b, `"number":2`) {
		t.Errorf("closed pull request listed as open: %s", b)
	}
	if r, _ := do("GET", "repos/o/r/commits/c/pulls", "Bearer tok", ""); r.StatusCode != 422 {
		t.Errorf("unknown commit: %d", r.StatusCode)
	}
	if _, b := do("GET", "repos/o/r/commits/b/pulls", "Bearer tok", ""); !strings.Contains(b, `"number":2`) {
		t.Errorf("commit pulls: %s", b)
	}
	want := []string{"GET /repos/o/r/pulls/1", "GET /repos/o/r/pulls/1", "GET /repos/o/r/issues/1/comments?per_page=2"}
	for i, r := range s.Requests()[:3] {
		if r.String() != want[i] {
			t.Errorf("request %d = %q, want %q", i, r, want[i])
		}
	}
	if s.Count(RouteEditComment) != 3 {
		t.Errorf("edits counted: %d", s.Count(RouteEditComment))
	}
	s.ResetRequests()
	if s.Count("") != 0 {
		t.Error("ResetRequests kept requests")
	}
}

func TestRunsFilteringPagingAndCap(t *testing.T) {
	s := New(t, "o", "r", 7)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// 1,005 successful push runs on main (oldest first), one on dev, one
	// failed, and a fork's artifact (a pull_request run by default).
	for i := range 1005 {
		s.AddRuns(Run{ID: int64(i + 1), Event: "push", Conclusion: "success", HeadBranch: "main", RepositoryID: 7, HeadRepositoryID: 7, CreatedAt: t0.Add(time.Duration(i) * time.Second)})
	}
	s.AddRuns(Run{ID: 5000, Event: "push", Conclusion: "success", HeadBranch: "dev", RepositoryID: 7, HeadRepositoryID: 7, CreatedAt: t0.Add(time.Hour)},
		Run{ID: 5001, Event: "push", Conclusion: "failure", HeadBranch: "main", RepositoryID: 7, HeadRepositoryID: 7, CreatedAt: t0.Add(time.Hour)})
	s.Add(Artifact{ID: 1, Name: "a", RunID: 6000, RepositoryID: 7, HeadRepositoryID: 8, HeadBranch: "main", CreatedAt: t0.Add(2 * time.Hour)},
		Artifact{ID: 2, Name: "a", RunID: 1005, RepositoryID: 7, HeadRepositoryID: 7, HeadBranch: "main", CreatedAt: t0},
		Artifact{ID: 3, Name: "b", RunID: 1005, RepositoryID: 7, HeadRepositoryID: 7, HeadBranch: "main", CreatedAt: t0})
	get := func(path string, v any) *http.Response {
		t.Helper()
		resp, err := http.Get(s.BaseURL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var runs struct {
		TotalCount int              `json:"total_count"`
		Runs       []map[string]any `json:"workflow_runs"`
	}
	resp := get("repos/o/r/actions/runs?branch=main&event=push&status=success&per_page=20", &runs)
	if runs.TotalCount != 1000 || len(runs.Runs) != 20 || runs.Runs[0]["id"] != float64(1005) || runs.Runs[1]["id"] != float64(1004) {
		t.Fatalf("filtered runs: total %d, %d runs, first %v", runs.TotalCount, len(runs.Runs), runs.Runs[0]["id"])
	}
	if !strings.Contains(resp.Header.Get("Link"), `rel="next"`) {
		t.Error("no next link")
	}
	for _, k := range []string{"event", "conclusion", "head_branch", "head_sha", "repository", "head_repository", "workflow_id", "created_at"} {
		if _, ok := runs.Runs[0][k]; !ok {
			t.Errorf("run lacks %q", k)
		}
	}
	get("repos/o/r/actions/runs?event=pull_request", &runs)
	if runs.TotalCount != 1 || runs.Runs[0]["id"] != float64(6000) || runs.Runs[0]["head_repository"].(map[string]any)["id"] != float64(8) {
		t.Errorf("fork run: %+v", runs)
	}
	get("repos/o/r/actions/workflows/rubricgate.yml/runs?branch=dev", &runs)
	if runs.TotalCount != 1 || runs.Runs[0]["id"] != float64(5000) {
		t.Errorf("workflow runs on dev: %+v", runs)
	}
	var arts struct {
		TotalCount int              `json:"total_count"`
		Artifacts  []map[string]any `json:"artifacts"`
	}
	get("repos/o/r/actions/runs/1005/artifacts?name=a", &arts)
	if arts.TotalCount != 1 || arts.Artifacts[0]["id"] != float64(2) {
		t.Errorf("run artifacts: %+v", arts)
	}
}
