// Package publish shows a gate run's outcome on a CI host (the sticky
// comment, the step outputs, the job summary, the decision log) and posts a
// report another run made (`rubricgate comment`, the fork-safe pattern).
package publish

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/render"
)

// Result is what a gate run decided and shows.
type Result struct {
	// Report is the report value; Markdown its comment and summary body.
	Report   *gate.GateReport
	Markdown string
	// CommentKey is the sticky comment key used.
	CommentKey string
	// NotSaved says why a passing run's baseline was not saved into the
	// local store ("" when it was, or there is none): told after the
	// decision, as the saved path is.
	NotSaved string
	// Pooling says what the new baseline holds: how many runs it pools,
	// or why it holds this run alone ("" without a new baseline).
	Pooling string
	// RubricWarnings is how many of the report's warnings lead it from the
	// rubric (already shown with their file and line).
	RubricWarnings int
}

// Blocked reports whether the run is blocked (exit 1).
func (r *Result) Blocked() bool { return r.Report.Decision == gate.Block }

// Rerun reports whether the run asks for a re-run (noisy-drop rerun: a
// drop within noise, neither a pass nor a block; exit 3).
func (r *Result) Rerun() bool { return r.Report.Decision == gate.Rerun }

// Options say how [Publish] shows a result.
type Options struct {
	// Comment are the comment settings (see host.Host.Commenting); the
	// comment service's warnings go to Warn unless Comment.Logf is set.
	Comment host.CommentOptions
	// ReportPath and BaselinePath are the JSON report and the new baseline
	// written ("" for none), as this process names them.
	ReportPath, BaselinePath string
	// Commit writes the caller's staged files and then runs last (the
	// outputs); when last fails it puts the files back and returns the
	// error.
	Commit func(last func() error) error
	// Log receives the decision's log lines. With Annotate (a host whose
	// reporter makes annotations: GitHub Actions) the blocking reasons and
	// the warnings are annotations through the host's reporter; otherwise
	// the warnings go to Warn.
	Log      io.Writer
	Annotate bool
	// Color shows the decision and the blocking reasons in colour (Log is
	// a terminal).
	Color bool
	// Warn shows a warning.
	Warn func(msg string)
}

// Publish shows the outcome on the host. The sticky comment is posted
// first, best effort (a failure is a warning and never changes the
// decision), so its address is among the outputs. Then the staged files
// are committed with the outputs as the last step of the commit: when they
// cannot be written the files are put back and the error returned (exit
// 2), since later steps (the baseline upload) rely on them. The job summary
// is for people: a failure to write it is a warning. Last the decision is
// logged (render.DecisionLog), with what the comment did.
func Publish(ctx context.Context, h host.Host, out *Result, o Options) error {
	warn := func(s string) {
		if o.Warn != nil {
			o.Warn(s)
		}
	}
	if o.Comment.Logf == nil {
		o.Comment.Logf = func(f string, a ...any) { warn(fmt.Sprintf(f, a...)) }
	}
	url, commentLine := postComment(ctx, h, out, o.Comment, warn)
	last := func() error {
		if err := h.SetOutputs(host.GateOutputs(out.Report, o.ReportPath, o.BaselinePath, url)); err != nil {
			return err
		}
		if err := h.Summary(out.Markdown); err != nil {
			if u := errors.Unwrap(err); u != nil {
				err = u
			}
			warn("job summary not written: " + err.Error())
		}
		return nil
	}
	if err := o.Commit(last); err != nil {
		return err
	}
	if o.Log == nil {
		return nil
	}
	// The rubric's warnings were shown with their file and line when it
	// was loaded: the others only.
	shown, rep := *out.Report, *out.Report.Report
	rep.Warnings = rep.Warnings[out.RubricWarnings:]
	shown.Report = &rep
	for _, l := range render.DecisionLog(&shown, o.BaselinePath, o.Annotate) {
		switch {
		case l.Annotation == nil && o.Color:
			fmt.Fprintln(o.Log, l.Colored())
		case l.Annotation == nil:
			fmt.Fprintln(o.Log, l.Line)
		case o.Annotate:
			_ = h.Annotate(*l.Annotation) // the log is best effort
		default:
			warn(l.Annotation.Message)
		}
	}
	if out.Pooling != "" && o.BaselinePath != "" {
		fmt.Fprintln(o.Log, "  new baseline "+safe.LogLine(out.Pooling))
	}
	if out.NotSaved != "" {
		fmt.Fprintln(o.Log, "  baseline not saved: "+safe.LogLine(out.NotSaved))
	}
	if commentLine != "" {
		fmt.Fprintln(o.Log, commentLine)
	}
	return nil
}

// postComment posts or updates the sticky comment and returns its address
// and the log line saying what it did.
func postComment(ctx context.Context, h host.Host, out *Result, o host.CommentOptions, warn func(string)) (url, logLine string) {
	c := h.Commenting(o)
	if c.Noun == "" {
		return "", "" // a host without comments
	}
	ok, w := host.ShouldComment(o.Mode, h.Build())
	if w != "" {
		warn(w)
	}
	switch {
	case !ok:
		return "", ""
	case c.Commenter == nil:
		warn(c.Missing)
		return "", ""
	}
	res, err := c.Commenter.Comment(ctx, out.CommentKey, out.Markdown)
	switch {
	case err != nil:
		warn(c.Noun + " not posted: " + err.Error())
		return "", ""
	case res.Action == comment.ActionSkippedStale:
		return "", "  comment not updated: this run's commit is no longer the pull request's head"
	}
	return res.URL, fmt.Sprintf("  %s %s: %s", c.Noun, res.Action, res.URL)
}
