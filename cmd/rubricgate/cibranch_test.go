package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cliEnv runs the command outside Actions with the given variables, from
// dir (the git checkout looked up).
func cliEnv(t *testing.T, vars map[string]string, dir string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(args, &env{
		stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr,
		getenv: func(k string) string { return vars[k] },
		now:    func() time.Time { return testNow },
		wd:     dir,
	})
	return code, stdout.String(), stderr.String()
}

// F9: a GitLab project whose default branch is trunk: the branch pipeline
// on trunk saves the baseline for trunk, and a merge request into trunk is
// compared with it (it was compared with "main", found none, and passed).
func TestCIDefaultBranchOutsideActions(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "store")
	push := map[string]string{"CI_DEFAULT_BRANCH": "trunk", "CI_COMMIT_BRANCH": "trunk", "CI_PIPELINE_SOURCE": "push"}
	code, out, errs := cliEnv(t, push, dir, "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--baseline-dir", store)
	if code != exitPass {
		t.Fatalf("trunk run: exit %d\n%s%s", code, out, errs)
	}
	if _, err := os.Stat(filepath.Join(store, "support-answers", "trunk.json")); err != nil {
		t.Fatalf("no baseline saved for trunk: %v\n%s%s", err, out, errs)
	}
	mr := map[string]string{"CI_DEFAULT_BRANCH": "trunk", "CI_MERGE_REQUEST_IID": "3", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "trunk", "CI_PIPELINE_SOURCE": "merge_request_event"}
	code, out, errs = cliEnv(t, mr, dir, "gate", "--rubric", supportRubric, "--results", regressedRun, "--baseline-dir", store)
	if code != exitBlocked {
		t.Fatalf("merge request into trunk: exit %d, want 1\n%s%s", code, out, errs)
	}
	// --baseline-branch wins, and a run on the default branch that is
	// not the baseline branch is warned about: it never saves.
	code, out, errs = cliEnv(t, push, dir, "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--baseline-dir", store, "--baseline-branch", "release")
	if code != exitPass {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(errs, `the default branch "trunk" but the baseline branch is "release"`) {
		t.Errorf("no warning:\n%s%s", out, errs)
	}
	if _, err := os.Stat(filepath.Join(store, "support-answers", "release.json")); !os.IsNotExist(err) {
		t.Errorf("a trunk run saved the release baseline: %v", err)
	}
}
