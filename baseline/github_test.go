package baseline

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"
	"github.com/rubricgate/rubricgate/internal/ghclient"
	"github.com/rubricgate/rubricgate/internal/ghfake"
)

const (
	owner  = "octo-org"
	repo   = "octo-repo"
	repoID = 1296269
	forkID = 999
	token  = "ghs_test_token"
)

var now = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

// env is a fake GitHub with a store pointed at it.
type env struct {
	fake   *ghfake.Server
	store  GitHub
	mu     sync.Mutex
	sleeps []time.Duration
	logs   []string
}

func newEnv(t *testing.T) *env {
	t.Helper()
	e := &env{fake: ghfake.New(t, owner, repo, repoID)}
	e.store = GitHub{
		API:      e.fake.Client(token),
		Download: &http.Client{},
		Owner:    owner,
		Repo:     repo,
		RepoID:   repoID,
		Now:      func() time.Time { return now },
		Sleep: func(ctx context.Context, d time.Duration) error {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.sleeps = append(e.sleeps, d)
			return ctx.Err()
		},
		Logf: func(format string, args ...any) {
			e.mu.Lock()
			defer e.mu.Unlock()
			e.logs = append(e.logs, fmt.Sprintf(format, args...))
		},
	}
	return e
}

func (e *env) log() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return strings.Join(e.logs, "\n")
}

// baselineZip is an artifact archive holding a valid baseline for rubric
// name with the given score, plus an unrelated entry.
func baselineZip(t testing.TB, name string, score float64) []byte {
	t.Helper()
	rb := testRubric(name)
	f, err := New(rb, reportOf(rb, flatItems(score)), flatItems(score), testMeta)
	if err != nil {
		t.Fatal(err)
	}
	return makeZip(t, zipEntry{name: "report.md", body: []byte("# report")}, zipEntry{name: ArchiveEntry, body: encode(t, f)})
}

// art is an artifact of this repository on main, created ago before now.
func art(id int64, ago time.Duration, zip []byte) ghfake.Artifact {
	return ghfake.Artifact{
		ID: id, Name: DefaultArtifactName, CreatedAt: now.Add(-ago), RunID: 5000 + id,
		RepositoryID: repoID, HeadRepositoryID: repoID, HeadBranch: "main",
		HeadSHA: fmt.Sprintf("%040d", id), Zip: zip,
	}
}

var q = Query{Rubric: "rag-review", Branch: "main"}

func TestGitHubCommonCase(t *testing.T) {
	e := newEnv(t)
	good := baselineZip(t, "rag-review", 81)
	older := baselineZip(t, "rag-review", 70)
	fork := art(50, time.Hour, baselineZip(t, "rag-review", 99))
	fork.HeadRepositoryID = forkID
	fork.RunEvent = "push" // a lying listing: refused client-side too
	otherRepo := art(51, time.Hour, baselineZip(t, "rag-review", 98))
	otherRepo.RepositoryID, otherRepo.HeadRepositoryID = forkID, forkID
	branch := art(52, time.Hour, baselineZip(t, "rag-review", 97))
	branch.HeadBranch = "feature/x"
	expired := art(53, time.Hour, baselineZip(t, "rag-review", 96))
	expired.Expired = true
	pastExpiry := art(54, time.Hour, baselineZip(t, "rag-review", 95))
	pastExpiry.ExpiresAt = now.Add(-time.Minute)
	misnamed := art(55, time.Hour, baselineZip(t, "rag-review", 94))
	misnamed.Name = "other-artifact"
	// Listed oldest first on purpose: the store sorts by created_at itself.
	e.fake.Add(art(10, 48*time.Hour, older), fork, otherRepo, branch, expired, pastExpiry, misnamed, art(11, 2*time.Hour, good))

	f, src, err := e.store.Latest(context.Background(), q)
	if err != nil {
		t.Fatalf("Latest: %v", err)
	}
	if f.Score != 81 {
		t.Errorf("picked the baseline with score %v, want the newest qualifying one (81)", f.Score)
	}
	wantSrc := "octo-org/octo-repo artifact #11"
	if src.Kind != "github-artifact" || src.Location != wantSrc || src.RunID != 5011 || src.SHA != fmt.Sprintf("%040d", 11) {
		t.Errorf("source = %+v", src)
	}
	for _, r := range e.fake.Requests() {
		switch r.Route {
		case ghfake.RouteStorage:
			if r.Auth != "" {
				t.Errorf("the token reached the storage host: %q", r.Auth)
			}
		case ghfake.RouteList:
			t.Errorf("the repository's artifact list, which forks can flood, was read: %s", r)
		case ghfake.RouteRuns:
			if r.Query != "branch=main&event=push&exclude_pull_requests=true&page=1&per_page=20&status=success" {
				t.Errorf("runs query %q", r.Query)
			}
			fallthrough
		case ghfake.RouteRunArtifacts:
			if r.Route == ghfake.RouteRunArtifacts && !strings.Contains(r.Query, "name="+DefaultArtifactName) {
				t.Errorf("run artifacts query %q lacks the name filter", r.Query)
			}
			fallthrough
		default:
			if r.Auth != "Bearer "+token {
				t.Errorf("%s %s without the token", r.Method, r.Path)
			}
		}
	}
	// The fork's run is a pull_request run: GitHub does not list it. Listed
	// anyway (a push event claimed), it is refused by its head repository.
	if l := e.log(); !strings.Contains(l, "workflow run #5050: not a run of this repository") || !strings.Contains(l, "workflow run #5051: not a run of this repository") {
		t.Errorf("fork runs not reported by id; log:\n%s", l)
	}
}

// Runs without the artifact (other workflows, runs that blocked) are paged
// through; reaching MaxRuns is a store error, never ErrNotFound.
func TestGitHubPaging(t *testing.T) {
	var runs []ghfake.Run
	for i := range 25 {
		runs = append(runs, ghfake.Run{ID: int64(9000 + i), Event: "push", Conclusion: "success", Workflow: "lint.yml", HeadBranch: "main",
			RepositoryID: repoID, HeadRepositoryID: repoID, CreatedAt: now.Add(-time.Duration(i+1) * time.Minute)})
	}
	good := art(7, 72*time.Hour, baselineZip(t, "rag-review", 66))
	e := newEnv(t)
	e.fake.AddRuns(runs...)
	e.fake.Add(good)
	f, _, err := e.store.Latest(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if f.Score != 66 {
		t.Errorf("score %v", f.Score)
	}
	if n, m := e.fake.Count(ghfake.RouteRuns), e.fake.Count(ghfake.RouteRunArtifacts); n != 2 || m != 26 {
		t.Errorf("%d runs pages and %d run artifact lists read, want 2 and 26", n, m)
	}
	// With Workflow set only that workflow's runs are listed: 5 requests
	// (with the branch's head, which the run's commit is).
	e1 := newEnv(t)
	e1.fake.AddRuns(runs...)
	e1.fake.Add(good)
	e1.store.Workflow = "rubricgate.yml"
	if f, _, err := e1.store.Latest(context.Background(), q); err != nil || f.Score != 66 {
		t.Fatalf("Workflow set: %v", err)
	}
	if n := e1.fake.Count(""); n != 5 {
		t.Errorf("Workflow set: %d requests, want 5: %v", n, e1.fake.Requests())
	}
	// With 10 runs allowed the baseline is never reached: a store error.
	e2 := newEnv(t)
	e2.fake.AddRuns(runs...)
	e2.fake.Add(good)
	e2.store.MaxRuns = 10
	_, _, err = e2.store.Latest(context.Background(), q)
	var ce *RunsCapError
	if errors.Is(err, ErrNotFound) || !errors.As(err, &ce) || !strings.Contains(err.Error(), "stopped after 10 workflow runs (MaxRuns)") {
		t.Errorf("MaxRuns 10: %v, want *RunsCapError, not ErrNotFound", err)
	}
	// Exactly MaxRuns runs and nothing more: not found is honest.
	e3 := newEnv(t)
	e3.fake.AddRuns(runs[:10]...)
	e3.store.MaxRuns = 10
	if _, _, err := e3.store.Latest(context.Background(), q); !errors.Is(err, ErrNotFound) {
		t.Errorf("10 runs, MaxRuns 10: %v, want ErrNotFound", err)
	}
}

// A thousand newer artifacts of the baseline's name from forks' pull
// request runs (which anyone can start) once pushed the real baseline past
// the listing's page cap, giving ErrNotFound. Runs are listed by event and
// branch, so the flood is never seen: the common case stays 5 requests.
func TestGitHubArtifactFloodIgnored(t *testing.T) {
	e := newEnv(t)
	var flood []ghfake.Artifact
	for i := range 1000 {
		a := art(int64(100+i), time.Duration(i+1)*time.Second, []byte("x"))
		a.HeadRepositoryID = forkID
		flood = append(flood, a)
	}
	e.fake.Add(flood...)
	e.fake.Add(art(1, 48*time.Hour, baselineZip(t, "rag-review", 81)))
	f, src, err := e.store.Latest(context.Background(), q)
	if err != nil || f.Score != 81 || src.RunID != 5001 {
		t.Fatalf("Latest = %v, %+v, %v", f, src, err)
	}
	if n := e.fake.Count(""); n != 5 {
		t.Errorf("%d requests, want 5 (runs page, run artifacts, branch, archive URL, storage): %v", n, e.fake.Requests())
	}
}

func TestGitHubNotFound(t *testing.T) {
	tests := []struct {
		name string
		arts func(t *testing.T) []ghfake.Artifact
		want string
	}{
		{"empty", func(*testing.T) []ghfake.Artifact { return nil }, "0 successful push run(s)"},
		{"all filtered", func(t *testing.T) []ghfake.Artifact {
			z := baselineZip(t, "rag-review", 1)
			a, b, c, d, x := art(1, time.Hour, z), art(2, time.Hour, z), art(3, time.Hour, z), art(4, time.Hour, z), art(5, time.Hour, z)
			a.Expired, b.HeadRepositoryID, c.HeadBranch, d.RunConclusion = true, forkID, "dev", "failure"
			x.RunEvent = "workflow_dispatch"
			return []ghfake.Artifact{a, b, c, d, x}
		}, "1 successful push run(s) of branch \"main\" examined in octo-org/octo-repo: 0 without an artifact named \"rubricgate-baseline\", 1 with it expired, 0 refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.fake.Add(tt.arts(t)...)
			_, _, err := e.store.Latest(context.Background(), q)
			if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v; want ErrNotFound containing %q", err, tt.want)
			}
			if n := e.fake.Count(ghfake.RouteZip) + e.fake.Count(ghfake.RouteStorage); n != 0 {
				t.Errorf("%d download requests for unqualified artifacts", n)
			}
		})
	}
}

// The artifact name, not the rubric name a pull request edits, keys the
// store: a renamed rubric meets the newest baseline (for the old name: a
// rubric change the gate judges), never "every candidate failed", which
// on-baseline-error: pass would pass.
func TestGitHubOtherRubricNameIsReturned(t *testing.T) {
	e := newEnv(t)
	e.fake.Add(art(11, 2*time.Hour, baselineZip(t, "rag-review", 81)))
	f, src, err := e.store.Latest(context.Background(), Query{Rubric: "rag-review-v2", Branch: "main"})
	if err != nil {
		t.Fatalf("renamed rubric: %v, want the baseline kept under the artifact name", err)
	}
	if f.Rubric.Name != "rag-review" || f.Score != 81 || src.Location != "octo-org/octo-repo artifact #11" {
		t.Errorf("got rubric %q score %v from %s", f.Rubric.Name, f.Score, src.Location)
	}
}

// TestGitHubBadCandidates: a bad newest candidate is reported by id and the
// next one used.
func TestGitHubBadCandidates(t *testing.T) {
	const limit = 64 << 10
	validJSON := func(t *testing.T) []byte { return encode(t, testFile(t, "rag-review")) }
	bomb := make([]byte, 4*limit)
	big := bytes.Repeat([]byte("x"), 2*limit)
	for i := range big {
		big[i] = byte(i*7919 + i>>3) // poorly compressible
	}
	tests := []struct {
		name string
		bad  func(t *testing.T) ghfake.Artifact
		want string
	}{
		{"corrupt zip", func(t *testing.T) ghfake.Artifact { return art(100, time.Hour, []byte("PK\x03\x04 not a zip at all")) }, "corrupt zip archive"},
		{"no baseline.json", func(t *testing.T) ghfake.Artifact {
			return art(100, time.Hour, makeZip(t, zipEntry{name: "sub/baseline.json", body: validJSON(t)}))
		}, "no top-level baseline.json"},
		{"bad json", func(t *testing.T) ghfake.Artifact {
			return art(100, time.Hour, makeZip(t, zipEntry{name: ArchiveEntry, body: []byte(`{"schema": 1,`)}))
		}, "artifact #100 baseline.json:1:13: invalid JSON"},
		{"schema 2", func(t *testing.T) ghfake.Artifact {
			return art(100, time.Hour, makeZip(t, zipEntry{name: ArchiveEntry, body: []byte(`{"schema": 2}`)}))
		}, "baseline schema 2 is not supported"},
		{"zip 410", func(t *testing.T) ghfake.Artifact {
			// Listed as unexpired; the archive endpoint answers 410 (queued below).
			return art(100, time.Hour, baselineZip(t, "rag-review", 50))
		}, "410 Gone"},
		{"storage 410", func(t *testing.T) ghfake.Artifact {
			a := art(100, time.Hour, baselineZip(t, "rag-review", 50))
			a.StorageStatus = http.StatusGone
			return a
		}, "expired or vanished"},
		{"storage 404", func(t *testing.T) ghfake.Artifact {
			a := art(100, time.Hour, baselineZip(t, "rag-review", 50))
			a.StorageStatus = http.StatusNotFound
			return a
		}, "404 Not Found: the archive has expired or vanished"},
		{"declared oversize", func(t *testing.T) ghfake.Artifact {
			return art(100, time.Hour, makeZip(t, zipEntry{name: ArchiveEntry, body: big, store: true}))
		}, "exceeds the 65536-byte limit"},
		{"content-length oversize", func(t *testing.T) ghfake.Artifact {
			a := art(100, time.Hour, makeZip(t, zipEntry{name: ArchiveEntry, body: big, store: true}))
			a.SizeInBytes = 10
			return a
		}, "bytes exceeds the 65536-byte limit"},
		{"streamed oversize", func(t *testing.T) ghfake.Artifact {
			a := art(100, time.Hour, makeZip(t, zipEntry{name: ArchiveEntry, body: big, store: true}))
			a.SizeInBytes, a.NoContentLength = 10, true
			return a
		}, "archive exceeds the 65536-byte limit"},
		{"zip bomb", func(t *testing.T) ghfake.Artifact {
			return art(100, time.Hour, makeZip(t, zipEntry{name: ArchiveEntry, body: bomb}))
		}, "over the 65536-byte limit"},
		{"dotdot entry", func(t *testing.T) ghfake.Artifact {
			return art(100, time.Hour, makeZip(t, zipEntry{name: "../../etc/cron.d/x", body: []byte("x")}, zipEntry{name: ArchiveEntry, body: validJSON(t)}))
		}, `"../../etc/cron.d/x" has an unsafe name`},
		{"absolute entry", func(t *testing.T) ghfake.Artifact {
			return art(100, time.Hour, makeZip(t, zipEntry{name: "/etc/passwd", body: []byte("x")}, zipEntry{name: ArchiveEntry, body: validJSON(t)}))
		}, "unsafe name"},
		{"symlink", func(t *testing.T) ghfake.Artifact {
			return art(100, time.Hour, makeZip(t, zipEntry{name: ArchiveEntry, body: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777}))
		}, "not a regular file"},
		{"twice", func(t *testing.T) ghfake.Artifact {
			return art(100, time.Hour, makeZip(t, zipEntry{name: ArchiveEntry, body: validJSON(t)}, zipEntry{name: ArchiveEntry, body: validJSON(t)}))
		}, "baseline.json twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.store.MaxArchive = limit
			e.fake.Add(tt.bad(t), art(101, 5*time.Hour, baselineZip(t, "rag-review", 42)))
			if tt.name == "zip 410" {
				e.fake.Fail(ghfake.RouteZip, ghfake.Status(http.StatusGone, "Artifact has expired"))
			}
			f, src, err := e.store.Latest(context.Background(), q)
			if err != nil {
				t.Fatalf("Latest: %v", err)
			}
			if f.Score != 42 || !strings.HasSuffix(src.Location, "#101") {
				t.Errorf("used %s (score %v), want artifact #101", src.Location, f.Score)
			}
			if l := e.log(); !strings.Contains(l, "artifact #100") || !strings.Contains(l, tt.want) {
				t.Errorf("log does not report artifact #100 with %q:\n%s", tt.want, l)
			}
		})
	}
}

func TestGitHubAllCandidatesFail(t *testing.T) {
	e := newEnv(t)
	e.store.MaxCandidates = 3
	corrupt := []byte("not a zip")
	for i := range 5 {
		e.fake.Add(art(int64(200+i), time.Duration(i+1)*time.Hour, corrupt))
	}
	_, _, err := e.store.Latest(context.Background(), q)
	var ce *CandidatesError
	if !errors.As(err, &ce) || errors.Is(err, ErrNotFound) {
		t.Fatalf("err = %v; want a *CandidatesError, not ErrNotFound", err)
	}
	var ids []int64
	for _, f := range ce.Failures {
		ids = append(ids, f.ArtifactID)
		if !strings.Contains(f.Reason, "corrupt zip") {
			t.Errorf("reason %q", f.Reason)
		}
	}
	if fmt.Sprint(ids) != "[200 201 202]" {
		t.Errorf("tried %v, want the 3 newest [200 201 202]", ids)
	}
	if !strings.Contains(err.Error(), "artifact #200") || !strings.Contains(err.Error(), "artifact #202") {
		t.Errorf("error does not list the ids: %v", err)
	}
	if n := e.fake.Count(ghfake.RouteStorage); n != 3 {
		t.Errorf("%d downloads, want 3", n)
	}
}

// fault is a queued fault on a route.
type fault struct {
	route string
	f     ghfake.Fault
}

func TestGitHubFaults(t *testing.T) {
	reset := now.Add(30 * time.Second)
	rateHeaderOnly := ghfake.TooMany(-1)
	rateHeaderOnly.Header.Set("X-RateLimit-Reset", fmt.Sprint(now.Add(9*time.Second).Unix()))
	e500 := ghfake.Status(http.StatusInternalServerError, "Server Error")
	e502 := ghfake.Fault{Status: http.StatusBadGateway, Body: "<html>bad gateway</html>"}
	tests := []struct {
		name   string
		faults []fault
		// Outcome: on success the requests per route; on failure substrings.
		wantErr    []string
		deadline   time.Duration
		wantSleeps string
		wantCounts map[string]int
	}{
		{name: "list 500 then ok", faults: []fault{{ghfake.RouteRuns, e500}},
			wantSleeps: "[1s]", wantCounts: map[string]int{ghfake.RouteRuns: 2, ghfake.RouteZip: 1, ghfake.RouteStorage: 1}},
		{name: "list 500 forever", faults: []fault{{ghfake.RouteRuns, e500}, {ghfake.RouteRuns, e502}, {ghfake.RouteRuns, e500}, {ghfake.RouteRuns, e500}},
			wantErr: []string{"list workflow runs (GET repos/octo-org/octo-repo/actions/runs?branch=main&event=push&exclude_pull_requests=true&page=1&per_page=20&status=success)", "500", "gave up after 4 attempts"}, wantSleeps: "[1s 2s 4s]"},
		{name: "primary rate limit", faults: []fault{{ghfake.RouteRuns, ghfake.RateLimited(reset)}},
			wantSleeps: "[31s]", wantCounts: map[string]int{ghfake.RouteRuns: 2}},
		{name: "primary rate limit too long", faults: []fault{{ghfake.RouteRuns, ghfake.RateLimited(now.Add(10 * time.Minute))}},
			wantErr: []string{"list workflow runs", "rate limit", "would exceed the remaining rate-limit wait budget of 1m0s"}, wantSleeps: "[]"},
		{name: "secondary rate limit", faults: []fault{{ghfake.RouteRuns, ghfake.SecondaryLimited(20 * time.Second)}},
			wantSleeps: "[20s]", wantCounts: map[string]int{ghfake.RouteRuns: 2}},
		{name: "429 retry-after", faults: []fault{{ghfake.RouteZip, ghfake.TooMany(5 * time.Second)}},
			wantSleeps: "[5s]", wantCounts: map[string]int{ghfake.RouteRuns: 1, ghfake.RouteZip: 2, ghfake.RouteStorage: 1}},
		{name: "429 retry-after date", faults: []fault{{ghfake.RouteRuns, ghfake.Fault{Status: 429, Header: http.Header{"Retry-After": {now.Add(7 * time.Second).Format(http.TimeFormat)}}}}},
			wantSleeps: "[7s]", wantCounts: map[string]int{ghfake.RouteRuns: 2}},
		{name: "429 nothing", faults: []fault{{ghfake.RouteRuns, ghfake.TooMany(-1)}},
			wantSleeps: "[1m0s]", wantCounts: map[string]int{ghfake.RouteRuns: 2}},
		{name: "storage 429", faults: []fault{{ghfake.RouteStorage, ghfake.TooMany(3 * time.Second)}},
			wantSleeps: "[3s]", wantCounts: map[string]int{ghfake.RouteZip: 2, ghfake.RouteStorage: 2}},
		{name: "429 reset header", faults: []fault{{ghfake.RouteRuns, rateHeaderOnly}},
			wantSleeps: "[10s]", wantCounts: map[string]int{ghfake.RouteRuns: 2}},
		{name: "rate budget spent across waits", faults: []fault{{ghfake.RouteRuns, ghfake.SecondaryLimited(40 * time.Second)}, {ghfake.RouteRuns, ghfake.SecondaryLimited(40 * time.Second)}},
			wantErr: []string{"remaining rate-limit wait budget of 20s"}, wantSleeps: "[40s]"},
		{name: "rate wait past the deadline", deadline: 10 * time.Second, faults: []fault{{ghfake.RouteRuns, ghfake.SecondaryLimited(20 * time.Second)}},
			wantErr: []string{"waiting 20s would pass the search deadline (10s)"}, wantSleeps: "[]"},
		{name: "zip 500 then ok", faults: []fault{{ghfake.RouteZip, e500}},
			wantSleeps: "[1s]", wantCounts: map[string]int{ghfake.RouteRuns: 1, ghfake.RouteZip: 2, ghfake.RouteStorage: 1}},
		{name: "storage 503 asks a fresh URL", faults: []fault{{ghfake.RouteStorage, ghfake.Fault{Status: http.StatusServiceUnavailable}}},
			wantSleeps: "[1s]", wantCounts: map[string]int{ghfake.RouteRuns: 1, ghfake.RouteZip: 2, ghfake.RouteStorage: 2}},
		{name: "list 401", faults: []fault{{ghfake.RouteRuns, ghfake.Status(401, "Bad credentials")}},
			wantErr: []string{"list workflow runs (GET repos/octo-org/octo-repo/actions/runs?", "401", "Bad credentials", "token is missing or invalid", "permissions: actions: read"}, wantSleeps: "[]"},
		{name: "list 403", faults: []fault{{ghfake.RouteRuns, ghfake.Status(403, "Resource not accessible by integration")}},
			wantErr: []string{"list workflow runs", "403", "Resource not accessible by integration", "`permissions: actions: read`"}, wantSleeps: "[]"},
		{name: "list 404", faults: []fault{{ghfake.RouteRuns, ghfake.Status(404, "Not Found")}},
			wantErr: []string{"list workflow runs", "404", "actions: read", "private repository answers 404"}, wantSleeps: "[]"},
		{name: "run artifacts 500 then ok", faults: []fault{{ghfake.RouteRunArtifacts, e500}},
			wantSleeps: "[1s]", wantCounts: map[string]int{ghfake.RouteRuns: 1, ghfake.RouteRunArtifacts: 2, ghfake.RouteZip: 1}},
		{name: "run artifacts 404", faults: []fault{{ghfake.RouteRunArtifacts, ghfake.Status(404, "Not Found")}},
			wantErr: []string{"list run artifacts (GET repos/octo-org/octo-repo/actions/runs/5011/artifacts?name=rubricgate-baseline&per_page=100)", "404", "actions: read"}, wantSleeps: "[]"},
		{name: "zip 403", faults: []fault{{ghfake.RouteZip, ghfake.Status(403, "Resource not accessible by integration")}},
			wantErr: []string{"artifact archive URL (GET repos/octo-org/octo-repo/actions/artifacts/11/zip)", "403", "actions: read"}, wantSleeps: "[]"},
		{name: "zip 404", faults: []fault{{ghfake.RouteZip, ghfake.Status(404, "Not Found")}},
			wantErr: []string{"artifact archive URL", "404", "actions: read"}, wantSleeps: "[]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.fake.Add(art(11, time.Hour, baselineZip(t, "rag-review", 81)))
			e.store.Deadline = tt.deadline
			for _, f := range tt.faults {
				e.fake.Fail(f.route, f.f)
			}
			f, _, err := e.store.Latest(context.Background(), q)
			if tt.wantErr != nil {
				if err == nil {
					t.Fatalf("Latest succeeded (score %v)", f.Score)
				}
				t.Logf("error: %v", err)
				if errors.Is(err, ErrNotFound) {
					t.Errorf("a store error reads as ErrNotFound: %v", err)
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
			} else if err != nil || f.Score != 81 {
				t.Fatalf("Latest = %v, %v", f, err)
			}
			if got := fmt.Sprint(e.sleeps); got != tt.wantSleeps {
				t.Errorf("sleeps %s, want %s", got, tt.wantSleeps)
			}
			for route, n := range tt.wantCounts {
				if got := e.fake.Count(route); got != n {
					t.Errorf("%d %s requests, want %d", got, route, n)
				}
			}
		})
	}
}

// flakyTransport fails the first n requests with a network error.
type flakyTransport struct {
	mu sync.Mutex
	n  int
}

func (f *flakyTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	f.mu.Lock()
	fail := f.n > 0
	f.n--
	f.mu.Unlock()
	if fail {
		return nil, errors.New("connection reset by peer")
	}
	return http.DefaultTransport.RoundTrip(r)
}

func TestGitHubNetworkErrorRetried(t *testing.T) {
	e := newEnv(t)
	e.fake.Add(art(11, time.Hour, baselineZip(t, "rag-review", 81)))
	e.store.Download = &http.Client{Transport: &flakyTransport{n: 2}}
	f, _, err := e.store.Latest(context.Background(), q)
	if err != nil || f.Score != 81 {
		t.Fatalf("Latest = %v, %v", f, err)
	}
	if got := fmt.Sprint(e.sleeps); got != "[1s 2s]" {
		t.Errorf("sleeps %s", got)
	}
	if n := e.fake.Count(ghfake.RouteZip); n != 3 {
		t.Errorf("%d archive URL requests, want 3 (a fresh URL per attempt)", n)
	}
	if l := e.log(); !strings.Contains(l, "download archive (GET http://") || !strings.Contains(l, "(signed URL)") || strings.Contains(l, "sig=") {
		t.Errorf("retry log should name the call without the signature:\n%s", l)
	}
}

func TestGitHubTokenNeverReachesStorage(t *testing.T) {
	e := newEnv(t)
	e.fake.Add(art(11, time.Hour, baselineZip(t, "rag-review", 81)))
	e.store.Download = nil // default plain client
	if _, _, err := e.store.Latest(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	// The API client as the download client: it sends the token to the API
	// host only, so storage gets none.
	e.store.Download = e.fake.Client(token).Client()
	if _, _, err := e.store.Latest(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	// Misconfigured: a client that sends the token everywhere (go-github's
	// WithAuthToken). The storage host refuses it and the candidate fails;
	// nothing is accepted.
	e2 := newEnv(t)
	e2.fake.Add(art(11, time.Hour, baselineZip(t, "rag-review", 81)))
	e2.store.Download = github.NewClient(e2.fake.API.Client()).WithAuthToken(token).Client()
	_, _, err := e2.store.Latest(context.Background(), q)
	var ce *CandidatesError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "403") {
		t.Fatalf("err = %v; want the storage's 403 as a candidate failure", err)
	}
}

func TestGitHubConfigAndDeadline(t *testing.T) {
	e := newEnv(t)
	e.fake.Add(art(11, time.Hour, baselineZip(t, "rag-review", 81)))
	bad := []struct {
		name string
		mod  func(g *GitHub, q *Query)
		want string
	}{
		{"no repo id", func(g *GitHub, q *Query) { g.RepoID = 0 }, "repository id is required"},
		{"no client", func(g *GitHub, q *Query) { g.API = nil }, "no API client"},
		{"no owner", func(g *GitHub, q *Query) { g.Owner = "" }, "owner and repository"},
		{"no branch", func(g *GitHub, q *Query) { q.Branch = "" }, "no baseline branch"},
		{"no rubric", func(g *GitHub, q *Query) { q.Rubric = "" }, "no rubric name"},
	}
	for _, tt := range bad {
		g, qq := e.store, q
		tt.mod(&g, &qq)
		if _, _, err := g.Latest(context.Background(), qq); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := e.store.Latest(ctx, q)
	if err == nil || errors.Is(err, ErrNotFound) || !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled search: %v", err)
	}
}

func TestNewGitHubClient(t *testing.T) {
	tests := []struct {
		api, base, upload, err string
	}{
		{api: "", base: "https://api.github.com/", upload: "https://uploads.github.com/"},
		{api: "https://api.github.com", base: "https://api.github.com/", upload: "https://uploads.github.com/"},
		{api: "https://ghe.example.com/api/v3", base: "https://ghe.example.com/api/v3/", upload: "https://ghe.example.com/api/uploads/"},
		{api: "https://api.ghe.example.com/", base: "https://api.ghe.example.com/", upload: "https://api.ghe.example.com/"},
		{api: "ftp://x", err: "absolute http(s) URL"},
		{api: "api.github.com", err: "absolute http(s) URL"},
		{api: "https://api.github.com?x=1", err: "absolute http(s) URL"},
	}
	for _, tt := range tests {
		c, err := ghclient.New(tt.api, token, nil)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: err = %v, want %q", tt.api, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.api, err)
			continue
		}
		if c.BaseURL.String() != tt.base || c.UploadURL.String() != tt.upload {
			t.Errorf("%q: base %s upload %s, want %s %s", tt.api, c.BaseURL, c.UploadURL, tt.base, tt.upload)
		}
	}
	if _, err := ghclient.New("", "", nil); err == nil || !strings.Contains(err.Error(), "no token") {
		t.Errorf("empty token: %v", err)
	}
	// Against the fake, without the trailing slash (GITHUB_API_URL style).
	e := newEnv(t)
	e.fake.Add(art(11, time.Hour, baselineZip(t, "rag-review", 81)))
	c, err := ghclient.New(strings.TrimSuffix(e.fake.BaseURL(), "/"), token, e.fake.API.Client())
	if err != nil {
		t.Fatal(err)
	}
	e.store.API = c
	if _, _, err := e.store.Latest(context.Background(), q); err != nil {
		t.Fatal(err)
	}
	if r := e.fake.Requests()[0]; r.Auth != "Bearer "+token {
		t.Errorf("auth header %q", r.Auth)
	}
}

// blockingTransport never answers: it waits for the request's context.
type blockingTransport struct{}

func (blockingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, r.Context().Err()
}

func TestGitHubTimeouts(t *testing.T) {
	tests := []struct {
		name string
		mod  func(g *GitHub)
		want []string
	}{
		// The download blocks until its deadline; the API requests before
		// it must fit well inside the deadline on a loaded machine too.
		{"request timeout", func(g *GitHub) { g.RequestTimeout = time.Second; g.Retries = -1 },
			[]string{"download archive (GET http://", "deadline exceeded", "gave up after 1 attempts"}},
		{"search deadline", func(g *GitHub) { g.Deadline = 2 * time.Second },
			[]string{"baseline search stopped (deadline 2s)", "download archive"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			e.fake.Add(art(11, time.Hour, baselineZip(t, "rag-review", 81)))
			e.store.Download = &http.Client{Transport: blockingTransport{}}
			tt.mod(&e.store)
			_, _, err := e.store.Latest(context.Background(), q)
			if err == nil || errors.Is(err, ErrNotFound) {
				t.Fatalf("err = %v", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestGitHubRateLimitRealClock: with a reset in the real future, go-github's
// Client.Do would short-circuit the retry without a request until the real
// reset; the store sends its own requests, so the retry after the (injected)
// wait reaches the server.
func TestGitHubRateLimitRealClock(t *testing.T) {
	e := newEnv(t)
	e.store.Now = time.Now
	e.fake.Add(art(11, time.Hour, baselineZip(t, "rag-review", 81)))
	e.fake.Fail(ghfake.RouteRuns, ghfake.RateLimited(time.Now().Add(30*time.Second)))
	f, _, err := e.store.Latest(context.Background(), q)
	if err != nil || f.Score != 81 {
		t.Fatalf("Latest = %v, %v", f, err)
	}
	if n := e.fake.Count(ghfake.RouteRuns); n != 2 {
		t.Errorf("%d runs list requests reached the server, want 2", n)
	}
	if len(e.sleeps) != 1 || e.sleeps[0] < 25*time.Second || e.sleeps[0] > 32*time.Second {
		t.Errorf("sleeps %v, want one of about 31s", e.sleeps)
	}
	// The same client used with Client.Do is still short-circuited.
	req, _ := e.store.API.NewRequest("GET", "repos/"+owner+"/"+repo+"/actions/artifacts", nil)
	e.fake.Fail(ghfake.RouteList, ghfake.RateLimited(time.Now().Add(30*time.Second)))
	_, _ = e.store.API.Do(context.Background(), req, nil)
	before := e.fake.Count(ghfake.RouteList)
	_, err = e.store.API.Do(context.Background(), req, nil)
	if after := e.fake.Count(ghfake.RouteList); after != before || err == nil {
		t.Logf("go-github no longer short-circuits after a rate limit (%d -> %d requests, err %v)", before, after, err)
	}
}

// A reset already past (a skewed clock) or Retry-After: 0 must not turn into
// a burst of requests: every wait lasts at least minRateWait and the search
// gives up after maxRateWaits waits.
func TestGitHubZeroRateWaitIsBounded(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    ghfake.Fault
	}{
		{"429 retry-after 0", ghfake.TooMany(0)},
		{"primary limit reset in the past", ghfake.RateLimited(now.Add(-time.Hour))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			e.fake.Add(art(11, time.Hour, baselineZip(t, "rag-review", 81)))
			for range 100 {
				e.fake.Fail(ghfake.RouteRuns, tc.f)
			}
			_, _, err := e.store.Latest(context.Background(), q)
			if err == nil || errors.Is(err, ErrNotFound) {
				t.Fatalf("err = %v, want a rate-limit error", err)
			}
			if n := e.fake.Count(ghfake.RouteRuns); n > maxRateWaits+1 {
				t.Errorf("%d list requests while rate limited, want at most %d", n, maxRateWaits+1)
			}
			for _, s := range e.sleeps {
				if s < minRateWait {
					t.Errorf("slept %v, less than %v", s, minRateWait)
				}
			}
		})
	}
}

// Issue 15 §5: a push of a tag named main reports head_branch "main" like a
// push to the branch. Its run (newest, with a lenient baseline) is refused
// because its commit is not on the branch; the branch's own older run (its
// commit an ancestor of the branch's head, "behind" in the comparison) is
// used. A run whose commit the repository does not know (404) is refused
// too; a branch the API does not show is a store error.
func TestGitHubTagNamedLikeBranchRefused(t *testing.T) {
	e := newEnv(t)
	real := art(1, 48*time.Hour, baselineZip(t, "rag-review", 81))
	tag := art(2, time.Hour, baselineZip(t, "rag-review", 20))
	tag.RunTag, tag.HeadSHA = true, strings.Repeat("e", 40)
	gone := art(3, 2*time.Hour, baselineZip(t, "rag-review", 30))
	gone.RunTag, gone.HeadSHA = true, strings.Repeat("d", 40)
	e.fake.Add(real, tag, gone)
	// The branch moved on since its baseline run (a push whose run was
	// blocked and uploaded nothing), and the tag points at a commit off it.
	e.fake.SetBranch("main", real.HeadSHA, strings.Repeat("b", 40))
	e.fake.SetBranch("release", strings.Repeat("b", 40), strings.Repeat("e", 40))
	f, src, err := e.store.Latest(context.Background(), q)
	if err != nil {
		t.Fatalf("Latest: %v\n%s", err, e.log())
	}
	if f.Score != 81 || src.RunID != real.RunID {
		t.Errorf("baseline %v from run %d, want 81 from the branch's run %d", f.Score, src.RunID, real.RunID)
	}
	log := e.log()
	for _, want := range []string{
		fmt.Sprintf("skipping workflow run #%d: its commit %q is not on branch \"main\" (compared with the branch's head %s it is \"ahead\")", tag.RunID, tag.HeadSHA, strings.Repeat("b", 40)),
		fmt.Sprintf("skipping workflow run #%d: its commit %q is not on branch \"main\" (the repository does not know the commit)", gone.RunID, gone.HeadSHA),
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if n := e.fake.Count(ghfake.RouteBranch); n != 1 {
		t.Errorf("the branch was read %d times, want once", n)
	}
	if n := e.fake.Count(ghfake.RouteCompare); n != 3 {
		t.Errorf("%d comparisons, want 3", n)
	}

	// Only the tag's run: no baseline (not a store error).
	e2 := newEnv(t)
	e2.fake.Add(tag)
	e2.fake.SetBranch("main", strings.Repeat("b", 40))
	e2.fake.SetBranch("release", strings.Repeat("b", 40), strings.Repeat("e", 40))
	if _, _, err := e2.store.Latest(context.Background(), q); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "1 refused") {
		t.Errorf("only a tag's run: %v, want ErrNotFound with the run refused", err)
	}
	// A branch the API does not show while a run "of" it carries the
	// artifact: a store error (see TestGitHubBranchNotShown).
	e3 := newEnv(t)
	e3.fake.Add(tag)
	var re *RequestError
	if _, _, err := e3.store.Latest(context.Background(), q); errors.Is(err, ErrNotFound) || !errors.As(err, &re) || re.Op != "get branch" {
		t.Errorf("no branch main: %v, want a store error of the branch call", err)
	}
}

// A branch the API cannot show (404: on a private repository a token
// without contents: read, or a renamed branch) while that branch's
// successful push runs carry the baseline artifact is a store error (for
// on-baseline-error), never "no baseline": with no baseline the gate would
// pass a drop.
func TestGitHubBranchNotShown(t *testing.T) {
	e := newEnv(t)
	e.fake.Add(art(1, 48*time.Hour, baselineZip(t, "rag-review", 81)))
	// GitHub answers 404 for what the token may not see in a private
	// repository (docs: "Get a branch", status 404).
	e.fake.Fail(ghfake.RouteBranch, ghfake.Fault{Status: 404, Body: `{"message":"Not Found","documentation_url":"https://docs.github.com/rest/branches/branches#get-a-branch","status":"404"}`})
	f, _, err := e.store.Latest(context.Background(), q)
	var re *RequestError
	if f != nil || errors.Is(err, ErrNotFound) || !errors.As(err, &re) {
		t.Fatalf("Latest = %v, %v; want a store error, not ErrNotFound\n%s", f, err, e.log())
	}
	if re.Op != "get branch" || re.StatusCode != 404 || !strings.Contains(err.Error(), "contents: read") {
		t.Errorf("error %q (op %q, status %d); want the branch call's 404 with the contents: read hint", err, re.Op, re.StatusCode)
	}
	if n := e.fake.Count(ghfake.RouteBranch); n != 1 {
		t.Errorf("the branch was read %d times, want once (a 404 is not retried)", n)
	}
	// The same store once the branch shows: the baseline is found.
	if f, _, err := e.store.Latest(context.Background(), q); err != nil || f.Score != 81 {
		t.Errorf("branch shown: %v, %v; want the baseline of 81", f, err)
	}
}

// The branch and compare calls are retried and rate limited like the
// store's others: a 5xx is retried, a rate limit waited out, a 403 on the
// comparison is a store error naming the call.
func TestGitHubBranchCheckErrors(t *testing.T) {
	setup := func() *env {
		e := newEnv(t)
		e.fake.Add(art(1, 48*time.Hour, baselineZip(t, "rag-review", 81)))
		e.fake.SetBranch("main", fmt.Sprintf("%040d", 1), strings.Repeat("b", 40))
		return e
	}
	e := setup()
	e.fake.Fail(ghfake.RouteBranch, ghfake.Fault{Status: 502, Body: `{"message":"Bad Gateway"}`})
	reset := now.Add(30 * time.Second).Unix()
	e.fake.Fail(ghfake.RouteCompare, ghfake.Fault{Status: 403, Header: http.Header{
		"X-Ratelimit-Limit": {"5000"}, "X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(reset, 10)}},
		Body: `{"message":"API rate limit exceeded","documentation_url":"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting"}`})
	if f, _, err := e.store.Latest(context.Background(), q); err != nil || f.Score != 81 {
		t.Fatalf("after a 502 and a rate limit: %v, %v\n%s", f, err, e.log())
	}
	if n, m := e.fake.Count(ghfake.RouteBranch), e.fake.Count(ghfake.RouteCompare); n != 2 || m != 2 {
		t.Errorf("branch read %d times, compared %d times, want 2 and 2", n, m)
	}
	if !strings.Contains(e.log(), "rate limited; waiting") {
		t.Errorf("no rate-limit wait logged:\n%s", e.log())
	}
	e = setup()
	e.fake.Fail(ghfake.RouteCompare, ghfake.Fault{Status: 403, Body: `{"message":"Resource not accessible by integration"}`})
	_, _, err := e.store.Latest(context.Background(), q)
	var re *RequestError
	if !errors.As(err, &re) || re.Op != "compare commits" || errors.Is(err, ErrNotFound) {
		t.Errorf("403 on compare: %v, want a store error of the compare call", err)
	}
}
