package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/rubric"
)

// cmdRubric runs `rubric validate` and `rubric export`.
func cmdRubric(args []string, e *env) (int, error) {
	if len(args) == 0 {
		return exitError, usage.Errorf("rubric: expected validate or export")
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" {
		for _, sub := range []string{"rubric validate", "rubric export"} {
			fmt.Fprintf(e.stdout, "  %s\n      %s\n", helps[sub].Usage, helps[sub].Summary)
		}
		return exitPass, nil
	}
	if args[0] != "validate" && args[0] != "export" {
		return exitError, usage.Errorf("rubric: unknown subcommand %q (expected validate or export)", args[0])
	}
	fs := newFlags("rubric "+args[0], e)
	var format, out *string
	if args[0] == "export" {
		format = fs.String("format", "json", "json, csv (a blank review sheet) or prompt (an LLM-judge prompt)")
		out = fs.String("o", "-", "output file (- for stdout)")
	}
	pos, err := parseArgs(fs, args[1:])
	if err == nil && len(pos) != 1 {
		err = usage.Errorf("rubric %s: expected one rubric file", args[0])
	}
	var export rubric.ExportFunc
	if err == nil && format != nil {
		export, err = rubric.Exporter(*format)
	}
	if err != nil {
		return exitError, err
	}
	rb, warns, err := loadRubric(pos[0], e)
	if err != nil {
		return exitError, err
	}
	if export == nil {
		name := safe.LogLine(strings.Join(strings.Fields(rb.Name), " "))
		fmt.Fprintf(e.stdout, "%s: ok: rubric %q, %d criteria, %d warning(s), %s\n", pos[0], name, len(rb.Criteria), len(warns), rb.Hash())
		return exitPass, nil
	}
	if err := writeOutputs(e, []output{{Path: *out, Write: func(w io.Writer) error { return export(w, rb) }}}); err != nil {
		return exitError, err
	}
	return exitPass, nil
}
