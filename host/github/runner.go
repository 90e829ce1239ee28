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

// DefaultReportName is the JSON report's file name when json is not given.
const DefaultReportName = "rubricgate-report.json"

// Runner reads a GitHub Actions step's environment: the action inputs and
// where the run's files go. The action is a composite action, so its steps
// run on the runner host like any run: step and see its paths as they are.
type Runner struct {
	// Getenv reads the step's environment.
	Getenv func(string) string
}

// DefaultReportPath is where the gate writes its JSON report inside Actions
// when json is not given: $RUNNER_TEMP/rubricgate-report.json. "" outside
// Actions or when RUNNER_TEMP is unknown: no report then.
func (r Runner) DefaultReportPath() string {
	if !InActions(r.Getenv) || r.Getenv("RUNNER_TEMP") == "" {
		return ""
	}
	return filepath.Join(r.Getenv("RUNNER_TEMP"), DefaultReportName)
}

// Input is the action input name (INPUT_<NAME>, trimmed).
func (r Runner) Input(name string) string {
	return githubactions.New(githubactions.WithGetenv(r.Getenv)).GetInput(name)
}

// Args turns the action inputs named like fs's flags into --name=value
// arguments for fs.
func (r Runner) Args(fs *flag.FlagSet) []string {
	var args []string
	fs.VisitAll(func(f *flag.Flag) {
		if v := r.Input(f.Name); v != "" {
			args = append(args, "--"+f.Name+"="+v)
		}
	})
	return args
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
	return command, r.Args(fs), nil
}
