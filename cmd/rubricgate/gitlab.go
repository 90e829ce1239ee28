package main

import (
	"context"
	"fmt"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	glhost "github.com/rubricgate/rubricgate/host/gitlab"
)

// defaultDotenv is the dotenv report a GitLab CI run writes its outputs
// to (RUBRICGATE_DOTENV overrides it): declare it as
// artifacts:reports:dotenv to hand them to later jobs.
const defaultDotenv = "rubricgate.env"

// readGitLab reads the GitLab CI job when the process runs in one (and not
// inside GitHub Actions); nil otherwise.
func readGitLab(e *env) (*glhost.Host, error) {
	if e.inActions() || !glhost.InCI(e.getenv) {
		return nil, nil
	}
	h, err := glhost.New(e.getenv, e.stdout)
	if err != nil {
		return nil, err
	}
	h.DotenvPath = e.getenv("RUBRICGATE_DOTENV")
	if h.DotenvPath == "" {
		h.DotenvPath = defaultDotenv
	}
	return h, nil
}

// gitlabNotes returns the merge request's sticky note, posted with the
// token in GITLAB_TOKEN (a masked CI/CD variable holding a project access
// token with api scope: CI_JOB_TOKEN cannot write notes, and a token given
// on the command line would show in the job log). It is nil without a
// token. The note of comment-author is adopted; left at its GitHub default
// any author's is (GitLab refuses to edit another user's note).
func gitlabNotes(e *env, gl *glhost.Host, c *gateConfig) *glhost.Notes {
	token := e.getenv("GITLAB_TOKEN")
	if token == "" {
		return nil
	}
	return gl.Commenter(token, false, gitlabAuthor(c))
}

// gitlabAuthor is the username whose note is adopted: "" (anyone) unless
// comment-author was set to a GitLab username.
func gitlabAuthor(c *gateConfig) string {
	if c.commentAuthor == defaultCommentAuthor || c.commentAuthor == "*" {
		return ""
	}
	return c.commentAuthor
}

// postNote posts or updates the sticky merge request note; best effort,
// like postComment.
func postNote(ctx context.Context, e *env, b *host.Build, notes *glhost.Notes, c *gateConfig, key, md string) (url, logLine string) {
	ok, w := host.ShouldComment(host.CommentMode(c.comment), b)
	if w != "" {
		warn(e, "", 0, w)
	}
	if !ok {
		return "", ""
	}
	if notes == nil {
		warn(e, "", 0, "comment: no GitLab token (set GITLAB_TOKEN to a project access token with api scope); the merge request note was not posted")
		return "", ""
	}
	out, err := notes.Comment(ctx, key, md)
	if err != nil {
		warn(e, "", 0, "note not posted: "+err.Error())
		return "", ""
	}
	return out.URL, fmt.Sprintf("  note %s: %s", out.Action, out.URL)
}

// gitlabOutputs writes the outputs to the dotenv report (an error: later
// jobs rely on them).
func gitlabOutputs(e *env, gl *glhost.Host, g *gate.GateReport, reportPath, baselinePath, commentURL string) error {
	return gl.SetOutputs(stepOutputs(e, g, reportPath, baselinePath, commentURL))
}
