package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/sethvargo/go-githubactions"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	ghhost "github.com/rubricgate/rubricgate/host/github"
	"github.com/rubricgate/rubricgate/internal/ghclient"
	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/pipeline"
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
func (c *gateConfig) baselineStore(rb *rubric.Rubric, e *env, gh *ghContext, b *host.Build, s *settings, ref pipeline.BaselineRef) (baseline.Store, baseline.Query, *baseline.Dir, error) {
	q := baseline.Query{Rubric: rb.Name, Branch: ref.Branch, Key: c.baselineKey}
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
		if gh.owner == "" || gh.RepositoryID == 0 {
			return nil, q, nil, errors.New("the artifact baseline store needs GITHUB_REPOSITORY and repository.id in the event payload")
		}
		api, err := ghclient.New(gh.APIURL, c.githubToken, &http.Client{Timeout: 60 * time.Second})
		if err != nil {
			return nil, q, nil, err
		}
		return baseline.GitHub{
			API: api, Download: &http.Client{}, Owner: gh.owner, Repo: gh.repo, RepoID: gh.RepositoryID,
			ArtifactName: c.baselineArtifact, MaxArchive: s.maxArchive,
			Logf: func(format string, a ...any) { warn(e, "", 0, fmt.Sprintf(format, a...)) },
		}, q, nil, nil
	default:
		d := &baseline.Dir{Root: defaultBaselineDir}
		return d, q, d, nil
	}
}

// actionOutputs writes the step outputs (an error: later steps rely on
// them) and then the job summary (a warning when it cannot be written)
// through the GitHub host (each a no-op when its runner file is not set).
func actionOutputs(e *env, gh *ghContext, g *gate.GateReport, md, reportPath, baselinePath, commentURL string) error {
	// Steps downstream rely on the outputs (the baseline upload), so a
	// failure is an error, before anything else is written.
	if err := gh.h.SetOutputs(stepOutputs(e, g, reportPath, baselinePath, commentURL)); err != nil {
		return err
	}
	// The summary is for people: a failure to write it is a warning.
	if err := gh.h.Summary(md); err != nil {
		if u := errors.Unwrap(err); u != nil {
			err = u
		}
		warn(e, "", 0, "job summary not written: "+err.Error())
	}
	return nil
}

// stepOutputs are the values later steps (GitHub) or jobs (GitLab's
// dotenv report) read.
func stepOutputs(e *env, g *gate.GateReport, reportPath, baselinePath, commentURL string) []host.Output {
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
	outs := []host.Output{
		{Name: "decision", Value: string(g.Decision)},
		{Name: "passed", Value: strconv.FormatBool(g.Decision == gate.Pass)},
		{Name: "score", Value: score},
		{Name: "baseline-score", Value: baseScore},
		{Name: "relative-change", Value: change},
		{Name: "blocking-failures", Value: strconv.Itoa(len(g.BlockingFailures))},
		{Name: "report", Value: e.hostPath(reportPath)},
		{Name: "baseline-file", Value: e.hostPath(baselinePath)},
		{Name: "comment-url", Value: commentURL},
	}
	if g.Tier != nil {
		outs = append(outs, host.Output{Name: "may-advance", Value: strconv.FormatBool(g.Tier.MayAdvance)}, host.Output{Name: "next-tier", Value: strconv.Itoa(g.Tier.Next)})
	}
	return outs
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

// postComment posts or updates the sticky comment and returns its address
// and the log line saying what it did (printed after the decision). It is
// best effort: any failure is a warning and never changes the decision or
// the exit status.
func postComment(ctx context.Context, e *env, gh *ghContext, c *gateConfig, key, md string) (url, logLine string) {
	switch {
	case c.comment == "never":
		return "", ""
	case c.comment == "auto" && !gh.ChangeRequestEvent:
		return "", ""
	case gh.ChangeRequest == 0:
		warn(e, "", 0, "comment: always was asked but this run is not for a pull request")
		return "", ""
	case c.githubToken == "":
		warn(e, "", 0, "comment: no github-token given; the comment was not posted")
		return "", ""
	}
	cm := gh.h.Commenter(c.githubToken, c.commentAuthor)
	cm.Logf = commentLog(e)
	out, err := cm.Comment(ctx, key, md)
	if err != nil {
		warn(e, "", 0, "comment not posted: "+err.Error())
		return "", ""
	}
	if out.Action == comment.ActionSkippedStale {
		return "", "  comment not updated: this run's commit is no longer the pull request's head"
	}
	return out.URL, fmt.Sprintf("  comment %s: %s", out.Action, out.URL)
}

// previousComment reads the body of the gate's own sticky comment for key,
// for the record of an accepted regression.
func (c *gateConfig) previousComment(ctx context.Context, e *env, gh *ghContext, key string) (string, bool, error) {
	api, err := ghclient.New(gh.APIURL, c.githubToken, &http.Client{Timeout: 30 * time.Second})
	if err != nil {
		return "", false, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	svc := &comment.Service{Client: api, Owner: gh.owner, Repo: gh.repo, Author: c.commentAuthor, Logf: commentLog(e)}
	return svc.Existing(ctx, gh.ChangeRequest, key)
}

// commentLog sends the comment service's warnings to the log.
func commentLog(e *env) func(format string, a ...any) {
	return func(format string, a ...any) { warn(e, "", 0, fmt.Sprintf(format, a...)) }
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
	data, err := boundedio.ReadFile(c.report, limit)
	if err != nil {
		return exitError, fmt.Errorf("report: %w", err)
	}
	var g gate.GateReport
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if err := dec.Decode(&g); err != nil {
		return exitError, fmt.Errorf("report %s: not a rubricgate gate report: %w", c.report, err)
	}
	if err := pipeline.CheckReport(&g, c.report); err != nil {
		return exitError, err
	}
	gh, err := readGHContext(e)
	if err != nil {
		return exitError, err
	}
	// The report must belong to the run that triggered this workflow.
	wr := gh.ev.WorkflowRun
	if err := ghhost.CheckProvenance(g.Context, gh.Build, wr); err != nil {
		return exitError, err
	}
	if c.githubToken == "" {
		return exitError, usagef("comment: --github-token is required")
	}
	ctx := context.Background()
	cm := &ghhost.Commenter{APIURL: gh.APIURL, Owner: gh.owner, Repo: gh.repo, Token: c.githubToken, Logf: commentLog(e)}
	pr, err := cm.RunPullRequest(ctx, wr)
	if err != nil {
		return exitError, err
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
	head, foot := untrustedReportNotes(&g, wr)
	md := render.Markdown(&g, render.MarkdownOptions{Title: title, Now: e.clock(), Budget: comment.BodyLimit(key) - len(head) - len(foot)})
	md = head + md + foot
	if head != "" {
		warn(e, "", 0, fmt.Sprintf("the report says the gate passed, but run %d concluded %q: the comment says so", wr.ID, wr.Conclusion))
	}
	cm.PullRequest, cm.HeadSHA, cm.Author = pr, wr.HeadSHA, c.commentAuthor
	out, err := cm.Comment(ctx, key, md)
	if err != nil {
		return exitError, fmt.Errorf("comment: %w", err)
	}
	fmt.Fprintf(e.stdout, "comment %s on #%d: %s\n", out.Action, pr, out.URL)
	return exitPass, nil
}

// untrustedReportNotes frames a comment posted from another run's report. The
// report is the pull request's own data: its decision cannot be verified
// here, but the triggering run's conclusion comes from GitHub. A report that
// claims a pass (or an accepted regression) from a run that did not succeed
// gets a warning first; every such comment says where it came from.
func untrustedReportNotes(g *gate.GateReport, wr *ghhost.WorkflowRun) (head, foot string) {
	concl := wr.Conclusion
	if concl == "" {
		concl = "unknown"
	}
	if g.Decision == gate.Pass && wr.Conclusion != "success" {
		head = fmt.Sprintf("> [!WARNING]\n> This report says the gate passed, but the run that made it (%d) concluded %s: the check on that run, not this comment, is the result.\n\n",
			wr.ID, safe.Code(concl, 40))
	}
	foot = fmt.Sprintf("\n\n_Posted from the report of run %d (conclusion %s), made by the pull request's own workflow: untrusted data; the check on that run is the authority._\n",
		wr.ID, safe.Code(concl, 40))
	return head, foot
}
