package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/render"
	"github.com/rubricgate/rubricgate/rubric"
)

// runAction runs inside GitHub Actions with no arguments: the command and
// its flags come from the action inputs (INPUT_<NAME>), with the same names.
func runAction(e *env) int {
	gha := githubactions.New(githubactions.WithGetenv(e.getenv), githubactions.WithWriter(e.stdout))
	command := gha.GetInput("command")
	if command == "" {
		command = "gate"
	}
	var fs *flag.FlagSet
	switch command {
	case "gate":
		fs = newFlags("gate", e)
		gateFlags(fs, &gateConfig{})
	case "comment":
		fs = newFlags("comment", e)
		commentFlags(fs, &commentConfig{})
	default:
		return fail(e, usagef("input command %q: expected gate or comment", command))
	}
	var args []string
	fs.VisitAll(func(f *flag.Flag) {
		if v := gha.GetInput(f.Name); v != "" {
			args = append(args, "--"+f.Name+"="+v)
		}
	})
	for _, name := range pathInputs {
		if fs.Lookup(name) == nil {
			continue
		}
		if err := e.checkContainerPath(name, gha.GetInput(name)); err != nil {
			return fail(e, err)
		}
	}
	var code int
	var err error
	if command == "gate" {
		code, err = cmdGate(args, e, nil)
	} else {
		code, err = cmdComment(args, e)
	}
	if err != nil {
		return fail(e, err)
	}
	return code
}

// baselineStore picks the baseline store: a file, a local directory, or
// (inside Actions, with a token) the repository's artifacts. saveDir is the
// local store a passing run saves into, when there is one.
func (c *gateConfig) baselineStore(rb *rubric.Rubric, e *env, gh *ghContext, s *settings) (baseline.Store, baseline.Query, *baseline.Dir, error) {
	q := baseline.Query{Rubric: rb.Name, Branch: c.baselineBranch}
	if q.Branch == "" && gh != nil {
		q.Branch = gh.baseRef
		if q.Branch == "" {
			q.Branch = gh.defaultBranch
		}
	}
	// The branch this run is on (--branch) never chooses the baseline: a
	// run on feature/x would otherwise find no baseline, pass, and start
	// its own.
	if q.Branch == "" {
		q.Branch = "main"
	}
	switch {
	case c.baselineFile != "":
		return baseline.FileStore{Path: c.baselineFile}, q, nil, nil
	case c.baselineDir != "":
		d := &baseline.Dir{Root: c.baselineDir}
		return d, q, d, nil
	case gh != nil && e.inActions():
		if c.githubToken == "" {
			return nil, q, nil, usagef("github-token is empty: the artifact baseline store needs the workflow token (github-token: ${{ github.token }}), or give baseline / baseline-dir")
		}
		if gh.owner == "" || gh.repoID == 0 {
			return nil, q, nil, errors.New("the artifact baseline store needs GITHUB_REPOSITORY and repository.id in the event payload")
		}
		api, err := baseline.NewGitHubClient(gh.apiURL, c.githubToken, &http.Client{Timeout: 60 * time.Second})
		if err != nil {
			return nil, q, nil, err
		}
		return baseline.GitHub{
			API: api, Download: &http.Client{}, Owner: gh.owner, Repo: gh.repo, RepoID: gh.repoID,
			ArtifactName: c.baselineArtifact, MaxArchive: s.maxArchive,
			Logf: func(format string, a ...any) { warn(e, "", 0, fmt.Sprintf(format, a...)) },
		}, q, nil, nil
	default:
		d := &baseline.Dir{Root: defaultBaselineDir}
		return d, q, d, nil
	}
}

func storeName(s baseline.Store) string {
	switch st := s.(type) {
	case baseline.FileStore:
		return "file " + st.Path
	case *baseline.Dir:
		return "directory " + st.Root
	case baseline.GitHub:
		return fmt.Sprintf("artifact %q of %s/%s", st.ArtifactName, st.Owner, st.Repo)
	}
	return "store"
}

// actionOutputs writes the step outputs and the job summary. go-githubactions
// panics when the command files are not set, so both are guarded.
func actionOutputs(e *env, g *gate.GateReport, md, reportPath, baselinePath, commentURL string) error {
	if p := e.getenv("GITHUB_STEP_SUMMARY"); p != "" {
		// The summary is for people: a failure to write it is a warning.
		if err := appendFile(p, md+"\n"); err != nil {
			warn(e, "", 0, "job summary not written: "+err.Error())
		}
	}
	outPath := e.getenv("GITHUB_OUTPUT")
	if outPath == "" {
		return nil
	}
	score, baseScore, change := "", "", ""
	if g.Score != nil {
		score = outputScore(*g.Score)
	}
	if g.Baseline != nil {
		baseScore = outputScore(g.Baseline.Score)
	}
	if g.RelativeChange != nil {
		change = outputChange(*g.RelativeChange)
	}
	// Paths are given as a later step of the job opens them: from a
	// container action, the host path (see hostPath).
	outs := [][2]string{
		{"decision", g.Decision},
		{"passed", strconv.FormatBool(g.Decision == gate.Pass)},
		{"score", score},
		{"baseline-score", baseScore},
		{"relative-change", change},
		{"blocking-failures", strconv.Itoa(len(g.BlockingFailures))},
		{"report", e.hostPath(reportPath)},
		{"baseline-file", e.hostPath(baselinePath)},
		{"comment-url", commentURL},
	}
	if g.Tier != nil {
		outs = append(outs, [2]string{"may-advance", strconv.FormatBool(g.Tier.MayAdvance)}, [2]string{"next-tier", strconv.Itoa(g.Tier.Next)})
	}
	// Written here rather than with go-githubactions' SetOutput, which
	// panics when the file cannot be written. Steps downstream rely on the
	// outputs (the baseline upload), so a failure is an error.
	var b strings.Builder
	for _, o := range outs {
		b.WriteString(outputLine(o[0], o[1]))
	}
	if err := appendFile(outPath, b.String()); err != nil {
		return fmt.Errorf("step outputs: %w", err)
	}
	return nil
}

// outputScore writes a score (0-100) for people: one decimal, as the log,
// the summary and the comment show it. The JSON report keeps full precision.
func outputScore(f float64) string {
	return strconv.FormatFloat(f, 'f', 1, 64)
}

// outputChange writes a relative change for people: four significant
// digits, in plain decimal notation (-0.06593, 0.02, 0), never -0.
func outputChange(f float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 4, 64), 64)
	if err != nil || math.IsInf(r, 0) || math.IsNaN(r) {
		return strconv.FormatFloat(f, 'g', 4, 64)
	}
	if r == 0 {
		return "0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
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

// appendFile appends to a runner command file.
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

// postComment posts or updates the sticky comment. It is best effort: any
// failure is a warning and never changes the decision or the exit status.
func postComment(ctx context.Context, e *env, gh *ghContext, c *gateConfig, key, md string) string {
	switch {
	case c.comment == "never":
		return ""
	case c.comment == "auto" && !gh.isPullRequest():
		return ""
	case gh.pr == 0:
		warn(e, "", 0, "comment: always was asked but this run is not for a pull request")
		return ""
	case c.githubToken == "":
		warn(e, "", 0, "comment: no github-token given; the comment was not posted")
		return ""
	}
	out, err := upsert(ctx, e, gh, c.githubToken, c.commentAuthor, gh.pr, key, md, gh.headSHA)
	if err != nil {
		warn(e, "", 0, "comment not posted: "+err.Error())
		return ""
	}
	if out.Action == comment.ActionSkippedStale {
		fmt.Fprintln(e.stdout, "  comment not updated: this run's commit is no longer the pull request's head")
		return ""
	}
	fmt.Fprintf(e.stdout, "  comment %s: %s\n", out.Action, out.URL)
	return out.URL
}

// commentLog sends the comment service's warnings to the log.
func commentLog(e *env) func(format string, a ...any) {
	return func(format string, a ...any) { warn(e, "", 0, fmt.Sprintf(format, a...)) }
}

func upsert(ctx context.Context, e *env, gh *ghContext, token, author string, pr int, key, body, headSHA string) (comment.Outcome, error) {
	api, err := baseline.NewGitHubClient(gh.apiURL, token, &http.Client{Timeout: 30 * time.Second})
	if err != nil {
		return comment.Outcome{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if author == "*" {
		author = ""
	}
	svc := &comment.Service{Client: api, Owner: gh.owner, Repo: gh.repo, Author: author, Logf: commentLog(e)}
	return svc.Upsert(ctx, pr, key, body, headSHA)
}

// commentConfig holds the flags of `rubricgate comment`.
type commentConfig struct {
	report, githubToken, title string
	maxReport, commentAuthor   string
	commentKey                 string
}

func commentFlags(fs *flag.FlagSet, c *commentConfig) {
	fs.StringVar(&c.report, "report", "", "a gate JSON report made by another job (the untrusted pull_request workflow)")
	fs.StringVar(&c.githubToken, "github-token", "", "token with pull-requests: write; never printed")
	fs.StringVar(&c.title, "title", "", "heading of the comment (default: rubricgate: <rubric name>)")
	fs.StringVar(&c.maxReport, "max-report", "10MiB", "largest report accepted")
	fs.StringVar(&c.commentAuthor, "comment-author", defaultCommentAuthor, "login whose marker comment is adopted and edited; * for any author")
	fs.StringVar(&c.commentKey, "comment-key", "", "sticky comment key (default: report: plus the report's own key)")
}

// cmdComment posts a report another job made: the fork-safe pattern. It runs
// in a workflow_run workflow and checks that the report belongs to the
// triggering run (repository, run id, head SHA) before posting it. The report
// is data: parsed with a size cap, never executed or unpacked.
func cmdComment(args []string, e *env) (int, error) {
	fs := newFlags("comment", e)
	var c commentConfig
	commentFlags(fs, &c)
	posArgs, err := parseArgs(fs, args)
	if err != nil {
		return exitError, err
	}
	if len(posArgs) > 0 {
		return exitError, usagef("comment: unexpected argument %q", posArgs[0])
	}
	if c.report == "" {
		return exitError, usagef("comment: --report is required")
	}
	limit, err := parseSize(c.maxReport)
	if err != nil {
		return exitError, err
	}
	data, err := readFileLimited(c.report, limit)
	if err != nil {
		return exitError, fmt.Errorf("report: %w", err)
	}
	var g gate.GateReport
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&g); err != nil {
		return exitError, fmt.Errorf("report %s: not a rubricgate gate report: %w", c.report, err)
	}
	if g.Report == nil || g.Context == nil || (g.Decision != gate.Pass && g.Decision != gate.Block) {
		return exitError, fmt.Errorf("report %s: not a rubricgate gate report made inside GitHub Actions (no decision or context)", c.report)
	}
	gh, err := readGHContext(e.getenv)
	if err != nil {
		return exitError, err
	}
	wr := gh.workflowRun
	if wr == nil {
		return exitError, errors.New("comment: run this from a workflow_run workflow: the event payload has no workflow_run")
	}
	// The report must belong to the run that triggered this workflow.
	if repo := gh.owner + "/" + gh.repo; g.Context.Repository != repo || (wr.Repository.FullName != "" && wr.Repository.FullName != repo) {
		return exitError, fmt.Errorf("comment: report is for repository %q, the triggering run is in %q", g.Context.Repository, repo)
	}
	if g.Context.RunID != wr.ID {
		return exitError, fmt.Errorf("comment: report was made by run %d, the triggering run is %d", g.Context.RunID, wr.ID)
	}
	if g.Context.HeadSHA != wr.HeadSHA {
		return exitError, fmt.Errorf("comment: report is for commit %s, the triggering run's head is %s", g.Context.HeadSHA, wr.HeadSHA)
	}
	if c.githubToken == "" {
		return exitError, usagef("comment: --github-token is required")
	}
	pr := 0
	for _, p := range wr.PullRequests {
		if p.Head.SHA == wr.HeadSHA {
			pr = p.Number
			break
		}
	}
	ctx := context.Background()
	if pr == 0 {
		// Fork pull requests: workflow_run.pull_requests is empty; find the
		// pull request by the head SHA.
		api, err := baseline.NewGitHubClient(gh.apiURL, c.githubToken, &http.Client{Timeout: 30 * time.Second})
		if err != nil {
			return exitError, err
		}
		svc := &comment.Service{Client: api, Owner: gh.owner, Repo: gh.repo, Logf: commentLog(e)}
		if pr, err = svc.FindPullRequestByHeadSHA(ctx, wr.HeadSHA); err != nil {
			return exitError, fmt.Errorf("comment: %w", err)
		}
	}
	title := c.title
	if title == "" {
		title = "rubricgate: " + g.Rubric.Name
	}
	// The report is untrusted: its key lives in its own namespace, so a
	// report can never take over the sticky comment of a trusted gate.
	key := c.commentKey
	if key == "" {
		key = "report:" + g.Context.CommentKey
	}
	md := render.Markdown(&g, render.MarkdownOptions{Title: title, Now: e.clock(), Budget: comment.BodyLimit(key)})
	out, err := upsert(ctx, e, gh, c.githubToken, c.commentAuthor, pr, key, md, wr.HeadSHA)
	if err != nil {
		return exitError, fmt.Errorf("comment: %w", err)
	}
	fmt.Fprintf(e.stdout, "comment %s on #%d: %s\n", out.Action, pr, out.URL)
	return exitPass, nil
}
