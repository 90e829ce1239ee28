package main

import (
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/internal/ghfake"
	"github.com/rubricgate/rubricgate/pipeline"
)

// push moves the pull request's head to sha (event payload and API), with
// the given labels.
func (h *harness) push(sha string, labels []string) {
	h.event(labels)
	data, err := h.readEvent()
	if err != nil {
		h.t.Fatal(err)
	}
	h.write("event.json", strings.ReplaceAll(data, headSHA, sha))
	h.issues.AddPull(ghfake.PullRequest{Number: prNum, HeadSHA: sha, HeadRef: "feature", BaseRef: "main"})
}

func (h *harness) readEvent() (string, error) {
	data, err := boundedio.ReadFile(h.path("event.json"), 1<<20)
	return string(data), err
}

// The accept label stays in force for later pushes: the comment records the
// head commit at which it took effect and its score (in a hidden line of the
// gate's own comment), and says when a later commit changed the score.
func TestActionAcceptanceRecordsCommitAndLaterChanges(t *testing.T) {
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	worse := line("q-1", 3, 3, 3, 1, "vaguer") + line("q-2", 4, 3, 4, 1, "ok") + line("q-3", 5, 5, 5, 1, "great") + line("q-4", 5, 5, 4, 1, "good")
	label := []string{"rubricgate:accept-regression"}
	h.gateInputs(worse)
	h.event(label)
	if code := h.action(); code != exitPass {
		t.Fatalf("accepted run: exit %d\n%s", code, h.stdout.String())
	}
	body := h.stickyComments()[0].Body
	if !strings.Contains(body, "<!-- rubricgate:accepted sha="+headSHA+" score=") || !strings.Contains(body, "label at commit `a1b2c3d` (score ") {
		t.Fatalf("the first acceptance is not recorded:\n%s", body)
	}

	// A later push with the same score: the acceptance keeps its commit.
	second := "b2c3d4e5f60718293a4b5c6d7e8f9012345678a1"
	h.push(second, label)
	if code := h.action(); code != exitPass {
		t.Fatal(code)
	}
	body = h.stickyComments()[0].Body
	if !strings.Contains(body, "accepted sha="+headSHA) || !strings.Contains(body, "the score is unchanged at `b2c3d4e`") {
		t.Fatalf("the second push lost the acceptance's commit:\n%s", body)
	}

	// A later push that changes the score again says so.
	third := "c3d4e5f60718293a4b5c6d7e8f9012345678a1b2"
	worse2 := line("q-1", 3, 2, 3, 1, "vaguer") + line("q-2", 4, 3, 4, 1, "ok") + line("q-3", 5, 5, 5, 1, "great") + line("q-4", 5, 5, 4, 1, "good")
	h.input("results", h.write("results.jsonl", worse2))
	h.push(third, label)
	if code := h.action(); code != exitPass {
		t.Fatal(code)
	}
	cs := h.stickyComments()
	if len(cs) != 1 {
		t.Fatalf("%d sticky comments", len(cs))
	}
	body = cs[0].Body
	if !strings.Contains(body, "accepted sha="+headSHA) || !strings.Contains(body, "**Later commits changed the score**") || !strings.Contains(body, "at `c3d4e5f`") {
		t.Fatalf("the changed score is not noted:\n%s", body)
	}

	// Without the label nothing is accepted and the record is dropped.
	h.push(third, nil)
	if code := h.action(); code != exitBlocked {
		t.Fatalf("label removed: exit %d", code)
	}
	if body := h.stickyComments()[0].Body; strings.Contains(body, "rubricgate:accepted") {
		t.Errorf("the record outlived the label:\n%s", body)
	}
}

// A comment by anyone else carrying the marker and a planted record is not
// believed: the acceptance is recorded at this run's commit.
func TestActionAcceptancePlantedRecordIgnored(t *testing.T) {
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	worse := line("q-1", 3, 3, 3, 1, "vaguer") + line("q-2", 4, 3, 4, 1, "ok") + line("q-3", 5, 5, 5, 1, "great") + line("q-4", 5, 5, 4, 1, "good")
	h.gateInputs(worse)
	h.input("comment-key", "k")
	planted := strings.Repeat("0", 40)
	h.issues.AddComment(prNum, "mallory", comment.Marker("k")+"\n"+pipeline.Acceptance{SHA: planted, Score: 99}.Field()+"\nplanted")
	h.event([]string{"rubricgate:accept-regression"})
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	var mine string
	for _, c := range h.stickyComments() {
		if c.User == ghfake.BotLogin {
			mine = c.Body
		}
	}
	if strings.Contains(mine, planted) || !strings.Contains(mine, "accepted sha="+headSHA) {
		t.Errorf("the planted record was believed:\n%s", mine)
	}
}

// A fork's pull request cannot keep the accept record (its token cannot
// comment): the report says the acceptance is not bound to a commit.
func TestActionAcceptanceFromForkUnbound(t *testing.T) {
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	worse := line("q-1", 3, 3, 3, 1, "vaguer") + line("q-2", 4, 3, 4, 1, "ok") + line("q-3", 5, 5, 5, 1, "great") + line("q-4", 5, 5, 4, 1, "good")
	h.gateInputs(worse)
	h.writeJSON("event.json", map[string]any{
		"number": prNum,
		"pull_request": map[string]any{
			"number": prNum,
			"head":   map[string]any{"sha": headSHA, "ref": "feature", "repo": map[string]any{"id": 999, "full_name": "mallory/support-bot"}},
			"base":   map[string]any{"ref": "main", "repo": map[string]any{"id": repoID, "full_name": owner + "/" + repo}},
			"labels": []map[string]any{{"name": "rubricgate:accept-regression"}},
		},
		"repository": map[string]any{"id": repoID, "full_name": owner + "/" + repo, "default_branch": "main"},
	})
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if !strings.Contains(h.summary(), "not bound to a commit") {
		t.Errorf("the report does not say the acceptance is unbound:\n%s", h.summary())
	}
}
