package render

import (
	"io"

	"github.com/rubricgate/rubricgate/calibrate"
)

// CalibrationFunc writes a calibration in one format.
type CalibrationFunc func(w io.Writer, r *calibrate.Result) error

// CalibrationTable returns the renderers of a calibration by format name:
// "json", "markdown" and "text", for a judge-human report or a reviewers'
// one (untrusted text escaped by internal/safe, as in every report).
func CalibrationTable() map[string]CalibrationFunc {
	pick := func(rep func(io.Writer, *calibrate.Report) error, rev func(io.Writer, *calibrate.ReviewerReport) error) CalibrationFunc {
		return func(w io.Writer, r *calibrate.Result) error {
			if r.Reviewers != nil {
				return rev(w, r.Reviewers)
			}
			return rep(w, r.Report)
		}
	}
	return map[string]CalibrationFunc{
		"json": pick(func(w io.Writer, r *calibrate.Report) error { return calibrate.WriteJSON(w, r) },
			func(w io.Writer, r *calibrate.ReviewerReport) error { return calibrate.WriteJSON(w, r) }),
		"markdown": pick(calibrate.WriteMarkdown, calibrate.WriteReviewersMarkdown),
		"text":     pick(calibrate.WriteText, calibrate.WriteReviewersText),
	}
}
