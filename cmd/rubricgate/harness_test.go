package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/internal/ghfake"

	"github.com/rubricgate/rubricgate/internal/testgolden"
)

const (
	owner  = "acme"
	repo   = "support-bot"
	repoID = 4242
	// headSHA is the pull request head the event names.
	headSHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"
	prNum   = 17
)

// testNow is the clock of every end-to-end test.
var testNow = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// harness runs the real command as a GitHub Actions step would, against a
// fake GitHub API, with the runner's command files in a temp dir.
type harness struct {
	t      *testing.T
	dir    string
	fake   *ghfake.Server
	issues *ghfake.Issues
	// labeled are the labels a labeled event was recorded for (by
	// reviewer, on another's pull request: the pull request's author is
	// prAuthor).
	labeled        map[string]bool
	vars           map[string]string
	stdout, stderr bytes.Buffer
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	h := &harness{t: t, dir: t.TempDir()}
	h.fake = ghfake.New(t, owner, repo, repoID)
	// The tokens of the two halves of the fork-safe pattern (pull_request,
	// then workflow_run); any other token gets 401.
	h.fake.AcceptTokens("ghs_faketoken123", "ghs_writetoken")
	h.issues = h.fake.ServeIssues()
	h.issues.AddPull(ghfake.PullRequest{Number: prNum, HeadSHA: headSHA, HeadRef: "feature", BaseRef: "main"})
	h.vars = map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_REPOSITORY":   owner + "/" + repo,
		"GITHUB_API_URL":      h.fake.API.URL + ghfake.Prefix,
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_SHA":          "ffffffffffffffffffffffffffffffffffffffff",
		"GITHUB_REF":          "refs/pull/17/merge",
		"GITHUB_RUN_ID":       "9001",
		"GITHUB_WORKFLOW":     "evals",
		"GITHUB_JOB":          "gate",
		"RUNNER_TEMP":         h.dir,
		"GITHUB_OUTPUT":       h.path("github_output"),
		"GITHUB_STEP_SUMMARY": h.path("step_summary"),
		"GITHUB_EVENT_PATH":   h.path("event.json"),
		"INPUT_GITHUB-TOKEN":  "ghs_faketoken123",
	}
	h.event(nil)
	return h
}

func (h *harness) path(name string) string { return filepath.Join(h.dir, name) }

// prAuthor wrote the harness's pull request; reviewer applies its labels.
const (
	prAuthor = "octo-author"
	reviewer = "octo-reviewer"
)

// event writes a pull_request event payload with the given labels; a
// label not on it before is recorded in the pull request's events as
// applied by reviewer.
func (h *harness) event(labels []string) {
	ls := []map[string]any{}
	if h.labeled == nil {
		h.labeled = map[string]bool{}
	}
	for _, l := range labels {
		ls = append(ls, map[string]any{"name": l})
		if !h.labeled[l] {
			h.labeled[l] = true
			h.issues.AddEvent(prNum, reviewer, "labeled", l)
		}
	}
	ev := map[string]any{
		"action": "synchronize",
		"number": prNum,
		"pull_request": map[string]any{
			"number": prNum,
			"head":   map[string]any{"sha": headSHA, "ref": "feature"},
			"base":   map[string]any{"ref": "main"},
			"labels": ls,
			"user":   map[string]any{"login": prAuthor},
		},
		"repository": map[string]any{"id": repoID, "full_name": owner + "/" + repo, "default_branch": "main"},
	}
	h.writeJSON("event.json", ev)
}

func (h *harness) writeJSON(name string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		h.t.Fatal(err)
	}
	h.write(name, string(data))
}

func (h *harness) write(name, content string) string {
	p := h.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
	return p
}

// input sets an action input as the runner does (INPUT_ + upper-case name).
func (h *harness) input(name, value string) {
	h.vars["INPUT_"+strings.ToUpper(name)] = value
}

// action runs the binary with no arguments, as the composite action does.
func (h *harness) action() int { return h.run() }

func (h *harness) run(args ...string) int {
	h.stdout.Reset()
	h.stderr.Reset()
	// Fresh command files for every step.
	_ = os.Remove(h.path("github_output"))
	_ = os.Remove(h.path("step_summary"))
	return run(args, &env{
		stdin: strings.NewReader(""), stdout: &h.stdout, stderr: &h.stderr,
		getenv: func(k string) string { return h.vars[k] },
		now:    func() time.Time { return testNow },
	})
}

// outputs parses GITHUB_OUTPUT as the runner does: name=value lines and
// name<<DELIMITER blocks.
func (h *harness) outputs() map[string]string {
	h.t.Helper()
	out := map[string]string{}
	data, err := os.ReadFile(h.path("github_output"))
	if err != nil {
		h.t.Fatalf("GITHUB_OUTPUT: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			for sc.Scan() && sc.Text() != delim {
				val = append(val, sc.Text())
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		if name, val, ok := strings.Cut(line, "="); ok {
			out[name] = val
			continue
		}
		if line != "" {
			h.t.Fatalf("GITHUB_OUTPUT: a line the runner cannot read: %q", line)
		}
	}
	return out
}

func (h *harness) summary() string {
	data, err := os.ReadFile(h.path("step_summary"))
	if err != nil {
		h.t.Fatalf("GITHUB_STEP_SUMMARY: %v", err)
	}
	return string(data)
}

// addBaseline scores results under rubricPath (outside Actions) and uploads
// the baseline as an artifact of a main-branch run of this repository.
func (h *harness) addBaseline(id int64, rubricPath, results string, created time.Time) {
	h.t.Helper()
	out := filepath.Join(h.t.TempDir(), "baseline.json")
	res := h.write("baseline-results.jsonl", results)
	code := run([]string{"gate", "--rubric", rubricPath, "--results", res, "--write-baseline", out, "--baseline-dir", h.t.TempDir()}, &env{
		stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{},
		getenv: func(string) string { return "" }, now: func() time.Time { return created },
	})
	if code != exitPass {
		h.t.Fatalf("making the baseline: exit %d", code)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		h.t.Fatal(err)
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	w, _ := zw.Create("baseline.json")
	w.Write(data)
	zw.Close()
	h.fake.Add(ghfake.Artifact{ID: id, Name: "rubricgate-baseline", CreatedAt: created, RunID: 500 + id,
		RepositoryID: repoID, HeadRepositoryID: repoID, HeadBranch: "main", HeadSHA: "0123456789abcdef0123456789abcdef01234567", Zip: zbuf.Bytes()})
}

// stickyComments returns the comments on the pull request that carry a rubricgate marker.
func (h *harness) stickyComments() []ghfake.Comment {
	var out []ghfake.Comment
	for _, c := range h.issues.Comments(prNum) {
		if strings.Contains(c.Body, "<!-- rubricgate:comment") {
			out = append(out, c)
		}
	}
	return out
}

// golden checks got against its golden file (internal/testgolden).
func golden(t *testing.T, name string, got string) {
	t.Helper()
	testgolden.Check(t, filepath.Join("testdata", "golden", name), []byte(got))
}

// copyIn copies a file of this repository (committed, which a pull
// request's run refuses as a baseline) into the harness's directory and
// returns the copy's path.
func (h *harness) copyIn(src string) string {
	h.t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.write(filepath.Base(src), string(data))
}
