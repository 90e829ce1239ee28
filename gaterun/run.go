package gaterun

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"github.com/rubricgate/rubricgate/internal/gctune"
	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/internal/stage"
	"github.com/rubricgate/rubricgate/publish"
	"github.com/rubricgate/rubricgate/render"
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
	// Now is the clock; Warn shows a warning.
	Now  time.Time
	Warn func(msg string)
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
	cm := h.Commenting(co)
	return Gate(ctx, Options{
		Rubric: o.Rubric, RubricWarnings: o.RubricWarnings, Results: o.Results, ResultNames: o.ResultNames,
		Thresholds: s.Thresholds, Policy: s.Policy, MaxUnscored: s.MaxUnscored,
		Store: store, Query: baseline.Query{Rubric: o.Rubric.Name, Branch: ref.Branch, Key: s.BaselineKey}, StoreName: StoreName(store),
		OnBaselineError: s.OnBaselineError, SaveDir: saveDir, WriteBaseline: o.WriteBaseline, PoolRuns: s.BaselinePool,
		Save: save, BaselineRef: ref, BaselineLoaded: func(n int) { gctune.ForBaseline(o.Getenv, n) },
		Build: b, CommentKey: s.CommentKey, Title: s.Title, Tier: o.Tier, Now: o.Now,
		Accept: cm.Previous, LabelActor: cm.LabelActor, AcceptBy: s.AcceptBy, AttemptsDir: s.AttemptsDir, Warn: o.Warn,
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
	for _, a := range o.attempts {
		if err := set.Mkdirs(filepath.Dir(a.Path)); err != nil {
			return "", note, fmt.Errorf("attempts: %w", err)
		}
		if err := set.Add(a); err != nil {
			return "", note, fmt.Errorf("attempts: %w", err)
		}
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

// Input is one gate run as the command line or the action gives it,
// parsed and checked by the caller.
type Input struct {
	// Settings are the checked settings; Tier the judge-bias and rollout
	// settings as given (parsed by [Run], which reads the calibration).
	Settings *Checked
	Tier     tier.Settings
	// Rubric and its load warnings (already shown); Results and the names
	// given.
	Rubric         *rubric.Rubric
	RubricWarnings []rubric.Warning
	Results        Results
	ResultNames    []string
	// Outputs are the files the run writes.
	Outputs Outputs
	// Getenv reads the process's environment, WorkDir is where the git
	// checkout is looked up from, Now is the clock.
	Getenv  func(string) string
	WorkDir string
	Now     time.Time
	// Stdout takes the outputs written to "-"; Stderr the warnings (on a
	// host that does not annotate) and notes; Log the decision's log
	// lines, in colour with Color. Annotate: warnings and blocking reasons
	// are annotations through the host (GitHub Actions).
	Stdout, Stderr, Log io.Writer
	Color, Annotate     bool
}

// Outputs are the files a gate run writes, "" for none ("-" for stdout).
type Outputs struct {
	// WriteBaseline is where a passing run writes its new baseline file.
	WriteBaseline string
	// JSON, Markdown and JUnit are the reports.
	JSON, Markdown, JUnit string
	// Extra are more files written with the reports, all or nothing (the
	// one-step gate's judged results).
	Extra []stage.Output
	// Confine, when set, is the workspace no output may leave through a
	// symbolic link (a change request's run: see stage.Set.Confine).
	Confine string
}

// Run runs the gate on the host h and shows the outcome, the one call of
// `rubricgate gate`: its steps are the tier settings checked, the gate on
// the host ([OnHost]), the files staged ([Outcome.Stage]) and the outcome
// published (publish.Publish: comment, outputs, summary, log), every file
// landing together or none. The outcome says whether the run is blocked;
// an error is exit 2.
func Run(ctx context.Context, h host.Host, in Input) (*Outcome, error) {
	warn := func(msg string) {
		if in.Annotate {
			_ = h.Annotate(finding.Annotation{Level: finding.Warning, Message: msg}) // best effort, as the log
			return
		}
		fmt.Fprintf(in.Stderr, "warning: %s\n", safe.LogLine(msg))
	}
	ts, err := tier.Parse(in.Tier, in.Rubric)
	if err != nil {
		return nil, err
	}
	out, err := OnHost(ctx, h, HostOptions{Settings: in.Settings, Rubric: in.Rubric, RubricWarnings: in.RubricWarnings,
		Results: in.Results, ResultNames: in.ResultNames, WriteBaseline: in.Outputs.WriteBaseline != "", Tier: ts,
		Getenv: in.Getenv, WorkDir: in.WorkDir, Now: in.Now, Warn: warn})
	if err != nil {
		return nil, err
	}
	set := stage.Set{Confine: in.Outputs.Confine}
	defer set.Abort()
	g, o := out.Report, in.Outputs
	reportPath := host.ReportPath(h, o.JSON)
	outs := append([]stage.Output{
		{Path: reportPath, Write: func(w io.Writer) error { return render.JSON(w, g) }},
		{Path: o.Markdown, Write: func(w io.Writer) error { _, err := io.WriteString(w, out.Markdown); return err }},
		{Path: o.JUnit, Write: func(w io.Writer) error {
			return render.Table(render.Options{Title: in.Settings.Title, Now: in.Now})[render.FormatJUnit](w, g)
		}},
	}, o.Extra...)
	baselinePath, note, err := out.Stage(&set, o.WriteBaseline, outs...)
	if err != nil {
		return nil, err
	}
	if err := publish.Publish(ctx, h, &out.Result, publish.Options{Comment: in.Settings.CommentOptions(), ReportPath: reportPath,
		BaselinePath: baselinePath, Log: in.Log, Annotate: in.Annotate, Color: in.Color, Warn: warn,
		Commit: func(last func() error) error { return set.CommitThen(in.Stdout, last) }}); err != nil {
		return nil, err
	}
	// After the decision: in CI one log holds both streams, and the first
	// line a reader sees must be the decision, not this consequence of it.
	if note != "" {
		fmt.Fprintln(in.Stderr, note)
	}
	return out, nil
}
