package baseline

import (
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

// branchHint is the hint of a branch the API does not show (404) while
// its successful push runs carry the baseline artifact.
const branchHint = "the branch's successful push runs carry the baseline artifact, but the API does not show the branch: on a private repository the token needs `permissions: contents: read`, or the branch was renamed or deleted; a baseline store error, not an empty store"

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
// repository (404), is refused. A branch the API does not show (404) while
// its runs carry the artifact is a store error, never ErrNotFound. Only a
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

// search is one Latest call.
type search struct {
	g        GitHub // with defaults applied
	api      *http.Client
	dl       *http.Client
	rateLeft time.Duration
	// rateWaits counts the rate-limit waits of the whole search.
	rateWaits int
	// head is the branch's head commit once read (headRead).
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
	var t runTally
	page := 1
	for page > 0 && len(t.failures) < s.g.MaxCandidates && !t.capped {
		list, next, err := s.listRuns(ctx, q.Branch, page)
		if err != nil {
			return nil, none, err
		}
		page = next
		newestFirst(list)
		for _, r := range list {
			if len(t.failures) >= s.g.MaxCandidates {
				break
			}
			if t.runs >= s.g.MaxRuns {
				t.capped = true
				break
			}
			t.runs++
			f, src, err := s.tryRun(ctx, r, q, &t)
			if err != nil || f != nil {
				return f, src, err
			}
		}
	}
	return nil, none, s.noBaseline(q, &t)
}

// runTally counts what the search saw, for the error when it finds no
// baseline.
type runTally struct {
	failures                        []CandidateFailure
	runs, refused, without, expired int
	capped                          bool
}

// newestFirst sorts runs newest first by created_at, then id (documented,
// but cheap to ensure).
func newestFirst(list []*github.WorkflowRun) {
	sort.SliceStable(list, func(i, j int) bool {
		ti, tj := list[i].GetCreatedAt().Time, list[j].GetCreatedAt().Time
		if !ti.Equal(tj) {
			return ti.After(tj)
		}
		return list[i].GetID() > list[j].GetID()
	})
}

// tryRun looks for the baseline in one run: the file and where it came
// from, or a nil file when the run has none usable (counted in t), or a
// store error.
func (s *search) tryRun(ctx context.Context, r *github.WorkflowRun, q Query, t *runTally) (*File, gate.BaselineSource, error) {
	var none gate.BaselineSource
	switch {
	case r.GetID() <= 0 || r.GetEvent() != "push" || r.GetHeadBranch() != q.Branch || r.GetConclusion() != "success":
		t.refused++
		s.g.Logf("skipping workflow run #%d: event %q, branch %q, conclusion %q; only successful push runs of %q are used", r.GetID(), r.GetEvent(), r.GetHeadBranch(), r.GetConclusion(), q.Branch)
		return nil, none, nil
	case r.GetRepository().GetID() != s.g.RepoID || r.GetHeadRepository().GetID() != s.g.RepoID:
		t.refused++
		s.g.Logf("skipping workflow run #%d: not a run of this repository (head repository id %d, expected %d); runs from forks are never used", r.GetID(), r.GetHeadRepository().GetID(), s.g.RepoID)
		return nil, none, nil
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
			t.refused++
			s.g.Logf("skipping workflow run #%d: its commit %q is not on branch %q (%s); a push of a tag named like the branch reports the same head_branch", r.GetID(), r.GetHeadSHA(), q.Branch, why)
			return nil, none, nil
		}
	}
	a, stale := s.newestArtifact(arts, r.GetID())
	if a == nil {
		if stale {
			t.expired++
		} else {
			t.without++
		}
		return nil, none, nil
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
	t.failures = append(t.failures, CandidateFailure{ArtifactID: a.GetID(), Reason: ce.Error()})
	s.g.Logf("skipping baseline artifact #%d: %v", a.GetID(), ce)
	return nil, none, nil
}

// newestArtifact returns the run's newest unexpired artifact named
// ArtifactName (nil: none), and whether an expired one was seen.
func (s *search) newestArtifact(arts []*github.Artifact, runID int64) (a *github.Artifact, stale bool) {
	for _, x := range arts {
		switch {
		case x.GetName() != s.g.ArtifactName || x.GetID() <= 0:
		case x.WorkflowRun != nil && x.WorkflowRun.GetID() != runID:
		case x.GetExpired() || (x.ExpiresAt != nil && !x.ExpiresAt.After(s.g.Now())):
			stale = true
		case a == nil || x.GetCreatedAt().After(a.GetCreatedAt().Time) || x.GetCreatedAt().Equal(a.GetCreatedAt()) && x.GetID() > a.GetID():
			a = x
		}
	}
	return a, stale
}

// noBaseline is the error of a search that found no baseline: the
// candidates' failures, the runs cap, or ErrNotFound with what was seen.
func (s *search) noBaseline(q Query, t *runTally) error {
	if len(t.failures) > 0 {
		return &CandidatesError{Failures: t.failures}
	}
	counts := fmt.Sprintf("%d successful push run(s) of branch %q examined in %s/%s: %d without an artifact named %q, %d with it expired, %d refused (another event, branch or repository, or a commit not on the branch)",
		t.runs, q.Branch, s.g.Owner, s.g.Repo, t.without, s.g.ArtifactName, t.expired, t.refused)
	if t.capped {
		// More runs exist: the baseline may be among them. Not "no baseline".
		return &RunsCapError{MaxRuns: s.g.MaxRuns, Detail: counts}
	}
	return fmt.Errorf("%w for rubric %q on branch %q: %s", ErrNotFound, q.Rubric, q.Branch, counts)
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
// branch's head or one of its ancestors). API failures other than a 404 on
// the comparison are store errors (after the retries and rate-limit waits
// of every call), a 404 on the branch too: it is read only for a run of
// the branch that carries the baseline artifact.
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
			// The branch's successful push runs carry the baseline (only
			// such a run is checked), yet the API does not show the
			// branch: two facts that contradict each other, a store
			// error, never "no baseline".
			re.Hint = branchHint
			return "", re
		case err != nil:
			return "", err
		case b.Commit.SHA == "":
			return "", &RequestError{Op: "get branch", Request: "GET " + path, StatusCode: http.StatusOK, Err: errors.New("the answer names no commit")}
		}
		s.head, s.headRead = b.Commit.SHA, true
	}
	if strings.EqualFold(s.head, sha) {
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
