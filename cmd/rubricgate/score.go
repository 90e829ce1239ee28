package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/gaterun"
	"github.com/rubricgate/rubricgate/internal/fraction"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/render"
	"github.com/rubricgate/rubricgate/results"
	"github.com/rubricgate/rubricgate/results/native"
)

// cmdScore scores a run and prints the per-criterion table.
func cmdScore(args []string, e *env) (int, error) {
	fs := newFlags("score", e)
	rubricPath := fs.String("rubric", "", "rubric file (YAML or JSON)")
	var resultFiles stringList
	fs.Var(&resultFiles, "results", "results file(s) or globs: .jsonl/.json lines, .csv review sheets or another tool's results (see --format); - for stdin (repeatable)")
	format := fs.String("format", "", formatHelp())
	maxUnscored := fs.String("max-unscored", "0", "share of unscored (judge error) items tolerated before the run blocks, e.g. 0.05 or 5%")
	jsonOut := fs.String("json", "", "write the JSON report to this file (- for stdout)")
	itemsOut := fs.String("items", "", "write one JSON line per item to this file")
	mdOut := fs.String("markdown", "", "write a markdown report to this file")
	junitOut := fs.String("junit", "", "write a JUnit XML report to this file (a test case per criterion and per blocking item)")
	posArgs, err := parseArgs(fs, args)
	if err != nil {
		return exitError, err
	}
	mu, err := fraction.Parse("max-unscored", *maxUnscored)
	if err != nil {
		return exitError, err
	}
	rb, warns, err := loadRubric(*rubricPath, e)
	if err != nil {
		return exitError, err
	}
	inputs, closeAll, err := results.Open(append(resultFiles, posArgs...), *format, e.stdin)
	if err != nil {
		return exitError, err
	}
	defer closeAll()
	// Every output is staged and renamed into place only when the whole
	// command succeeded: bad input leaves nothing written.
	out := staged{Confine: confineDir(e, nil)}
	defer out.Abort()
	opts := native.ScoreOptions{MaxUnscored: mu}
	var items *render.ItemWriter
	if *itemsOut == "-" {
		return exitError, usage.Errorf("--items -: write the items to a file (stdout carries the table)")
	} else if *itemsOut != "" {
		f, err := out.Create(*itemsOut)
		if err != nil {
			return exitError, err
		}
		items = render.NewItemWriter(f)
		opts.OnItem = items.Write
		opts.WantReasoning = func(*gate.ItemResult) bool { return false } // --items does not write it
	}
	rep, err := native.Score(rb, inputs, opts)
	if err != nil {
		return exitError, err
	}
	gaterun.AddRubricWarnings(rep, warns)
	if items != nil {
		if err := items.Flush(); err != nil {
			return exitError, fmt.Errorf("write %s: %w", *itemsOut, err)
		}
	}
	table := render.ScoreTable(render.Options{Now: e.clock(), Rubric: rb})
	for _, o := range [...]struct {
		format render.Format
		path   string
	}{{render.FormatJSON, *jsonOut}, {render.FormatMarkdown, *mdOut}, {render.FormatJUnit, *junitOut}} {
		if err := out.Add(output{Path: o.path, Write: func(w io.Writer) error { return table[o.format](w, rep) }}); err != nil {
			return exitError, err
		}
	}
	if err := out.Commit(e.stdout); err != nil {
		return exitError, err
	}
	if *jsonOut != "-" {
		// The rubric's warnings were printed with their file and line when
		// it was loaded.
		txt := *rep
		txt.Warnings = rep.Warnings[min(len(warns), len(rep.Warnings)):]
		if err := table[render.FormatText](e.stdout, &txt); err != nil {
			return exitError, err
		}
	}
	if rep.Blocked() {
		return exitBlocked, nil
	}
	return exitPass, nil
}

// formatHelp is the --format flag's help.
func formatHelp() string {
	return "results format: " + strings.Join(results.Names(), ", ") + " (default: from the file's name and content)"
}
