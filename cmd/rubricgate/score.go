package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/render"
	"github.com/rubricgate/rubricgate/results"
	"github.com/rubricgate/rubricgate/rubric"
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
	defer out.abort()
	var flushItems func() error
	switch *itemsOut {
	case "":
	case "-":
		return exitError, usagef("--items -: write the items to a file (stdout carries the table)")
	default:
		f, err := out.create(*itemsOut)
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
	addRubricWarnings(rep, warns)
	if flushItems != nil {
		if err := flushItems(); err != nil {
			return exitError, fmt.Errorf("write %s: %w", *itemsOut, err)
		}
	}
	if err := out.add(
		output{*jsonOut, func(w io.Writer) error { return render.JSON(w, rep) }},
		output{*mdOut, func(w io.Writer) error { _, err := io.WriteString(w, render.ScoreMarkdown(rep)); return err }},
	); err != nil {
		return exitError, err
	}
	if err := out.commit(e.stdout); err != nil {
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

// addRubricWarnings puts the rubric's warnings first among the report's.
func addRubricWarnings(rep *gate.Report, warns []rubric.Warning) {
	if len(warns) == 0 {
		return
	}
	ws := make([]string, 0, len(warns)+len(rep.Warnings))
	for _, w := range warns {
		ws = append(ws, w.String())
	}
	rep.Warnings = append(ws, rep.Warnings...)
}

// parseShare reads a share written as "5%" or "0.05".
func parseShare(name, s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || strings.ContainsAny(t, "xXpPnNiI") {
		return 0, usagef("%s %q: expected a share like 0.05 or 5%%", name, s)
	}
	if pct {
		v /= 100
	}
	if v < 0 || v > 1 {
		return 0, usagef("%s %q: expected a share between 0 and 1 (0%% to 100%%)", name, s)
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
