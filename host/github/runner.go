package github

import (
	"flag"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/rubricgate/rubricgate/host"
)

// Where the runner mounts host directories into a `using: docker` action
// (actions/runner, src/Runner.Worker/Handlers/ContainerActionHandler.cs):
// the workspace at /github/workspace and $RUNNER_TEMP/_github_home at
// /github/home (also $HOME). RUNNER_TEMP itself is passed into the container
// as the host path but is not mounted.
const (
	// ContainerWorkspace is the workspace's mount point.
	ContainerWorkspace = "/github/workspace"
	// ContainerHome is the mount point of $RUNNER_TEMP/_github_home.
	ContainerHome = "/github/home"
	// hostHomeDir is the directory under RUNNER_TEMP mounted at /github/home.
	hostHomeDir = "_github_home"
)

// DefaultReportName is the JSON report's file name when json is not given.
const DefaultReportName = "rubricgate-report.json"

// PathInputs are the action inputs that name files or directories.
var PathInputs = []string{"rubric", "results", "baseline", "baseline-dir", "write-baseline", "json", "markdown", "junit", "calibration", "report"}

// Runner maps paths between a container action and the runner host.
type Runner struct {
	// Getenv reads the step's environment.
	Getenv func(string) string
	// Home is where the runner's home is mounted ("": /github/home);
	// tests point it at a temp dir.
	Home string
}

// ContainerAction reports whether the process is a `using: docker` action
// step: the runner sets GITHUB_WORKSPACE to its mount point.
func (r Runner) ContainerAction() bool {
	return InActions(r.Getenv) && r.Getenv("GITHUB_WORKSPACE") == ContainerWorkspace
}

func (r Runner) home() string {
	if r.Home != "" {
		return r.Home
	}
	return ContainerHome
}

// DefaultReportPath is where the gate writes its JSON report inside Actions
// when json is not given: $RUNNER_TEMP in a run: step, the mounted home
// (/github/home, the host's $RUNNER_TEMP/_github_home) in a container
// action. "" outside Actions or when RUNNER_TEMP is unknown: no report then.
func (r Runner) DefaultReportPath() string {
	if !InActions(r.Getenv) || r.Getenv("RUNNER_TEMP") == "" {
		return ""
	}
	if r.ContainerAction() {
		return filepath.Join(r.home(), DefaultReportName)
	}
	return filepath.Join(r.Getenv("RUNNER_TEMP"), DefaultReportName)
}

// HostPath is the path a later step of the job (on the runner host) opens
// for a file this process wrote at p. Outside a container action it is p.
// Inside one, the mounted home maps back to $RUNNER_TEMP/_github_home, and a
// path in the workspace becomes relative to it (later steps start there); a
// relative path already is.
func (r Runner) HostPath(p string) string {
	if p == "" || !r.ContainerAction() {
		return p
	}
	if rel, ok := under(p, r.home()); ok {
		if temp := r.Getenv("RUNNER_TEMP"); temp != "" {
			return filepath.Join(temp, hostHomeDir, rel)
		}
		return p
	}
	if rel, ok := under(p, ContainerWorkspace); ok {
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

// CheckInput refuses, in a container action, a path under RUNNER_TEMP in
// the value of the action input named input: the runner passes RUNNER_TEMP
// (and so ${{ runner.temp }}) as the host path without mounting it, so
// nothing there can be read or written (the mounted
// $RUNNER_TEMP/_github_home arrives already translated to /github/home).
// The error is a *host.ConfigError.
func (r Runner) CheckInput(input, value string) error {
	temp := r.Getenv("RUNNER_TEMP")
	if !r.ContainerAction() || temp == "" {
		return nil
	}
	for _, p := range strings.Fields(value) {
		if _, ok := under(p, temp); ok {
			return host.Configf("input %s: %s is under RUNNER_TEMP (%s), which the runner does not mount into a container action; give a path relative to the workspace (for example %s)",
				input, p, temp, filepath.Base(p))
		}
	}
	return nil
}

// Input is the action input name (INPUT_<NAME>, trimmed).
func (r Runner) Input(name string) string {
	return githubactions.New(githubactions.WithGetenv(r.Getenv)).GetInput(name)
}

// Args turns the action inputs named like fs's flags into --name=value
// arguments for fs, once [Runner.CheckInput] accepted every path input.
func (r Runner) Args(fs *flag.FlagSet) ([]string, error) {
	var args []string
	fs.VisitAll(func(f *flag.Flag) {
		if v := r.Input(f.Name); v != "" {
			args = append(args, "--"+f.Name+"="+v)
		}
	})
	for _, name := range PathInputs {
		if fs.Lookup(name) == nil {
			continue
		}
		if err := r.CheckInput(name, r.Input(name)); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// Command reads the action's command input (def when empty) and turns the
// inputs into arguments for it: declare holds the flags of each command
// the action runs (another is a *host.ConfigError), newFlags makes a flag
// set.
func (r Runner) Command(def string, declare map[string]func(*flag.FlagSet), newFlags func(name string) *flag.FlagSet) (command string, args []string, err error) {
	command = r.Input("command")
	if command == "" {
		command = def
	}
	decl, ok := declare[command]
	if !ok {
		names := slices.Sorted(maps.Keys(declare))
		return "", nil, host.Configf("input command %q: expected %s or %s", command, strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
	}
	fs := newFlags(command)
	decl(fs)
	args, err = r.Args(fs)
	return command, args, err
}
