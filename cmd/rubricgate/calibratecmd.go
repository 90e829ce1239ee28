package main

import (
	"io"

	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/fraction"
	"github.com/rubricgate/rubricgate/rubric"
)

// cmdCalibrate measures judge-human agreement (HUMAN JUDGE) or the
// agreement of two reviewers in one review sheet (--reviewers SHEET).
// Exit 0 when every criterion reaches the minimum, 1 when any falls short.
func cmdCalibrate(args []string, e *env) (int, error) {
	fs := newFlags("calibrate", e)
	rubricPath := fs.String("rubric", "", "rubric file (YAML or JSON)")
	minAgree := fs.String("min-agreement", "0.75", "agreement each criterion must reach")
	metric := fs.String("metric", "exact", "metric that decides: exact, adjacent, kappa, kappa_quadratic, alpha (ordinal) or alpha_interval")
	format := fs.String("format", "", formatHelp())
	jsonOut := fs.String("json", "", "write the JSON report here (- for stdout)")
	mdOut := fs.String("markdown", "", "write a markdown report here")
	reviewers := fs.String("reviewers", "", "one review sheet scored by two reviewers (a reviewer column)")
	posArgs, err := parseArgs(fs, args)
	if err != nil {
		return exitError, err
	}
	m, err := calibrate.ParseMetric(*metric)
	if err != nil {
		return exitError, usagef("--metric: %v", err)
	}
	min, err := fraction.ParsePositive("--min-agreement", *minAgree)
	if err != nil {
		return exitError, &usageError{err.Error()}
	}
	opts := calibrate.Options{Metric: m, MinAgreement: min}
	rb, _, err := loadRubric(*rubricPath, e)
	if err != nil {
		return exitError, err
	}
	var passed bool
	var outs []output
	var text func(io.Writer) error
	if *reviewers != "" {
		if len(posArgs) != 0 {
			return exitError, usagef("calibrate --reviewers takes one sheet and no other files")
		}
		rows, err := readRatings(rb, *reviewers, *format)
		if err != nil {
			return exitError, err
		}
		rep, err := calibrate.CompareReviewers(rb, rows, opts)
		if err != nil {
			return exitError, err
		}
		passed = rep.Passed
		text = func(w io.Writer) error { return calibrate.WriteReviewersText(w, rep) }
		outs = []output{
			{Path: *jsonOut, Write: func(w io.Writer) error { return calibrate.WriteJSON(w, rep) }},
			{Path: *mdOut, Write: func(w io.Writer) error { return calibrate.WriteReviewersMarkdown(w, rep) }},
		}
	} else {
		if len(posArgs) != 2 {
			return exitError, usagef("calibrate: expected two files, HUMAN and JUDGE (or --reviewers SHEET)")
		}
		human, err := readRatings(rb, posArgs[0], *format)
		if err != nil {
			return exitError, err
		}
		judge, err := readRatings(rb, posArgs[1], *format)
		if err != nil {
			return exitError, err
		}
		rep, err := calibrate.Compare(rb, human, judge, opts)
		if err != nil {
			return exitError, err
		}
		passed = rep.Passed
		text = func(w io.Writer) error { return calibrate.WriteText(w, rep) }
		outs = []output{
			{Path: *jsonOut, Write: func(w io.Writer) error { return calibrate.WriteJSON(w, rep) }},
			{Path: *mdOut, Write: func(w io.Writer) error { return calibrate.WriteMarkdown(w, rep) }},
		}
	}
	if err := writeOutputs(e, outs); err != nil {
		return exitError, err
	}
	if *jsonOut != "-" {
		if err := text(e.stdout); err != nil {
			return exitError, err
		}
	}
	if !passed {
		return exitBlocked, nil
	}
	return exitPass, nil
}

// readRatings reads one ratings file in any results format (opened by
// results.Open, so another tool's results work too).
func readRatings(rb *rubric.Rubric, path, format string) ([]calibrate.Rating, error) {
	if path == "-" {
		return nil, usagef("calibrate: name the ratings files (stdin is not read)")
	}
	inputs, closeAll, err := openInputs([]string{path}, format, &env{})
	if err != nil {
		return nil, err
	}
	defer closeAll()
	if len(inputs) != 1 {
		return nil, usagef("calibrate: %q names %d files; expected one ratings file", path, len(inputs))
	}
	return calibrate.ReadRatings(rb, inputs[0], gate.ReadOptions{})
}
