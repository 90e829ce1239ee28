package main

import (
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/internal/ghfake"
)

// The comment service's warnings reach the log: several marker comments
// (a past race), and several open pull requests sharing the head commit.
func TestCommentWarningsReachTheLog(t *testing.T) {
	t.Run("several marker comments", func(t *testing.T) {
		h := newHarness(t)
		h.gateInputs(goodRun)
		h.input("baseline-dir", h.path("store"))
		h.input("comment-key", "k")
		h.issues.AddComment(prNum, ghfake.BotLogin, comment.Marker("k")+"\nfirst")
		h.issues.AddComment(prNum, ghfake.BotLogin, comment.Marker("k")+"\nsecond")
		if code := h.action(); code != exitPass {
			t.Fatalf("exit %d\n%s", code, h.stdout.String())
		}
		if !strings.Contains(h.stdout.String(), "::warning title=rubricgate::comment: 2 comments on #17 carry the marker") {
			t.Errorf("the warning is not in the log:\n%s", h.stdout.String())
		}
	})
	t.Run("several pull requests share the head", func(t *testing.T) {
		h := newHarness(t)
		report := forkReport(t, h)
		h.issues.AddPull(ghfake.PullRequest{Number: prNum + 1, HeadSHA: headSHA, HeadRef: "feature-copy", BaseRef: "main"})
		h.workflowRunEvent(9001, headSHA, []map[string]any{})
		h.input("command", "comment")
		h.input("report", report)
		if code := h.action(); code != exitPass {
			t.Fatalf("exit %d\n%s%s", code, h.stdout.String(), h.stderr.String())
		}
		if !strings.Contains(h.stdout.String(), "::warning title=rubricgate::comment: 2 open pull requests have head "+headSHA) {
			t.Errorf("the warning is not in the log:\n%s", h.stdout.String())
		}
	})
}
