package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/fraction"
	userr "github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/pipeline"
	"github.com/rubricgate/rubricgate/render"
	"github.com/rubricgate/rubricgate/results"
)

// cmdScore scores a run and prints the per-criterion table.
func cmdScore(args []string, e *env) (int, error) {
	fs := newFlags("score", e)
	rubricPath := fs.String("rubric", "", "rubric file (YAML or JSON)")
	var results stringList
	fs.Var(&results, "results", "results file(s) or globs: .jsonl/.json lines, .csv review sheets or another tool's results (see --format); - for stdin (repeatable)")
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
	results = append(results, posArgs...)
	mu, err := parseShare("max-unscored", *maxUnscored)
	if err != nil {
		return exitError, err
	}
	rb, warns, err := loadRubric(*rubricPath, e)
	if err != nil {
		return exitError, err
	}
	inputs, closeAll, err := openInputs(results, *format, e)
	if err != nil {
		return exitError, err
	}
	defer closeAll()

	opts := gate.ScoreOptions{MaxUnscored: mu}
	// Every output is staged and renamed into place only when the whole
	// command succeeded: bad input leaves nothing written.
	var out staged
	defer out.Abort()
	var flushItems func() error
	switch *itemsOut {
	case "":
	case "-":
		return exitError, usagef("--items -: write the items to a file (stdout carries the table)")
	default:
		f, err := out.Create(*itemsOut)
		if err != nil {
			return exitError, err
		}
		bw := bufio.NewWriterSize(f, 1<<16)
		enc := json.NewEncoder(bw)
		opts.OnItem = func(it *gate.ItemResult) error {
			return enc.Encode(itemLine{ID: it.ID, Score: scorePtr(it), Pass: it.Pass, Failed: nonNilStrings(it.Failed), NA: nonNilStrings(it.NA)})
		}
		flushItems = bw.Flush
	}
	rep, err := gate.Score(rb, inputs, opts)
	if err != nil {
		return exitError, err
	}
	pipeline.AddRubricWarnings(rep, warns)
	if flushItems != nil {
		if err := flushItems(); err != nil {
			return exitError, fmt.Errorf("write %s: %w", *itemsOut, err)
		}
	}
	if err := out.Add(
		output{Path: *jsonOut, Write: func(w io.Writer) error { return render.JSON(w, rep) }},
		output{Path: *mdOut, Write: func(w io.Writer) error { _, err := io.WriteString(w, render.ScoreMarkdown(rep)); return err }},
		output{Path: *junitOut, Write: func(w io.Writer) error { return junit(w, scoreDecision(rep), "", e.clock()) }},
	); err != nil {
		return exitError, err
	}
	if err := out.Commit(e.stdout); err != nil {
		return exitError, err
	}
	if *jsonOut != "-" {
		// The rubric's warnings were printed with their file and line when
		// it was loaded.
		txt := *rep
		txt.Warnings = rep.Warnings[min(len(warns), len(rep.Warnings)):]
		if err := render.ScoreText(e.stdout, &txt, rb); err != nil {
			return exitError, err
		}
	}
	if rep.Blocked() {
		return exitBlocked, nil
	}
	return exitPass, nil
}

// scoreDecision is a score report as a gate report without a baseline,
// for the renderers of the gate report (JUnit): blocked when a hard gate
// failed.
func scoreDecision(rep *gate.Report) *gate.GateReport {
	g := &gate.GateReport{Report: rep, Decision: gate.Pass}
	if rep.Blocked() {
		g.Decision = gate.Block
	}
	return g
}

// junit writes the JUnit XML report through the table of renderers.
func junit(w io.Writer, g *gate.GateReport, title string, now time.Time) error {
	fn, err := render.Lookup("junit", render.Options{Title: title, Now: now})
	if err != nil {
		return err
	}
	return fn(w, g)
}

// itemLine is one line of --items.
type itemLine struct {
	ID     string   `json:"id"`
	Score  *float64 `json:"score"`
	Pass   bool     `json:"pass"`
	Failed []string `json:"failed"`
	NA     []string `json:"na"`
}

func scorePtr(it *gate.ItemResult) *float64 {
	if it.Unscored {
		return nil
	}
	s := it.Score
	return &s
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// parseShare reads a share written as "5%" or "0.05" (a usage error when
// it is not one).
func parseShare(name, s string) (float64, error) {
	v, err := fraction.Parse(name, s)
	if err != nil {
		return 0, &usageError{err.Error()}
	}
	return v, nil
}

// openInputs expands globs and opens every results file ("-" is stdin)
// through results.Open.
func openInputs(patterns []string, format string, e *env) ([]gate.Input, func(), error) {
	inputs, closeAll, err := results.Open(patterns, format, e.stdin)
	var u *results.UsageError
	if errors.As(err, &u) {
		err = usagef("%s", u.Msg)
	}
	return inputs, closeAll, err
}

// formatHelp is the --format flag's help.
func formatHelp() string {
	return "results format: " + strings.Join(results.Names(), ", ") + " (default: from the file's name and content)"
}

// usageOf reports a library's setting mistake (a *userr.Error) as a usage
// error; other errors pass through.
func usageOf(err error) error {
	var u *userr.Error
	if errors.As(err, &u) {
		return &usageError{u.Msg}
	}
	return err
}
