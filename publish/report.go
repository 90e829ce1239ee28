package publish

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"github.com/rubricgate/rubricgate/internal/cliflag"
	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/render"
)

// ReadReport reads a gate JSON report another job made (data: parsed with
// a size cap of maxReport, a size like 10MiB, never executed or unpacked)
// and checks it with [CheckReport].
func ReadReport(path, maxReport string) (*gate.GateReport, error) {
	limit, err := cliflag.ParseSize("max-report", maxReport)
	if err != nil {
		return nil, err
	}
	data, err := boundedio.ReadFile(path, limit)
	if err != nil {
		return nil, fmt.Errorf("report: %w", err)
	}
	var g gate.GateReport
	if err := json.NewDecoder(strings.NewReader(string(data))).Decode(&g); err != nil {
		return nil, fmt.Errorf("report %s: not a rubricgate gate report: %w", path, err)
	}
	if err := CheckReport(&g, path); err != nil {
		return nil, err
	}
	return &g, nil
}

// PostReportOptions are the settings of [PostReport].
type PostReportOptions struct {
	// Report is the report's path, MaxReport its largest size (10MiB).
	Report, MaxReport string
	// Token (pull-requests: write) and Author (the login whose marker
	// comment is adopted) are the comment's.
	Token, Author string
	// Title heads the comment ("" for "rubricgate: <rubric name>"); Key is
	// the sticky comment key ("" for "report:" plus the report's own).
	Title, Key string
	// Now is the clock; Warn shows a warning.
	Now  time.Time
	Warn func(msg string)
}

// Flags declares the comment command's settings on fs under their names
// (the flags and action inputs of `rubricgate comment`).
func (o *PostReportOptions) Flags(fs *flag.FlagSet) {
	fs.StringVar(&o.Report, "report", "", "a gate JSON report made by another job (the untrusted pull_request workflow)")
	fs.StringVar(&o.Token, "github-token", "", "token with pull-requests: write; never printed")
	fs.StringVar(&o.Title, "title", "", "heading of the comment (default: rubricgate: <rubric name>)")
	fs.StringVar(&o.MaxReport, "max-report", "10MiB", "largest report accepted")
	fs.StringVar(&o.Author, "comment-author", host.DefaultCommentAuthor, "login whose marker comment is adopted and edited; * for any author")
	fs.StringVar(&o.Key, "comment-key", "", "sticky comment key (default: report: plus the report's own key)")
}

// ReportHost is what PostReport needs from the CI host (host/github.Host
// provides it): the run that triggered this workflow once the report is
// found to be its own, and a commenter on that run's pull request.
type ReportHost interface {
	ReportRun(rc *gate.RunContext) (host.TriggeringRun, error)
	RunCommenter(ctx context.Context, token, author string, logf func(string, ...any)) (host.Commenter, int, error)
	// Build describes this run (its RunsURL says which run links the
	// comment may show).
	Build() *host.Build
}

// PostReport posts the report o.Report (see [ReadReport]), made by the run
// that triggered this workflow_run workflow (the fork-safe pattern), on
// that run's pull request, once the host found it belongs to that run
// (host/github.CheckProvenance: repository, run id, head commit). It
// returns what the comment did and the pull request's number.
func PostReport(ctx context.Context, gh ReportHost, o PostReportOptions) (host.CommentResult, int, error) {
	if o.Report == "" {
		return host.CommentResult{}, 0, host.Configf("comment: --report is required")
	}
	g, err := ReadReport(o.Report, o.MaxReport)
	if err != nil {
		return host.CommentResult{}, 0, err
	}
	wr, err := gh.ReportRun(g.Context)
	if err != nil {
		return host.CommentResult{}, 0, err
	}
	if o.Token == "" {
		return host.CommentResult{}, 0, host.Configf("comment: --github-token is required")
	}
	cm, pr, err := gh.RunCommenter(ctx, o.Token, o.Author, func(format string, a ...any) { o.Warn(fmt.Sprintf(format, a...)) })
	if err != nil {
		return host.CommentResult{}, 0, err
	}
	title := o.Title
	if title == "" {
		title = "rubricgate: " + g.Rubric.Name
	}
	// The report is untrusted: its key lives in its own namespace, so a
	// report can never take over the sticky comment of a trusted gate.
	key := o.Key
	if key == "" {
		key = "report:" + g.Context.CommentKey
	}
	head, foot := UntrustedReportNotes(g, wr)
	md := render.Markdown(g, render.MarkdownOptions{Title: title, Now: o.Now, Budget: comment.BodyLimit(key) - len(head) - len(foot), RunsURL: gh.Build().RunsURL})
	if head != "" {
		o.Warn(fmt.Sprintf("the report says the gate passed, but run %d concluded %q: the comment says so", wr.ID, wr.Conclusion))
	}
	out, err := cm.Comment(ctx, key, head+md+foot)
	if err != nil {
		return host.CommentResult{}, 0, fmt.Errorf("comment: %w", err)
	}
	return out, pr, nil
}

// UntrustedReportNotes frames a comment posted from another run's report.
// The report is the pull request's own data: its decision cannot be
// verified here, but the triggering run's conclusion comes from GitHub. A
// report that claims a pass (or an accepted regression) from a run that
// did not succeed gets a warning first; every such comment says where it
// came from.
func UntrustedReportNotes(g *gate.GateReport, wr host.TriggeringRun) (head, foot string) {
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
