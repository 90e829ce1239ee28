package github

import "testing"

func TestHostPath(t *testing.T) {
	container := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/github/workspace", "RUNNER_TEMP": "/home/runner/work/_temp"}
	host := map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/home/runner/work/r/r", "RUNNER_TEMP": "/home/runner/work/_temp"}
	for _, tc := range []struct {
		vars        map[string]string
		path, want  string
		defaultPath string
	}{
		{container, "/github/home/rubricgate-report.json", "/home/runner/work/_temp/_github_home/rubricgate-report.json", "/github/home/rubricgate-report.json"},
		{container, "/github/home/a/b.json", "/home/runner/work/_temp/_github_home/a/b.json", ""},
		{container, "/github/workspace/out/r.json", "out/r.json", ""},
		{container, "r.json", "r.json", ""},
		{container, "/github/homework/r.json", "/github/homework/r.json", ""},
		{container, "", "", ""},
		{host, "/github/home/r.json", "/github/home/r.json", "/home/runner/work/_temp/rubricgate-report.json"},
		{host, "/home/runner/work/_temp/r.json", "/home/runner/work/_temp/r.json", ""},
		{map[string]string{"GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": "/github/workspace"}, "/github/home/r.json", "/github/home/r.json", "-"},
		{map[string]string{}, "/github/home/r.json", "/github/home/r.json", "-"},
	} {
		r := Runner{Getenv: func(k string) string { return tc.vars[k] }}
		if got := r.HostPath(tc.path); got != tc.want {
			t.Errorf("%v: HostPath(%q) = %q, want %q", tc.vars, tc.path, got, tc.want)
		}
		switch got := r.DefaultReportPath(); {
		case tc.defaultPath == "-" && got != "":
			t.Errorf("%v: default report %q, want none (no RUNNER_TEMP)", tc.vars, got)
		case tc.defaultPath != "" && tc.defaultPath != "-" && got != tc.defaultPath:
			t.Errorf("%v: default report %q, want %q", tc.vars, got, tc.defaultPath)
		}
	}
}
