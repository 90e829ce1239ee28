package main

import (
	"bytes"
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

// F9, a GitLab project whose default branch is trunk:
// testdata/script/ci_default_branch.txtar.
