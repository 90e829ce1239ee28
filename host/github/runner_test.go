package github

import "testing"

// Inside Actions the default report is $RUNNER_TEMP/rubricgate-report.json,
// whatever the workspace: the composite action's steps run on the runner
// host (a container action's /github/workspace is no longer special).
func TestDefaultReportPath(t *testing.T) {
	for _, tc := range []struct {
		vars map[string]string
		want string
	}{
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/home/runner/work/r/r", "RUNNER_TEMP": "/home/runner/work/_temp"}, "/home/runner/work/_temp/rubricgate-report.json"},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/github/workspace", "RUNNER_TEMP": "/home/runner/work/_temp"}, "/home/runner/work/_temp/rubricgate-report.json"},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/home/runner/work/r/r"}, ""},
		{map[string]string{"RUNNER_TEMP": "/tmp"}, ""},
		{map[string]string{}, ""},
	} {
		r := Runner{Getenv: func(k string) string { return tc.vars[k] }}
		if got := r.DefaultReportPath(); got != tc.want {
			t.Errorf("%v: default report %q, want %q", tc.vars, got, tc.want)
		}
	}
}
