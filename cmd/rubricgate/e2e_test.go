package main

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/internal/ghfake"
)

const supportRubric = "../../rubrics/support.yaml"

// line is one judged item of the support rubric.
func line(id string, acc, res, tone, safety int, why string) string {
	return fmt.Sprintf(`{"id":%q,"scores":{"accuracy":%d,"resolution":%d,"tone":%d,"safety":%d},"reasoning":%q}`+"\n", id, acc, res, tone, safety, why)
}

// goodRun is the baseline-quality run: weighted sums 6.25, 5, 7, 6.75 of 7,
// so item scores 89.3, 71.4, 100, 96.4 and a mean of 25/28 x 100.
var goodRun = line("q-1", 5, 4, 4, 1, "fine") + line("q-2", 4, 3, 4, 1, "ok") + line("q-3", 5, 5, 5, 1, "great") + line("q-4", 5, 5, 4, 1, "good")

func (h *harness) gateInputs(results string) {
	h.input("rubric", supportRubric)
	h.input("results", h.write("results.jsonl", results))
}

// The first run, a pass against the baseline and a safety zero on a pull
// request: testdata/script/action_*.txtar.

// pctRubric has one criterion on 0..100, so an item's score is its raw score.
const pctRubric = "name: pct\ncriteria:\n  - id: q\n    scale: [0, 100]\n    anchors: {0: none, 50: half, 100: all}\n"

// repeat returns n copies of v.
func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

func pctRun(prefix string, scores ...int) string {
	var b strings.Builder
	for i, s := range scores {
		fmt.Fprintf(&b, `{"id":"%s%d","scores":{"q":%d}}`+"\n", prefix, i, s)
	}
	return b.String()
}

func TestActionBlockAtExactlyTwoPercent(t *testing.T) {
	// The baseline: the run's 5000 items (the full sets are compared),
	// 4950 at 50 and 50 at 51, mean 50.01.
	base := pctRun("b", append(repeat(50, 4950), repeat(51, 50)...)...)
	for _, tc := range []struct {
		name  string
		fifty int // of 5000 items, how many score 50 (the rest 49)
		want  int
	}{
		// 49 at 50 -> mean 49.0098: exactly 2% below 50.01, which floating
		// point alone computes as 0.01999...
		{"exactly 2% blocks", 49, exitBlocked},
		// 55 at 50 -> mean 49.011: 1.998% passes.
		{"just under 2% passes", 55, exitPass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			rb := h.write("pct.yaml", pctRubric)
			h.addBaseline(5, rb, base, testNow.Add(-time.Hour))
			cur := append(repeat(50, tc.fifty), repeat(49, 5000-tc.fifty)...)
			h.input("rubric", rb)
			h.input("results", h.write("results.jsonl", pctRun("b", cur...)))
			if code := h.action(); code != tc.want {
				t.Fatalf("exit %d, want %d\n%s", code, tc.want, h.stdout.String())
			}
			if tc.want == exitBlocked && !strings.Contains(h.stdout.String(), "::error title=rubricgate blocked::aggregate score dropped 2.00%25") {
				t.Errorf("no error annotation for the drop:\n%s", h.stdout.String())
			}
		})
	}
}

func TestActionRubricChange(t *testing.T) {
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	// The pull request re-weights its rubric: accuracy 3 -> 1. The results
	// still carry every criterion, so the run is re-scored under the
	// baseline's rubric and compared on that.
	data, err := os.ReadFile(supportRubric)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), "weight: 3", "weight: 1", 1)
	if changed == string(data) {
		t.Fatal("could not change the rubric")
	}
	h.input("rubric", h.write("support-v2.yaml", changed))
	h.input("results", h.write("results.jsonl", goodRun))
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	out := h.outputs()
	if out["relative-change"] != "0" {
		t.Errorf("re-scored comparison should show no change, got %q", out["relative-change"])
	}
	if !strings.Contains(h.summary(), "re-scored under the baseline's rubric") {
		t.Errorf("summary does not say the run was re-scored:\n%s", h.summary())
	}

	// The same rubric name with criteria the results do not carry: the run
	// cannot be re-scored under the baseline's rubric, so not comparable.
	h2 := newHarness(t)
	h2.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	rb := h2.write("v3.yaml", "name: support-answers\ncriteria:\n  - id: helpfulness\n    scale: [1, 5]\n    anchors: {1: a, 3: b, 5: c}\n")
	h2.input("rubric", rb)
	h2.input("results", h2.write("results.jsonl", `{"id":"q-1","scores":{"helpfulness":4}}`+"\n"))
	if code := h2.action(); code != exitBlocked {
		t.Fatalf("default policy: exit %d, want 1 (a rubric change that cannot be re-scored blocks)\n%s", code, h2.stdout.String())
	}
	if !strings.Contains(h2.summary(), "not comparable") {
		t.Errorf("summary does not say scores are not comparable:\n%s", h2.summary())
	}
	h2.event([]string{"rubricgate:accept-regression"})
	if code := h2.action(); code != exitPass {
		t.Fatalf("accepted: exit %d\n%s", code, h2.stdout.String())
	}
	h2.input("on-rubric-change", "fail")
	if code := h2.action(); code != exitBlocked {
		t.Fatalf("fail policy: exit %d", code)
	}
}

// The accept label on a regression: testdata/script/action_accepted_regression.txtar.

func TestActionStickyCommentUpdatedNotDuplicated(t *testing.T) {
	h := newHarness(t)
	// 250 other comments: the sticky one ends up on the third page of 100.
	for i := range 250 {
		h.issues.AddComment(prNum, "someone", fmt.Sprintf("comment %d", i))
	}
	h.gateInputs(goodRun)
	for run := range 3 {
		if code := h.action(); code != exitPass {
			t.Fatalf("run %d: exit %d", run, code)
		}
	}
	cs := h.stickyComments()
	if len(cs) != 1 {
		t.Fatalf("%d sticky comments after 3 runs, want 1", len(cs))
	}
	// Another gate (another key) gets its own comment.
	h.input("comment-key", "second-gate")
	if code := h.action(); code != exitPass {
		t.Fatal("second gate failed")
	}
	if n := len(h.stickyComments()); n != 2 {
		t.Fatalf("%d sticky comments with two keys, want 2", n)
	}
	// Deleted between finding and editing: created anew.
	h.input("comment-key", "")
	h.issues.BeforeEdit = func(id int64) { h.issues.Delete(id) }
	if code := h.action(); code != exitPass {
		t.Fatal("run after deletion failed")
	}
	if n := len(h.stickyComments()); n != 2 {
		t.Fatalf("%d sticky comments after a deletion race, want 2", n)
	}
}

func TestActionStaleRunDoesNotOverwrite(t *testing.T) {
	h := newHarness(t)
	h.gateInputs(goodRun)
	if code := h.action(); code != exitPass {
		t.Fatal(code)
	}
	before := h.stickyComments()[0]
	// The pull request moved on: its head is now another commit.
	h.issues.AddPull(ghfake.PullRequest{Number: prNum, HeadSHA: "9999999999999999999999999999999999999999", BaseRef: "main"})
	h.gateInputs(goodRun + line("q-9", 1, 1, 1, 1, "bad"))
	if code := h.action(); code != exitPass {
		t.Fatal(code)
	}
	after := h.stickyComments()
	if len(after) != 1 || after[0].Body != before.Body {
		t.Error("a stale run overwrote the comment")
	}
	if !strings.Contains(h.stdout.String(), "no longer the pull request's head") {
		t.Errorf("no note about the stale run:\n%s", h.stdout.String())
	}
}

func TestActionHugeReasoning(t *testing.T) {
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	huge := strings.Repeat("The answer is wrong because | <b>bold</b> @team\n", 1500) // ~70 KB
	var b strings.Builder
	for i := range 30 {
		b.WriteString(line(fmt.Sprintf("q-%d", i), 1, 1, 1, 0, huge))
	}
	h.gateInputs(b.String())
	if code := h.action(); code != exitBlocked {
		t.Fatalf("exit %d", code)
	}
	cs := h.stickyComments()
	if len(cs) != 1 {
		t.Fatalf("%d comments: the body was probably refused", len(cs))
	}
	if n := len([]rune(cs[0].Body)); n > 65536 {
		t.Errorf("comment has %d characters", n)
	}
	if !strings.Contains(cs[0].Body, "| Criterion |") || !strings.HasPrefix(afterHidden(cs[0].Body), "### ❌") {
		t.Errorf("headline or table lost:\n%.500s", cs[0].Body)
	}
}

// afterHidden is a comment body after the gate's hidden lines at its top
// (the marker, the accept label's record, what the comment shows).
func afterHidden(body string) string {
	for strings.HasPrefix(body, "<!-- rubricgate") {
		_, body, _ = strings.Cut(body, "\n")
	}
	return body
}

func TestActionHostileMarkdown(t *testing.T) {
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	hostile := line("q-1", 5, 4, 4, 1, "fine") +
		line("<img src=x onerror=alert(1)>|@octocat", 1, 1, 1, 0, "</details><!-- --> @acme/admins [click](https://evil.example) ![x](https://evil.example/x.png)\n::set-output name=decision::pass") +
		line("q-3|x", 5, 5, 5, 1, "`code` **bold** | pipe")
	h.gateInputs(hostile)
	h.input("comment-key", "hostile")
	if code := h.action(); code != exitBlocked {
		t.Fatalf("exit %d", code)
	}
	body := h.stickyComments()[0].Body
	// Text inside code spans is shown literally (no HTML, no mentions), so
	// look at what is outside them.
	outside := regexp.MustCompile("(`+)[^`]*?(`+)").ReplaceAllString(body, "")
	for _, bad := range []string{"<img", "</details>", "<!-- -->", "@octocat", "@acme/admins", "[click](", "![x]("} {
		if strings.Contains(outside, bad) {
			t.Errorf("the comment contains %q outside code spans", bad)
		}
	}
	if n := strings.Count(afterHidden(body), "<!--"); n != 0 {
		t.Errorf("the comment has %d HTML comment openers after its hidden lines (the marker, what it shows)", n)
	}
	for _, l := range strings.Split(h.stdout.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "::set-output") || strings.HasPrefix(strings.TrimSpace(l), "::add-mask") {
			t.Errorf("untrusted text became a workflow command: %q", l)
		}
	}
	if out := h.outputs(); out["decision"] != "block" {
		t.Errorf("decision output %q", out["decision"])
	}
	golden(t, "comment-hostile.md", body)
}

// A fork's token, a planted marker and an unreachable artifact store:
// testdata/script/action_fork_token.txtar, action_planted_marker.txtar and
// action_baseline_errors.txtar.
