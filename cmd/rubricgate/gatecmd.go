package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	ghhost "github.com/rubricgate/rubricgate/host/github"
	glhost "github.com/rubricgate/rubricgate/host/gitlab"
	"github.com/rubricgate/rubricgate/host/local"
	"github.com/rubricgate/rubricgate/internal/gctune"
	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/pipeline"
	"github.com/rubricgate/rubricgate/render"
	"github.com/rubricgate/rubricgate/results"
)

// gateConfig holds the gate's flags: the names are the action inputs.
type gateConfig struct {
	pipeline.Settings
	rubric, format, baselineBranch, branch, writeBaseline string
	results                                               stringList
	jsonOut, mdOut, junitOut, commentKey, githubToken     string
	title                                                 string
	tierCfg                                               tierConfig
	judge                                                 judgeConfig // one-step gate: --input and the judge flags
}

// gateFlags declares the gate's flags on fs (see action.yml).
func gateFlags(fs *flag.FlagSet, c *gateConfig) {
	fs.StringVar(&c.rubric, "rubric", "", "rubric file (YAML or JSON)")
	fs.Var(&c.results, "results", "results files or globs (repeatable; whitespace-separated)")
	fs.StringVar(&c.format, "format", "", formatHelp())
	c.Settings.Flags(fs)
	fs.StringVar(&c.baselineBranch, "baseline-branch", "", "branch whose last passing run is the baseline (default: the PR's or merge request's target branch, else the default branch (GitHub's payload, CI_DEFAULT_BRANCH, refs/remotes/origin/HEAD), else main)")
	fs.StringVar(&c.branch, "branch", "", "branch this run is on, for the local store: a passing run saves only when it is the baseline branch (default: GITHUB_REF inside Actions, else CI variables, else .git/HEAD)")
	fs.StringVar(&c.writeBaseline, "write-baseline", "", "write a new baseline file here when the run passes")
	fs.StringVar(&c.jsonOut, "json", "", "write the JSON report here (- for stdout)")
	fs.StringVar(&c.mdOut, "markdown", "", "write the markdown report here")
	fs.StringVar(&c.junitOut, "junit", "", "write a JUnit XML report here (a test case per criterion and per blocking item)")
	fs.StringVar(&c.commentKey, "comment-key", "", "sticky comment key (default: workflow, job, rubric and results)")
	fs.StringVar(&c.githubToken, "github-token", "", "token for the GitHub API (artifacts, comments); never printed")
	fs.StringVar(&c.title, "title", "", "heading of the report (default: rubricgate: <rubric name>)")
	tierFlags(fs, &c.tierCfg)
	gateJudgeFlags(fs, &c.judge)
}

// cmdGate runs the gate. It returns the exit status; errors are exit 2.
func cmdGate(args []string, e *env) (int, error) {
	fs := newFlags("gate", e)
	var c gateConfig
	gateFlags(fs, &c)
	posArgs, err := parseArgs(fs, args)
	if err != nil {
		return exitError, err
	}
	c.results = append(c.results, posArgs...)
	return runGate(context.Background(), &c, e)
}

// pickHost picks the CI host: GitHub Actions, else GitLab CI, else a local run.
func pickHost(e *env, branch string) (host.Host, error) {
	switch {
	case e.inActions():
		h, err := ghhost.New(e.getenv, e.stdout)
		if err != nil {
			return nil, err
		}
		h.Home = e.githubHome
		return h, nil
	case glhost.InCI(e.getenv):
		return glhost.NewJob(e.getenv, e.stdout)
	}
	return local.New(local.Options{Branch: branch, Stderr: e.stderr, SkipGit: true})
}

// runGate runs the gate pipeline on the host with the checked settings of
// c, stages the files it writes, and publishes the outcome (comment,
// outputs, summary) with them; then logs the decision. It returns the exit
// status (0 pass, 1 blocked); an error is exit 2.
func runGate(ctx context.Context, c *gateConfig, e *env) (int, error) {
	h, err := pickHost(e, c.branch)
	if err != nil {
		return exitError, err
	}
	s, err := c.Parse()
	if err != nil {
		return exitError, err
	}
	rb, warns, err := loadRubric(c.rubric, e)
	if err != nil {
		return exitError, err
	}
	if c.judge.input != "" {
		if len(c.results) > 0 {
			return exitError, usagef("give --input (answers to judge) or --results, not both")
		}
		out, err := judgeForGate(ctx, &c.judge, &c.tierCfg, rb, e)
		if err != nil {
			return exitError, err
		}
		c.results = stringList{out}
	}
	src, err := results.NewSource(c.results, c.format, e.stdin)
	if err != nil {
		return exitError, err
	}
	tier, err := c.tierCfg.check(rb, e)
	if err != nil {
		return exitError, err
	}
	b, logf := host.CIBuild(h), func(f string, a ...any) { warn(e, "", 0, fmt.Sprintf(f, a...)) }
	save := pipeline.SaveInputs{Branch: c.branch, Getenv: e.getenv, WorkDir: e.wd}
	ref := pipeline.ResolveBaselineBranch(c.baselineBranch, b, save)
	store, saveDir, err := s.Store(h, c.githubToken, logf)
	if err != nil {
		return exitError, err
	}
	if saveDir != nil {
		if w := pipeline.TrackedStoreWarning(saveDir.Root, exec.LookPath); w != "" {
			warn(e, "", 0, w)
		}
	}
	cm := h.Commenting(host.CommentOptions{Mode: s.CommentMode, Token: c.githubToken, Author: c.CommentAuthor, Logf: logf})
	res, err := pipeline.Gate(ctx, pipeline.Options{
		Rubric: rb, RubricWarnings: warns, Results: src, ResultNames: c.results,
		Thresholds: s.Thresholds, Policy: s.Policy, MaxUnscored: s.MaxUnscored,
		Store: store, Query: baseline.Query{Rubric: rb.Name, Branch: ref.Branch, Key: c.BaselineKey}, StoreName: pipeline.StoreName(store),
		OnBaselineError: s.OnBaselineError, SaveDir: saveDir, WriteBaseline: c.writeBaseline != "",
		Save: save, BaselineRef: ref, BaselineLoaded: func(n int) { gctune.ForBaseline(e.getenv, n) },
		Build: b, CommentKey: c.commentKey, Title: c.title, Tier: tier, Now: e.clock(), Accept: cm.Previous,
		Warn: func(msg string) { warn(e, "", 0, msg) },
		Log:  func(msg string) { fmt.Fprintln(e.stdout, safe.LogLine(msg)) },
	})
	if err != nil {
		return exitError, err
	}
	// Everything is staged and renamed into place together (the local
	// store's baseline last) once everything succeeded.
	var out staged
	defer out.Abort()
	g, baselinePath, reportPath := res.Report, res.SaveTo, host.ReportPath(h, c.jsonOut)
	if c.writeBaseline != "" && res.NewBaseline != nil {
		baselinePath = c.writeBaseline
		if err := out.Add(output{Path: c.writeBaseline, Write: res.NewBaseline.Write}); err != nil {
			return exitError, err
		}
	} else if c.writeBaseline != "" && g.Decision != gate.Pass {
		fmt.Fprintf(e.stderr, "no baseline written to %s: the run was blocked\n", c.writeBaseline)
	}
	if err := out.Add(
		output{Path: reportPath, Write: func(w io.Writer) error { return render.JSON(w, g) }},
		output{Path: c.mdOut, Write: func(w io.Writer) error { _, err := io.WriteString(w, res.Markdown); return err }},
		output{Path: c.junitOut, Write: func(w io.Writer) error { return junit(w, g, c.title, e.clock()) }},
	); err != nil {
		return exitError, err
	}
	if res.SaveTo != "" {
		if err := out.Mkdirs(filepath.Dir(res.SaveTo)); err != nil {
			return exitError, fmt.Errorf("save baseline: %w", err)
		}
		if err := out.Add(output{Path: res.SaveTo, Write: res.NewBaseline.Write}); err != nil {
			return exitError, fmt.Errorf("save baseline: %w", err)
		}
	}
	commentLine, err := pipeline.Publish(ctx, h, res, pipeline.PublishOptions{Comments: cm, Mode: s.CommentMode,
		ReportPath: reportPath, BaselinePath: baselinePath, Warn: func(msg string) { warn(e, "", 0, msg) },
		Commit: func(last func() error) error { return out.CommitThen(e.stdout, last) }})
	if err != nil {
		return exitError, err
	}
	// The log. The rubric's warnings were printed with their file and line
	// when it was loaded: the others only.
	shown, rep := *g, *g.Report
	rep.Warnings = rep.Warnings[res.RubricWarnings:]
	shown.Report = &rep
	for _, l := range render.DecisionLog(&shown, baselinePath, e.inActions()) {
		switch {
		case l.Annotation == nil:
			fmt.Fprintln(e.stdout, l.Line)
		case e.inActions():
			_ = h.Annotate(*l.Annotation)
		default:
			warn(e, "", 0, l.Annotation.Message)
		}
	}
	if commentLine != "" {
		fmt.Fprintln(e.stdout, commentLine)
	}
	if res.Blocked() {
		return exitBlocked, nil
	}
	return exitPass, nil
}
