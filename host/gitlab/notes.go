package gitlab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
)

// MaxNoteChars is GitLab's limit on a note body, in characters; Notes
// counts bytes, which keeps within it.
const MaxNoteChars = 1_000_000

// maxPages bounds the note listing (100 notes a page); maxResponse caps
// one response body.
const (
	maxPages    = 100
	maxResponse = 16 << 20
)

// Notes keeps one sticky note per key on a merge request, through
// GitLab's REST API (v4):
//
//	GET  /projects/:id/merge_requests/:iid/notes?sort=asc&order_by=created_at&per_page=100&page=N
//	POST /projects/:id/merge_requests/:iid/notes          {"body": ...}
//	PUT  /projects/:id/merge_requests/:iid/notes/:note_id {"body": ...}
//
// The note is found by the same hidden first line as the GitHub comment
// (comment.Marker), never a system note, written by Author, or with Author
// empty by the token's own user, asked of GitLab once
// (GET /user, the username of the token's user: a project access
// token's bot). A note the token may not edit (403: another user's, with
// Author "*") is left alone and a new note is posted. The listing follows
// X-Next-Page (or a Link rel="next" header).
//
// The token goes in the PRIVATE-TOKEN header, or JOB-TOKEN. Go's HTTP
// client forwards custom headers on redirects to any host, so Notes
// refuses a redirect to another host than the API's: the token never
// leaves it. 401 and 403 answers become a *PermissionError, which
// the caller shows as a warning.
type Notes struct {
	// APIURL is the API root, CI_API_V4_URL ("https://gitlab.com/api/v4").
	APIURL string
	// Project is the project id (or its path, which is URL-encoded).
	Project string
	// MergeRequest is the merge request iid.
	MergeRequest int
	// ProjectURL is the project's web address, for the note's link.
	ProjectURL string
	// Token authenticates; never printed.
	Token string
	// JobToken sends Token as JOB-TOKEN instead of PRIVATE-TOKEN.
	JobToken bool
	// Author is the username whose note is adopted: "" for the token's own
	// user (GET /user), "*" for anyone.
	Author string
	// HTTPClient is the client (nil: 30 s timeout). Its CheckRedirect is
	// replaced (on a copy) by the same-host rule.
	HTTPClient *http.Client

	self string // the token's username, once asked
}

// BodyLimit is the largest body Comment accepts for key, in bytes.
func (n *Notes) BodyLimit(key string) int { return MaxNoteChars - len(comment.Marker(key)) - 1 }

type note struct {
	ID     int64  `json:"id"`
	Body   string `json:"body"`
	System bool   `json:"system"`
	Author struct {
		Username string `json:"username"`
	} `json:"author"`
}

// Comment creates or updates the note for key with body.
func (n *Notes) Comment(ctx context.Context, key, body string) (host.CommentResult, error) {
	if n.Token == "" {
		return host.CommentResult{}, errors.New("no GitLab token given; the note was not posted")
	}
	if n.MergeRequest <= 0 {
		return host.CommentResult{}, errors.New("this pipeline is not for a merge request")
	}
	if n.Project == "" || n.Project == "0" {
		return host.CommentResult{}, errors.New("no project id (CI_PROJECT_ID)")
	}
	if strings.Contains(body, "<!-- rubricgate:comment") {
		return host.CommentResult{}, errors.New("note body contains a rubricgate marker; Comment adds the marker itself")
	}
	marker := comment.Marker(key)
	full := marker + "\n" + body
	if len(full) > MaxNoteChars {
		return host.CommentResult{}, fmt.Errorf("note body is %d bytes with the marker line, GitLab accepts at most %d characters: %w", len(full), MaxNoteChars, comment.ErrBodyTooLong)
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	base, err := n.notesURL()
	if err != nil {
		return host.CommentResult{}, err
	}
	existing, err := n.find(ctx, base, marker)
	if err != nil {
		return host.CommentResult{}, err
	}
	if existing != nil {
		if existing.Body == full {
			return host.CommentResult{Action: comment.ActionUnchanged, URL: n.noteURL(existing.ID)}, nil
		}
		var out note
		status, err := n.do(ctx, http.MethodPut, base+"/"+strconv.FormatInt(existing.ID, 10), full, &out, nil)
		switch {
		case err == nil:
			return host.CommentResult{Action: comment.ActionUpdated, URL: n.noteURL(out.ID)}, nil
		case status != http.StatusNotFound && status != http.StatusForbidden:
			return host.CommentResult{}, err
		}
		// Deleted between listing and editing, or a note the token may
		// not edit (another user's, which GitLab refuses with 403): a new
		// one. A token that may not write at all fails on the post.
	}
	var out note
	if _, err := n.do(ctx, http.MethodPost, base, full, &out, nil); err != nil {
		return host.CommentResult{}, err
	}
	return host.CommentResult{Action: comment.ActionCreated, URL: n.noteURL(out.ID)}, nil
}

// Existing returns the body of the sticky note for key (without its
// marker line), and whether there is one: the gate reads back its own
// record from it. Only a note by the adopted user counts (see [Notes]).
func (n *Notes) Existing(ctx context.Context, key string) (string, bool, error) {
	if n.Token == "" {
		return "", false, errors.New("no GitLab token given")
	}
	if n.MergeRequest <= 0 {
		return "", false, errors.New("this pipeline is not for a merge request")
	}
	base, err := n.notesURL()
	if err != nil {
		return "", false, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	c, err := n.find(ctx, base, comment.Marker(key))
	if err != nil || c == nil {
		return "", false, err
	}
	_, body, _ := strings.Cut(c.Body, "\n")
	return body, true, nil
}

func (n *Notes) notesURL() (string, error) {
	u, err := url.Parse(n.APIURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" {
		return "", fmt.Errorf("GitLab API URL %q: expected an absolute http(s) URL like https://gitlab.com/api/v4", n.APIURL)
	}
	return strings.TrimSuffix(n.APIURL, "/") + "/projects/" + url.PathEscape(n.Project) +
		"/merge_requests/" + strconv.Itoa(n.MergeRequest) + "/notes", nil
}

func (n *Notes) noteURL(id int64) string {
	if n.ProjectURL == "" {
		return ""
	}
	return fmt.Sprintf("%s/-/merge_requests/%d#note_%d", strings.TrimSuffix(n.ProjectURL, "/"), n.MergeRequest, id)
}

// LabelActor is who last applied label to the merge request and who
// wrote it:
//
//	GET /projects/:id/merge_requests/:iid                        (author.username)
//	GET /projects/:id/merge_requests/:iid/resource_label_events  (oldest first)
//
// the user of the last "add" event for that label (names compared without
// case; Removed when a "remove" event for it comes last: the label is off
// now, though a retried job's CI_MERGE_REQUEST_LABELS still lists it). A
// label whose events GitLab no longer has (added before label
// events were kept, or by a deleted label) has no applier: "". The applier
// is marked a bot (gate.Actor.AppliedByBot) when it is the token's own user
// (GET /user: the merge request's pipeline holds that token, so its author
// may have acted as it) or a project or group access token's bot
// (project_<id>_bot..., group_<id>_bot...).
func (n *Notes) LabelActor(ctx context.Context, label string) (gate.Actor, error) {
	if n.MergeRequest <= 0 {
		return gate.Actor{}, errors.New("this pipeline is not for a merge request")
	}
	base, err := n.notesURL()
	if err != nil {
		return gate.Actor{}, err
	}
	mr := strings.TrimSuffix(base, "/notes")
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var who gate.Actor
	var m struct {
		Author struct {
			Username string `json:"username"`
		} `json:"author"`
	}
	if _, err := n.do(ctx, http.MethodGet, mr, "", &m, nil); err != nil {
		return gate.Actor{}, err
	}
	who.Author = m.Author.Username
	var lastID int64 // the latest event's id: ids grow with time
	page := "1"
	for pages := 0; page != ""; pages++ {
		if pages == maxPages {
			return gate.Actor{}, fmt.Errorf("label events of !%d: more than %d pages", n.MergeRequest, maxPages)
		}
		var list []struct {
			ID     int64  `json:"id"`
			Action string `json:"action"`
			User   *struct {
				Username string `json:"username"`
			} `json:"user"`
			Label *struct {
				Name string `json:"name"`
			} `json:"label"`
		}
		var hdr http.Header
		q := url.Values{"per_page": {"100"}, "page": {page}}
		if _, err := n.do(ctx, http.MethodGet, mr+"/resource_label_events?"+q.Encode(), "", &list, &hdr); err != nil {
			return gate.Actor{}, err
		}
		for _, e := range list {
			if e.Label == nil || !strings.EqualFold(e.Label.Name, label) || e.Action != "add" && e.Action != "remove" {
				continue
			}
			if e.ID < lastID {
				// Listed out of order: an older event than one read.
				continue
			}
			lastID = e.ID
			switch e.Action {
			case "add":
				who.AppliedBy, who.Removed = "", false
				if e.User != nil {
					who.AppliedBy = e.User.Username
				}
			case "remove":
				who.Removed = true
			}
		}
		next := strings.TrimSpace(hdr.Get("X-Next-Page"))
		if next == "" {
			next = linkNextPage(hdr.Get("Link"))
		}
		if next != "" {
			if p, err := strconv.Atoi(next); err != nil || p <= 0 || strconv.Itoa(p) == page {
				return gate.Actor{}, fmt.Errorf("label events of !%d: bad next page %q", n.MergeRequest, next)
			}
		}
		page = next
	}
	if who.Removed {
		// Off now: nobody applied the label it has.
		who.AppliedBy = ""
	}
	if who.AppliedBy != "" {
		self, err := n.tokenUser(ctx)
		if err != nil {
			return gate.Actor{}, err
		}
		who.AppliedByBot = strings.EqualFold(who.AppliedBy, self) || accessTokenBot.MatchString(who.AppliedBy)
	}
	return who, nil
}

// accessTokenBot matches the usernames GitLab gives the bot user of a
// project or group access token: project_<id>_bot, with a number or
// "_<hex>" after it in later versions.
var accessTokenBot = regexp.MustCompile(`^(project|group)_[0-9]+_bot([0-9]*|_[0-9a-f]+)$`)

// user is the username whose note is adopted: Author, or the token's own
// user (GET /user) when Author is empty; "" for anyone ("*").
func (n *Notes) user(ctx context.Context) (string, error) {
	switch n.Author {
	case "*":
		return "", nil
	case "":
	default:
		return n.Author, nil
	}
	return n.tokenUser(ctx)
}

// tokenUser is the token's own username (GET /user), asked once.
func (n *Notes) tokenUser(ctx context.Context) (string, error) {
	if n.self != "" {
		return n.self, nil
	}
	u, err := url.Parse(n.APIURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.RawQuery != "" {
		return "", fmt.Errorf("GitLab API URL %q: expected an absolute http(s) URL like https://gitlab.com/api/v4", n.APIURL)
	}
	var me struct {
		Username string `json:"username"`
	}
	if _, err := n.do(ctx, http.MethodGet, strings.TrimSuffix(n.APIURL, "/")+"/user", "", &me, nil); err != nil {
		return "", fmt.Errorf("the token's user (set comment-author to its username): %w", err)
	}
	if me.Username == "" {
		return "", errors.New("the token's user: GitLab named no username (set comment-author to it)")
	}
	n.self = me.Username
	return n.self, nil
}

// find returns the oldest note that starts with marker, by the adopted
// user (see [Notes.user]), or nil.
func (n *Notes) find(ctx context.Context, base, marker string) (*note, error) {
	author, err := n.user(ctx)
	if err != nil {
		return nil, err
	}
	page := "1"
	for pages := 0; page != ""; pages++ {
		if pages == maxPages {
			return nil, fmt.Errorf("list notes of !%d: more than %d pages", n.MergeRequest, maxPages)
		}
		var list []note
		var hdr http.Header
		q := url.Values{"sort": {"asc"}, "order_by": {"created_at"}, "per_page": {"100"}, "page": {page}}
		if _, err := n.do(ctx, http.MethodGet, base+"?"+q.Encode(), "", &list, &hdr); err != nil {
			return nil, err
		}
		for i := range list {
			c := &list[i]
			if c.System || !startsWithMarker(c.Body, marker) {
				continue
			}
			if author != "" && !strings.EqualFold(c.Author.Username, author) {
				continue
			}
			return c, nil // ascending creation order: the first is the oldest
		}
		next := strings.TrimSpace(hdr.Get("X-Next-Page"))
		if next == "" {
			next = linkNextPage(hdr.Get("Link"))
		}
		if next != "" {
			if p, err := strconv.Atoi(next); err != nil || p <= 0 || strconv.Itoa(p) == page {
				return nil, fmt.Errorf("list notes of !%d: bad next page %q", n.MergeRequest, next)
			}
		}
		page = next
	}
	return nil, nil
}

func startsWithMarker(body, marker string) bool {
	first, _, _ := strings.Cut(body, "\n")
	return strings.TrimSuffix(first, "\r") == marker
}

// linkNextPage returns the page parameter of the rel="next" link.
func linkNextPage(link string) string {
	for _, part := range strings.Split(link, ",") {
		target, params, ok := strings.Cut(part, ";")
		if !ok || !strings.Contains(params, `rel="next"`) {
			continue
		}
		u, err := url.Parse(strings.Trim(strings.TrimSpace(target), "<>"))
		if err != nil {
			return ""
		}
		return u.Query().Get("page")
	}
	return ""
}

// do sends one request (a JSON {"body": ...} when body is not empty) and
// decodes a 2xx answer into out. It returns the status with any error.
func (n *Notes) do(ctx context.Context, method, target, body string, out any, hdr *http.Header) (int, error) {
	var rd io.Reader
	if body != "" {
		data, err := json.Marshal(map[string]string{"body": body})
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return 0, err
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if n.JobToken {
		req.Header.Set("JOB-TOKEN", n.Token)
	} else {
		req.Header.Set("PRIVATE-TOKEN", n.Token)
	}
	op := fmt.Sprintf("%s notes of !%d", strings.ToLower(method), n.MergeRequest)
	resp, err := n.client().Do(req)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", op, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse+1))
	if err != nil {
		return resp.StatusCode, fmt.Errorf("%s: %w", op, err)
	}
	if len(data) > maxResponse {
		return resp.StatusCode, fmt.Errorf("%s: answer larger than %d bytes", op, maxResponse)
	}
	if hdr != nil {
		*hdr = resp.Header
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, apiError(op, method != http.MethodGet, resp, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return resp.StatusCode, fmt.Errorf("%s: unexpected answer: %w", op, err)
	}
	return resp.StatusCode, nil
}

// client returns the HTTP client with the same-host redirect rule.
func (n *Notes) client() *http.Client {
	c := &http.Client{Timeout: 30 * time.Second}
	if n.HTTPClient != nil {
		cp := *n.HTTPClient
		c = &cp
	}
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		if !strings.EqualFold(req.URL.Host, via[0].URL.Host) || req.URL.Scheme != via[0].URL.Scheme && req.URL.Scheme != "https" {
			return fmt.Errorf("refusing a redirect from %s to %s: the token is only sent to the GitLab API's host", via[0].URL.Host, req.URL.Host)
		}
		return nil
	}
	return c
}

// apiError turns a non-2xx answer into an error: 401 and 403 (and 404 on
// a write) are permission errors, 429 a rate limit.
func apiError(op string, write bool, resp *http.Response, data []byte) error {
	var body struct {
		Message any    `json:"message"`
		Error   string `json:"error"`
	}
	_ = json.Unmarshal(data, &body)
	msg := body.Error
	if body.Message != nil {
		if b, err := json.Marshal(body.Message); err == nil {
			msg = strings.Trim(string(b), `"`)
		}
	}
	if len(msg) > 300 {
		msg = msg[:300]
	}
	code := resp.StatusCode
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden || (write && code == http.StatusNotFound):
		return &PermissionError{Op: op, StatusCode: code, Message: msg, Write: write}
	case code == http.StatusTooManyRequests:
		return fmt.Errorf("%s: rate limited by GitLab (retry after %q)", op, resp.Header.Get("Retry-After"))
	}
	return fmt.Errorf("%s: GitLab answered HTTP %d %q", op, code, msg)
}

// PermissionError reports that the token may not do what was asked: a
// 401, a 403, or a 404 on a write. Show it as a warning: the note is best
// effort.
type PermissionError struct {
	// Op names the call, e.g. "post notes of !12".
	Op string
	// StatusCode is GitLab's answer.
	StatusCode int
	// Message is GitLab's error message (cut to 300 bytes).
	Message string
	// Write is true for a failed create or edit.
	Write bool
}

// Error explains the failure and the usual fix.
func (e *PermissionError) Error() string {
	what := "read the merge request's notes"
	if e.Write {
		what = "write merge request notes"
	}
	return fmt.Sprintf("%s: permission denied (HTTP %d %q): the token cannot %s. CI_JOB_TOKEN cannot; "+
		"store a project access token with api scope as a masked CI/CD variable and pass it as the token",
		e.Op, e.StatusCode, e.Message, what)
}
