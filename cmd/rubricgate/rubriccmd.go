package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/rubric"
)

// cmdRubric runs `rubric validate` and `rubric export`.
func cmdRubric(args []string, e *env) (int, error) {
	if len(args) == 0 {
		return exitError, usagef("rubric: expected validate or export")
	}
	switch args[0] {
	case "validate":
		fs := newFlags("rubric validate", e)
		posArgs, err := parseArgs(fs, args[1:])
		if err != nil {
			return exitError, err
		}
		if len(posArgs) != 1 {
			return exitError, usagef("rubric validate: expected one rubric file")
		}
		rb, warns, err := loadRubric(posArgs[0], e)
		if err != nil {
			return exitError, err
		}
		fmt.Fprintf(e.stdout, "%s: ok: rubric %q, %d criteria, %d warning(s), %s\n", posArgs[0], clean(rb.Name), len(rb.Criteria), len(warns), rb.Hash())
		return exitPass, nil
	case "export":
		fs := newFlags("rubric export", e)
		format := fs.String("format", "json", "json, csv (a blank review sheet) or prompt (an LLM-judge prompt)")
		out := fs.String("o", "-", "output file (default stdout)")
		posArgs, err := parseArgs(fs, args[1:])
		if err != nil {
			return exitError, err
		}
		if len(posArgs) != 1 {
			return exitError, usagef("rubric export: expected one rubric file")
		}
		var export func(io.Writer, *rubric.Rubric) error
		switch strings.ToLower(*format) {
		case "json":
			export = rubric.ExportJSON
		case "csv":
			export = rubric.ExportCSV
		case "prompt":
			export = rubric.ExportPrompt
		default:
			return exitError, usagef("rubric export --format %q: expected json, csv or prompt", *format)
		}
		rb, _, err := loadRubric(posArgs[0], e)
		if err != nil {
			return exitError, err
		}
		if err := writeOutputs(e, []output{{Path: *out, Write: func(w io.Writer) error { return export(w, rb) }}}); err != nil {
			return exitError, err
		}
		return exitPass, nil
	}
	return exitError, usagef("rubric: unknown subcommand %q (expected validate or export)", args[0])
}

// clean shortens untrusted text for a log line.
func clean(s string) string {
	return safe.LogLine(strings.Join(strings.Fields(s), " "))
}
