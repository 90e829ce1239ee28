package baseline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/ctxsleep"
)

// GitHub defaults.
const (
	DefaultArtifactName   = "rubricgate-baseline"
	DefaultMaxArchive     = int64(100 << 20)
	DefaultMaxCandidates  = 5
	DefaultMaxRuns        = 50
	DefaultRequestTimeout = 30 * time.Second
	DefaultDeadline       = 2 * time.Minute
	DefaultMaxRateWait    = 60 * time.Second
	DefaultRetries        = 3
	DefaultMinBackoff     = time.Second
	DefaultMaxBackoff     = 8 * time.Second
)

// permissionsHint is appended to 401/403/404 answers of the artifact API.
const permissionsHint = "the workflow token needs `permissions: actions: read` to list and download artifacts; a private repository answers 404 when it is missing"

// GitHub finds the last passing baseline among the repository's GitHub
// Actions artifacts: the newest unexpired artifact named ArtifactName made by
// a successful push run of this repository (never a fork's) on the query's
// branch whose baseline.json is valid. The baseline may be for another rubric name than
// the query's: the artifact name is the key (chosen by the workflow), and a
// different rubric is a rubric change for the gate to judge.
//
// Candidates are found through workflow runs, not the repository's artifact
// list, which anyone who can start a run (a fork's pull request) can flood
// with newer artifacts of the same name: the store lists the branch's
// successful push runs (GET .../actions/runs?branch=B&event=push&status=success,
// or .../actions/workflows/{Workflow}/runs), newest first, 20 a page, and
// reads each run's artifacts named ArtifactName (GET
// .../actions/runs/{id}/artifacts?name=). Every field the query filters on
// is checked again client-side, and a run whose head repository is not
// this repository is refused. Runs without the artifact (other workflows,
// blocked runs) are skipped; after MaxRuns runs the search stops with a
// store error.
//
// head_branch alone does not say the run was on the branch: GitHub reports
// a push of a tag named like the branch (a tag "main") the same way. So a
// run's commit must be on the branch: the store reads the branch's head
// (GET .../branches/{branch}, unambiguous where a ref name is not) and,
// unless the run's head_sha is that commit, compares the two (GET
// .../compare/{head}...{sha}): only "identical" or "behind" (the run's
// commit is an ancestor of the branch's head) is accepted. A run whose
// commit is ahead of or diverged from the branch, or unknown to the
// repository (404), is refused; a missing branch has no baseline. Only a
// push to the branch (write access) makes such a run.
//
// Zero fields take the Default* values. The common case costs five HTTP
// requests: the runs page, the branch, the run's artifacts, the archive
// call answering 302, the storage GET (and a compare when the run is older
// than the branch's head).
//
// Requests are built with API.NewRequest (so BaseURL, User-Agent and the
// token's transport apply) but sent through API.Client() and classified with
// github.CheckResponse, not API.Do: Do short-circuits every call after a rate
// limit until the real clock passes the reset, which would defeat this
// store's own waiting and retrying.
type GitHub struct {
	// API is the authenticated client (see ghclient.New).
	API *github.Client
	// Download fetches the archive from the storage URL. It must carry no
	// token (nil: a plain client). An Authorization header is never sent.
	Download *http.Client
	// Owner and Repo name the repository.
	Owner, Repo string
	// RepoID is the repository's id (repository.id in the event payload).
	// Artifacts whose workflow_run.repository_id or head_repository_id
	// differ are skipped: a fork's artifact is never used. Required.
	RepoID int64
	// ArtifactName is the artifact's name (DefaultArtifactName).
	ArtifactName string
	// MaxArchive caps the archive and baseline.json uncompressed, in bytes.
	MaxArchive int64
	// MaxCandidates is how many qualifying artifacts are tried at most.
	MaxCandidates int
	// Workflow, when set, is the workflow whose runs upload the baseline
	// (its file name, such as "baseline.yml", or its id): only its runs
	// are listed, so other workflows' runs cost no requests.
	Workflow string
	// MaxRuns is how many successful push runs of the branch are examined
	// at most (DefaultMaxRuns). Reaching it without a baseline is a store
	// error, never ErrNotFound.
	MaxRuns int
	// RequestTimeout bounds each request (a download: until its body is read).
	RequestTimeout time.Duration
	// Deadline bounds the whole search.
	Deadline time.Duration
	// MaxRateWait is the most the search waits for rate limits, in total.
	MaxRateWait time.Duration
	// Retries is how often a 5xx or network failure is retried (0: default;
	// negative: none). Backoff doubles from MinBackoff up to MaxBackoff.
	Retries                int
	MinBackoff, MaxBackoff time.Duration
	// Sleep waits d or until ctx is done (nil: a timer). Tests inject it.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock for expiry and rate-limit resets (nil: time.Now).
	Now func() time.Time
	// Logf reports skipped and failed candidates by artifact id (nil: quiet).
	Logf func(format string, args ...any)
}

// RequestError is a failed request: which call, which request, the HTTP
// status (0 for network errors) and, for permission errors, a hint.
type RequestError struct {
	// Op names the call ("list workflow runs", "list run artifacts",
	// "get branch", "compare commits", "artifact archive URL", "download
	// archive").
	Op string
	// Request is "METHOD path" (API paths relative to the base URL; storage
	// URLs without their signed query).
	Request    string
	StatusCode int
	// Detail, when set, is shown instead of Err (GitHub's errors repeat the
	// whole URL).
	Detail string
	Hint   string
	Err    error
}

// Error says which call failed, on which request, and why.
func (e *RequestError) Error() string {
	var s string
	if e.Detail != "" {
		s = fmt.Sprintf("%s (%s): %s", e.Op, e.Request, e.Detail)
	} else {
		s = fmt.Sprintf("%s (%s): %v", e.Op, e.Request, e.Err)
	}
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// Unwrap returns the underlying error (a go-github error type for API answers).
func (e *RequestError) Unwrap() error { return e.Err }

// CandidateFailure is why one artifact was not used.
type CandidateFailure struct {
	ArtifactID int64
	Reason     string
}

// CandidatesError means artifacts qualified but none gave a usable baseline.
// It is a store error, not ErrNotFound.
type CandidatesError struct {
	Failures []CandidateFailure
}

// Error lists every failed artifact by id with its reason.
func (e *CandidatesError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no usable baseline artifact: %d candidate(s) failed:", len(e.Failures))
	for _, f := range e.Failures {
		fmt.Fprintf(&b, " [artifact #%d: %s]", f.ArtifactID, f.Reason)
	}
	return b.String()
}

// transient marks an error worth retrying (5xx, network, timeout).
type transient struct{ err error }

func (t *transient) Error() string { return t.err.Error() }
func (t *transient) Unwrap() error { return t.err }

// rateWait marks a rate limit: wait d (< 0: unknown) then retry.
type rateWait struct {
	d   time.Duration
	err error
}

func (r *rateWait) Error() string { return r.err.Error() }
func (r *rateWait) Unwrap() error { return r.err }

// candidateErr marks a failure of one artifact: try the next one.
type candidateErr struct{ err error }

func (c *candidateErr) Error() string { return c.err.Error() }
func (c *candidateErr) Unwrap() error { return c.err }

// search is one Latest call.
type search struct {
	g        GitHub // with defaults applied
	api      *http.Client
	dl       *http.Client
	rateLeft time.Duration
	// rateWaits counts the rate-limit waits of the whole search.
	rateWaits int
	// head is the branch's head commit once read (headRead); "" when the
	// branch does not exist.
	head     string
	headRead bool
}

// minRateWait is the least a rate-limited search waits, and maxRateWaits
// how often it waits at most: a reset already past on a skewed clock, or a
// Retry-After of 0, must not turn into a burst of requests while limited.
const (
	minRateWait  = time.Second
	maxRateWaits = 5
)

func (g GitHub) withDefaults() GitHub {
	if g.ArtifactName == "" {
		g.ArtifactName = DefaultArtifactName
	}
	if g.MaxArchive <= 0 {
		g.MaxArchive = DefaultMaxArchive
	}
	if g.MaxCandidates <= 0 {
		g.MaxCandidates = DefaultMaxCandidates
	}
	if g.MaxRuns <= 0 {
		g.MaxRuns = DefaultMaxRuns
	}
	if g.RequestTimeout <= 0 {
		g.RequestTimeout = DefaultRequestTimeout
	}
	if g.Deadline <= 0 {
		g.Deadline = DefaultDeadline
	}
	if g.MaxRateWait <= 0 {
		g.MaxRateWait = DefaultMaxRateWait
	}
	switch {
	case g.Retries == 0:
		g.Retries = DefaultRetries
	case g.Retries < 0:
		g.Retries = 0
	}
	if g.MinBackoff <= 0 {
		g.MinBackoff = DefaultMinBackoff
	}
	if g.MaxBackoff <= 0 {
		g.MaxBackoff = DefaultMaxBackoff
	}
	if g.Sleep == nil {
		g.Sleep = ctxsleep.Sleep
	}
	if g.Now == nil {
		g.Now = time.Now
	}
	if g.Logf == nil {
		g.Logf = func(string, ...any) {}
	}
	return g
}

// Latest finds the newest usable baseline artifact for q (see GitHub).
// It returns an error wrapping ErrNotFound when no artifact qualifies, a
// *CandidatesError when artifacts qualified but all failed, and otherwise a
// store error naming the call that failed.
func (g GitHub) Latest(ctx context.Context, q Query) (*File, gate.BaselineSource, error) {
	var none gate.BaselineSource
	switch {
	case g.API == nil:
		return nil, none, errors.New("github baseline store: no API client")
	case g.Owner == "" || g.Repo == "":
		return nil, none, errors.New("github baseline store: owner and repository are required")
	case g.RepoID <= 0:
		return nil, none, errors.New("github baseline store: the repository id is required (repository.id from the event payload) to refuse artifacts made by forks")
	case q.Branch == "":
		return nil, none, errors.New("github baseline store: no baseline branch given")
	case q.Rubric == "":
		return nil, none, errors.New("github baseline store: no rubric name given")
	}
	s := &search{g: g.withDefaults()}
	s.rateLeft = s.g.MaxRateWait
	s.api = s.g.API.Client()
	apiHost, apiScheme := s.g.API.BaseURL.Host, s.g.API.BaseURL.Scheme
	s.api.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		// Follow a moved repository (301/308) on the API host only; a 302
		// to storage is returned as is, so the token never leaves the API.
		if req.Response != nil && (req.Response.StatusCode == http.StatusMovedPermanently || req.Response.StatusCode == http.StatusPermanentRedirect) &&
			req.URL.Host == apiHost && req.URL.Scheme == apiScheme && len(via) < 3 {
			return nil
		}
		return http.ErrUseLastResponse
	}
	s.dl = s.g.Download
	if s.dl == nil {
		s.dl = &http.Client{}
	}
	ctx, cancel := context.WithTimeout(ctx, s.g.Deadline)
	defer cancel()
	return s.run(ctx, q)
}

func (s *search) run(ctx context.Context, q Query) (*File, gate.BaselineSource, error) {
	var none gate.BaselineSource
	var (
		failures                        []CandidateFailure
		runs, refused, without, expired int
		capped                          bool
	)
	page := 1
	for page > 0 && len(failures) < s.g.MaxCandidates && !capped {
		list, next, err := s.listRuns(ctx, q.Branch, page)
		if err != nil {
			return nil, none, err
		}
		page = next
		// Newest first by created_at, then id (documented, but cheap to ensure).
		sort.SliceStable(list, func(i, j int) bool {
			ti, tj := list[i].GetCreatedAt().Time, list[j].GetCreatedAt().Time
			if !ti.Equal(tj) {
				return ti.After(tj)
			}
			return list[i].GetID() > list[j].GetID()
		})
		for _, r := range list {
			if len(failures) >= s.g.MaxCandidates {
				break
			}
			if runs >= s.g.MaxRuns {
				capped = true
				break
			}
			runs++
			switch {
			case r.GetID() <= 0 || r.GetEvent() != "push" || r.GetHeadBranch() != q.Branch || r.GetConclusion() != "success":
				refused++
				s.g.Logf("skipping workflow run #%d: event %q, branch %q, conclusion %q; only successful push runs of %q are used", r.GetID(), r.GetEvent(), r.GetHeadBranch(), r.GetConclusion(), q.Branch)
				continue
			case r.GetRepository().GetID() != s.g.RepoID || r.GetHeadRepository().GetID() != s.g.RepoID:
				refused++
				s.g.Logf("skipping workflow run #%d: not a run of this repository (head repository id %d, expected %d); runs from forks are never used", r.GetID(), r.GetHeadRepository().GetID(), s.g.RepoID)
				continue
			}
			arts, err := s.runArtifacts(ctx, r.GetID())
			if err != nil {
				return nil, none, err
			}
			if hasArtifact(arts, s.g.ArtifactName) {
				why, err := s.onBranch(ctx, q.Branch, r.GetHeadSHA())
				if err != nil {
					return nil, none, err
				}
				if why != "" {
					refused++
					s.g.Logf("skipping workflow run #%d: its commit %q is not on branch %q (%s); a push of a tag named like the branch reports the same head_branch", r.GetID(), r.GetHeadSHA(), q.Branch, why)
					continue
				}
			}
			var a *github.Artifact
			stale := false
			for _, x := range arts {
				switch {
				case x.GetName() != s.g.ArtifactName || x.GetID() <= 0:
				case x.WorkflowRun != nil && x.WorkflowRun.GetID() != r.GetID():
				case x.GetExpired() || (x.ExpiresAt != nil && !x.ExpiresAt.After(s.g.Now())):
					stale = true
				case a == nil || x.GetCreatedAt().After(a.GetCreatedAt().Time) || x.GetCreatedAt().Equal(a.GetCreatedAt()) && x.GetID() > a.GetID():
					a = x
				}
			}
			if a == nil {
				if stale {
					expired++
				} else {
					without++
				}
				continue
			}
			f, err := s.fetch(ctx, a, q)
			if err == nil {
				src := gate.BaselineSource{
					Kind:     "github-artifact",
					Location: fmt.Sprintf("%s/%s artifact #%d", s.g.Owner, s.g.Repo, a.GetID()),
					SHA:      r.GetHeadSHA(),
					RunID:    r.GetID(),
				}
				return f, f.source(src), nil
			}
			var ce *candidateErr
			if !errors.As(err, &ce) {
				return nil, none, err
			}
			failures = append(failures, CandidateFailure{ArtifactID: a.GetID(), Reason: ce.Error()})
			s.g.Logf("skipping baseline artifact #%d: %v", a.GetID(), ce)
		}
	}
	if len(failures) > 0 {
		return nil, none, &CandidatesError{Failures: failures}
	}
	counts := fmt.Sprintf("%d successful push run(s) of branch %q examined in %s/%s: %d without an artifact named %q, %d with it expired, %d refused (another event, branch or repository, or a commit not on the branch)",
		runs, q.Branch, s.g.Owner, s.g.Repo, without, s.g.ArtifactName, expired, refused)
	if capped {
		// More runs exist: the baseline may be among them. Not "no baseline".
		return nil, none, &RunsCapError{MaxRuns: s.g.MaxRuns, Detail: counts}
	}
	return nil, none, fmt.Errorf("%w for rubric %q on branch %q: %s", ErrNotFound, q.Rubric, q.Branch, counts)
}

// RunsCapError means the search examined MaxRuns runs without finding a
// baseline while more runs exist. It is a store error, never ErrNotFound:
// "no baseline" would let if-no-baseline: pass skip the comparison.
type RunsCapError struct {
	MaxRuns int
	Detail  string
}

// Error says where the search stopped and what it saw.
func (e *RunsCapError) Error() string {
	return fmt.Sprintf("baseline search stopped after %d workflow runs (MaxRuns) with more to list: %s; set the baseline workflow (GitHub.Workflow) so that other workflows' runs are not listed, or raise MaxRuns", e.MaxRuns, e.Detail)
}

// retry runs fn, retrying transient failures with bounded backoff and
// waiting out rate limits within the search's budget.
func (s *search) retry(ctx context.Context, fn func() error) error {
	attempt := 0
	for {
		err := fn()
		if err == nil {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("baseline search stopped (deadline %s): %w (last error: %v)", s.g.Deadline, cerr, err)
		}
		var rw *rateWait
		var tr *transient
		switch {
		case errors.As(err, &rw):
			if rw.d < 0 {
				return fmt.Errorf("%w; rate limited with no reset time given, not waiting", rw.err)
			}
			rw.d = max(rw.d, minRateWait)
			if s.rateWaits >= maxRateWaits {
				return fmt.Errorf("%w; still rate limited after %d waits, giving up", rw.err, s.rateWaits)
			}
			s.rateWaits++
			if rw.d > s.rateLeft {
				return fmt.Errorf("%w; rate limited: waiting %s would exceed the remaining rate-limit wait budget of %s (of %s)", rw.err, rw.d.Round(time.Second), s.rateLeft.Round(time.Second), s.g.MaxRateWait)
			}
			if dl, ok := ctx.Deadline(); ok && rw.d > time.Until(dl) {
				return fmt.Errorf("%w; rate limited: waiting %s would pass the search deadline (%s)", rw.err, rw.d.Round(time.Second), s.g.Deadline)
			}
			s.rateLeft -= rw.d
			s.g.Logf("rate limited; waiting %s: %v", rw.d.Round(time.Second), rw.err)
			if serr := s.g.Sleep(ctx, rw.d); serr != nil {
				return fmt.Errorf("%w; stopped while waiting for the rate limit: %v", rw.err, serr)
			}
		case errors.As(err, &tr):
			if attempt >= s.g.Retries {
				return fmt.Errorf("%w (gave up after %d attempts)", tr.err, attempt+1)
			}
			d := s.g.MinBackoff << attempt
			if d > s.g.MaxBackoff || d <= 0 {
				d = s.g.MaxBackoff
			}
			attempt++
			s.g.Logf("retrying in %s: %v", d, tr.err)
			if serr := s.g.Sleep(ctx, d); serr != nil {
				return fmt.Errorf("%w; stopped while waiting to retry: %v", tr.err, serr)
			}
		default:
			return err
		}
	}
}

// listRuns reads one page of the branch's successful push runs and returns
// the next page number (0: none).
func (s *search) listRuns(ctx context.Context, branch string, page int) ([]*github.WorkflowRun, int, error) {
	v := url.Values{}
	v.Set("branch", branch)
	v.Set("event", "push")
	v.Set("status", "success")
	v.Set("exclude_pull_requests", "true")
	v.Set("per_page", strconv.Itoa(runsPerPage))
	v.Set("page", strconv.Itoa(page))
	path := "repos/" + url.PathEscape(s.g.Owner) + "/" + url.PathEscape(s.g.Repo) + "/actions/runs?" + v.Encode()
	if s.g.Workflow != "" {
		path = "repos/" + url.PathEscape(s.g.Owner) + "/" + url.PathEscape(s.g.Repo) + "/actions/workflows/" + url.PathEscape(s.g.Workflow) + "/runs?" + v.Encode()
	}
	var list github.WorkflowRuns
	next, err := s.getJSON(ctx, "list workflow runs", path, &list)
	return list.WorkflowRuns, next, err
}

// runsPerPage is the page size of the runs list: the newest run usually
// holds the baseline, and a run object is a few KB.
const runsPerPage = 20

// runArtifacts reads the artifacts named ArtifactName of one run (one page:
// artifact names are unique within a run).
func (s *search) runArtifacts(ctx context.Context, runID int64) ([]*github.Artifact, error) {
	v := url.Values{}
	v.Set("name", s.g.ArtifactName)
	v.Set("per_page", "100")
	path := fmt.Sprintf("repos/%s/%s/actions/runs/%d/artifacts?%s", url.PathEscape(s.g.Owner), url.PathEscape(s.g.Repo), runID, v.Encode())
	var list github.ArtifactList
	_, err := s.getJSON(ctx, "list run artifacts", path, &list)
	return list.Artifacts, err
}

// hasArtifact reports whether arts hold one named name.
func hasArtifact(arts []*github.Artifact, name string) bool {
	for _, a := range arts {
		if a.GetName() == name {
			return true
		}
	}
	return false
}

// onBranch says why the commit sha is not on branch ("" when it is: the
// branch's head or one of its ancestors). API failures other than a 404 are
// store errors (after the retries and rate-limit waits of every call).
func (s *search) onBranch(ctx context.Context, branch, sha string) (string, error) {
	if sha == "" {
		return "the run names no commit", nil
	}
	if !s.headRead {
		var b struct {
			Commit struct {
				SHA string `json:"sha"`
			} `json:"commit"`
		}
		path := "repos/" + url.PathEscape(s.g.Owner) + "/" + url.PathEscape(s.g.Repo) + "/branches/" + url.PathEscape(branch)
		_, err := s.getJSON(ctx, "get branch", path, &b)
		var re *RequestError
		switch {
		case errors.As(err, &re) && re.StatusCode == http.StatusNotFound:
			s.g.Logf("branch %q not found in %s/%s: no run is on it", branch, s.g.Owner, s.g.Repo)
		case err != nil:
			return "", err
		case b.Commit.SHA == "":
			return "", &RequestError{Op: "get branch", Request: "GET " + path, StatusCode: http.StatusOK, Err: errors.New("the answer names no commit")}
		}
		s.head, s.headRead = b.Commit.SHA, true
	}
	switch {
	case s.head == "":
		return "the branch does not exist", nil
	case strings.EqualFold(s.head, sha):
		return "", nil
	}
	v := url.Values{}
	v.Set("per_page", "1") // the status is all that is read
	path := "repos/" + url.PathEscape(s.g.Owner) + "/" + url.PathEscape(s.g.Repo) + "/compare/" + url.PathEscape(s.head) + "..." + url.PathEscape(sha) + "?" + v.Encode()
	status := ""
	_, err := s.get(ctx, "compare commits", path, func(r io.Reader) error {
		var err error
		status, err = compareStatus(r)
		return err
	})
	var re *RequestError
	switch {
	case errors.As(err, &re) && re.StatusCode == http.StatusNotFound:
		return "the repository does not know the commit", nil
	case err != nil:
		return "", err
	}
	switch status {
	case "identical", "behind":
		return "", nil
	case "ahead", "diverged":
		return fmt.Sprintf("compared with the branch's head %s it is %q", s.head, status), nil
	}
	return "", &RequestError{Op: "compare commits", Request: "GET " + path, StatusCode: http.StatusOK, Err: fmt.Errorf("unknown comparison status %q", status)}
}

// compareStatus reads the top-level "status" of a comparison, stopping
// there: the commits and files that follow can be large.
func compareStatus(r io.Reader) (string, error) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", fmt.Errorf("decode the answer: not a JSON object (%v)", err)
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", fmt.Errorf("decode the answer: %w", err)
		}
		if t == "status" {
			var st string
			if err := dec.Decode(&st); err != nil {
				return "", fmt.Errorf("decode the answer: status: %w", err)
			}
			return st, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return "", fmt.Errorf("decode the answer: %w", err)
		}
	}
	return "", errors.New("decode the answer: no status")
}

// getJSON GETs an API path into v, with retries, and returns the next
// page number from the Link header (0: none).
func (s *search) getJSON(ctx context.Context, op, path string, v any) (int, error) {
	return s.get(ctx, op, path, func(r io.Reader) error { return json.NewDecoder(r).Decode(v) })
}

// get GETs an API path, reads the answer with decode, with retries, and
// returns the next page number from the Link header (0: none).
func (s *search) get(ctx context.Context, op, path string, decode func(io.Reader) error) (int, error) {
	next := 0
	err := s.retry(ctx, func() error {
		rctx, cancel := context.WithTimeout(ctx, s.g.RequestTimeout)
		defer cancel()
		req, err := s.g.API.NewRequest("GET", path, nil)
		if err != nil {
			return &RequestError{Op: op, Request: "GET " + path, Err: err}
		}
		resp, err := s.api.Do(req.WithContext(rctx))
		if err != nil {
			return netError(op, "GET "+path, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return s.apiError(op, "GET "+path, resp)
		}
		if err := decode(io.LimitReader(resp.Body, 16<<20)); err != nil {
			if rctx.Err() != nil {
				return netError(op, "GET "+path, err)
			}
			return &RequestError{Op: op, Request: "GET " + path, StatusCode: resp.StatusCode, Err: fmt.Errorf("decode the answer: %w", err)}
		}
		next = nextPage(resp.Header.Get("Link"))
		return nil
	})
	return next, err
}

// fetch downloads and checks one candidate. Failures of the candidate itself
// are *candidateErr; others are store errors.
func (s *search) fetch(ctx context.Context, a *github.Artifact, q Query) (*File, error) {
	id := a.GetID()
	if sz := a.GetSizeInBytes(); sz > s.g.MaxArchive {
		return nil, &candidateErr{fmt.Errorf("archive of %d bytes exceeds the %d-byte limit", sz, s.g.MaxArchive)}
	}
	var data []byte
	err := s.retry(ctx, func() error {
		// A fresh archive URL on every attempt: the signed URL is short-lived.
		loc, err := s.archiveURL(ctx, id)
		if err != nil {
			return err
		}
		data, err = s.download(ctx, loc)
		return err
	})
	var re *RequestError
	if err != nil && errors.As(err, &re) && re.Op == "download archive" && re.StatusCode == http.StatusForbidden {
		// Storage kept refusing fresh URLs: this candidate, not the store.
		err = &candidateErr{err}
	}
	if err != nil {
		return nil, err
	}
	name := fmt.Sprintf("artifact #%d baseline.json", id)
	raw, err := extractBaseline(data, s.g.MaxArchive)
	if err != nil {
		return nil, &candidateErr{err}
	}
	f, err := Read(bytes.NewReader(raw), name, s.g.MaxArchive)
	if err != nil {
		return nil, &candidateErr{err}
	}
	// A baseline for another rubric name is returned, not skipped: the name
	// comes from the rubric file a pull request edits, so a renamed rubric
	// must meet the old baseline (a rubric change, for the gate to judge),
	// never an empty store.
	return f, nil
}

// archiveURL asks the API for the archive's signed storage URL (a 302).
func (s *search) archiveURL(ctx context.Context, id int64) (*url.URL, error) {
	const op = "artifact archive URL"
	path := fmt.Sprintf("repos/%s/%s/actions/artifacts/%d/zip", url.PathEscape(s.g.Owner), url.PathEscape(s.g.Repo), id)
	rctx, cancel := context.WithTimeout(ctx, s.g.RequestTimeout)
	defer cancel()
	req, err := s.g.API.NewRequest("GET", path, nil)
	if err != nil {
		return nil, &RequestError{Op: op, Request: "GET " + path, Err: err}
	}
	resp, err := s.api.Do(req.WithContext(rctx))
	if err != nil {
		return nil, netError(op, "GET "+path, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect:
		loc, err := resp.Location()
		// Storage is https; plain http only when the API itself is (a test
		// server, or an Enterprise host on http).
		if err != nil || (loc.Scheme != "https" && (loc.Scheme != "http" || s.g.API.BaseURL.Scheme != "http")) || loc.Host == "" {
			return nil, &RequestError{Op: op, Request: "GET " + path, StatusCode: resp.StatusCode, Err: fmt.Errorf("redirect without a usable Location (%q)", resp.Header.Get("Location"))}
		}
		return loc, nil
	case http.StatusGone:
		return nil, &candidateErr{&RequestError{Op: op, Request: "GET " + path, StatusCode: resp.StatusCode, Err: errors.New("410 Gone: the artifact has expired or was deleted")}}
	}
	return nil, s.apiError(op, "GET "+path, resp)
}

// download fetches the archive from storage with the plain client, capped.
func (s *search) download(ctx context.Context, loc *url.URL) ([]byte, error) {
	const op = "download archive"
	shown := *loc
	shown.RawQuery, shown.Fragment, shown.User = "", "", nil
	desc := "GET " + shown.String() + " (signed URL)"
	rctx, cancel := context.WithTimeout(ctx, s.g.RequestTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, "GET", loc.String(), nil)
	if err != nil {
		return nil, &RequestError{Op: op, Request: desc, Err: err}
	}
	req.Header.Del("Authorization")
	resp, err := s.dl.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			ue.URL = shown.String() // keep the signature out of errors and logs
		}
		return nil, netError(op, desc, err)
	}
	defer resp.Body.Close()
	rerr := func(err error) *RequestError {
		return &RequestError{Op: op, Request: desc, StatusCode: resp.StatusCode, Err: err}
	}
	switch c := resp.StatusCode; {
	case c == http.StatusOK:
	case c == http.StatusNotFound || c == http.StatusGone:
		return nil, &candidateErr{rerr(fmt.Errorf("%s: the archive has expired or vanished", resp.Status))}
	case c == http.StatusTooManyRequests:
		return nil, &rateWait{d: s.retryAfter(resp), err: rerr(errors.New(resp.Status))}
	case c == http.StatusForbidden:
		// Usually the signed URL expired during a backoff: retried with a
		// fresh URL, and a candidate failure if it persists.
		return nil, &transient{rerr(fmt.Errorf("storage answered %s (signed URL expired?)", resp.Status))}
	case c >= 500:
		return nil, &transient{rerr(errors.New(resp.Status))}
	default:
		return nil, &candidateErr{rerr(fmt.Errorf("storage answered %s", resp.Status))}
	}
	if resp.ContentLength > s.g.MaxArchive {
		return nil, &candidateErr{rerr(fmt.Errorf("archive of %d bytes exceeds the %d-byte limit", resp.ContentLength, s.g.MaxArchive))}
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, s.g.MaxArchive+1))
	if err != nil {
		return nil, &transient{rerr(fmt.Errorf("reading the archive: %w", err))}
	}
	if int64(len(data)) > s.g.MaxArchive {
		return nil, &candidateErr{rerr(fmt.Errorf("archive exceeds the %d-byte limit", s.g.MaxArchive))}
	}
	return data, nil
}

// apiError classifies a failed API answer (it reads the body).
func (s *search) apiError(op, desc string, resp *http.Response) error {
	err := github.CheckResponse(resp)
	if err == nil {
		err = fmt.Errorf("unexpected status %s", resp.Status)
	}
	re := &RequestError{Op: op, Request: desc, StatusCode: resp.StatusCode, Err: err}
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	var er *github.ErrorResponse
	msg := ""
	switch {
	case errors.As(err, &rl):
		msg = rl.Message
	case errors.As(err, &ab):
		msg = ab.Message
	case errors.As(err, &er):
		msg = er.Message
	}
	re.Detail = resp.Status
	if msg != "" {
		re.Detail += ": " + strings.TrimSpace(msg)
	}
	switch {
	case rl != nil:
		if rl.Rate.Reset.IsZero() {
			return &rateWait{d: -1, err: re}
		}
		re.Detail += fmt.Sprintf(" (primary rate limit; resets at %s)", rl.Rate.Reset.UTC().Format(time.RFC3339))
		d := rl.Rate.Reset.Sub(s.g.Now()) + time.Second
		if d < 0 {
			d = 0
		}
		return &rateWait{d: d, err: re}
	case ab != nil:
		re.Detail += " (secondary rate limit)"
		d := time.Minute // GitHub: without Retry-After, wait at least a minute
		if ab.RetryAfter != nil && *ab.RetryAfter >= 0 {
			d = *ab.RetryAfter
		}
		return &rateWait{d: d, err: re}
	case resp.StatusCode == http.StatusTooManyRequests:
		return &rateWait{d: s.retryAfter(resp), err: re}
	case resp.StatusCode >= 500:
		return &transient{re}
	case resp.StatusCode == http.StatusUnauthorized:
		re.Hint = "the token is missing or invalid; " + permissionsHint
	case resp.StatusCode == http.StatusForbidden, resp.StatusCode == http.StatusNotFound:
		re.Hint = permissionsHint
	}
	return re
}

// retryAfter reads Retry-After (seconds), else X-RateLimit-Reset (epoch
// seconds), else one minute.
func (s *search) retryAfter(resp *http.Response) time.Duration {
	if v := resp.Header.Get("Retry-After"); v != "" {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
			return time.Duration(n) * time.Second
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(s.g.Now()), 0)
		}
	}
	if v := resp.Header.Get("X-RateLimit-Reset"); v != "" {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			return max(time.Unix(n, 0).Sub(s.g.Now())+time.Second, 0)
		}
	}
	return time.Minute
}

// netError wraps a transport error as transient (retried).
func netError(op, desc string, err error) error {
	return &transient{&RequestError{Op: op, Request: desc, Err: err}}
}

// nextPage returns the page number of the rel="next" link, or 0.
func nextPage(link string) int {
	for _, part := range strings.Split(link, ",") {
		segs := strings.Split(strings.TrimSpace(part), ";")
		if len(segs) < 2 {
			continue
		}
		u := strings.Trim(strings.TrimSpace(segs[0]), "<>")
		isNext := false
		for _, p := range segs[1:] {
			if strings.TrimSpace(p) == `rel="next"` {
				isNext = true
			}
		}
		if !isNext {
			continue
		}
		pu, err := url.Parse(u)
		if err != nil {
			return 0
		}
		n, err := strconv.Atoi(pu.Query().Get("page"))
		if err != nil || n <= 0 {
			return 0
		}
		return n
	}
	return 0
}
