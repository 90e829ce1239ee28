package gaterun

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"github.com/rubricgate/rubricgate/internal/gctune"
	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/internal/stage"
	"github.com/rubricgate/rubricgate/rubric"
	"github.com/rubricgate/rubricgate/tier"
)

// ReadRubric reads and validates a rubric file (at most 8 MiB).
func ReadRubric(path string) (*rubric.Rubric, []rubric.Warning, error) {
	data, err := boundedio.ReadFile(path, 8<<20)
	if err != nil {
		return nil, nil, fmt.Errorf("rubric: %w", err)
	}
	return rubric.Load(path, data)
}

// HostOptions are the inputs of [OnHost], parsed and checked by the caller.
type HostOptions struct {
	// Settings are the checked settings.
	Settings *Checked
	// Rubric and its load warnings; Results and the names given.
	Rubric         *rubric.Rubric
	RubricWarnings []rubric.Warning
	Results        Results
	ResultNames    []string
	// WriteBaseline is true when a new baseline file was asked for.
	WriteBaseline bool
	// Tier is the judge-bias and tier state (see [tier.State]).
	Tier *tier.State
	// Getenv reads the process's environment (the variables of other CI
	// systems, GOGC); WorkDir is where the git checkout is looked up from.
	Getenv  func(string) string
	WorkDir string
	// Now is the clock; Warn shows a warning; Log receives the plain lines
	// of the log (escaped).
	Now  time.Time
	Warn func(msg string)
	Log  io.Writer
}

// OnHost runs [Gate] on the CI host h: the baseline branch resolved from
// the flags and the build, the baseline store chosen (a file or directory
// named, else the host's default; a local directory tracked by git is
// warned about), the gate's previous comment read back for the record of
// an accepted regression, and the heap bounded for a large baseline.
func OnHost(ctx context.Context, h host.Host, o HostOptions) (*Outcome, error) {
	b, s := host.CIBuild(h), o.Settings
	logf := func(f string, a ...any) { o.Warn(fmt.Sprintf(f, a...)) }
	save := host.SaveInputs{Branch: s.Branch, Getenv: o.Getenv, WorkDir: o.WorkDir}
	ref := host.ResolveBaselineBranch(s.BaselineBranch, b, save)
	store, saveDir, err := s.Store(h, s.GitHubToken, logf)
	if err != nil {
		return nil, err
	}
	// A store the change request can commit is refused on its runs; the
	// file named by --baseline too.
	storePath := ""
	switch st := store.(type) {
	case *baseline.Dir:
		storePath = st.Root
	case baseline.FileStore:
		// A file the user names is theirs to choose outside a change
		// request's run: no warning there.
		if host.ChangeRequestRun(b) {
			storePath = st.Path
		}
	}
	if storePath != "" {
		w, err := host.CheckTrackedStore(storePath, b, exec.LookPath)
		if err != nil {
			return nil, err
		}
		if w != "" {
			o.Warn(w)
		}
	}
	co := s.CommentOptions()
	co.Logf = logf
	return Gate(ctx, Options{
		Rubric: o.Rubric, RubricWarnings: o.RubricWarnings, Results: o.Results, ResultNames: o.ResultNames,
		Thresholds: s.Thresholds, Policy: s.Policy, MaxUnscored: s.MaxUnscored,
		Store: store, Query: baseline.Query{Rubric: o.Rubric.Name, Branch: ref.Branch, Key: s.BaselineKey}, StoreName: StoreName(store),
		OnBaselineError: s.OnBaselineError, SaveDir: saveDir, WriteBaseline: o.WriteBaseline,
		Save: save, BaselineRef: ref, BaselineLoaded: func(n int) { gctune.ForBaseline(o.Getenv, n) },
		Build: b, CommentKey: s.CommentKey, Title: s.Title, Tier: o.Tier, Now: o.Now,
		Accept: h.Commenting(co).Previous, Warn: o.Warn,
		Log: func(msg string) { fmt.Fprintln(o.Log, safe.LogLine(msg)) },
	})
}

// Stage adds the run's files to set in the order they are renamed into
// place: the new baseline file (to writeBaseline, when the run made one),
// outs (the reports), and last the local store's baseline (SaveTo), so the
// store's baseline lands only when every other file does. It returns the
// path of the new baseline ("" for none) and, when a baseline file was
// asked for and the run was blocked, a note saying none was written.
func (o *Outcome) Stage(set *stage.Set, writeBaseline string, outs ...stage.Output) (baselinePath, note string, err error) {
	baselinePath = o.SaveTo
	if writeBaseline != "" && o.NewBaseline != nil {
		baselinePath = writeBaseline
		if err := set.Add(stage.Output{Path: writeBaseline, Write: o.NewBaseline.Write}); err != nil {
			return "", note, err
		}
	} else if writeBaseline != "" && o.Report.Decision != gate.Pass {
		note = fmt.Sprintf("no baseline written to %s: the run was blocked", writeBaseline)
	}
	if err := set.Add(outs...); err != nil {
		return "", note, err
	}
	if o.SaveTo != "" {
		if err := set.Mkdirs(filepath.Dir(o.SaveTo)); err != nil {
			return "", note, fmt.Errorf("save baseline: %w", err)
		}
		if err := set.Add(stage.Output{Path: o.SaveTo, Write: o.NewBaseline.Write}); err != nil {
			return "", note, fmt.Errorf("save baseline: %w", err)
		}
	}
	return baselinePath, note, nil
}
