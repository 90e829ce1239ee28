package main

import (
	"path/filepath"
	"strings"
)

// Where the runner mounts host directories into a `using: docker` action
// (actions/runner, src/Runner.Worker/Handlers/ContainerActionHandler.cs):
// the workspace at /github/workspace and $RUNNER_TEMP/_github_home at
// /github/home (also $HOME). RUNNER_TEMP itself is passed into the container
// as the host path but is not mounted.
const (
	containerWorkspace = "/github/workspace"
	containerHome      = "/github/home"
	// hostHomeDir is the directory under RUNNER_TEMP mounted at /github/home.
	hostHomeDir = "_github_home"
)

// defaultReportName is the JSON report's file name when json is not given.
const defaultReportName = "rubricgate-report.json"

// containerAction reports whether the process is a `using: docker` action
// step: the runner sets GITHUB_WORKSPACE to its mount point.
func (e *env) containerAction() bool {
	return e.inActions() && e.getenv("GITHUB_WORKSPACE") == containerWorkspace
}

// home is the directory mounted at /github/home (tests point it elsewhere).
func (e *env) home() string {
	if e.githubHome != "" {
		return e.githubHome
	}
	return containerHome
}

// defaultReportPath is where the gate writes its JSON report inside Actions
// when json is not given: $RUNNER_TEMP in a run: step, the mounted home
// (/github/home, the host's $RUNNER_TEMP/_github_home) in a container
// action. "" when RUNNER_TEMP is unknown: no report then.
func (e *env) defaultReportPath() string {
	if !e.inActions() || e.getenv("RUNNER_TEMP") == "" {
		return ""
	}
	if e.containerAction() {
		return filepath.Join(e.home(), defaultReportName)
	}
	return filepath.Join(e.getenv("RUNNER_TEMP"), defaultReportName)
}

// hostPath is the path a later step of the job (on the runner host) opens
// for a file this process wrote at p. Outside a container action it is p.
// Inside one, the mounted home maps back to $RUNNER_TEMP/_github_home, and a
// path in the workspace becomes relative to it (later steps start there); a
// relative path already is.
func (e *env) hostPath(p string) string {
	if p == "" || !e.containerAction() {
		return p
	}
	if rel, ok := under(p, e.home()); ok {
		if temp := e.getenv("RUNNER_TEMP"); temp != "" {
			return filepath.Join(temp, hostHomeDir, rel)
		}
		return p
	}
	if rel, ok := under(p, containerWorkspace); ok {
		return rel
	}
	return p
}

// under reports whether p is dir or inside it, and p relative to dir.
func under(p, dir string) (string, bool) {
	if !filepath.IsAbs(p) {
		return "", false
	}
	rel, err := filepath.Rel(dir, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return "", false
	}
	return rel, true
}

// pathInputs are the action inputs that name files or directories.
var pathInputs = []string{"rubric", "results", "baseline", "baseline-dir", "write-baseline", "json", "markdown", "junit", "calibration", "report"}

// checkContainerPath refuses, in a container action, a path under
// RUNNER_TEMP: the runner passes RUNNER_TEMP (and so ${{ runner.temp }}) as
// the host path without mounting it, so nothing there can be read or written
// (the mounted $RUNNER_TEMP/_github_home arrives already translated to
// /github/home). It fails before anything is read or written.
func (e *env) checkContainerPath(input, value string) error {
	temp := e.getenv("RUNNER_TEMP")
	if !e.containerAction() || temp == "" {
		return nil
	}
	for _, p := range strings.Fields(value) {
		if _, ok := under(p, temp); ok {
			return usagef("input %s: %s is under RUNNER_TEMP (%s), which the runner does not mount into a container action; give a path relative to the workspace (for example %s)",
				input, p, temp, filepath.Base(p))
		}
	}
	return nil
}
