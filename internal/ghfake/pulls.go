package ghfake

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// BotLogin is the author of the comments created through the fake API, as
// with the GITHUB_TOKEN of a workflow.
const BotLogin = "github-actions[bot]"

// MaxCommentChars is the longest comment body GitHub accepts, in characters.
const MaxCommentChars = 65536

// PullRequest is one pull request of the fake repository.
type PullRequest struct {
	Number  int
	State   string // "open" (default) or "closed"
	HeadSHA string
	HeadRef string // default "feature"
	BaseRef string // default "main"
	// HeadRepo is the full name of the head repository when it is not the
	// fake repository itself (a fork); head.repo.fork is then true.
	HeadRepo string
	// Fork makes the head commit unknown to GET commits/{sha}/pulls, as it
	// often is for a commit that only exists in a fork.
	Fork bool
}

// Comment is one issue comment of the fake repository.
type Comment struct {
	ID        int64
	Issue     int
	Body      string
	User      string // login of the author
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Issues is the fake's pull requests and issue comments, served once
// ServeIssues is called:
//
//   - GET /repos/o/r/pulls/{n} (RoutePull);
//   - GET /repos/o/r/pulls (RoutePulls; ?state=open|closed|all, newest first,
//     paginated);
//   - GET /repos/o/r/commits/{sha}/pulls (RouteCommitPulls; open and closed
//     pull requests with that head, except Fork ones, newest first,
//     paginated; 422 for a commit marked with UnknownCommit);
//   - GET /repos/o/r/issues/{n}/comments (RouteComments; ascending ids,
//     paginated);
//   - POST /repos/o/r/issues/{n}/comments (RouteCreateComment; 201 with a
//     Location header, authored by BotLogin; 404 unless n is a pull request);
//   - PATCH /repos/o/r/issues/comments/{id} (RouteEditComment; 404 once
//     deleted);
//   - GET /repos/o/r/issues/{n}/events (RouteIssueEvents; the issue's
//     events oldest first, paginated, as "List issue events" documents
//     them: id, node_id, url, actor, event, commit_id, commit_url,
//     created_at, label {name, color} for labeled and unlabeled, and
//     performed_via_github_app; 404 unless n is an issue or pull request).
//
// Writes take {"body": "..."} and nothing else (other fields fail the test),
// answer 422 for a body over MaxCommentChars characters, 401 without an
// Authorization header, and 403 when ReadOnly is set.
type Issues struct {
	s  *Server
	mu sync.Mutex
	// ReadOnly makes every write answer 403 "Resource not accessible by
	// integration", as GitHub does for a fork pull request's token. Set it
	// while no request is in flight.
	ReadOnly bool
	// BeforeEdit, when set, runs before an edit is applied (a test deletes
	// the comment here to play a race). Set it while no request is in flight.
	BeforeEdit func(id int64)
	pulls      map[int]PullRequest
	events     []IssueEvent
	unknown    map[string]bool
	comments   []Comment
	nextID     int64
	clock      time.Time
}

// ServeIssues adds the pull request and comment routes and returns their
// state. Comment ids start at 1001.
func (s *Server) ServeIssues() *Issues {
	is := &Issues{s: s, pulls: map[int]PullRequest{}, unknown: map[string]bool{}, nextID: 1000,
		clock: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)}
	base := "/repos/" + s.Owner + "/" + s.Repo
	s.handle("GET "+base+"/pulls/{n}", RoutePull, is.getPull)
	s.handle("GET "+base+"/pulls", RoutePulls, is.listPulls)
	s.handle("GET "+base+"/commits/{sha}/pulls", RouteCommitPulls, is.pullsForCommit)
	s.handle("GET "+base+"/issues/{n}/comments", RouteComments, is.listComments)
	s.handle("POST "+base+"/issues/{n}/comments", RouteCreateComment, is.createComment)
	s.handle("PATCH "+base+"/issues/comments/{id}", RouteEditComment, is.editComment)
	s.handle("GET "+base+"/issues/{n}/events", RouteIssueEvents, is.listEvents)
	return is
}

// IssueEvent is one event of an issue or pull request's timeline.
type IssueEvent struct {
	ID    int64
	Issue int
	// Actor is the login that did it, Event what ("labeled", "unlabeled",
	// "closed", ...), Label the label's name for labeled and unlabeled.
	Actor, Event, Label string
	CreatedAt           time.Time
}

// AddEvent adds an event to issue n (as if it happened now) and returns
// its id.
func (is *Issues) AddEvent(issue int, actor, event, label string) int64 {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.nextID++
	is.clock = is.clock.Add(time.Minute)
	is.events = append(is.events, IssueEvent{ID: is.nextID, Issue: issue, Actor: actor, Event: event, Label: label, CreatedAt: is.clock})
	return is.nextID
}

func (is *Issues) listEvents(w http.ResponseWriter, r *http.Request) {
	const doc = "https://docs.github.com/rest/issues/events#list-issue-events"
	n, err := strconv.Atoi(r.PathValue("n"))
	is.mu.Lock()
	_, isPull := is.pulls[n]
	var evs []IssueEvent
	for _, e := range is.events {
		if e.Issue == n {
			evs = append(evs, e)
		}
	}
	is.mu.Unlock()
	if err != nil || !isPull {
		apiError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	lo, hi, ok := is.s.paginate(w, r, len(evs))
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, e := range evs[lo:hi] {
		m := map[string]any{
			"id": e.ID, "node_id": fmt.Sprintf("LE_kwDO%08d", e.ID), "url": is.apiURL("issues/events/%d", e.ID),
			"actor": userJSON(e.Actor), "event": e.Event, "commit_id": nil, "commit_url": nil,
			"created_at": e.CreatedAt.UTC().Format(time.RFC3339), "performed_via_github_app": nil,
		}
		if e.Event == "labeled" || e.Event == "unlabeled" {
			m["label"] = map[string]any{"name": e.Label, "color": "f29513"}
		}
		out = append(out, m)
	}
	writeJSON(w, http.StatusOK, out)
}

// AddPull adds or replaces a pull request.
func (is *Issues) AddPull(pr PullRequest) {
	is.mu.Lock()
	defer is.mu.Unlock()
	if pr.State == "" {
		pr.State = "open"
	}
	if pr.HeadRef == "" {
		pr.HeadRef = "feature"
	}
	if pr.BaseRef == "" {
		pr.BaseRef = "main"
	}
	is.pulls[pr.Number] = pr
}

// UnknownCommit makes GET commits/{sha}/pulls answer 422 "No commit found
// for SHA" for sha, as GitHub does for a commit that is not in the
// repository, unless a non-Fork pull request has it as its head.
func (is *Issues) UnknownCommit(sha string) {
	is.mu.Lock()
	defer is.mu.Unlock()
	is.unknown[sha] = true
}

// AddComment adds a comment by user (as if posted earlier) and returns its id.
func (is *Issues) AddComment(issue int, user, body string) int64 {
	is.mu.Lock()
	defer is.mu.Unlock()
	return is.add(issue, user, body).ID
}

// add appends a comment; the caller holds is.mu.
func (is *Issues) add(issue int, user, body string) Comment {
	is.nextID++
	is.clock = is.clock.Add(time.Minute)
	c := Comment{ID: is.nextID, Issue: issue, Body: body, User: user, CreatedAt: is.clock, UpdatedAt: is.clock}
	is.comments = append(is.comments, c)
	return c
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

// Comment returns the comment with the id as it is now, or the zero
// Comment if there is none.
func (is *Issues) Comment(id int64) Comment {
	is.mu.Lock()
	defer is.mu.Unlock()
	for _, c := range is.comments {
		if c.ID == id {
			return c
		}
	}
	return Comment{}
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
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func (is *Issues) apiURL(format string, args ...any) string {
	return fmt.Sprintf("%s%s/repos/%s/%s/", is.s.API.URL, Prefix, is.s.Owner, is.s.Repo) + fmt.Sprintf(format, args...)
}

func (is *Issues) htmlURL(format string, args ...any) string {
	return fmt.Sprintf("https://github.com/%s/%s/", is.s.Owner, is.s.Repo) + fmt.Sprintf(format, args...)
}

// userJSON is a simple user: Bot for a [bot] login, User otherwise.
func userJSON(login string) map[string]any {
	if login == BotLogin {
		return map[string]any{"login": login, "id": 41898282, "node_id": "MDM6Qm90NDE4OTgyODI=", "type": "Bot"}
	}
	h := fnv.New32a()
	h.Write([]byte(login))
	typ := "User"
	if strings.HasSuffix(login, "[bot]") {
		typ = "Bot"
	}
	return map[string]any{"login": login, "id": int64(h.Sum32()), "type": typ}
}

// commentJSON renders an issue comment as the REST API does.
func (is *Issues) commentJSON(c Comment) map[string]any {
	return map[string]any{
		"id":                 c.ID,
		"node_id":            fmt.Sprintf("IC_kwDO%08d", c.ID),
		"url":                is.apiURL("issues/comments/%d", c.ID),
		"html_url":           is.htmlURL("pull/%d#issuecomment-%d", c.Issue, c.ID),
		"issue_url":          is.apiURL("issues/%d", c.Issue),
		"body":               c.Body,
		"user":               userJSON(c.User),
		"created_at":         c.CreatedAt.UTC().Format(time.RFC3339),
		"updated_at":         c.UpdatedAt.UTC().Format(time.RFC3339),
		"author_association": "NONE",
	}
}

// pullJSON renders a pull request as the REST API does (the fields a
// client of head and base needs).
func (is *Issues) pullJSON(pr PullRequest) map[string]any {
	full := is.s.Owner + "/" + is.s.Repo
	headRepo := map[string]any{"id": is.s.RepoID, "full_name": full, "fork": false}
	headOwner := is.s.Owner
	if pr.HeadRepo != "" && pr.HeadRepo != full {
		headRepo = map[string]any{"full_name": pr.HeadRepo, "fork": true}
		headOwner, _, _ = strings.Cut(pr.HeadRepo, "/")
	}
	return map[string]any{
		"id":       int64(pr.Number) * 7919,
		"node_id":  fmt.Sprintf("PR_kwDO%06d", pr.Number),
		"url":      is.apiURL("pulls/%d", pr.Number),
		"html_url": is.htmlURL("pull/%d", pr.Number),
		"number":   pr.Number,
		"state":    pr.State,
		"head": map[string]any{
			"label": headOwner + ":" + pr.HeadRef, "ref": pr.HeadRef, "sha": pr.HeadSHA, "repo": headRepo,
		},
		"base": map[string]any{
			"label": is.s.Owner + ":" + pr.BaseRef, "ref": pr.BaseRef, "sha": strings.Repeat("b", 40),
			"repo": map[string]any{"id": is.s.RepoID, "full_name": full, "fork": false},
		},
	}
}

func (is *Issues) getPull(w http.ResponseWriter, r *http.Request) {
	n, _ := strconv.Atoi(r.PathValue("n"))
	is.mu.Lock()
	pr, ok := is.pulls[n]
	is.mu.Unlock()
	if !ok {
		apiError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/pulls/pulls#get-a-pull-request")
		return
	}
	writeJSON(w, http.StatusOK, is.pullJSON(pr))
}

// sortedPulls returns the pull requests keep accepts, newest (highest
// number) first, as GitHub lists them by default.
func (is *Issues) sortedPulls(keep func(PullRequest) bool) []PullRequest {
	is.mu.Lock()
	defer is.mu.Unlock()
	var out []PullRequest
	for _, pr := range is.pulls {
		if keep(pr) {
			out = append(out, pr)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Number > out[j].Number })
	return out
}

func (is *Issues) listPulls(w http.ResponseWriter, r *http.Request) {
	state := r.URL.Query().Get("state")
	if state == "" {
		state = "open"
	}
	is.writePulls(w, r, is.sortedPulls(func(pr PullRequest) bool { return state == "all" || pr.State == state }))
}

func (is *Issues) pullsForCommit(w http.ResponseWriter, r *http.Request) {
	sha := r.PathValue("sha")
	prs := is.sortedPulls(func(pr PullRequest) bool { return !pr.Fork && pr.HeadSHA == sha })
	is.mu.Lock()
	unknown := is.unknown[sha]
	is.mu.Unlock()
	if len(prs) == 0 && unknown {
		apiError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+sha,
			"https://docs.github.com/rest/commits/commits#list-pull-requests-associated-with-a-commit")
		return
	}
	is.writePulls(w, r, prs)
}

func (is *Issues) writePulls(w http.ResponseWriter, r *http.Request, prs []PullRequest) {
	lo, hi, ok := is.s.paginate(w, r, len(prs))
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, pr := range prs[lo:hi] {
		out = append(out, is.pullJSON(pr))
	}
	writeJSON(w, http.StatusOK, out)
}

func (is *Issues) listComments(w http.ResponseWriter, r *http.Request) {
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil {
		apiError(w, http.StatusNotFound, "Not Found", "https://docs.github.com/rest/issues/comments#list-issue-comments")
		return
	}
	if n == 0 {
		is.s.t.Errorf("ghfake: listed the comments of issue 0 (every comment of the repository)")
	}
	all := is.Comments(n)
	lo, hi, ok := is.s.paginate(w, r, len(all))
	if !ok {
		return
	}
	out := []map[string]any{}
	for _, c := range all[lo:hi] {
		out = append(out, is.commentJSON(c))
	}
	writeJSON(w, http.StatusOK, out)
}

func (is *Issues) createComment(w http.ResponseWriter, r *http.Request) {
	const doc = "https://docs.github.com/rest/issues/comments#create-an-issue-comment"
	n, err := strconv.Atoi(r.PathValue("n"))
	is.mu.Lock()
	_, isPull := is.pulls[n]
	is.mu.Unlock()
	if err != nil || !isPull {
		apiError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	body, ok := is.readBody(w, r, doc)
	if !ok {
		return
	}
	is.mu.Lock()
	js := is.commentJSON(is.add(n, BotLogin, body))
	is.mu.Unlock()
	w.Header().Set("Location", js["url"].(string))
	writeJSON(w, http.StatusCreated, js)
}

func (is *Issues) editComment(w http.ResponseWriter, r *http.Request) {
	const doc = "https://docs.github.com/rest/issues/comments#update-an-issue-comment"
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		apiError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	body, ok := is.readBody(w, r, doc)
	if !ok {
		return
	}
	if is.BeforeEdit != nil {
		is.BeforeEdit(id)
	}
	is.mu.Lock()
	defer is.mu.Unlock()
	for i := range is.comments {
		if c := &is.comments[i]; c.ID == id {
			is.clock = is.clock.Add(time.Minute)
			c.Body, c.UpdatedAt = body, is.clock
			writeJSON(w, http.StatusOK, is.commentJSON(*c))
			return
		}
	}
	apiError(w, http.StatusNotFound, "Not Found", doc)
}

// SetReadOnly sets ReadOnly under the fake's lock: a test that changes it
// while the server runs (a script between two runs) must use this.
func (is *Issues) SetReadOnly(ro bool) {
	is.mu.Lock()
	is.ReadOnly = ro
	is.mu.Unlock()
}

// readBody checks a write (token, ReadOnly) and decodes its request, which
// must be {"body": "..."} only; it answers the request itself when it
// reports false.
func (is *Issues) readBody(w http.ResponseWriter, r *http.Request, doc string) (string, bool) {
	if r.Header.Get("Authorization") == "" {
		apiError(w, http.StatusUnauthorized, "Requires authentication", doc)
		return "", false
	}
	is.mu.Lock()
	ro := is.ReadOnly
	is.mu.Unlock()
	if ro {
		apiError(w, http.StatusForbidden, "Resource not accessible by integration", doc)
		return "", false
	}
	var in map[string]any
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&in); err != nil {
		apiError(w, http.StatusBadRequest, "Problems parsing JSON", doc)
		return "", false
	}
	body, ok := in["body"].(string)
	if !ok || len(in) != 1 {
		is.s.t.Errorf("ghfake: %s %s: request fields %v, want only body", r.Method, r.URL.Path, in)
		apiError(w, http.StatusUnprocessableEntity, "Invalid request.\n\n\"body\" wasn't supplied.", doc)
		return "", false
	}
	if utf8.RuneCountInString(body) > MaxCommentChars {
		writeJSON(w, http.StatusUnprocessableEntity, map[string]any{
			"message": "Validation Failed",
			"errors": []map[string]any{{"resource": "IssueComment", "code": "unprocessable", "field": "data",
				"message": "Body is too long (maximum is 65536 characters)"}},
			"documentation_url": doc,
			"status":            "422",
		})
		return "", false
	}
	return body, true
}
