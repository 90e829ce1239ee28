// Package comment keeps one "sticky" rubricgate comment per key on a pull
// request: the first run creates it, later runs edit it in place, so the
// thread never fills up with one report per push.
//
// The comment is found by a hidden marker, an HTML comment that [Upsert]
// writes as the first line of the body:
//
//	<!-- rubricgate:comment key=KEY -->
//
// KEY is the caller's key passed through [safe.MarkerKey]. Different keys
// (for example one per rubric or per job) give different comments.
//
// The service talks to the GitHub REST API through go-github. It never
// retries and never sleeps: rate-limit errors are returned (see
// [RateLimited]) because posting the comment is best effort and the caller
// decides whether that fails the job.
package comment

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/google/go-github/v60/github"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// MaxBodyBytes is the largest comment body, marker line included, that
// [Service.Upsert] sends. GitHub rejects bodies over 65,536 characters with
// a 422; counting bytes instead of characters keeps well clear of that.
const MaxBodyBytes = 65536

// DefaultKey is the key used when [Service.Upsert] is given an empty key.
const DefaultKey = "rubricgate"

// Outcome actions.
const (
	// ActionCreated: a new comment was posted.
	ActionCreated = "created"
	// ActionUpdated: the existing comment was edited.
	ActionUpdated = "updated"
	// ActionUnchanged: the existing comment already had this body; nothing
	// was written.
	ActionUnchanged = "unchanged"
	// ActionSkippedStale: the pull request head moved past the commit this
	// run evaluated; nothing was written.
	ActionSkippedStale = "skipped-stale"
)

// markerPrefix starts every rubricgate marker, whatever the key.
const markerPrefix = "<!-- rubricgate:comment"

// ErrBodyTooLong is returned (wrapped) by [Service.Upsert] when the body
// with its marker line exceeds [MaxBodyBytes]. No request is made.
var ErrBodyTooLong = errors.New("comment body too long")

// ErrNoPullRequest is returned (wrapped) by
// [Service.FindPullRequestByHeadSHA] when no open pull request has the
// commit as its head.
var ErrNoPullRequest = errors.New("no open pull request has this head commit")

// Service posts and updates sticky comments on the pull requests of one
// repository.
type Service struct {
	// Client is an authenticated go-github client. Its BaseURL must end
	// with '/'.
	Client *github.Client
	// Owner and Repo name the repository ("octo-org", "evals").
	Owner, Repo string
	// Author, when not empty, restricts the comments Upsert adopts to those
	// written by this login (compared case-insensitively), for example
	// "github-actions[bot]" with the default GITHUB_TOKEN. Without it a
	// comment by anyone that contains the marker is edited (or, when the
	// token may not edit it, reported as a permission error).
	Author string
	// Logf, when not nil, receives warnings (several marker comments,
	// stale runs, ambiguous pull requests). Messages never contain the
	// token; text from GitHub is quoted with %q.
	Logf func(format string, args ...any)
}

// Outcome says what [Service.Upsert] did.
type Outcome struct {
	// Action is one of ActionCreated, ActionUpdated, ActionUnchanged,
	// ActionSkippedStale.
	Action string
	// URL is the comment's html_url (empty when skipped-stale).
	URL string
	// ID is the comment id (0 when skipped-stale).
	ID int64
}

// Marker returns the hidden first line that identifies the comment for key
// (DefaultKey when key is empty).
func Marker(key string) string {
	if key == "" {
		key = DefaultKey
	}
	return markerPrefix + " key=" + safe.MarkerKey(key) + " -->"
}

// BodyLimit returns the largest body, in bytes, that [Service.Upsert]
// accepts for key: [MaxBodyBytes] minus the marker line. A renderer can
// use it to shorten its report before calling Upsert.
func BodyLimit(key string) int {
	return MaxBodyBytes - len(Marker(key)) - 1
}

// PermissionError reports that the token may not do what was asked: a 401,
// a 403 that is not a rate limit (GitHub says "Resource not accessible by
// integration" to a read-only GITHUB_TOKEN), or a 404 on a write. Its
// message explains the usual fixes. Err is the underlying
// *github.ErrorResponse.
type PermissionError struct {
	// Op names the call that failed, e.g. "create comment on #12".
	Op string
	// StatusCode is the HTTP status GitHub answered.
	StatusCode int
	// Message is GitHub's error message.
	Message string
	// Write is true when the failed call was a write.
	Write bool
	// Err is the underlying error.
	Err error
}

// Error explains the failure and how to fix it.
func (e *PermissionError) Error() string {
	what := "read pull requests or their comments (grant `permissions: pull-requests: read`)"
	if e.Write {
		what = "write pull request comments. Pull requests from forks get a read-only GITHUB_TOKEN: " +
			"post the comment from a separate workflow triggered by `workflow_run` " +
			"(run `rubricgate comment --report <report.json>` there), or grant the job " +
			"`permissions: pull-requests: write`"
	}
	return fmt.Sprintf("%s: permission denied (HTTP %d %q): the token cannot %s",
		e.Op, e.StatusCode, e.Message, what)
}

// Unwrap returns the underlying go-github error.
func (e *PermissionError) Unwrap() error { return e.Err }

// RateLimited reports whether err (or anything it wraps) is a GitHub
// primary or secondary rate limit, including a plain 429.
func RateLimited(err error) bool {
	var rl *github.RateLimitError
	var abuse *github.AbuseRateLimitError
	if errors.As(err, &rl) || errors.As(err, &abuse) {
		return true
	}
	var er *github.ErrorResponse
	return errors.As(err, &er) && er.Response != nil && er.Response.StatusCode == http.StatusTooManyRequests
}

// statusOf returns the HTTP status of a plain *github.ErrorResponse, or 0.
func statusOf(err error) int {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode
	}
	return 0
}

// classify wraps err from the call op. Rate limits come first (they are
// 403s too), then permission problems, then anything else.
func classify(op string, write bool, err error) error {
	if RateLimited(err) {
		return fmt.Errorf("%s: rate limited by GitHub: %w", op, err)
	}
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		code := er.Response.StatusCode
		if code == http.StatusUnauthorized || code == http.StatusForbidden || (write && code == http.StatusNotFound) {
			return &PermissionError{Op: op, StatusCode: code, Message: er.Message, Write: write, Err: err}
		}
	}
	return fmt.Errorf("%s: %w", op, err)
}

func (s *Service) logf(format string, args ...any) {
	if s.Logf != nil {
		s.Logf(format, args...)
	}
}

// check validates the service configuration.
func (s *Service) check() error {
	if s == nil || s.Client == nil {
		return errors.New("comment service: no GitHub client")
	}
	for _, v := range []struct{ name, val string }{{"owner", s.Owner}, {"repo", s.Repo}} {
		if v.val == "" || strings.ContainsAny(v.val, "/?#%\\ \t\r\n") || v.val == "." || v.val == ".." {
			return fmt.Errorf("comment service: invalid repository %s %q", v.name, v.val)
		}
	}
	return nil
}

// Upsert makes sure pull request pr carries exactly one rubricgate comment
// for key with body, and returns what it did.
//
// Upsert adds the marker itself as the first line ([Marker]); body must not
// contain any rubricgate marker, and body plus marker line must fit in
// [MaxBodyBytes] (else ErrBodyTooLong, without any request).
//
// When headSHA is not empty the pull request is read first: if its head is
// another commit the run is stale (a newer push is being evaluated) and
// Upsert writes nothing and returns ActionSkippedStale. A push that lands
// after this check is not detected.
//
// Every comment of the pull request is read (100 per page). If several
// carry the marker (a past race between two runs), the oldest (lowest id)
// is edited and the others are left alone with a warning, so the comment
// keeps its place in the thread. An identical body is not rewritten
// (ActionUnchanged). If the comment disappears between listing and editing
// (404), a new one is created. Errors name the failing call; see
// [PermissionError] and [RateLimited].
func (s *Service) Upsert(ctx context.Context, pr int, key, body, headSHA string) (Outcome, error) {
	if err := s.check(); err != nil {
		return Outcome{}, err
	}
	if pr <= 0 {
		return Outcome{}, fmt.Errorf("comment: invalid pull request number %d (must be positive)", pr)
	}
	if strings.Contains(body, markerPrefix) {
		return Outcome{}, fmt.Errorf("comment: body contains a %q marker; Upsert adds the marker itself", markerPrefix)
	}
	marker := Marker(key)
	full := marker + "\n" + body
	if len(full) > MaxBodyBytes {
		return Outcome{}, fmt.Errorf("comment: body is %d bytes with the marker line, GitHub accepts at most %d: %w",
			len(full), MaxBodyBytes, ErrBodyTooLong)
	}

	if headSHA != "" {
		op := fmt.Sprintf("get pull request #%d", pr)
		p, _, err := s.Client.PullRequests.Get(ctx, s.Owner, s.Repo, pr)
		if err != nil {
			return Outcome{}, classify(op, false, err)
		}
		head := p.GetHead().GetSHA()
		if !strings.EqualFold(head, headSHA) {
			s.logf("comment: pull request #%d head is %q, this run evaluated %q: not commenting on a stale run", pr, head, headSHA)
			return Outcome{Action: ActionSkippedStale}, nil
		}
	}

	existing, err := s.find(ctx, pr, marker)
	if err != nil {
		return Outcome{}, err
	}
	if existing != nil {
		if existing.GetBody() == full {
			return Outcome{Action: ActionUnchanged, URL: existing.GetHTMLURL(), ID: existing.GetID()}, nil
		}
		op := fmt.Sprintf("edit comment %d", existing.GetID())
		c, _, err := s.Client.Issues.EditComment(ctx, s.Owner, s.Repo, existing.GetID(), &github.IssueComment{Body: github.String(full)})
		switch {
		case err == nil:
			return Outcome{Action: ActionUpdated, URL: c.GetHTMLURL(), ID: c.GetID()}, nil
		case statusOf(err) == http.StatusNotFound:
			s.logf("comment: comment %d disappeared before it could be edited; creating a new one", existing.GetID())
		default:
			return Outcome{}, classify(op, true, err)
		}
	}

	op := fmt.Sprintf("create comment on #%d", pr)
	c, _, err := s.Client.Issues.CreateComment(ctx, s.Owner, s.Repo, pr, &github.IssueComment{Body: github.String(full)})
	if err != nil {
		return Outcome{}, classify(op, true, err)
	}
	return Outcome{Action: ActionCreated, URL: c.GetHTMLURL(), ID: c.GetID()}, nil
}

// Existing returns the body (without its marker line) of the comment for
// key that [Service.Upsert] would edit, and whether there is one. Only a
// service with Author set vouches for what the body says: without it, anyone
// could have written a comment with the marker.
func (s *Service) Existing(ctx context.Context, pr int, key string) (string, bool, error) {
	if err := s.check(); err != nil {
		return "", false, err
	}
	if pr <= 0 {
		return "", false, fmt.Errorf("comment: invalid pull request number %d (must be positive)", pr)
	}
	c, err := s.find(ctx, pr, Marker(key))
	if err != nil || c == nil {
		return "", false, err
	}
	_, body, _ := strings.Cut(c.GetBody(), "\n")
	return body, true, nil
}

// maxPages bounds every paginated listing (100 items a page).
const maxPages = 100

// find returns the oldest comment of pr whose body contains marker (and
// whose author is s.Author when set), or nil.
func (s *Service) find(ctx context.Context, pr int, marker string) (*github.IssueComment, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100, Page: 1}}
	var found []*github.IssueComment
	for pages := 0; ; pages++ {
		if pages == maxPages {
			return nil, fmt.Errorf("list comments on #%d: more than %d pages", pr, maxPages)
		}
		op := fmt.Sprintf("list comments on #%d (page %d)", pr, opts.Page)
		list, resp, err := s.Client.Issues.ListComments(ctx, s.Owner, s.Repo, pr, opts)
		if err != nil {
			return nil, classify(op, false, err)
		}
		for _, c := range list {
			if !startsWithMarker(c.GetBody(), marker) {
				continue
			}
			if s.Author != "" && !strings.EqualFold(c.GetUser().GetLogin(), s.Author) {
				continue
			}
			found = append(found, c)
		}
		if resp == nil || resp.NextPage <= opts.Page {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(found) == 0 {
		return nil, nil
	}
	sort.Slice(found, func(i, j int) bool { return found[i].GetID() < found[j].GetID() })
	if len(found) > 1 {
		ids := make([]string, 0, len(found)-1)
		for _, c := range found[1:] {
			ids = append(ids, fmt.Sprint(c.GetID()))
		}
		s.logf("comment: %d comments on #%d carry the marker; editing the oldest (%d), leaving %s",
			len(found), pr, found[0].GetID(), strings.Join(ids, ", "))
	}
	return found[0], nil
}

// validSHA reports a full hex commit id (40 for SHA-1, 64 for SHA-256).
func validSHA(sha string) bool {
	if len(sha) != 40 && len(sha) != 64 {
		return false
	}
	for i := 0; i < len(sha); i++ {
		c := sha[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// FindPullRequestByHeadSHA returns the number of the open pull request
// whose head commit is sha (a full 40- or 64-digit hex id). It is meant for
// workflow_run workflows, whose payload lists no pull request when the run
// came from a fork.
//
// It first asks GET /repos/{owner}/{repo}/commits/{sha}/pulls, which may
// include closed pull requests (ignored) and pull requests whose head has
// moved on (ignored). That endpoint often does not know commits that only
// exist in a fork, so when it yields nothing (or answers 404 or 422) the
// open pull requests of the repository are scanned (at most 100 pages of
// 100). If several open pull requests share the head, the lowest number is
// returned with a warning. When none matches the error wraps
// ErrNoPullRequest.
func (s *Service) FindPullRequestByHeadSHA(ctx context.Context, sha string) (int, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	if !validSHA(sha) {
		return 0, fmt.Errorf("comment: find pull request: head %q is not a full hex commit id", sha)
	}
	var matches []int
	match := func(list []*github.PullRequest) {
		for _, p := range list {
			if p.GetState() == "open" && strings.EqualFold(p.GetHead().GetSHA(), sha) {
				matches = append(matches, p.GetNumber())
			}
		}
	}

	opts := &github.ListOptions{PerPage: 100, Page: 1}
	for pages := 0; pages < maxPages; pages++ {
		list, resp, err := s.Client.PullRequests.ListPullRequestsWithCommit(ctx, s.Owner, s.Repo, sha, opts)
		if err != nil {
			if code := statusOf(err); code == http.StatusNotFound || code == http.StatusUnprocessableEntity {
				s.logf("comment: commit %s is unknown to %s/%s (HTTP %d); scanning open pull requests", sha, s.Owner, s.Repo, code)
				break
			}
			return 0, classify(fmt.Sprintf("list pull requests for commit %s (page %d)", sha, opts.Page), false, err)
		}
		match(list)
		if resp == nil || resp.NextPage <= opts.Page {
			break
		}
		opts.Page = resp.NextPage
	}

	if len(matches) == 0 {
		lopts := &github.PullRequestListOptions{State: "open", ListOptions: github.ListOptions{PerPage: 100, Page: 1}}
		for pages := 0; pages < maxPages; pages++ {
			list, resp, err := s.Client.PullRequests.List(ctx, s.Owner, s.Repo, lopts)
			if err != nil {
				return 0, classify(fmt.Sprintf("list open pull requests (page %d)", lopts.Page), false, err)
			}
			match(list)
			if resp == nil || resp.NextPage <= lopts.Page {
				break
			}
			lopts.Page = resp.NextPage
		}
	}

	if len(matches) == 0 {
		return 0, fmt.Errorf("comment: find pull request for %s in %s/%s: %w", sha, s.Owner, s.Repo, ErrNoPullRequest)
	}
	sort.Ints(matches)
	uniq := matches[:1]
	for _, n := range matches[1:] {
		if n != uniq[len(uniq)-1] {
			uniq = append(uniq, n)
		}
	}
	if len(uniq) > 1 {
		s.logf("comment: %d open pull requests have head %s: %v; using #%d", len(uniq), sha, uniq, uniq[0])
	}
	return uniq[0], nil
}

// startsWithMarker reports whether the body's first line is the marker: a
// comment that merely quotes the marker elsewhere (another bot echoing a pull
// request's text) is never adopted. A CRLF left by an edit in the web UI is
// accepted.
func startsWithMarker(body, marker string) bool {
	first, _, _ := strings.Cut(body, "\n")
	return strings.TrimSuffix(first, "\r") == marker
}
