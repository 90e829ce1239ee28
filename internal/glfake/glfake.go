// Package glfake is an httptest fake of GitLab's merge request notes API
// (REST v4), for tests of host/gitlab and of the gate under GitLab CI.
package glfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// Server is an httptest fake of the merge request notes API of GitLab
// REST v4, as GitLab documents it (doc/api/notes.md, doc/api/rest/index.md
// on pagination):
//
//   - GET /api/v4/projects/:id/merge_requests/:iid/notes: ?sort=asc|desc
//     (default desc), ?order_by=created_at|updated_at (default created_at),
//     ?page= (default 1), ?per_page= (default 20, at most 100); headers
//     X-Page, X-Per-Page, X-Next-Page and X-Prev-Page (empty at the ends),
//     X-Total, X-Total-Pages and a Link header (rel next, prev, first, last);
//   - POST .../notes {"body"}: 201 with the note; 400 {"message": {"note":
//     ["is too long (maximum is 1000000 characters)"]}} over 1,000,000
//     characters; 400 {"error": "body is missing"};
//   - PUT .../notes/:note_id {"body"}: 200 with the note; 404 {"message":
//     "404 Not found"} once deleted; 403 for another user's note;
//   - GET /api/v4/projects/:id/merge_requests/:iid (doc/api/merge_requests.md):
//     the merge request, its author Author;
//   - GET .../merge_requests/:iid/resource_label_events
//     (doc/api/resource_label_events.md): the label events oldest first,
//     {"id", "user", "created_at", "resource_type": "MergeRequest",
//     "resource_id", "label": {"id", "name", "color", "description"} (null
//     once the label is deleted), "action": "add"|"remove"}, paginated as
//     the notes are;
//   - GET /api/v4/user (doc/api/users.md, "Get the current user"): the
//     token's user ({"id", "username", "name", "state", ...}); a job token
//     is refused (401): CI_JOB_TOKEN reaches only the endpoints GitLab
//     lists for it, and this is not one.
//
// Authentication: the PRIVATE-TOKEN or JOB-TOKEN header; an unknown or
// missing token is 401 {"message": "401 Unauthorized"}; ReadOnly makes
// writes 403 {"message": "403 Forbidden"}. Unknown projects and merge
// requests are 404 {"message": "404 Project Not Found"}.
type Server struct {
	t *testing.T
	// Srv is the server.
	Srv     *httptest.Server
	mu      sync.Mutex
	project string
	iid     int
	// Tokens maps a token to its username (set before the first request).
	Tokens map[string]string
	notes  []Note
	// NextID is the id of the last note made.
	NextID   int64
	clock    time.Time
	requests []string
	// ReadOnly makes every write 403.
	ReadOnly bool
	// LinkOnly leaves out X-Next-Page, announcing pages with Link only.
	LinkOnly bool
	// BeforePut runs before an edit is applied.
	BeforePut func(id int64)
	// Redirect, when set, answers every request with a 302 there.
	Redirect string
	// Seen records the token headers received, per request.
	Seen []string
	// Author is the merge request's author (set before the first request).
	Author      string
	labelEvents []LabelEvent
}

// LabelEvent is one resource label event of the merge request.
type LabelEvent struct {
	ID     int64
	User   string
	Label  string // "" for a deleted label (null in the answer)
	Action string // "add" or "remove"
}

// AddLabelEvent records that user added ("add") or removed ("remove")
// label.
func (f *Server) AddLabelEvent(user, label, action string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.NextID++
	f.labelEvents = append(f.labelEvents, LabelEvent{ID: f.NextID, User: user, Label: label, Action: action})
}

// Note is a stored note.
type Note struct {
	ID        int64
	Body      string
	User      string
	System    bool
	CreatedAt time.Time
}

// New starts the fake for merge request iid of project (closed with the test).
func New(t *testing.T, project string, iid int) *Server {
	f := &Server{t: t, project: project, iid: iid, Tokens: map[string]string{}, NextID: 500,
		clock: time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)}
	mux := http.NewServeMux()
	base := "/api/v4/projects/{id}/merge_requests/{iid}/notes"
	mux.HandleFunc("GET "+base, f.list)
	mux.HandleFunc("POST "+base, f.create)
	mux.HandleFunc("PUT "+base+"/{nid}", f.update)
	mux.HandleFunc("GET /api/v4/user", f.currentUser)
	mux.HandleFunc("GET /api/v4/projects/{id}/merge_requests/{iid}", f.mergeRequest)
	mux.HandleFunc("GET /api/v4/projects/{id}/merge_requests/{iid}/resource_label_events", f.listLabelEvents)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "404 Not Found"})
	})
	f.Srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
		f.Seen = append(f.Seen, r.Header.Get("PRIVATE-TOKEN")+"|"+r.Header.Get("JOB-TOKEN"))
		redirect := f.Redirect
		f.mu.Unlock()
		if redirect != "" {
			http.Redirect(w, r, redirect, http.StatusFound)
			return
		}
		// A path under /moved/ is redirected (308) to the same path
		// without it, on the same host.
		if rest, ok := strings.CutPrefix(r.URL.RequestURI(), "/moved"); ok {
			http.Redirect(w, r, rest, http.StatusPermanentRedirect)
			return
		}
		mux.ServeHTTP(w, r)
	}))
	t.Cleanup(f.Srv.Close)
	return f
}

// APIURL is the fake's API root.
func (f *Server) APIURL() string { return f.Srv.URL + "/api/v4" }

// Add adds a note by user, as posted earlier.
func (f *Server) Add(user, body string, system bool) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.addLocked(user, body, system).ID
}

func (f *Server) addLocked(user, body string, system bool) Note {
	f.NextID++
	f.clock = f.clock.Add(time.Minute)
	n := Note{ID: f.NextID, Body: body, User: user, System: system, CreatedAt: f.clock}
	f.notes = append(f.notes, n)
	return n
}

// Delete removes a note.
func (f *Server) Delete(id int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, n := range f.notes {
		if n.ID == id {
			f.notes = append(f.notes[:i], f.notes[i+1:]...)
			return
		}
	}
}

// Get returns a note.
func (f *Server) Get(id int64) (Note, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, n := range f.notes {
		if n.ID == id {
			return n, true
		}
	}
	return Note{}, false
}

// Log returns the requests received ("METHOD URI").
func (f *Server) Log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// auth returns the username of the request's token, or answers 401.
func (f *Server) auth(w http.ResponseWriter, r *http.Request) (string, bool) {
	tok := r.Header.Get("PRIVATE-TOKEN")
	if tok == "" {
		tok = r.Header.Get("JOB-TOKEN")
	}
	f.mu.Lock()
	user, ok := f.Tokens[tok]
	f.mu.Unlock()
	if tok == "" || !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "401 Unauthorized"})
		return "", false
	}
	if r.PathValue("id") != f.project || r.PathValue("iid") != strconv.Itoa(f.iid) {
		writeJSON(w, http.StatusNotFound, map[string]any{"message": "404 Project Not Found"})
		return "", false
	}
	return user, true
}

// userJSON is a user as GitLab's API shows one (the basic fields).
func userJSON(user string) map[string]any {
	return map[string]any{"id": len(user), "username": user, "name": user, "state": "active",
		"avatar_url": "https://gitlab.example/uploads/" + user + ".png", "web_url": "https://gitlab.example/" + user}
}

func (f *Server) currentUser(w http.ResponseWriter, r *http.Request) {
	tok := r.Header.Get("PRIVATE-TOKEN")
	f.mu.Lock()
	user, ok := f.Tokens[tok]
	f.mu.Unlock()
	if tok == "" || !ok {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"message": "401 Unauthorized"})
		return
	}
	u := userJSON(user)
	u["bot"] = strings.HasPrefix(user, "project_")
	u["created_at"] = "2026-10-01T09:00:00.000Z"
	writeJSON(w, http.StatusOK, u)
}

func (f *Server) mergeRequest(w http.ResponseWriter, r *http.Request) {
	if _, ok := f.auth(w, r); !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": 377, "iid": f.iid, "project_id": 42, "title": "a change", "state": "opened",
		"author": userJSON(f.Author), "labels": []string{}, "draft": false, "source_branch": "feature", "target_branch": "main"})
}

func (f *Server) listLabelEvents(w http.ResponseWriter, r *http.Request) {
	if _, ok := f.auth(w, r); !ok {
		return
	}
	f.mu.Lock()
	evs := append([]LabelEvent(nil), f.labelEvents...)
	f.mu.Unlock()
	out := []map[string]any{}
	f.page(w, r, len(evs), func(i int) {
		e := evs[i]
		var label any
		if e.Label != "" {
			label = map[string]any{"id": len(e.Label), "name": e.Label, "color": "#34495E", "description": ""}
		}
		out = append(out, map[string]any{"id": e.ID, "user": userJSON(e.User), "created_at": "2026-11-01T09:00:00.000Z",
			"resource_type": "MergeRequest", "resource_id": 377, "label": label, "action": e.Action})
	})
	writeJSON(w, http.StatusOK, out)
}

func (f *Server) noteJSON(n Note) map[string]any {
	return map[string]any{
		"id": n.ID, "type": nil, "body": n.Body, "attachment": nil,
		"author":     userJSON(n.User),
		"created_at": n.CreatedAt.Format(time.RFC3339Nano), "updated_at": n.CreatedAt.Format(time.RFC3339Nano),
		"system": n.System, "noteable_id": 377, "noteable_type": "MergeRequest", "project_id": 42,
		"resolvable": false, "confidential": false, "internal": false, "noteable_iid": f.iid, "commands_changes": map[string]any{},
	}
}

func (f *Server) list(w http.ResponseWriter, r *http.Request) {
	if _, ok := f.auth(w, r); !ok {
		return
	}
	f.mu.Lock()
	notes := append([]Note(nil), f.notes...)
	f.mu.Unlock()
	if r.URL.Query().Get("sort") != "asc" { // GitLab's default is desc
		for i, j := 0, len(notes)-1; i < j; i, j = i+1, j-1 {
			notes[i], notes[j] = notes[j], notes[i]
		}
	}
	out := []map[string]any{}
	f.page(w, r, len(notes), func(i int) { out = append(out, f.noteJSON(notes[i])) })
	writeJSON(w, http.StatusOK, out)
}

// page serves one page of total entries as GitLab's offset pagination
// does (?page=, default 1; ?per_page=, default 20, at most 100): it calls
// add for each index on the page and sets the pagination headers.
func (f *Server) page(w http.ResponseWriter, r *http.Request, total int, add func(i int)) {
	q := r.URL.Query()
	page, perPage := 1, 20
	if v := q.Get("page"); v != "" {
		page, _ = strconv.Atoi(v)
		page = max(page, 1)
	}
	if v := q.Get("per_page"); v != "" {
		perPage, _ = strconv.Atoi(v)
		perPage = min(max(perPage, 1), 100)
	}
	pages := max(1, (total+perPage-1)/perPage)
	lo, hi := min((page-1)*perPage, total), min(page*perPage, total)
	for i := lo; i < hi; i++ {
		add(i)
	}
	h := w.Header()
	link := func(p int) string {
		u := *r.URL
		qq := u.Query()
		qq.Set("page", strconv.Itoa(p))
		qq.Set("per_page", strconv.Itoa(perPage))
		u.RawQuery = qq.Encode()
		return "http://" + r.Host + u.RequestURI()
	}
	var links []string
	next, prev := "", ""
	if page < pages {
		next = strconv.Itoa(page + 1)
		links = append(links, fmt.Sprintf("<%s>; rel=\"next\"", link(page+1)))
	}
	if page > 1 {
		prev = strconv.Itoa(page - 1)
		links = append(links, fmt.Sprintf("<%s>; rel=\"prev\"", link(page-1)))
	}
	links = append(links, fmt.Sprintf("<%s>; rel=\"first\"", link(1)), fmt.Sprintf("<%s>; rel=\"last\"", link(pages)))
	h.Set("Link", strings.Join(links, ", "))
	if !f.LinkOnly {
		h.Set("X-Next-Page", next)
	}
	h.Set("X-Prev-Page", prev)
	h.Set("X-Page", strconv.Itoa(page))
	h.Set("X-Per-Page", strconv.Itoa(perPage))
	h.Set("X-Total", strconv.Itoa(total))
	h.Set("X-Total-Pages", strconv.Itoa(pages))
}

// body reads {"body": ...}; any other field fails the test.
func (f *Server) body(w http.ResponseWriter, r *http.Request) (string, bool) {
	data, _ := io.ReadAll(r.Body)
	var in map[string]any
	if err := json.Unmarshal(data, &in); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body is invalid"})
		return "", false
	}
	for k := range in {
		if k != "body" {
			f.t.Errorf("fake GitLab: unexpected field %q", k)
		}
	}
	b, _ := in["body"].(string)
	if b == "" {
		writeJSON(w, http.StatusBadRequest, map[string]any{"error": "body is missing"})
		return "", false
	}
	if utf8.RuneCountInString(b) > 1_000_000 {
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": map[string]any{"note": []string{"is too long (maximum is 1000000 characters)"}}})
		return "", false
	}
	return b, true
}

func (f *Server) create(w http.ResponseWriter, r *http.Request) {
	user, ok := f.auth(w, r)
	if !ok {
		return
	}
	if f.ReadOnly {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": "403 Forbidden"})
		return
	}
	b, ok := f.body(w, r)
	if !ok {
		return
	}
	f.mu.Lock()
	n := f.addLocked(user, b, false)
	f.mu.Unlock()
	writeJSON(w, http.StatusCreated, f.noteJSON(n))
}

func (f *Server) update(w http.ResponseWriter, r *http.Request) {
	user, ok := f.auth(w, r)
	if !ok {
		return
	}
	if f.ReadOnly {
		writeJSON(w, http.StatusForbidden, map[string]any{"message": "403 Forbidden"})
		return
	}
	id, _ := strconv.ParseInt(r.PathValue("nid"), 10, 64)
	b, ok := f.body(w, r)
	if !ok {
		return
	}
	if f.BeforePut != nil {
		f.BeforePut(id)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.notes {
		if f.notes[i].ID != id {
			continue
		}
		if f.notes[i].User != user {
			writeJSON(w, http.StatusForbidden, map[string]any{"message": "403 Forbidden"})
			return
		}
		f.notes[i].Body = b
		writeJSON(w, http.StatusOK, f.noteJSON(f.notes[i]))
		return
	}
	writeJSON(w, http.StatusNotFound, map[string]any{"message": "404 Not found"})
}

// Notes returns the notes, oldest first.
func (f *Server) Notes() []Note {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Note(nil), f.notes...)
}
