package main

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/rubricgate/rubricgate/internal/ghfake"
)

// elsewhere is a second host that records the Authorization header of
// every request it gets.
type elsewhere struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits int
	auth []string
}

func newElsewhere(t *testing.T) *elsewhere {
	e := &elsewhere{}
	e.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e.mu.Lock()
		e.hits++
		if a := r.Header.Get("Authorization"); a != "" {
			e.auth = append(e.auth, r.Method+" "+r.URL.Path+": "+a)
		}
		e.mu.Unlock()
		http.NotFound(w, r)
	}))
	t.Cleanup(e.srv.Close)
	return e
}

func (e *elsewhere) redirect() ghfake.Fault {
	return ghfake.Fault{Status: http.StatusFound, Header: http.Header{"Location": {e.srv.URL + "/collect"}}}
}

// check fails when the other host saw a token, or (reached) was not reached.
func (e *elsewhere) check(t *testing.T, what string, reached bool) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.auth) > 0 {
		t.Errorf("%s: the token went to another host: %v", what, e.auth)
	}
	if reached && e.hits == 0 {
		t.Errorf("%s: the redirect was not followed, so the test proves nothing", what)
	}
}

// Every GitHub call goes through one client, which sends the token to the
// API host only: a 302 to another host on the pull request lookup, the
// comment listing, the fork pull request search or the artifact listing
// reaches that host without Authorization.
func TestTokenNeverFollowsRedirectOffAPIHost(t *testing.T) {
	t.Run("pull request lookup", func(t *testing.T) {
		h := newHarness(t)
		other := newElsewhere(t)
		h.fake.Fail(ghfake.RoutePull, other.redirect())
		h.gateInputs(goodRun)
		h.input("baseline-dir", h.path("store"))
		h.action()
		other.check(t, "GET pulls/17", true)
	})
	t.Run("comment listing", func(t *testing.T) {
		h := newHarness(t)
		other := newElsewhere(t)
		h.fake.Fail(ghfake.RouteComments, other.redirect())
		h.gateInputs(goodRun)
		h.input("baseline-dir", h.path("store"))
		h.action()
		other.check(t, "GET issues/17/comments", true)
	})
	t.Run("fork pull request search", func(t *testing.T) {
		h := newHarness(t)
		report := forkReport(t, h)
		other := newElsewhere(t)
		h.fake.Fail(ghfake.RouteCommitPulls, other.redirect())
		h.workflowRunEvent(9001, headSHA, []map[string]any{})
		h.input("command", "comment")
		h.input("report", report)
		h.action()
		other.check(t, "GET commits/{sha}/pulls", true)
	})
	t.Run("artifact listing", func(t *testing.T) {
		h := newHarness(t)
		other := newElsewhere(t)
		h.fake.Fail(ghfake.RouteRuns, other.redirect())
		h.gateInputs(goodRun)
		h.action()
		other.check(t, "GET actions/runs", false)
	})
}
