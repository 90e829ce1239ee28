package main

import (
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/gaterun"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"github.com/rubricgate/rubricgate/internal/ghfake"
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

// showThenLabel runs the gate without labels, blocked (its comment shows
// what the label would waive), and then puts labels on the event: a
// reviewer applies the label after the comment showed the figures.
func (h *harness) showThenLabel(labels []string) {
	h.t.Helper()
	h.event(nil)
	if code := h.action(); code != exitBlocked {
		h.t.Fatalf("without the label: exit %d\n%s", code, h.stdout.String())
	}
	h.event(labels)
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
	h.showThenLabel(label)
	if code := h.action(); code != exitPass {
		t.Fatalf("accepted run: exit %d\n%s", code, h.stdout.String())
	}
	body := h.stickyComments()[0].Body
	if !strings.Contains(body, "<!-- rubricgate:accepted sha="+headSHA+" score=") || !strings.Contains(body, "label applied by `"+reviewer+"` at commit `a1b2c3d` (score ") {
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
	h.issues.AddComment(prNum, "mallory", comment.Marker("k")+"\n"+gaterun.AcceptField(gate.AcceptRecord{SHA: planted, Score: 99, Legacy: true})+"\nplanted")
	h.showThenLabel([]string{"rubricgate:accept-regression"})
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
// comment, so the gate does not read its comment back): the label accepts
// on the event that adds it, and a later push accepts nothing new (the
// report says how to accept again).
func TestActionAcceptanceFromForkOnlyWhenLabeled(t *testing.T) {
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	worse := line("q-1", 3, 3, 3, 1, "vaguer") + line("q-2", 4, 3, 4, 1, "ok") + line("q-3", 5, 5, 5, 1, "great") + line("q-4", 5, 5, 4, 1, "good")
	h.gateInputs(worse)
	forkEvent := func(action string) {
		ev := map[string]any{
			"action": action,
			"number": prNum,
			"pull_request": map[string]any{
				"number": prNum,
				"head":   map[string]any{"sha": headSHA, "ref": "feature", "repo": map[string]any{"id": 999, "full_name": "mallory/support-bot"}},
				"base":   map[string]any{"ref": "main", "repo": map[string]any{"id": repoID, "full_name": owner + "/" + repo}},
				"labels": []map[string]any{{"name": "rubricgate:accept-regression"}},
				"user":   map[string]any{"login": "mallory"},
			},
			"repository": map[string]any{"id": repoID, "full_name": owner + "/" + repo, "default_branch": "main"},
		}
		if action == "labeled" {
			ev["label"] = map[string]any{"name": "rubricgate:accept-regression"}
			ev["sender"] = map[string]any{"login": reviewer}
		}
		h.writeJSON("event.json", ev)
	}
	h.issues.AddEvent(prNum, reviewer, "labeled", "rubricgate:accept-regression")
	forkEvent("synchronize")
	if code := h.action(); code != exitBlocked {
		t.Fatalf("a push with the label on and no readable record: exit %d\n%s", code, h.stdout.String())
	}
	if s := h.summary(); !strings.Contains(s, "accepts nothing new") || !strings.Contains(s, "Remove and re-add the label") {
		t.Errorf("the report does not say how to accept:\n%s", s)
	}
	forkEvent("labeled")
	if code := h.action(); code != exitPass {
		t.Fatalf("the event adding the label: exit %d\n%s", code, h.stdout.String())
	}
}

// Issue 15 §3: the record survives a clean push while the label is on, so a
// much larger drop after it is not accepted (the clean push used to rewrite
// the comment without the record, and the next push was a fresh acceptance).
func TestActionAcceptanceSurvivesCleanPush(t *testing.T) {
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	label := []string{"rubricgate:accept-regression"}
	small := line("q-1", 3, 3, 3, 1, "vaguer") + line("q-2", 4, 3, 4, 1, "ok") + line("q-3", 5, 5, 5, 1, "great") + line("q-4", 5, 5, 4, 1, "good")
	h.gateInputs(small)
	h.showThenLabel(label)
	if code := h.action(); code != exitPass {
		t.Fatalf("accepted run: exit %d\n%s", code, h.stdout.String())
	}
	// A clean push: the record stays.
	h.input("results", h.write("results.jsonl", goodRun))
	h.push("b2c3d4e5f60718293a4b5c6d7e8f9012345678a1", label)
	if code := h.action(); code != exitPass {
		t.Fatalf("clean push: exit %d\n%s", code, h.stdout.String())
	}
	if body := h.stickyComments()[0].Body; !strings.Contains(body, "<!-- rubricgate:accepted sha="+headSHA+" ") {
		t.Fatalf("the clean push dropped the record:\n%s", body)
	}
	// A much larger drop: not covered.
	large := line("q-1", 1, 1, 1, 1, "bad") + line("q-2", 2, 1, 2, 1, "bad") + line("q-3", 5, 5, 5, 1, "great") + line("q-4", 5, 5, 4, 1, "good")
	h.input("results", h.write("results.jsonl", large))
	h.push("c3d4e5f60718293a4b5c6d7e8f9012345678a1b2", label)
	if code := h.action(); code != exitBlocked {
		t.Fatalf("a much larger drop after a clean push passed as accepted: exit %d\n%s", code, h.stdout.String())
	}
	if !strings.Contains(h.stdout.String(), "a larger drop") {
		t.Errorf("the reason does not name the larger drop:\n%s", h.stdout.String())
	}
}

// Issue 15 §3: the record is read from a comment keyed by what the workflow
// sets: renaming the rubric does not open a fresh comment without the
// record (and so re-accept anything).
func TestActionAcceptanceSurvivesRubricRename(t *testing.T) {
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	label := []string{"rubricgate:accept-regression"}
	small := line("q-1", 3, 3, 3, 1, "vaguer") + line("q-2", 4, 3, 4, 1, "ok") + line("q-3", 5, 5, 5, 1, "great") + line("q-4", 5, 5, 4, 1, "good")
	h.gateInputs(small)
	h.showThenLabel(label)
	if code := h.action(); code != exitPass {
		t.Fatalf("accepted run: exit %d\n%s", code, h.stdout.String())
	}
	data, err := boundedio.ReadFile(supportRubric, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	renamed := strings.Replace(string(data), "name: support-answers", "name: support-answers-v2", 1)
	if renamed == string(data) {
		t.Fatal("the rubric's name line was not found")
	}
	h.input("rubric", h.write("renamed.yaml", renamed))
	large := line("q-1", 1, 1, 1, 1, "bad") + line("q-2", 2, 1, 2, 1, "bad") + line("q-3", 5, 5, 5, 1, "great") + line("q-4", 5, 5, 4, 1, "good")
	h.input("results", h.write("results.jsonl", large))
	h.push("c3d4e5f60718293a4b5c6d7e8f9012345678a1b2", label)
	if code := h.action(); code != exitBlocked {
		t.Fatalf("a renamed rubric re-accepted a larger drop: exit %d\n%s", code, h.stdout.String())
	}
	if cs := h.stickyComments(); len(cs) != 1 {
		t.Errorf("%d sticky comments: the rename opened a new one", len(cs))
	}
}

// Issue 15 §3: the record binds the set of removed items. Accepted for
// removing q-4, the label does not cover a later push that removes q-3
// instead (the same count, another item).
func TestActionAcceptanceBindsRemovedItems(t *testing.T) {
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	label := []string{"rubricgate:accept-regression"}
	h.gateInputs(line("q-1", 5, 4, 4, 1, "fine") + line("q-2", 4, 3, 4, 1, "ok") + line("q-3", 5, 5, 5, 1, "great"))
	h.showThenLabel(label)
	if code := h.action(); code != exitPass {
		t.Fatalf("accepted removal: exit %d\n%s", code, h.stdout.String())
	}
	if body := h.stickyComments()[0].Body; !strings.Contains(body, " items=sha256:") {
		t.Fatalf("the record does not bind the removed items:\n%s", body)
	}
	h.input("results", h.write("results.jsonl", line("q-1", 5, 4, 4, 1, "fine")+line("q-2", 4, 3, 4, 1, "ok")+line("q-4", 5, 5, 4, 1, "good")))
	h.push("b2c3d4e5f60718293a4b5c6d7e8f9012345678a1", label)
	if code := h.action(); code != exitBlocked {
		t.Fatalf("another removed item passed as accepted: exit %d\n%s", code, h.stdout.String())
	}
	if !strings.Contains(h.stdout.String(), "another set of removed items") {
		t.Errorf("the reason does not name the removed items:\n%s", h.stdout.String())
	}
}
