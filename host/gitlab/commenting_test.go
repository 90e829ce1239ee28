package gitlab

import (
	"bytes"
	"testing"

	"github.com/rubricgate/rubricgate/host"
)

// The note is posted with GITLAB_TOKEN (never the github-token given on
// the command line); the previous note is read back only from a named
// author; the dotenv report defaults for the gate's job.
func TestCommenting(t *testing.T) {
	vars := mrEnv()
	h, err := NewJob(env(vars), &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if h.DotenvPath != DefaultDotenv {
		t.Errorf("dotenv %q", h.DotenvPath)
	}
	if c := h.Commenting(host.CommentOptions{Mode: host.CommentAuto, Token: "ghs_x", Author: "bot"}); c.Noun != "note" || c.Commenter != nil || c.Missing == "" || c.Previous != nil {
		t.Errorf("without GITLAB_TOKEN: %+v", c)
	}
	vars["GITLAB_TOKEN"], vars["RUBRICGATE_DOTENV"] = "glpat-x", "out.env"
	h, _ = NewJob(env(vars), &bytes.Buffer{})
	if h.DotenvPath != "out.env" {
		t.Errorf("dotenv %q", h.DotenvPath)
	}
	c := h.Commenting(host.CommentOptions{Mode: host.CommentAuto, Author: "bot"})
	n, ok := c.Commenter.(*Notes)
	if !ok || n.Token != "glpat-x" || n.Author != "bot" || c.Previous == nil {
		t.Errorf("named author: %+v", c)
	}
	// Left at its default: the token's own user's note (asked of GitLab),
	// whose record is read back.
	for _, author := range []string{githubDefaultAuthor, ""} {
		c := h.Commenting(host.CommentOptions{Mode: host.CommentAuto, Author: author})
		if n := c.Commenter.(*Notes); n.Author != "" || c.Previous == nil {
			t.Errorf("author %q: adopts %q, previous %v", author, n.Author, c.Previous != nil)
		}
	}
	// Anyone's: nothing is read back.
	if c := h.Commenting(host.CommentOptions{Mode: host.CommentAuto, Author: "*"}); c.Commenter.(*Notes).Author != "*" || c.Previous != nil {
		t.Errorf("author *: %+v", c)
	}
	if c := h.Commenting(host.CommentOptions{Mode: host.CommentNever, Author: "bot"}); c.Previous != nil {
		t.Error("comment never still reads the previous note")
	}
}
