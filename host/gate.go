package host

import (
	"context"
	"math"
	"strconv"

	"github.com/rubricgate/rubricgate/gate"
)

// DefaultCommentAuthor is the login of the workflow's GITHUB_TOKEN: only
// its marker comments are adopted, so nobody can plant a comment with the
// marker and have the gate edit (and so vouch for) it.
const DefaultCommentAuthor = "github-actions[bot]"

// DefaultLocalDir is the local baseline store's root when none is given.
const DefaultLocalDir = ".rubricgate/baselines"

// Host is one CI host as the gate uses it: the build, the reporter
// (annotations, job summary, outputs), the default baseline store and the
// sticky comment. cmd/rubricgate picks one (GitHub Actions, else GitLab CI,
// else a local run); host/github, host/gitlab and host/local build it.
type Host interface {
	BuildInfo
	Reporter
	Stores
	// Commenting says how the run comments with the given settings.
	Commenting(o CommentOptions) Commenting
}

// CommentOptions are the comment settings of a run.
type CommentOptions struct {
	// Mode is the comment setting (auto, always, never).
	Mode CommentMode
	// Token is the token given for the host's API (the github-token
	// input); a host may read its own from the environment instead.
	Token string
	// Author is the login whose marker comment is adopted (the
	// comment-author setting; "*" for anyone).
	Author string
	// Logf receives the comment service's warnings.
	Logf func(format string, args ...any)
}

// Commenting is what a host offers for the sticky comment. The zero value
// is a host without comments (a terminal).
type Commenting struct {
	// Noun names the comment in log lines: "comment" or "note"; empty
	// when the host has no comments.
	Noun string
	// Commenter posts it; nil when the run cannot (no token), and then
	// Missing is the warning shown when a comment was asked for.
	Commenter Commenter
	Missing   string
	// Previous reads back the body of the gate's own sticky comment for
	// key (the record of an accepted regression); nil when that comment
	// cannot be trusted to be the gate's (no token, any author, a fork).
	Previous func(ctx context.Context, key string) (body string, ok bool, err error)
	// LabelActor asks the host who last applied the change request's
	// label (the latest "labeled" event, or label event "add", for it) and,
	// where the build does not tell, who wrote the change request; nil when
	// the host cannot be asked (no token).
	LabelActor func(ctx context.Context, label string) (gate.Actor, error)
}

// Files is implemented by hosts that choose where the JSON report goes when
// none was named (GitHub Actions: $RUNNER_TEMP).
type Files interface {
	// DefaultReportPath is where the JSON report goes when none was
	// named ("": nowhere).
	DefaultReportPath() string
}

// ReportPath is where the JSON report goes: given when not empty, else the
// default of a host that has one ([Files]), else "" (none).
func ReportPath(h any, given string) string {
	if f, ok := h.(Files); ok && given == "" {
		return f.DefaultReportPath()
	}
	return given
}

// CIBuild is the build the gate pipeline reads: nil for a local run, whose
// branch the pipeline finds from flags, CI variables and the checkout.
func CIBuild(h BuildInfo) *Build {
	if b := h.Build(); b != nil && b.Host != "" && b.Host != "local" {
		return b
	}
	return nil
}

// GateOutputs are the outputs of a gate run that later steps (GitHub) or
// jobs (GitLab's dotenv report) read, every host the same. Paths are given
// as reportPath and baselinePath, as written.
func GateOutputs(g *gate.GateReport, reportPath, baselinePath, commentURL string) []Output {
	score, baseScore, change := "", "", ""
	if g.Score != nil {
		score = OutputScore(*g.Score)
	}
	if g.Baseline != nil {
		baseScore = OutputScore(g.Baseline.Score)
	}
	if g.RelativeChange != nil {
		change = OutputChange(*g.RelativeChange)
	}
	outs := []Output{
		{Name: "decision", Value: string(g.Decision)},
		{Name: "passed", Value: strconv.FormatBool(g.Decision == gate.Pass)},
		{Name: "score", Value: score},
		{Name: "baseline-score", Value: baseScore},
		{Name: "relative-change", Value: change},
		{Name: "blocking-failures", Value: strconv.Itoa(len(g.BlockingFailures))},
		{Name: "report", Value: reportPath},
		{Name: "baseline-file", Value: baselinePath},
		{Name: "comment-url", Value: commentURL},
		{Name: "rerun", Value: strconv.FormatBool(g.Decision == gate.Rerun)},
		{Name: "rerun-answers", Value: rerunAnswers(g)},
	}
	if g.Tier != nil {
		outs = append(outs, Output{Name: "may-advance", Value: strconv.FormatBool(g.Tier.MayAdvance)}, Output{Name: "next-tier", Value: strconv.Itoa(g.Tier.Next)})
	}
	return outs
}

// rerunAnswers is the answers per item a rerun asks for ("" without one).
func rerunAnswers(g *gate.GateReport) string {
	if g.Decision != gate.Rerun || g.DropCheck == nil {
		return ""
	}
	return strconv.Itoa(g.DropCheck.RerunAnswers)
}

// OutputScore writes a score (0-100) for people: one decimal, as the log,
// the summary and the comment show it. The JSON report keeps full precision.
func OutputScore(f float64) string {
	return strconv.FormatFloat(f, 'f', 1, 64)
}

// OutputChange writes a relative change for people: four significant
// digits, in plain decimal notation (-0.06593, 0.02, 0), never -0.
func OutputChange(f float64) string {
	r, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', 4, 64), 64)
	if err != nil || math.IsInf(r, 0) || math.IsNaN(r) {
		return strconv.FormatFloat(f, 'g', 4, 64)
	}
	if r == 0 {
		return "0"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}
