package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/glfake"
)

// The gate under GitLab CI: a push pipeline on the default branch saves
// the baseline and writes the dotenv report; a merge request pipeline into
// it is compared with that baseline, keeps one sticky note (created, then
// updated) through the notes API, and never saves a baseline.
func TestGateGitLabCI(t *testing.T) {
	fake := glfake.New(t, "42", 7)
	fake.Tokens["glpat-secret"] = "project_42_bot"
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	dotenv := filepath.Join(dir, "rubricgate.env")
	base := map[string]string{
		"GITLAB_CI": "true", "CI_PROJECT_ID": "42", "CI_PROJECT_PATH": "acme/support-bot", "CI_API_V4_URL": fake.APIURL(),
		"CI_PROJECT_URL": "https://gitlab.example/acme/support-bot", "CI_DEFAULT_BRANCH": "trunk", "CI_JOB_NAME": "evals",
		"CI_JOB_ID": "77", "CI_CONFIG_PATH": ".gitlab-ci.yml", "GITLAB_TOKEN": "glpat-secret", "RUBRICGATE_DOTENV": dotenv,
	}
	with := func(extra map[string]string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range extra {
			m[k] = v
		}
		return m
	}
	push := with(map[string]string{"CI_PIPELINE_SOURCE": "push", "CI_COMMIT_BRANCH": "trunk", "CI_COMMIT_SHA": strings.Repeat("1", 40)})
	code, out, errs := cliEnv(t, push, dir, "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--baseline-dir", store)
	if code != exitPass {
		t.Fatalf("push on trunk: exit %d\n%s%s", code, out, errs)
	}
	saved := filepath.Join(store, "support-answers", "trunk.json")
	before, err := os.ReadFile(saved)
	if err != nil {
		t.Fatalf("no baseline saved for trunk: %v\n%s%s", err, out, errs)
	}
	env, err := os.ReadFile(dotenv)
	if err != nil || !strings.Contains(string(env), "RUBRICGATE_DECISION=pass\n") || !strings.Contains(string(env), "RUBRICGATE_BASELINE_FILE="+saved+"\n") {
		t.Errorf("dotenv report %q: %v", env, err)
	}
	if len(fake.Log()) != 0 {
		t.Errorf("a push pipeline called the notes API: %q", fake.Log())
	}

	mr := with(map[string]string{"CI_PIPELINE_SOURCE": "merge_request_event", "CI_MERGE_REQUEST_IID": "7", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "trunk",
		"CI_COMMIT_SHA": strings.Repeat("2", 40), "CI_MERGE_REQUEST_SOURCE_BRANCH_SHA": strings.Repeat("3", 40)})
	// The merge request's results, at one path (the note's key names it).
	results := filepath.Join(dir, "results.jsonl")
	copyFile := func(src string) {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(results, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyFile(regressedRun)
	code, out, errs = cliEnv(t, mr, dir, "gate", "--rubric", supportRubric, "--results", results, "--baseline-dir", store)
	if code != exitBlocked {
		t.Fatalf("merge request: exit %d, want 1\n%s%s", code, out, errs)
	}
	notes := fake.Notes()
	if len(notes) != 1 || notes[0].User != "project_42_bot" || !strings.HasPrefix(notes[0].Body, "<!-- rubricgate:comment") || !strings.Contains(notes[0].Body, "blocked") {
		t.Fatalf("notes after the first merge request run: %+v\n%s%s", notes, out, errs)
	}
	if !strings.Contains(out, "note created: https://gitlab.example/acme/support-bot/-/merge_requests/7#note_") {
		t.Errorf("log:\n%s", out)
	}
	if strings.Contains(out+errs, "glpat-secret") {
		t.Error("the token was printed")
	}

	// A second run: the same note is updated; a passing merge request run
	// never saves a baseline.
	copyFile("../../examples/support/run.jsonl")
	code, out, errs = cliEnv(t, mr, dir, "gate", "--rubric", supportRubric, "--results", results, "--baseline-dir", store)
	if code != exitPass {
		t.Fatalf("second merge request run: exit %d\n%s%s", code, out, errs)
	}
	notes = fake.Notes()
	if len(notes) != 1 || strings.Contains(notes[0].Body, "blocked") || !strings.Contains(out, "note updated") {
		t.Errorf("notes after the second run: %+v\n%s", notes, out)
	}
	after, err := os.ReadFile(saved)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("a merge request run changed the trunk baseline (%v)", err)
	}
	entries, _ := os.ReadDir(filepath.Join(store, "support-answers"))
	if len(entries) != 1 {
		t.Errorf("store holds %d files, want trunk.json only", len(entries))
	}
	if !strings.Contains(out, "baseline not saved") {
		t.Errorf("no word on why nothing was saved:\n%s", out)
	}
}

// An unwritable dotenv report is an error (later jobs rely on it) and the
// push pipeline's baseline is not left saved.
func TestGateGitLabDotenvUnwritable(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	vars := map[string]string{"GITLAB_CI": "true", "CI_PROJECT_ID": "42", "CI_DEFAULT_BRANCH": "trunk", "CI_PIPELINE_SOURCE": "push",
		"CI_COMMIT_BRANCH": "trunk", "RUBRICGATE_DOTENV": dir}
	code, out, errs := cliEnv(t, vars, dir, "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--baseline-dir", store)
	if code != exitError || !strings.Contains(errs, "outputs") {
		t.Fatalf("exit %d, want 2\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(store, "support-answers", "trunk.json")); !os.IsNotExist(err) {
		t.Errorf("baseline saved on exit 2: %v", err)
	}
}
