// Package github is the GitHub Actions host: the build information from
// the Actions environment and the event payload, annotations and job
// summary and step outputs through the runner's workflow commands and
// files, the sticky pull request comment, and the artifact baseline store.
//
// Everything reads the environment through an injected getenv and writes
// through an injected writer (go-githubactions' WithGetenv and
// WithWriter), so tests run without a runner. go-githubactions' SetOutput
// and AddStepSummary panic when the runner's files are missing; they are
// not used: outputs and the summary are written here, with errors returned.
package github

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode"

	gh "github.com/google/go-github/v60/github"
	"github.com/sethvargo/go-githubactions"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/ghclient"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// MaxEventBytes caps the event payload read from GITHUB_EVENT_PATH:
// GitHub's own limit for webhook payloads is 25 MiB.
const MaxEventBytes = 25 << 20

// DefaultCommentAuthor is the login of the workflow's GITHUB_TOKEN: only
// its marker comments are adopted, so nobody can plant a comment with the
// marker and have the gate edit (and so vouch for) it.
const DefaultCommentAuthor = "github-actions[bot]"

// InActions reports whether the process runs as a GitHub Actions step.
func InActions(getenv func(string) string) bool { return getenv("GITHUB_ACTIONS") == "true" }

// WorkflowRun is the workflow_run of a workflow_run event: the run that
// triggered this one. Its content comes from that run, which a fork's
// pull request may control: data, never trusted.
type WorkflowRun struct {
	ID             int64   `json:"id"`
	HeadSHA        string  `json:"head_sha"`
	HeadBranch     string  `json:"head_branch"`
	Event          string  `json:"event"`
	Conclusion     string  `json:"conclusion"`
	Repository     RepoRef `json:"repository"`
	HeadRepository RepoRef `json:"head_repository"`
	PullRequests   []struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
	} `json:"pull_requests"`
}

// RepoRef names a repository in a payload.
type RepoRef struct {
	ID       int64  `json:"id"`
	FullName string `json:"full_name"`
}

// Event is the part of an event payload rubricgate reads.
type Event struct {
	Number      int `json:"number"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA  string   `json:"sha"`
			Ref  string   `json:"ref"`
			Repo *RepoRef `json:"repo"`
		} `json:"head"`
		Base struct {
			Ref  string   `json:"ref"`
			Repo *RepoRef `json:"repo"`
		} `json:"base"`
		Labels []struct {
			Name string `json:"name"`
		} `json:"labels"`
		User *struct {
			Login string `json:"login"`
		} `json:"user"`
	} `json:"pull_request"`
	Repository *struct {
		ID            int64  `json:"id"`
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
	WorkflowRun *WorkflowRun `json:"workflow_run"`
	// Action and Label are a pull_request event's activity type and, for
	// "labeled", the label added.
	Action string `json:"action"`
	Label  *struct {
		Name string `json:"name"`
	} `json:"label"`
	// Sender is who triggered the event (for "labeled": who applied the
	// label).
	Sender *struct {
		Login string `json:"login"`
		Type  string `json:"type"`
	} `json:"sender"`
}

// FromFork reports whether the event is a pull request whose head is in
// another repository.
func (ev *Event) FromFork() bool {
	pr := ev.PullRequest
	return pr != nil && pr.Head.Repo != nil && pr.Base.Repo != nil && pr.Head.Repo.ID != pr.Base.Repo.ID
}

// baselineEvents may produce their branch's baseline: runs whose results
// the branch's own history made. A pull request, workflow_run or
// issue_comment run works on data someone else controls.
var baselineEvents = map[string]bool{"push": true, "schedule": true, "workflow_dispatch": true}

// ReadBuild reads the Actions environment and the event payload named by
// GITHUB_EVENT_PATH (capped at [MaxEventBytes]; a missing file is no
// payload). A malformed GITHUB_REPOSITORY or payload is an error.
func ReadBuild(getenv func(string) string) (*host.Build, *Event, error) {
	gha := githubactions.New(githubactions.WithGetenv(getenv))
	b := &host.Build{
		Host:     "github",
		Event:    gha.Getenv("GITHUB_EVENT_NAME"),
		SHA:      gha.Getenv("GITHUB_SHA"),
		Ref:      gha.Getenv("GITHUB_REF"),
		APIURL:   strings.TrimSuffix(gha.Getenv("GITHUB_API_URL"), "/"),
		Workflow: gha.Getenv("GITHUB_WORKFLOW"),
		Job:      gha.Getenv("GITHUB_JOB"),
	}
	b.BaseBranch = gha.Getenv("GITHUB_BASE_REF")
	if b.APIURL == "" {
		b.APIURL = "https://api.github.com"
	}
	if full := gha.Getenv("GITHUB_REPOSITORY"); full != "" {
		o, r, ok := strings.Cut(full, "/")
		if !ok || o == "" || r == "" || strings.Contains(r, "/") {
			return nil, nil, fmt.Errorf("GITHUB_REPOSITORY %q: expected owner/name", full)
		}
		b.Repository = full
	}
	if id := gha.Getenv("GITHUB_RUN_ID"); id != "" {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil || n <= 0 {
			return nil, nil, fmt.Errorf("GITHUB_RUN_ID %q: expected a positive number", id)
		}
		b.RunID = n
	}
	if a := gha.Getenv("GITHUB_RUN_ATTEMPT"); a != "" {
		n, err := strconv.Atoi(a)
		if err != nil || n <= 0 {
			return nil, nil, fmt.Errorf("GITHUB_RUN_ATTEMPT %q: expected a positive number", a)
		}
		b.RunAttempt = n
	}
	server := strings.TrimSuffix(gha.Getenv("GITHUB_SERVER_URL"), "/")
	if server == "" {
		server = "https://github.com"
	}
	if b.Repository != "" {
		b.RunsURL = fmt.Sprintf("%s/%s/actions/runs/", server, b.Repository)
		if b.RunID > 0 {
			b.RunURL = fmt.Sprintf("%s%d", b.RunsURL, b.RunID)
		}
	}
	b.HeadSHA = b.SHA
	ev := &Event{}
	if p := gha.Getenv("GITHUB_EVENT_PATH"); p != "" {
		data, err := boundedio.ReadFile(p, MaxEventBytes)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, nil, fmt.Errorf("event payload: %w", err)
		}
		if err == nil {
			if err := json.Unmarshal(data, ev); err != nil {
				return nil, nil, fmt.Errorf("event payload %s: %w", p, err)
			}
		}
	}
	if ev.Repository != nil {
		b.RepositoryID = ev.Repository.ID
		b.DefaultBranch = ev.Repository.DefaultBranch
	}
	if pr := ev.PullRequest; pr != nil {
		b.ChangeRequest = pr.Number
		if pr.Head.SHA != "" {
			b.HeadSHA = pr.Head.SHA
		}
		if pr.Base.Ref != "" {
			b.BaseBranch = pr.Base.Ref
		}
		for _, l := range pr.Labels {
			b.Labels = append(b.Labels, l.Name)
		}
		if ev.Action == "labeled" && ev.Label != nil {
			b.LabelAdded = ev.Label.Name
			if ev.Sender != nil {
				b.LabelAddedBy = ev.Sender.Login
				b.LabelAddedByBot = IsBot(ev.Sender.Type, ev.Sender.Login)
			}
		}
		if pr.User != nil {
			b.Author = pr.User.Login
		}
	}
	b.ChangeRequestEvent = b.ChangeRequest > 0 && (b.Event == "pull_request" || b.Event == "pull_request_target")
	switch {
	case b.ChangeRequest > 0:
		// A pull request's run is never a branch's own run.
	case strings.HasPrefix(b.Ref, "refs/heads/"):
		b.Branch = strings.TrimPrefix(b.Ref, "refs/heads/")
	case b.Ref == "":
		b.Branch = gha.Getenv("GITHUB_REF_NAME")
	}
	b.BaselineEvent = b.Branch != "" && baselineEvents[b.Event]
	return b, ev, nil
}

// Host is the GitHub Actions host of one run. Its Runner reads the action
// inputs and chooses the default report path.
type Host struct {
	Runner
	build  *host.Build
	event  *Event
	getenv func(string) string
	out    *keepErr
	gha    *githubactions.Action
}

// New reads the build from the environment; annotations go to stdout,
// where the runner reads workflow commands.
func New(getenv func(string) string, stdout io.Writer) (*Host, error) {
	r := Runner{Getenv: getenv}
	b, ev, err := ReadBuild(getenv)
	if err != nil {
		return nil, err
	}
	out := &keepErr{w: stdout}
	return &Host{Runner: r, build: b, event: ev, getenv: getenv, out: out,
		gha: githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(out))}, nil
}

// Build returns the run's build information.
func (h *Host) Build() *host.Build { return h.build }

// Event returns the parsed event payload (empty when there was none).
func (h *Host) Event() *Event { return h.event }

// keepErr records the first write error and reports success to its
// caller, so go-githubactions (which panics on a failed write) never sees
// one; Annotate returns it instead.
type keepErr struct {
	w   io.Writer
	err error
}

func (k *keepErr) Write(p []byte) (int, error) {
	if k.err == nil {
		_, k.err = k.w.Write(p)
	}
	return len(p), nil
}

// Annotate writes a ::error, ::warning or ::notice workflow command (see
// [WriteAnnotation]).
func (h *Host) Annotate(a finding.Annotation) error {
	return annotate(h.gha, h.out, a)
}

// WriteAnnotation writes a to w as a ::error, ::warning or ::notice
// workflow command, as [Host.Annotate] does: the one encoding of an
// annotation, for a command that has no Host (an error before the build
// was read, a rubric's warnings). The message is made one safe log line
// and then command-escaped, and the file and title are property-escaped,
// by go-githubactions.
func WriteAnnotation(w io.Writer, a finding.Annotation) error {
	out := &keepErr{w: w}
	return annotate(githubactions.New(githubactions.WithWriter(out)), out, a)
}

func annotate(gha *githubactions.Action, out *keepErr, a finding.Annotation) error {
	props := map[string]string{"title": a.Title}
	if a.Title == "" {
		props["title"] = "rubricgate"
	}
	if a.File != "" {
		props["file"] = a.File
		if a.Line > 0 {
			props["line"] = strconv.Itoa(a.Line)
		}
	}
	gha = gha.WithFieldsMap(props)
	msg := formatChars(safe.LogLine(a.Message))
	switch a.Level {
	case finding.Error:
		gha.Errorf("%s", msg)
	case finding.Notice:
		gha.Noticef("%s", msg)
	default:
		gha.Warningf("%s", msg)
	}
	if err := out.err; err != nil {
		return fmt.Errorf("annotation: %w", err)
	}
	return nil
}

// formatChars percent-encodes, byte by byte, the format characters
// (Unicode Cf: zero width characters, which safe.LogLine leaves while it
// encodes the bidirectional controls), so they show as text instead of
// hiding part of an annotation.
func formatChars(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Cf, r) }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if !unicode.Is(unicode.Cf, r) {
			b.WriteRune(r)
			continue
		}
		for _, c := range []byte(string(r)) {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// Summary appends markdown to the job summary (GITHUB_STEP_SUMMARY); a
// no-op when the variable is unset.
func (h *Host) Summary(markdown string) error {
	p := h.getenv("GITHUB_STEP_SUMMARY")
	if p == "" {
		return nil
	}
	if err := appendFile(p, markdown+"\n"); err != nil {
		return fmt.Errorf("job summary: %w", err)
	}
	return nil
}

// SetOutputs appends the outputs to GITHUB_OUTPUT (a no-op when unset), a
// multi-line value as a heredoc with a random delimiter. Names must be
// non-empty and hold no '=', '<' or line break.
func (h *Host) SetOutputs(outs []host.Output) error {
	p := h.getenv("GITHUB_OUTPUT")
	if p == "" {
		return nil
	}
	var b strings.Builder
	for _, o := range outs {
		if o.Name == "" || strings.ContainsAny(o.Name, "=<\r\n") {
			return fmt.Errorf("step outputs: invalid output name %q", o.Name)
		}
		b.WriteString(outputLine(o.Name, o.Value))
	}
	if err := appendFile(p, b.String()); err != nil {
		return fmt.Errorf("step outputs: %w", err)
	}
	return nil
}

// outputLine formats one step output as the runner reads GITHUB_OUTPUT:
// name=value, or a heredoc with a random delimiter when the value spans lines.
func outputLine(name, value string) string {
	if !strings.ContainsAny(value, "\r\n") {
		return name + "=" + value + "\n"
	}
	var r [12]byte
	_, _ = rand.Read(r[:])
	delim := "ghadelimiter_" + hex.EncodeToString(r[:])
	return name + "<<" + delim + "\n" + value + "\n" + delim + "\n"
}

func appendFile(path, s string) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(f, s); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// DefaultStore is the repository's artifacts (upload-artifact v4). It
// needs the token and the repository id from the payload.
func (h *Host) DefaultStore(o host.StoreOptions) (baseline.Store, *baseline.Dir, error) {
	if o.Token == "" {
		return nil, nil, host.Configf("github-token is empty: the artifact baseline store needs the workflow token (github-token: ${{ github.token }}), or give baseline / baseline-dir")
	}
	owner, repo, _ := strings.Cut(h.build.Repository, "/")
	if owner == "" || h.build.RepositoryID == 0 {
		return nil, nil, errors.New("the artifact baseline store needs GITHUB_REPOSITORY and repository.id in the event payload")
	}
	api, err := ghclient.New(h.build.APIURL, o.Token, &http.Client{Timeout: 60 * time.Second})
	if err != nil {
		return nil, nil, err
	}
	return baseline.GitHub{
		API: api, Download: &http.Client{}, Owner: owner, Repo: repo, RepoID: h.build.RepositoryID,
		ArtifactName: o.ArtifactName, MaxArchive: o.MaxArchive, Logf: o.Logf,
	}, nil, nil
}

// Commenter returns the sticky comment of the run's pull request, posted
// with token; author is the login whose marker comment is adopted ("*"
// for anyone, "" for DefaultCommentAuthor).
func (h *Host) Commenter(token, author string) *Commenter {
	owner, repo, _ := strings.Cut(h.build.Repository, "/")
	return &Commenter{APIURL: h.build.APIURL, Owner: owner, Repo: repo, PullRequest: h.build.ChangeRequest,
		HeadSHA: h.build.HeadSHA, Token: token, Author: author}
}

// Commenter keeps the sticky comment on one pull request (comment.Service).
type Commenter struct {
	// APIURL is the REST API root (GITHUB_API_URL).
	APIURL string
	// Owner and Repo name the repository.
	Owner, Repo string
	// PullRequest is the pull request number.
	PullRequest int
	// HeadSHA, when set, is the commit the run evaluated: a pull request
	// whose head moved on is not commented (skipped-stale).
	HeadSHA string
	// Token authenticates; never printed.
	Token string
	// Author is the login whose marker comment is adopted: "" means
	// DefaultCommentAuthor, "*" anyone.
	Author string
	// HTTPClient is the client for the API (nil: 30 s timeout).
	HTTPClient *http.Client
	// Logf receives the service's warnings.
	Logf func(format string, args ...any)
}

// BodyLimit is the largest body Comment accepts for key.
func (c *Commenter) BodyLimit(key string) int { return comment.BodyLimit(key) }

// Comment creates or updates the sticky comment for key, within two
// minutes. Errors (no token, permission, rate limits) are for the caller
// to show as warnings: the comment is best effort.
func (c *Commenter) Comment(ctx context.Context, key, body string) (host.CommentResult, error) {
	if c.Token == "" {
		return host.CommentResult{}, errors.New("no github-token given; the comment was not posted")
	}
	if c.PullRequest <= 0 {
		return host.CommentResult{}, errors.New("this run is not for a pull request")
	}
	svc, err := c.service()
	if err != nil {
		return host.CommentResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	out, err := svc.Upsert(ctx, c.PullRequest, key, body, c.HeadSHA)
	if err != nil {
		return host.CommentResult{}, err
	}
	return host.CommentResult{Action: out.Action, URL: out.URL}, nil
}

func (c *Commenter) service() (*comment.Service, error) {
	hc := c.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	api, err := ghclient.New(c.APIURL, c.Token, hc)
	if err != nil {
		return nil, err
	}
	author := c.Author
	switch author {
	case "":
		author = DefaultCommentAuthor
	case "*":
		author = ""
	}
	return &comment.Service{Client: api, Owner: c.Owner, Repo: c.Repo, Author: author, Logf: c.Logf}, nil
}

// CheckProvenance checks that a report made by another job belongs to the
// workflow run that triggered this one (the fork-safe pattern: the
// pull_request job uploads its report, a workflow_run job posts it): same
// repository, same run id, same head commit. b is this run's build, run
// the payload's workflow_run.
func CheckProvenance(rc *gate.RunContext, b *host.Build, run *WorkflowRun) error {
	if run == nil {
		return errors.New("comment: run this from a workflow_run workflow: the event payload has no workflow_run")
	}
	if rc == nil {
		return errors.New("comment: the report has no context: it was not made inside GitHub Actions")
	}
	repo := b.Repository
	if rc.Repository != repo || (run.Repository.FullName != "" && run.Repository.FullName != repo) {
		return fmt.Errorf("comment: report is for repository %q, the triggering run is in %q", rc.Repository, repo)
	}
	if rc.RunID != run.ID {
		return fmt.Errorf("comment: report was made by run %d, the triggering run is %d", rc.RunID, run.ID)
	}
	if rc.HeadSHA != run.HeadSHA {
		return fmt.Errorf("comment: report is for commit %s, the triggering run's head is %s", rc.HeadSHA, run.HeadSHA)
	}
	return nil
}

// RunPullRequest finds the pull request of the triggering workflow run:
// the payload's pull request whose head is the run's head, else (fork pull
// requests, whose workflow_run.pull_requests is empty) the open pull
// request whose head is that commit, asked of the API.
func (c *Commenter) RunPullRequest(ctx context.Context, run *WorkflowRun) (int, error) {
	for _, p := range run.PullRequests {
		if p.Head.SHA == run.HeadSHA {
			return p.Number, nil
		}
	}
	if c.Token == "" {
		return 0, errors.New("comment: --github-token is required")
	}
	svc, err := c.service()
	if err != nil {
		return 0, err
	}
	n, err := svc.FindPullRequestByHeadSHA(ctx, run.HeadSHA)
	if err != nil {
		return 0, fmt.Errorf("comment: %w", err)
	}
	return n, nil
}

// Commenting is the pull request's sticky comment, posted with o.Token.
// The gate's previous comment is read back (for the record of an accepted
// regression) only when it can be the gate's own: a token, a named author,
// and not a fork's pull request, whose read-only token never posted it.
func (h *Host) Commenting(o host.CommentOptions) host.Commenting {
	c := host.Commenting{Noun: "comment"}
	if o.Token == "" {
		c.Missing = "comment: no github-token given; the comment was not posted"
		return c
	}
	cm := h.Commenter(o.Token, o.Author)
	cm.Logf = o.Logf
	c.Commenter = cm
	c.LabelActor = func(ctx context.Context, label string) (gate.Actor, error) {
		return cm.LabelActor(ctx, label)
	}
	if o.Mode != host.CommentNever && o.Author != "*" && o.Author != "" && !h.event.FromFork() {
		c.Previous = func(ctx context.Context, key string) (string, bool, error) {
			svc, err := cm.service()
			if err != nil {
				return "", false, err
			}
			ctx, cancel := context.WithTimeout(ctx, time.Minute)
			defer cancel()
			return svc.Existing(ctx, h.build.ChangeRequest, key)
		}
	}
	return c
}

// IsBot reports whether a GitHub user is a bot account: its type is Bot
// (a GitHub App's bot user, the workflow token's github-actions[bot]), or
// its login ends in "[bot]", which only apps' bot users' logins do.
func IsBot(typ, login string) bool {
	return strings.EqualFold(typ, "Bot") || strings.HasSuffix(strings.ToLower(login), "[bot]")
}

// maxEventPages bounds the issue events read to find who applied a label
// (100 events a page).
const maxEventPages = 30

// LabelActor is who last applied label to the pull request, from its issue
// events (GET /repos/{owner}/{repo}/issues/{number}/events, oldest first:
// the actor of the latest "labeled" event for that label, by time then id,
// names compared as GitHub compares labels, without case; Removed when an
// "unlabeled" event for it is the latest). The author comes from the payload, not from here.
func (c *Commenter) LabelActor(ctx context.Context, label string) (gate.Actor, error) {
	if c.PullRequest <= 0 {
		return gate.Actor{}, errors.New("this run is not for a pull request")
	}
	hc := c.HTTPClient
	if hc == nil {
		hc = &http.Client{Timeout: 30 * time.Second}
	}
	api, err := ghclient.New(c.APIURL, c.Token, hc)
	if err != nil {
		return gate.Actor{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var who gate.Actor
	// GitHub documents no order for the events: the latest by time, then
	// by id, wins, wherever it is listed.
	var lastAt time.Time
	var lastID int64
	seen := false
	opts := &gh.ListOptions{PerPage: 100}
	for pages := 0; ; pages++ {
		if pages == maxEventPages {
			return gate.Actor{}, fmt.Errorf("the events of #%d: more than %d pages", c.PullRequest, maxEventPages)
		}
		evs, resp, err := api.Issues.ListIssueEvents(ctx, c.Owner, c.Repo, c.PullRequest, opts)
		if err != nil {
			return gate.Actor{}, fmt.Errorf("the events of #%d: %w", c.PullRequest, err)
		}
		for _, e := range evs {
			if e.Label == nil || !strings.EqualFold(e.Label.GetName(), label) {
				continue
			}
			if ev := e.GetEvent(); ev != "labeled" && ev != "unlabeled" {
				continue
			}
			at := e.GetCreatedAt().Time
			if seen && (at.Before(lastAt) || at.Equal(lastAt) && e.GetID() < lastID) {
				continue
			}
			seen, lastAt, lastID = true, at, e.GetID()
			switch e.GetEvent() {
			case "labeled":
				who.AppliedBy = e.GetActor().GetLogin()
				who.AppliedByBot = IsBot(e.GetActor().GetType(), who.AppliedBy)
				who.Removed = false
			case "unlabeled":
				who.Removed = true
			}
		}
		if resp.NextPage == 0 {
			if who.Removed {
				// Off now: nobody applied the label it has.
				who.AppliedBy, who.AppliedByBot = "", false
			}
			return who, nil
		}
		opts.Page = resp.NextPage
	}
}

// Interface checks.
var (
	_ host.Host      = (*Host)(nil)
	_ host.Files     = (*Host)(nil)
	_ host.BuildInfo = (*Host)(nil)
	_ host.Reporter  = (*Host)(nil)
	_ host.Stores    = (*Host)(nil)
	_ host.Commenter = (*Commenter)(nil)
)
