package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// runCLI runs a command line outside Actions. (The score, bad-input,
// blocked-baseline, rubric, all-or-nothing, JUnit and noisy-drop cases that
// were here are scripts now: testdata/script/*.txtar.)
func runCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(string) string { return "" }, now: func() time.Time { return testNow }})
	return code, out.String(), errb.String()
}
