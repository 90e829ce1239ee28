package rubric

import (
	"io"
	"strings"

	"github.com/rubricgate/rubricgate/internal/usage"
)

// ExportFunc writes a rubric in one export format.
type ExportFunc func(w io.Writer, r *Rubric) error

// Exporter returns the export of format json ([ExportJSON]), csv
// ([ExportCSV]) or prompt ([ExportPrompt]), in any case; another name is a
// *usage.Error.
func Exporter(format string) (ExportFunc, error) {
	switch strings.ToLower(format) {
	case "json":
		return ExportJSON, nil
	case "csv":
		return ExportCSV, nil
	case "prompt":
		return ExportPrompt, nil
	}
	return nil, usage.Errorf("rubric export --format %q: expected json, csv or prompt", format)
}
