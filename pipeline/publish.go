package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/host"
)

// PublishOptions say how [Publish] shows an outcome.
type PublishOptions struct {
	// Comments is the host's commenting (host.Host.Commenting), Mode the
	// comment setting.
	Comments host.Commenting
	Mode     host.CommentMode
	// ReportPath and BaselinePath are the JSON report and the new baseline
	// written ("" for none), as this process names them.
	ReportPath, BaselinePath string
	// Commit writes the caller's staged files and then runs last (the
	// outputs); when last fails it puts the files back and returns the
	// error.
	Commit func(last func() error) error
	// Warn shows a warning.
	Warn func(msg string)
}

// Publish shows the outcome on the host. The sticky comment is posted
// first, best effort (a failure is a warning and never changes the
// decision), so its address is among the outputs. Then the staged files
// are committed with the outputs as the last step of the commit: when they
// cannot be written the files are put back and the error returned (exit
// 2), since later steps (the baseline upload) rely on them. The job summary
// is for people: a failure to write it is a warning. It returns the log
// line saying what the comment did ("" for nothing).
func Publish(ctx context.Context, h host.Host, out *Outcome, o PublishOptions) (logLine string, err error) {
	warn := func(s string) {
		if o.Warn != nil {
			o.Warn(s)
		}
	}
	url, logLine := postComment(ctx, h.Build(), out, o, warn)
	path := func(p string) string {
		if f, ok := h.(host.Files); ok {
			return f.HostPath(p)
		}
		return p
	}
	last := func() error {
		if err := h.SetOutputs(host.GateOutputs(out.Report, path(o.ReportPath), path(o.BaselinePath), url)); err != nil {
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
		return "", err
	}
	return logLine, nil
}

// postComment posts or updates the sticky comment and returns its address
// and the log line saying what it did.
func postComment(ctx context.Context, b *host.Build, out *Outcome, o PublishOptions, warn func(string)) (url, logLine string) {
	c := o.Comments
	if c.Noun == "" {
		return "", "" // a host without comments
	}
	ok, w := host.ShouldComment(o.Mode, b)
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
