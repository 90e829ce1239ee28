package comment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v60/github"

	"github.com/rubricgate/rubricgate/internal/ghfake"
)

var (
	headA = strings.Repeat("a", 40)
	headB = strings.Repeat("b", 40)
)

// writes returns the POST and PATCH requests of a request log.
func writes(log []string) []string {
	var out []string
	for _, r := range log {
		if strings.HasPrefix(r, "POST ") || strings.HasPrefix(r, "PATCH ") {
			out = append(out, r)
		}
	}
	return out
}

func TestMarker(t *testing.T) {
	tests := []struct{ key, want string }{
		{"", "<!-- rubricgate:comment key=rubricgate -->"},
		{"rag-eval", "<!-- rubricgate:comment key=rag-eval -->"},
		{"evil -->", "<!-- rubricgate:comment key=evil_-__#"},
	}
	for _, tt := range tests {
		got := Marker(tt.key)
		if !strings.HasPrefix(got, tt.want) || !strings.HasSuffix(got, " -->") || strings.Count(got, "-->") != 1 {
			t.Errorf("Marker(%q) = %q, want prefix %q and one closing -->", tt.key, got, tt.want)
		}
	}
	if strings.Contains(Marker("a"), Marker("ab")) || strings.Contains(Marker("ab"), Marker("a")) {
		t.Error("marker of one key contains the marker of another")
	}
}

func TestUpsertCreateThenUpdate(t *testing.T) {
	f, is := newFake(t)
	is.AddPull(ghfake.PullRequest{Number: 7, HeadSHA: headA})
	is.AddComment(7, "octocat", "LGTM")
	s, _ := service(f)
	ctx := context.Background()

	out, err := s.Upsert(ctx, 7, "rag", "## Report v1", headA)
	if err != nil {
		t.Fatal(err)
	}
	if out.Action != ActionCreated || out.ID == 0 || !strings.Contains(out.URL, "/pull/7#issuecomment-") {
		t.Fatalf("first run: %+v", out)
	}
	wantLog := []string{
		"GET /repos/octo-org/evals/pulls/7",
		"GET /repos/octo-org/evals/issues/7/comments?page=1&per_page=100",
		"POST /repos/octo-org/evals/issues/7/comments",
	}
	if got := requestLog(f); !slices.Equal(got, wantLog) {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantLog, "\n"))
	}
	cs := is.Comments(7)
	if len(cs) != 2 || cs[1].Body != Marker("rag")+"\n## Report v1" {
		t.Fatalf("comments after create: %+v", cs)
	}

	out2, err := s.Upsert(ctx, 7, "rag", "## Report v2", headA)
	if err != nil {
		t.Fatal(err)
	}
	if out2.Action != ActionUpdated || out2.ID != out.ID {
		t.Fatalf("second run: %+v, want update of %d", out2, out.ID)
	}
	cs = is.Comments(7)
	if len(cs) != 2 || cs[1].Body != Marker("rag")+"\n## Report v2" || cs[0].Body != "LGTM" {
		t.Fatalf("comments after update: %+v", cs)
	}

	f.ResetRequests()
	out3, err := s.Upsert(ctx, 7, "rag", "## Report v2", "")
	if err != nil {
		t.Fatal(err)
	}
	if out3.Action != ActionUnchanged || out3.ID != out.ID {
		t.Fatalf("third run: %+v", out3)
	}
	if w := writes(requestLog(f)); len(w) != 0 {
		t.Errorf("unchanged body still wrote: %v", w)
	}
}

func TestUpsertMarkerOnLastPage(t *testing.T) {
	f, is := newFake(t)
	is.AddPull(ghfake.PullRequest{Number: 3, HeadSHA: headA})
	for i := 0; i < 230; i++ {
		is.AddComment(3, "reviewer", fmt.Sprintf("comment %d mentions rubricgate", i))
	}
	ours := is.AddComment(3, botLogin, Marker("rag")+"\nold report")
	for i := 0; i < 5; i++ {
		is.AddComment(3, "reviewer", "later")
	}
	s, _ := service(f)
	out, err := s.Upsert(context.Background(), 3, "rag", "new report", "")
	if err != nil {
		t.Fatal(err)
	}
	if out.Action != ActionUpdated || out.ID != ours {
		t.Fatalf("outcome %+v, want update of %d", out, ours)
	}
	log := requestLog(f)
	for _, page := range []string{"page=1&", "page=2&", "page=3&"} {
		if !slices.ContainsFunc(log, func(r string) bool { return strings.Contains(r, page) }) {
			t.Errorf("no request for %s in %v", page, log)
		}
	}
	wantWrite := fmt.Sprintf("PATCH /repos/octo-org/evals/issues/comments/%d", ours)
	if w := writes(log); !slices.Equal(w, []string{wantWrite}) {
		t.Errorf("writes %v, want [%s]", w, wantWrite)
	}
	if n := len(is.Comments(3)); n != 236 {
		t.Errorf("%d comments, want 236 (no copy)", n)
	}
}

func TestUpsertTwoKeysTwoComments(t *testing.T) {
	f, is := newFake(t)
	is.AddPull(ghfake.PullRequest{Number: 5, HeadSHA: headA})
	s, _ := service(f)
	ctx := context.Background()
	for round := 0; round < 2; round++ {
		for _, key := range []string{"rag", "summaries"} {
			if _, err := s.Upsert(ctx, 5, key, fmt.Sprintf("%s round %d", key, round), headA); err != nil {
				t.Fatal(err)
			}
		}
	}
	cs := is.Comments(5)
	if len(cs) != 2 {
		t.Fatalf("%d comments, want 2", len(cs))
	}
	if !strings.HasSuffix(cs[0].Body, "rag round 1") || !strings.HasSuffix(cs[1].Body, "summaries round 1") {
		t.Errorf("bodies: %q, %q", cs[0].Body, cs[1].Body)
	}
}

func TestUpsertSeveralMarkersEditsOldest(t *testing.T) {
	f, is := newFake(t)
	is.AddPull(ghfake.PullRequest{Number: 9, HeadSHA: headA})
	first := is.AddComment(9, botLogin, Marker("rag")+"\nrace 1")
	second := is.AddComment(9, botLogin, Marker("rag")+"\nrace 2")
	s, logs := service(f)
	out, err := s.Upsert(context.Background(), 9, "rag", "fresh", "")
	if err != nil {
		t.Fatal(err)
	}
	if out.ID != first || is.Comment(first).Body != Marker("rag")+"\nfresh" || is.Comment(second).Body != Marker("rag")+"\nrace 2" {
		t.Fatalf("outcome %+v; first %q; second %q", out, is.Comment(first).Body, is.Comment(second).Body)
	}
	if len(*logs) != 1 || !strings.Contains((*logs)[0], fmt.Sprint(second)) {
		t.Errorf("warnings %q, want one naming %d", *logs, second)
	}
}

func TestUpsertAuthorFilter(t *testing.T) {
	f, is := newFake(t)
	is.AddPull(ghfake.PullRequest{Number: 4, HeadSHA: headA})
	planted := is.AddComment(4, "mallory", Marker("rag")+"\nplanted by a user")
	s, _ := service(f)
	s.Author = "GitHub-Actions[bot]"
	out, err := s.Upsert(context.Background(), 4, "rag", "report", "")
	if err != nil {
		t.Fatal(err)
	}
	if out.Action != ActionCreated || out.ID == planted || is.Comment(planted).Body != Marker("rag")+"\nplanted by a user" {
		t.Fatalf("outcome %+v; planted comment %q", out, is.Comment(planted).Body)
	}
	// The next run finds the bot's own comment.
	out2, err := s.Upsert(context.Background(), 4, "rag", "report 2", "")
	if err != nil || out2.Action != ActionUpdated || out2.ID != out.ID {
		t.Fatalf("second run: %+v, %v", out2, err)
	}
}

func TestUpsertDeletedBeforeEdit(t *testing.T) {
	f, is := newFake(t)
	is.AddPull(ghfake.PullRequest{Number: 2, HeadSHA: headA})
	old := is.AddComment(2, botLogin, Marker("")+"\nold")
	is.BeforeEdit = func(int64) {
		is.Delete(old) // someone deleted it after we listed
	}
	s, logs := service(f)
	out, err := s.Upsert(context.Background(), 2, "", "new", "")
	if err != nil {
		t.Fatal(err)
	}
	cs := is.Comments(2)
	if out.Action != ActionCreated || len(cs) != 1 || cs[0].ID != out.ID || cs[0].Body != Marker("")+"\nnew" {
		t.Fatalf("outcome %+v, comments %+v", out, cs)
	}
	if len(*logs) != 1 {
		t.Errorf("warnings %q, want one", *logs)
	}
}

func TestUpsertStaleHead(t *testing.T) {
	f, is := newFake(t)
	is.AddPull(ghfake.PullRequest{Number: 8, HeadSHA: headB})
	is.AddComment(8, botLogin, Marker("rag")+"\nreport for b")
	s, logs := service(f)
	out, err := s.Upsert(context.Background(), 8, "rag", "report for a", headA)
	if err != nil {
		t.Fatal(err)
	}
	if out.Action != ActionSkippedStale {
		t.Fatalf("outcome %+v", out)
	}
	if got := requestLog(f); !slices.Equal(got, []string{"GET /repos/octo-org/evals/pulls/8"}) {
		t.Errorf("requests %v, want only the pull request read", got)
	}
	if len(*logs) != 1 {
		t.Errorf("warnings %q", *logs)
	}
	// Upper-case SHA of the current head is not stale.
	out, err = s.Upsert(context.Background(), 8, "rag", "report for b", strings.ToUpper(headB))
	if err != nil || out.Action != ActionUnchanged {
		t.Fatalf("current head: %+v, %v", out, err)
	}
}

func TestUpsertRejectsWithoutRequest(t *testing.T) {
	okBody := strings.Repeat("x", BodyLimit("k"))
	if BodyLimit("k") != MaxBodyBytes-len("<!-- rubricgate:comment key=k -->\n") {
		t.Fatalf("BodyLimit(k) = %d", BodyLimit("k"))
	}
	tests := []struct {
		name   string
		pr     int
		body   string
		target error
		substr string
	}{
		{"pr zero", 0, "b", nil, "invalid pull request number 0"},
		{"pr negative", -3, "b", nil, "invalid pull request number -3"},
		{"one byte too long", 1, okBody + "x", ErrBodyTooLong, "65537 bytes"},
		{"multibyte too long", 1, strings.Repeat("é", MaxBodyBytes/2), ErrBodyTooLong, "at most 65536"},
		{"marker in body", 1, "x <!-- rubricgate:comment key=other --> y", nil, "Upsert adds the marker"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, is := newFake(t)
			is.AddPull(ghfake.PullRequest{Number: 1, HeadSHA: headA})
			s, _ := service(f)
			_, err := s.Upsert(context.Background(), tt.pr, "k", tt.body, headA)
			if err == nil || !strings.Contains(err.Error(), tt.substr) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.substr)
			}
			if tt.target != nil && !errors.Is(err, tt.target) {
				t.Errorf("err = %v, want errors.Is %v", err, tt.target)
			}
			if got := requestLog(f); len(got) != 0 {
				t.Errorf("requests made: %v", got)
			}
		})
	}
	t.Run("exactly at the limit", func(t *testing.T) {
		f, is := newFake(t)
		is.AddPull(ghfake.PullRequest{Number: 1, HeadSHA: headA})
		s, _ := service(f)
		out, err := s.Upsert(context.Background(), 1, "k", okBody, "")
		if err != nil || out.Action != ActionCreated {
			t.Fatalf("%+v, %v", out, err)
		}
	})
}

func TestUpsertConfigErrors(t *testing.T) {
	f, _ := newFake(t)
	s, _ := service(f)
	for _, mod := range []func(*Service){
		func(s *Service) { s.Client = nil },
		func(s *Service) { s.Owner = "" },
		func(s *Service) { s.Repo = "a/b" },
		func(s *Service) { s.Repo = ".." },
	} {
		c := *s
		mod(&c)
		if _, err := c.Upsert(context.Background(), 1, "k", "b", ""); err == nil {
			t.Errorf("no error for %+v", c)
		}
		if _, err := c.FindPullRequestByHeadSHA(context.Background(), headA); err == nil {
			t.Errorf("no error for %+v", c)
		}
	}
	var nilService *Service
	if _, err := nilService.Upsert(context.Background(), 1, "k", "b", ""); err == nil {
		t.Error("nil service: no error")
	}
	if got := requestLog(f); len(got) != 0 {
		t.Errorf("requests made: %v", got)
	}
}

func TestUpsertErrors(t *testing.T) {
	tests := []struct {
		name       string
		readOnly   bool
		existing   bool
		fail       string       // the route whose next request gets fault
		fault      ghfake.Fault // its answer
		permission bool
		write      bool
		rateLimit  bool
		status     int
		substr     string
	}{
		{
			name: "read-only token on create", readOnly: true,
			permission: true, write: true, status: 403,
			substr: "create comment on #6: permission denied (HTTP 403 \"Resource not accessible by integration\")",
		},
		{
			name: "read-only token on edit", readOnly: true, existing: true,
			permission: true, write: true, status: 403, substr: "edit comment",
		},
		{
			name: "403 on list", fail: ghfake.RouteComments,
			fault:      ghfake.Status(403, "Resource not accessible by integration"),
			permission: true, status: 403, substr: "list comments on #6 (page 1): permission denied",
		},
		{
			name: "404 on create", fail: ghfake.RouteCreateComment,
			fault:      ghfake.Status(404, "Not Found"),
			permission: true, write: true, status: 404, substr: "create comment on #6",
		},
		{
			name: "500 on edit", existing: true, fail: ghfake.RouteEditComment,
			fault:  ghfake.Status(500, "Server Error"),
			status: 500, substr: "edit comment 1001: PATCH ",
		},
		{
			name: "primary rate limit", fail: ghfake.RouteComments,
			fault:     ghfake.RateLimited(time.Unix(1900000000, 0)),
			rateLimit: true, substr: "list comments on #6 (page 1): rate limited",
		},
		{
			name: "secondary rate limit", fail: ghfake.RouteCreateComment,
			fault:     ghfake.SecondaryLimited(60 * time.Second),
			rateLimit: true, substr: "create comment on #6: rate limited",
		},
		{
			name: "429", fail: ghfake.RouteCreateComment,
			fault:     ghfake.TooMany(-1),
			rateLimit: true, status: 429, substr: "create comment on #6: rate limited",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, is := newFake(t)
			is.AddPull(ghfake.PullRequest{Number: 6, HeadSHA: headA})
			if tt.existing {
				is.AddComment(6, botLogin, Marker("k")+"\nold") // id 1001
			}
			is.ReadOnly = tt.readOnly
			if tt.fail != "" {
				f.Fail(tt.fail, tt.fault)
			}
			s, _ := service(f)
			_, err := s.Upsert(context.Background(), 6, "k", "new", "")
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.substr) {
				t.Errorf("error %q does not contain %q", msg, tt.substr)
			}
			if strings.Contains(msg, testToken) {
				t.Errorf("error leaks the token: %q", msg)
			}
			var pe *PermissionError
			if got := errors.As(err, &pe); got != tt.permission {
				t.Fatalf("errors.As PermissionError = %v, want %v (%v)", got, tt.permission, err)
			}
			if tt.permission {
				if pe.StatusCode != tt.status || pe.Write != tt.write {
					t.Errorf("PermissionError %+v", pe)
				}
				if tt.write && (!strings.Contains(msg, "workflow_run") || !strings.Contains(msg, "pull-requests: write")) {
					t.Errorf("write permission error does not explain the fix: %q", msg)
				}
			}
			if got := RateLimited(err); got != tt.rateLimit {
				t.Errorf("RateLimited = %v, want %v", got, tt.rateLimit)
			}
			var er *github.ErrorResponse
			if tt.status != 0 && (!errors.As(err, &er) || er.Response.StatusCode != tt.status) {
				t.Errorf("errors.As ErrorResponse: %v, status want %d", err, tt.status)
			}
		})
	}
}

func TestBadCredentials(t *testing.T) {
	f, is := newFake(t)
	is.AddPull(ghfake.PullRequest{Number: 1, HeadSHA: headA})
	s, _ := service(f)
	s.Client = f.Client("wrong-token")
	_, err := s.Upsert(context.Background(), 1, "k", "b", headA)
	var pe *PermissionError
	if !errors.As(err, &pe) || pe.StatusCode != 401 || pe.Write || !strings.Contains(err.Error(), "get pull request #1") {
		t.Fatalf("err = %v", err)
	}
	if strings.Contains(err.Error(), "wrong-token") {
		t.Errorf("token leaked: %v", err)
	}
}

func TestFindPullRequestByHeadSHA(t *testing.T) {
	fork := strings.Repeat("f", 40)
	unknown := "0" + strings.Repeat("e", 39) // marked unknown: commits/{sha}/pulls answers 422
	shared := strings.Repeat("c", 40)
	tests := []struct {
		name    string
		pulls   []ghfake.PullRequest
		sha     string
		want    int
		wantErr error
		fallbk  bool // the open pull request list must be scanned
		warn    bool
	}{
		{
			name:  "same repository",
			pulls: []ghfake.PullRequest{{Number: 11, State: "open", HeadSHA: headA}, {Number: 12, State: "open", HeadSHA: headB}},
			sha:   headA, want: 11,
		},
		{
			name: "closed and moved pull requests ignored",
			pulls: []ghfake.PullRequest{
				{Number: 20, State: "closed", HeadSHA: headA},
				{Number: 21, State: "open", HeadSHA: headB},
				{Number: 22, State: "open", HeadSHA: headA},
			},
			sha: headA, want: 22,
		},
		{
			name: "fork pull request found by scanning open ones",
			pulls: []ghfake.PullRequest{
				{Number: 30, State: "open", HeadSHA: headB},
				{Number: 31, State: "open", HeadSHA: fork, HeadRepo: "contributor/evals", Fork: true},
			},
			sha: fork, want: 31, fallbk: true,
		},
		{
			name:  "commit unknown (422) then found in a fork",
			pulls: []ghfake.PullRequest{{Number: 40, State: "open", HeadSHA: unknown, HeadRepo: "c/evals", Fork: true}},
			sha:   unknown, want: 40, fallbk: true, warn: true,
		},
		{
			name:  "only closed",
			pulls: []ghfake.PullRequest{{Number: 50, State: "closed", HeadSHA: headA}},
			sha:   headA, wantErr: ErrNoPullRequest, fallbk: true,
		},
		{
			name:  "two open pull requests share the head",
			pulls: []ghfake.PullRequest{{Number: 61, State: "open", HeadSHA: shared}, {Number: 60, State: "open", HeadSHA: shared}},
			sha:   shared, want: 60, warn: true,
		},
		{
			name:  "upper-case sha",
			pulls: []ghfake.PullRequest{{Number: 70, State: "open", HeadSHA: headA}},
			sha:   strings.ToUpper(headA), want: 70, fallbk: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, is := newFake(t)
			is.UnknownCommit(unknown)
			for _, p := range tt.pulls {
				is.AddPull(p)
			}
			s, logs := service(f)
			got, err := s.FindPullRequestByHeadSHA(context.Background(), tt.sha)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
			} else if err != nil || got != tt.want {
				t.Fatalf("got %d, %v; want %d", got, err, tt.want)
			}
			scanned := slices.ContainsFunc(requestLog(f), func(r string) bool {
				return strings.HasPrefix(r, "GET /repos/octo-org/evals/pulls?")
			})
			if scanned != tt.fallbk {
				t.Errorf("open pull requests scanned = %v, want %v (%v)", scanned, tt.fallbk, requestLog(f))
			}
			if (len(*logs) > 0) != tt.warn {
				t.Errorf("warnings %q, want some = %v", *logs, tt.warn)
			}
		})
	}
}

func TestFindPullRequestManyOpen(t *testing.T) {
	f, is := newFake(t)
	fork := strings.Repeat("9", 40)
	for n := 1; n <= 250; n++ {
		is.AddPull(ghfake.PullRequest{Number: n, State: "open", HeadSHA: fmt.Sprintf("%040x", n)})
	}
	is.AddPull(ghfake.PullRequest{Number: 3, State: "open", HeadSHA: fork, Fork: true}) // oldest: last page
	s, _ := service(f)
	got, err := s.FindPullRequestByHeadSHA(context.Background(), fork)
	if err != nil || got != 3 {
		t.Fatalf("got %d, %v", got, err)
	}
}

func TestFindPullRequestBadInput(t *testing.T) {
	f, _ := newFake(t)
	s, _ := service(f)
	for _, sha := range []string{"", "abc123", strings.Repeat("g", 40), "../../../x" + strings.Repeat("a", 30), strings.Repeat("a", 41)} {
		if _, err := s.FindPullRequestByHeadSHA(context.Background(), sha); err == nil {
			t.Errorf("no error for %q", sha)
		}
	}
	if got := requestLog(f); len(got) != 0 {
		t.Errorf("requests made: %v", got)
	}
	// The token cannot read pull requests.
	denied := ghfake.Status(403, "Resource not accessible by integration")
	f.Fail(ghfake.RouteCommitPulls, denied)
	f.Fail(ghfake.RoutePulls, denied)
	_, err := s.FindPullRequestByHeadSHA(context.Background(), headA)
	var pe *PermissionError
	if !errors.As(err, &pe) || pe.Write || !strings.Contains(err.Error(), "pull-requests: read") {
		t.Fatalf("err = %v", err)
	}
}

func TestStartsWithMarker(t *testing.T) {
	m := Marker("k")
	for body, want := range map[string]bool{
		m + "\nbody":              true,
		m:                         true,
		m + "\r\nbody":            true,
		"quoting " + m + "\nbody": false,
		"text\n" + m + "\nbody":   false,
		Marker("k2") + "\nbody":   false,
		m + " extra\nbody":        false,
	} {
		if got := startsWithMarker(body, m); got != want {
			t.Errorf("startsWithMarker(%q) = %v, want %v", body, got, want)
		}
	}
}

// Existing returns the body of the comment Upsert would edit: the author's
// own, never a comment by someone else carrying the marker.
func TestExistingOnlyAdoptedComment(t *testing.T) {
	f, is := newFake(t)
	is.AddPull(ghfake.PullRequest{Number: 7, HeadSHA: headA})
	is.AddComment(7, "mallory", Marker("k")+"\nplanted")
	s, _ := service(f)
	s.Author = botLogin
	ctx := context.Background()
	if body, ok, err := s.Existing(ctx, 7, "k"); err != nil || ok {
		t.Fatalf("a planted comment was adopted: %q %v %v", body, ok, err)
	}
	if _, err := s.Upsert(ctx, 7, "k", "line one\nmine", headA); err != nil {
		t.Fatal(err)
	}
	if body, ok, err := s.Existing(ctx, 7, "k"); err != nil || !ok || body != "line one\nmine" {
		t.Fatalf("Existing = %q %v %v", body, ok, err)
	}
}
