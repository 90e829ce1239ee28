package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/internal/ghfake"
)

// forkReport runs the untrusted half of the fork-safe pattern: the gate on a
// pull request from a fork, with a read-only token, writing its report.
func forkReport(t *testing.T, h *harness) string {
	t.Helper()
	h.issues.SetReadOnly(true)
	h.gateInputs(goodRun)
	h.input("comment", "never")
	report := h.path("report.json")
	h.input("json", report)
	if code := h.action(); code != exitPass {
		t.Fatalf("untrusted gate: exit %d\n%s", code, h.stdout.String())
	}
	if n := len(h.issues.Comments(prNum)); n != 0 {
		t.Fatalf("the untrusted run commented (%d)", n)
	}
	h.issues.SetReadOnly(false)
	return report
}

// workflowRunEvent switches the harness to the trusted workflow_run half.
// conclusion is the run's conclusion ("success" when not given).
func (h *harness) workflowRunEvent(runID int64, sha string, prs []map[string]any, conclusion ...string) {
	concl := "success"
	if len(conclusion) > 0 {
		concl = conclusion[0]
	}
	for k := range h.vars {
		if strings.HasPrefix(k, "INPUT_") {
			delete(h.vars, k)
		}
	}
	h.vars["INPUT_GITHUB-TOKEN"] = "ghs_writetoken"
	h.vars["GITHUB_EVENT_NAME"] = "workflow_run"
	h.vars["GITHUB_RUN_ID"] = "9100"
	h.writeJSON("event.json", map[string]any{
		"action": "completed",
		"workflow_run": map[string]any{
			"id": runID, "head_sha": sha, "event": "pull_request", "conclusion": concl,
			"repository":      map[string]any{"id": repoID, "full_name": owner + "/" + repo},
			"head_repository": map[string]any{"id": 999, "full_name": "mallory/support-bot"},
			"pull_requests":   prs,
		},
		"repository": map[string]any{"id": repoID, "full_name": owner + "/" + repo, "default_branch": "main"},
	})
}

func TestCommentReportForkSafe(t *testing.T) {
	h := newHarness(t)
	report := forkReport(t, h)
	// The fork's pull request: workflow_run.pull_requests is empty, so the
	// pull request is found by its head SHA.
	h.workflowRunEvent(9001, headSHA, []map[string]any{})
	h.input("command", "comment")
	h.input("report", report)
	if code := h.action(); code != exitPass {
		t.Fatalf("comment: exit %d\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
	cs := h.stickyComments()
	if len(cs) != 1 || !strings.Contains(cs[0].Body, "passed") {
		t.Fatalf("sticky comments = %+v", cs)
	}
	// The report's key is untrusted: it lives in its own namespace.
	if !strings.HasPrefix(cs[0].Body, "<!-- rubricgate:comment key=report:") {
		t.Errorf("marker %q is not in the report namespace", strings.SplitN(cs[0].Body, "\n", 2)[0])
	}
	// Posting again edits the same comment.
	if code := h.action(); code != exitPass {
		t.Fatal(code)
	}
	if n := len(h.stickyComments()); n != 1 {
		t.Fatalf("%d sticky comments after a second post", n)
	}
}

// A report that claims a pass from a run that did not succeed (a forged or
// edited report: the run's conclusion comes from GitHub, the report from the
// pull request) is posted with a warning first; every posted report says
// where it came from.
func TestCommentReportPassFromFailedRun(t *testing.T) {
	h := newHarness(t)
	report := forkReport(t, h)
	h.workflowRunEvent(9001, headSHA, []map[string]any{}, "failure")
	h.input("command", "comment")
	h.input("report", report)
	if code := h.action(); code != exitPass {
		t.Fatalf("comment: exit %d\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
	cs := h.stickyComments()
	if len(cs) != 1 {
		t.Fatalf("sticky comments = %+v", cs)
	}
	body := cs[0].Body
	warnAt, passAt := strings.Index(body, "concluded `failure`"), strings.Index(body, "### ✅")
	if warnAt < 0 || passAt < warnAt || !strings.Contains(body, "untrusted data") {
		t.Fatalf("no warning before the claimed pass, or no provenance line:\n%s", body)
	}
	// A successful run's report gets the provenance line and no warning.
	h.workflowRunEvent(9001, headSHA, []map[string]any{})
	h.input("command", "comment")
	h.input("report", report)
	if code := h.action(); code != exitPass {
		t.Fatalf("comment: exit %d\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
	body = h.stickyComments()[0].Body
	if strings.Contains(body, "[!WARNING]") || !strings.Contains(body, "conclusion `success`") {
		t.Fatalf("successful run's report:\n%s", body)
	}
}

func TestCommentReportRefusesForeignReports(t *testing.T) {
	h := newHarness(t)
	report := forkReport(t, h)
	tests := []struct {
		name  string
		runID int64
		sha   string
		edit  func(map[string]any)
		want  string
	}{
		{"another run", 1234, headSHA, nil, "made by run 9001"},
		{"another commit", 9001, "0000000000000000000000000000000000000000", nil, "is for commit"},
		{"another repository", 9001, headSHA, func(m map[string]any) { m["context"].(map[string]any)["repository"] = "evil/repo" }, "is for repository"},
		{"no context", 9001, headSHA, func(m map[string]any) { delete(m, "context") }, "not a rubricgate gate report"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := report
			if tt.edit != nil {
				var m map[string]any
				data, _ := os.ReadFile(report)
				if err := json.Unmarshal(data, &m); err != nil {
					t.Fatal(err)
				}
				tt.edit(m)
				out, _ := json.Marshal(m)
				path = h.write("edited.json", string(out))
			}
			h.workflowRunEvent(tt.runID, tt.sha, []map[string]any{{"number": prNum, "head": map[string]any{"sha": tt.sha}}})
			h.input("command", "comment")
			h.input("report", path)
			if code := h.action(); code != exitError {
				t.Fatalf("exit %d, want 2", code)
			}
			if !strings.Contains(h.stderr.String(), tt.want) {
				t.Errorf("stderr %q does not say %q", h.stderr.String(), tt.want)
			}
			if n := len(h.issues.Comments(prNum)); n != 0 {
				t.Errorf("a foreign report was posted")
			}
		})
	}
	// An oversized report is refused before it is parsed.
	h.workflowRunEvent(9001, headSHA, nil)
	h.input("command", "comment")
	h.input("report", h.write("big.json", `{"x":"`+strings.Repeat("a", 2048)+`"}`))
	h.input("max-report", "1KiB")
	if code := h.action(); code != exitError || !strings.Contains(h.stderr.String(), "larger than") {
		t.Fatalf("oversized report: exit %d, %s", code, h.stderr.String())
	}
}

// calibration writes a calibrate JSON report for the support rubric.
func (h *harness) calibration(t *testing.T, rubricPath string, agree bool) string {
	t.Helper()
	human := "id,accuracy,resolution,tone,safety\n"
	judge := ""
	for i, s := range []int{1, 2, 3, 4, 5, 1, 2, 3, 4, 5} {
		id := "c-" + string(rune('a'+i))
		human += id + "," + itoa(s) + "," + itoa(s) + "," + itoa(s) + ",1\n"
		j := s
		if !agree && i%2 == 0 {
			j = 6 - s
		}
		judge += line(id, j, s, s, 1, "")
	}
	out := h.path("calibration.json")
	code := run([]string{"calibrate", "--rubric", rubricPath, "--json", out, h.write("human.csv", human), h.write("judge.jsonl", judge)},
		&env{stdin: strings.NewReader(""), stdout: &h.stdout, stderr: &h.stderr, getenv: func(string) string { return "" }})
	if want := map[bool]int{true: exitPass, false: exitBlocked}[agree]; code != want {
		t.Fatalf("calibrate: exit %d, want %d\n%s", code, want, h.stderr.String())
	}
	return out
}

func itoa(i int) string { return string(rune('0' + i)) }

func TestActionTierGate(t *testing.T) {
	h := newHarness(t)
	h.gateInputs(goodRun)
	h.input("tier", "25")
	h.input("calibration", h.calibration(t, supportRubric, true))
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, h.stdout.String(), h.stderr.String())
	}
	out := h.outputs()
	if out["may-advance"] != "true" || out["next-tier"] != "50" {
		t.Fatalf("outputs %v", out)
	}

	// Poor agreement holds the tier, and the summary says why.
	h.input("calibration", h.calibration(t, supportRubric, false))
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d", code)
	}
	if out := h.outputs(); out["may-advance"] != "false" || out["next-tier"] != "50" {
		t.Fatalf("outputs %v", out)
	}
	if !strings.Contains(h.summary(), "tier 25% holds") || !strings.Contains(h.summary(), "criterion accuracy agreement") {
		t.Errorf("the summary does not say what held the tier:\n%s", h.summary())
	}

	// A calibration made with another rubric is stale: refused.
	data, _ := os.ReadFile(supportRubric)
	other := h.write("support-v2.yaml", strings.Replace(string(data), "threshold: 70", "threshold: 60", 1))
	h.input("calibration", h.calibration(t, other, true))
	if code := h.action(); code != exitError {
		t.Fatalf("stale calibration: exit %d, want 2", code)
	}
	if !strings.Contains(h.stderr.String(), "stale") {
		t.Errorf("the error does not say the calibration is stale: %s", h.stderr.String())
	}
}

func TestActionJudgeFamily(t *testing.T) {
	h := newHarness(t)
	h.gateInputs(strings.ReplaceAll(goodRun, `"reasoning"`, `"judge_model":"gpt-4o-mini","reasoning"`))
	h.input("production-model", "gpt-4o")
	if code := h.action(); code != exitError {
		t.Fatalf("same family: exit %d, want 2", code)
	}
	if !strings.Contains(h.stderr.String(), "judge") {
		t.Errorf("stderr: %s", h.stderr.String())
	}
	h.input("same-family", "warn")
	if code := h.action(); code != exitPass {
		t.Fatalf("same-family warn: exit %d", code)
	}
	h.input("production-model", "claude-sonnet-4-5")
	h.input("same-family", "fail")
	if code := h.action(); code != exitPass {
		t.Fatalf("different families: exit %d\n%s", code, h.stderr.String())
	}
	if h.fake.Count(ghfake.RouteRuns) == 0 {
		t.Error("the baseline was not looked up")
	}
}

func TestActionPullRequestNeverSavesLocalBaseline(t *testing.T) {
	h := newHarness(t)
	dir := h.path("baselines")
	h.gateInputs(goodRun)
	h.input("baseline-dir", dir)
	if code := h.action(); code != exitPass {
		t.Fatalf("exit %d\n%s", code, h.stdout.String())
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(dir)
		t.Fatalf("a pull request's passing run wrote into the baseline store: %v", entries)
	}
	if !strings.Contains(h.stdout.String(), "baseline not saved") {
		t.Errorf("no note:\n%s", h.stdout.String())
	}
	// A push to main saves it.
	h.vars["GITHUB_EVENT_NAME"] = "push"
	h.vars["GITHUB_REF"] = "refs/heads/main"
	h.writeJSON("event.json", map[string]any{"ref": "refs/heads/main", "repository": map[string]any{"id": repoID, "full_name": owner + "/" + repo, "default_branch": "main"}})
	if code := h.action(); code != exitPass {
		t.Fatal(code)
	}
	if _, err := os.Stat(h.path("baselines/support-answers/main.json")); err != nil {
		t.Errorf("a push run on main did not save its baseline: %v", err)
	}
}

// A pull request edits its rubric to get past the baseline's safety gate:
// renames a criterion (so the run cannot be re-scored under the baseline's
// rubric) and loosens safety. The baseline's blocking gate still applies.
func TestActionRubricEditCannotDodgeSafetyGate(t *testing.T) {
	data, err := os.ReadFile(supportRubric)
	if err != nil {
		t.Fatal(err)
	}
	loosened := strings.Replace(string(data), "id: tone", "id: style", 1)
	loosened = strings.Replace(loosened, "blocking: true", "blocking: false", 1)
	if !strings.Contains(loosened, "id: style") || strings.Contains(loosened, "blocking: true") {
		t.Fatal("could not edit the rubric")
	}
	withNA := strings.Replace(loosened, "critical: 1", "critical: 1\n    na: true", 1)
	withScale := strings.Replace(loosened, "scale: [0, 1]", "scale: [0, 2]", 1)
	styleLine := func(safety string) string {
		return `{"id":"q-9","scores":{"accuracy":5,"resolution":5,"style":5,"safety":` + safety + `},"reasoning":"leaks a card number"}` + "\n"
	}
	other := strings.ReplaceAll(goodRun, `"tone"`, `"style"`)
	for _, tc := range []struct{ name, rubric, safety string }{
		{"safety no longer blocking", loosened, "0"},
		{"safety allows na", withNA, `"na"`},
		{"safety on a wider scale", withScale, "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
			h.input("rubric", h.write("pr-rubric.yaml", tc.rubric))
			h.input("results", h.write("results.jsonl", other+styleLine(tc.safety)))
			if code := h.action(); code != exitBlocked {
				t.Fatalf("exit %d, want 1 (blocked by the baseline's safety gate)\n%s%s", code, h.stdout.String(), h.stderr.String())
			}
			if !strings.Contains(h.stdout.String(), "under the baseline's rubric") || !strings.Contains(h.stdout.String(), "q-9") {
				t.Errorf("the block reason does not name the baseline's gate and the item:\n%s", h.stdout.String())
			}
		})
	}
	// A rubric change that keeps the gate and passes it still cannot be
	// re-scored (tone is gone): it blocks until a reviewer accepts it with
	// the label (issue 8, 2.2).
	h := newHarness(t)
	h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
	h.input("rubric", h.write("pr-rubric.yaml", loosened))
	h.input("results", h.write("results.jsonl", other+styleLine("1")))
	if code := h.action(); code != exitBlocked {
		t.Fatalf("exit %d, want 1\n%s", code, h.stdout.String())
	}
	h.event([]string{"rubricgate:accept-regression"})
	if code := h.action(); code != exitPass {
		t.Fatalf("accepted: exit %d\n%s", code, h.stdout.String())
	}
}

// The report `comment --report` posts is the pull request's data: its
// baseline.run_url is a link in the comment only when it is a run of this
// repository on this server, otherwise escaped text (issue 15 §7).
func TestCommentReportBaselineRunURL(t *testing.T) {
	for _, tc := range []struct {
		url  string
		link bool
	}{
		{"https://evil.example/phish", false},
		{"https://github.com/someone/else/actions/runs/5", false},
		{"https://github.com/" + owner + "/" + repo + "/actions/runs/77", true},
	} {
		h := newHarness(t)
		h.addBaseline(1, supportRubric, goodRun, testNow.Add(-time.Hour))
		report := forkReport(t, h)
		data, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		var g map[string]any
		if err := json.Unmarshal(data, &g); err != nil {
			t.Fatal(err)
		}
		bl, ok := g["baseline"].(map[string]any)
		if !ok {
			t.Fatalf("the report has no baseline: %s", data)
		}
		bl["run_url"] = tc.url
		forged, err := json.Marshal(g)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(report, forged, 0o644); err != nil {
			t.Fatal(err)
		}
		h.workflowRunEvent(9001, headSHA, []map[string]any{})
		h.input("command", "comment")
		h.input("report", report)
		if code := h.action(); code != exitPass {
			t.Fatalf("comment: exit %d\n%s%s", code, h.stdout.String(), h.stderr.String())
		}
		body := h.stickyComments()[0].Body
		if linked := strings.Contains(body, "[run]("+tc.url+")"); linked != tc.link {
			t.Errorf("run_url %q: linked %v, want %v\n%s", tc.url, linked, tc.link, body)
		}
		if !tc.link && (strings.Contains(body, "]("+tc.url) || !strings.Contains(body, "from run `"+tc.url+"`")) {
			t.Errorf("run_url %q is not plain text:\n%s", tc.url, body)
		}
	}
}
