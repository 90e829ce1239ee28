package ghfake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// PullRequest is one pull request of the fake repository.
type PullRequest struct {
	Number  int
	State   string // "open" (default) or "closed"
	HeadSHA string
	HeadRef string
	BaseRef string
}

// Comment is one issue comment of the fake repository.
type Comment struct {
	ID        int64
	Issue     int
	Body      string
	User      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Issues is the fake's pull requests and issue comments, served once
// ServeIssues is called: GET /repos/o/r/pulls/{n}, GET
// /repos/o/r/commits/{sha}/pulls, GET and POST /repos/o/r/issues/{n}/comments
// (ascending ids, ?per_page= and ?page= with Link headers), PATCH
// /repos/o/r/issues/comments/{id} (404 once deleted).
type Issues struct {
	s  *Server
	mu sync.Mutex
	// ReadOnly makes every write answer 403 "Resource not accessible by
	// integration", as GitHub does for a fork pull request's token.
	ReadOnly bool
	// BeforeEdit, when set, runs before an edit is applied (a test deletes
	// the comment here to play a race).
	BeforeEdit func(id int64)
	pulls      map[int]PullRequest
	comments   []Comment
	nextID     int64
}

// ServeIssues adds the pull request and comment routes and returns their state.
func (s *Server) ServeIssues() *Issues {
	is := &Issues{s: s, pulls: map[int]PullRequest{}, nextID: 1000}
	base := "/repos/" + s.Owner + "/" + s.Repo
	s.Handle("GET "+base+"/pulls/{n}", is.getPull)
	s.Handle("GET "+base+"/commits/{sha}/pulls", is.pullsForCommit)
	s.Handle("GET "+base+"/issues/{n}/comments", is.listComments)
	s.Handle("POST "+base+"/issues/{n}/comments", is.createComment)
	s.Handle("PATCH "+base+"/issues/comments/{id}", is.editComment)
	return is
}

// AddPull adds or replaces a pull request.
func (is *Issues) AddPull(pr PullRequest) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if pr.State == "" {
		pr.State = "open"
	}
	is.pulls[pr.Number] = pr
}

// AddComment adds a comment by user and returns its id.
func (is *Issues) AddComment(issue int, user, body string) int64 {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.add(issue, user, body)
}

func (is *Issues) add(issue int, user, body string) int64 {
	is.nextID++
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(is.nextID) * time.Minute)
	is.comments = append(is.comments, Comment{ID: is.nextID, Issue: issue, Body: body, User: user, CreatedAt: now, UpdatedAt: now})
	return is.nextID
}

// Delete removes a comment.
func (is *Issues) Delete(id int64) {
	is.mu.Lock()
	defer is.mu.Unlock()
	for i, c := range is.comments {
		if c.ID == id {
			is.comments = append(is.comments[:i], is.comments[i+1:]...)
			return
		}
	}
}

// Comments returns the comments on an issue, oldest first.
func (is *Issues) Comments(issue int) []Comment {
	is.mu.Lock()
	defer is.mu.Unlock()
	var out []Comment
	for _, c := range is.comments {
		if c.Issue == issue {
			out = append(out, c)
		}
	}
	return out
}

func (is *Issues) commentJSON(c Comment) map[string]any {
	return map[string]any{
		"id":         c.ID,
		"node_id":    fmt.Sprintf("IC_%d", c.ID),
		"url":        fmt.Sprintf("%s%s/repos/%s/%s/issues/comments/%d", is.s.API.URL, Prefix, is.s.Owner, is.s.Repo, c.ID),
		"html_url":   fmt.Sprintf("https://github.com/%s/%s/pull/%d#issuecomment-%d", is.s.Owner, is.s.Repo, c.Issue, c.ID),
		"issue_url":  fmt.Sprintf("%s%s/repos/%s/%s/issues/%d", is.s.API.URL, Prefix, is.s.Owner, is.s.Repo, c.Issue),
		"body":       c.Body,
		"user":       map[string]any{"login": c.User, "id": 41898282, "type": "Bot"},
		"created_at": c.CreatedAt.Format(time.RFC3339),
		"updated_at": c.UpdatedAt.Format(time.RFC3339),
	}
}

func (is *Issues) pullJSON(pr PullRequest) map[string]any {
	return map[string]any{
		"id":       int64(pr.Number) * 7919,
		"number":   pr.Number,
		"state":    pr.State,
		"html_url": fmt.Sprintf("https://github.com/%s/%s/pull/%d", is.s.Owner, is.s.Repo, pr.Number),
		"head":     map[string]any{"sha": pr.HeadSHA, "ref": pr.HeadRef},
		"base":     map[string]any{"ref": pr.BaseRef},
	}
}

func (is *Issues) getPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	is.mu.Lock()
	pr, ok := is.pulls[n]
	is.mu.Unlock()
	if !ok {
		notFound(w)
		return
	}
	writeJSON(w, http.StatusOK, is.pullJSON(pr))
}

func (is *Issues) pullsForCommit(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("sha")
	is.mu.Lock()
	defer is.mu.Unlock()
	out := []map[string]any{}
	for n := 1; n <= 100000 && len(out) < len(is.pulls); n++ {
		if pr, ok := is.pulls[n]; ok && pr.HeadSHA == sha {
			out = append(out, is.pullJSON(pr))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (is *Issues) listComments(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	all := is.Comments(n)
	perPage, page := 30, 1
	if v, err := strconv.Atoi(r.URL.Query().Get("per_page")); err == nil && v > 0 {
		perPage = min(v, 100)
	}
	if v, err := strconv.Atoi(r.URL.Query().Get("page")); err == nil && v > 0 {
		page = v
	}
	last := max(1, (len(all)+perPage-1)/perPage)
	var links []string
	link := func(p int, rel string) string {
		return fmt.Sprintf(`<%s%s%s?per_page=%d&page=%d>; rel="%s"`, is.s.API.URL, Prefix, r.URL.Path, perPage, p, rel)
	}
	if page < last {
		links = append(links, link(page+1, "next"), link(last, "last"))
	}
	if page > 1 {
		links = append(links, link(1, "first"), link(page-1, "prev"))
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	out := []map[string]any{}
	for i := (page - 1) * perPage; i < min(page*perPage, len(all)); i++ {
		out = append(out, is.commentJSON(all[i]))
	}
	writeJSON(w, http.StatusOK, out)
}

func (is *Issues) forbidden(w http.ResponseWriter) bool {
	is.mu.Lock()
	ro := is.ReadOnly
	is.mu.Unlock()
	if ro {
		writeJSON(w, http.StatusForbidden, map[string]string{"message": "Resource not accessible by integration", "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment"})
	}
	return ro
}

func (is *Issues) createComment(w http.ResponseWriter, r *http.Request) {
	if is.forbidden(w) {
		return
	}
	n, _ := strconv.Atoi(r.PathValue("n"))
	body, ok := decodeBody(w, r)
	if !ok {
		return
	}
	is.mu.Lock()
	is.add(n, "github-actions[bot]", body)
	c := is.comments[len(is.comments)-1]
	is.mu.Unlock()
	writeJSON(w, http.StatusCreated, is.commentJSON(c))
}

func (is *Issues) editComment(w http.ResponseWriter, r *http.Request) {
	if is.forbidden(w) {
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("id"), 10, 64)
	body, ok := decodeBody(w, r)
	if !ok {
		return
	}
	if is.BeforeEdit != nil {
		is.BeforeEdit(id)
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	for i := range is.comments {
		if is.comments[i].ID == id {
			is.comments[i].Body = body
			is.comments[i].UpdatedAt = is.comments[i].UpdatedAt.Add(time.Second)
			writeJSON(w, http.StatusOK, is.commentJSON(is.comments[i]))
			return
		}
	}
	notFound(w)
}

// decodeBody reads {"body": "..."} and answers 422 as GitHub does for a
// body over 65,536 characters.
func decodeBody(w http.ResponseWriter, r *http.Request) (string, bool) {
	var in struct {
		Body *string `json:"body"`
	}
	if err := jsonDecode(r, &in); err != nil || in.Body == nil {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]string{"message": "Invalid request.\n\n\"body\" wasn't supplied."})
		return "", false
	}
	if len([]rune(*in.Body)) > 65536 {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"message": "Validation Failed", "errors": []map[string]string{{"resource": "IssueComment", "code": "custom", "field": "body", "message": "body is too long (maximum is 65536 characters)"}}})
		return "", false
	}
	return *in.Body, true
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
}

func jsonDecode(r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20))
	return dec.Decode(v)
}
