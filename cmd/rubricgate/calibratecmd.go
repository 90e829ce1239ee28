package main

import (
	"io"

	"github.com/rubricgate/rubricgate/calibrate"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/render"
)

// cmdCalibrate measures judge-human agreement (HUMAN JUDGE) or the
// agreement of two reviewers in one review sheet (--reviewers SHEET).
// Exit 0 when every criterion reaches the minimum, 1 when any falls short.
func cmdCalibrate(args []string, e *env) (int, error) {
	fs := newFlags("calibrate", e)
	var f calibrate.Files
	rubricPath := fs.String("rubric", "", "rubric file (YAML or JSON)")
	minAgree := fs.String("min-agreement", "0.75", "agreement each criterion must reach")
	metric := fs.String("metric", "exact", "metric that decides: exact, adjacent, kappa, kappa_quadratic, alpha (ordinal) or alpha_interval")
	tolerance := fs.String("tolerance", "10%", "continuous criteria: the largest difference that counts as agreement, as a share of the scale's range")
	fs.StringVar(&f.Format, "format", "", formatHelp())
	jsonOut := fs.String("json", "", "write the JSON report here (- for stdout)")
	mdOut := fs.String("markdown", "", "write a markdown report here")
	fs.StringVar(&f.Reviewers, "reviewers", "", "one review sheet scored by two reviewers (a reviewer column)")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return exitError, err
	}
	opts, err := calibrate.ParseOptions(*metric, *minAgree, *tolerance)
	if err != nil {
		return exitError, err
	}
	rb, _, err := loadRubric(*rubricPath, e)
	switch {
	case err != nil:
		return exitError, err
	case f.Reviewers != "" && len(pos) != 0:
		return exitError, usage.Errorf("calibrate --reviewers takes one sheet and no other files")
	case f.Reviewers == "" && len(pos) != 2:
		return exitError, usage.Errorf("calibrate: expected two files, HUMAN and JUDGE (or --reviewers SHEET)")
	case f.Reviewers == "":
		f.Human, f.Judge = pos[0], pos[1]
	}
	res, err := calibrate.CompareFiles(rb, f, opts)
	if err != nil {
		return exitError, err
	}
	table := calibrate.Table()
	if err := writeOutputs(e, []output{
		{Path: *jsonOut, Write: func(w io.Writer) error { return table[render.FormatJSON](w, res) }},
		{Path: *mdOut, Write: func(w io.Writer) error { return table[render.FormatMarkdown](w, res) }},
	}); err != nil {
		return exitError, err
	}
	if *jsonOut != "-" {
		if err := table[render.FormatText](e.stdout, res); err != nil {
			return exitError, err
		}
	}
	if !res.Passed() {
		return exitBlocked, nil
	}
	return exitPass, nil
}
