package calibrate

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// StaleError is a calibration made with another rubric than the one in use:
// any rubric revision needs a new calibration.
type StaleError struct {
	// Calibrated is the hash of the rubric the calibration was made with.
	Calibrated string
	// Current is the hash of the rubric in use.
	Current string
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("calibration is stale: it was made with rubric %s, the rubric in use is %s; re-run calibration", e.Calibrated, e.Current)
}

// CheckFresh returns a *StaleError unless rep was made with the rubric whose
// hash is rubricHash.
func CheckFresh(rep *Report, rubricHash string) error {
	if rep == nil {
		return errors.New("no calibration report")
	}
	if rep.Rubric.Hash != rubricHash {
		return &StaleError{Calibrated: rep.Rubric.Hash, Current: rubricHash}
	}
	return nil
}

// DefaultReportLimit is a sensible size cap for ReadReport.
const DefaultReportLimit = 16 << 20

// ReportError is a calibration report that cannot be used.
type ReportError struct {
	// Line is 1-based, 0 when unknown.
	Line int
	Msg  string
}

func (e *ReportError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("calibration report: line %d: %s", e.Line, e.Msg)
	}
	return "calibration report: " + e.Msg
}

// ReadReport parses a calibration report written as JSON by this package.
// It is strict: unknown keys, trailing data, a missing rubric hash, an
// unknown metric, a malformed confusion matrix or more than limit bytes
// (limit <= 0: DefaultReportLimit) are *ReportError values.
func ReadReport(r io.Reader, limit int64) (*Report, error) {
	if limit <= 0 {
		limit = DefaultReportLimit
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("calibration report: %w", err)
	}
	if int64(len(data)) > limit {
		return nil, &ReportError{Msg: fmt.Sprintf("larger than %d bytes", limit)}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var rep Report
	if err := dec.Decode(&rep); err != nil {
		off := decodeOffset(err)
		if off < 0 {
			off = unknownFieldOffset(data, err)
		}
		return nil, &ReportError{Line: lineAt(data, off), Msg: "invalid JSON: " + err.Error()}
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, &ReportError{Line: lineAt(data, dec.InputOffset()), Msg: "unexpected data after the report"}
	}
	if err := validateReport(&rep); err != nil {
		return nil, err
	}
	return &rep, nil
}

// decodeOffset is the byte offset of a decoding error.
func decodeOffset(err error) int64 {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return se.Offset
	case errors.As(err, &te):
		return te.Offset
	}
	return -1
}

// unknownFieldOffset finds where the unknown key of a DisallowUnknownFields
// error first occurs, or -1.
func unknownFieldOffset(data []byte, err error) int64 {
	name, ok := strings.CutPrefix(err.Error(), "json: unknown field ")
	if !ok {
		return -1
	}
	return int64(bytes.Index(data, []byte(name)))
}

// lineAt is the 1-based line of byte offset off.
func lineAt(data []byte, off int64) int {
	if off < 0 {
		return 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

func validateReport(rep *Report) error {
	bad := func(f string, a ...any) error { return &ReportError{Msg: fmt.Sprintf(f, a...)} }
	if rep.Rubric.Hash == "" {
		return bad("rubric.hash is missing")
	}
	if _, err := ParseMetric(string(rep.Metric)); err != nil || rep.Metric == "alpha_ordinal" {
		return bad("metric %q is not one of exact, adjacent, kappa, kappa_quadratic, alpha, alpha_interval", rep.Metric)
	}
	if rep.MinAgreement <= 0 || rep.MinAgreement > 1 {
		return bad("min_agreement %v is not in (0, 1]", rep.MinAgreement)
	}
	if len(rep.Criteria) == 0 {
		return bad("no criteria")
	}
	seen := map[string]bool{}
	for i := range rep.Criteria {
		c := &rep.Criteria[i]
		if c.ID == "" {
			return bad("criteria[%d]: id is missing", i)
		}
		if seen[c.ID] {
			return bad("criteria[%d]: duplicate criterion %q", i, c.ID)
		}
		seen[c.ID] = true
		if c.N < 0 || c.NAOrMissing < 0 {
			return bad("criterion %q: negative count", c.ID)
		}
		if c.NABoth < 0 || c.NABoth > c.NAOrMissing {
			return bad("criteria[%d] (%s): na_both %d is not within 0..na_or_missing (%d)", i, c.ID, c.NABoth, c.NAOrMissing)
		}
		if c.Continuous != nil {
			if err := checkContinuous(c); err != nil {
				return err
			}
			continue
		}
		if c.Skipped != "" && len(c.Confusion.Levels) == 0 && len(c.Confusion.Counts) == 0 {
			// A report from before continuous criteria were calibrated:
			// readable, but it calibrated nothing (a tier is held by it).
			continue
		}
		k := len(c.Confusion.Levels)
		if k < 2 || len(c.Confusion.Counts) != k {
			return bad("criterion %q: confusion matrix is not square over its levels", c.ID)
		}
		for j := 1; j < k; j++ {
			if c.Confusion.Levels[j] != c.Confusion.Levels[j-1]+1 {
				return bad("criterion %q: confusion levels %v are not consecutive", c.ID, c.Confusion.Levels)
			}
		}
		for j, row := range c.Confusion.Counts {
			if len(row) != k {
				return bad("criterion %q: confusion row %d has %d cells, want %d", c.ID, j, len(row), k)
			}
			for _, v := range row {
				if v < 0 {
					return bad("criterion %q: negative count in confusion row %d", c.ID, j)
				}
			}
		}
		if total := c.Confusion.total(); total != c.N {
			return bad("criterion %q: confusion matrix counts %d pairs, n is %d", c.ID, total, c.N)
		}
	}
	return VerifyFigures(rep)
}

// VerifyFigures recomputes every figure of rep that a decision reads from
// the stored confusion matrices and counts (n, na_or_missing, na_both):
// each criterion's metrics, mean_diff, not_applicable and pass (under the
// report's metric and min_agreement), and the report's passed. A figure
// that disagrees is a *ReportError naming the criterion and the JSON field:
// the file was edited by hand (say, failing criteria marked
// not_applicable). A continuous criterion's figures are recomputed from its
// stored statistics; a criterion an older report skipped is left alone. It does
// not make the file evidence: matrix and counts can be forged together.
func VerifyFigures(rep *Report) error {
	passed := true
	for i := range rep.Criteria {
		c := &rep.Criteria[i]
		passed = passed && c.Pass
		if c.Skipped != "" {
			continue
		}
		want := *c
		setFigures(&want, rep.Metric, rep.MinAgreement)
		for _, f := range []struct {
			field     string
			got, want *float64
		}{
			{"exact", c.Exact, want.Exact}, {"adjacent", c.Adjacent, want.Adjacent},
			{"kappa", c.Kappa, want.Kappa}, {"kappa_quadratic", c.KappaQuadratic, want.KappaQuadratic},
			{"alpha_ordinal", c.AlphaOrdinal, want.AlphaOrdinal}, {"alpha_interval", c.AlphaInterval, want.AlphaInterval},
			{"mean_diff", c.MeanDiff, want.MeanDiff},
		} {
			if !sameFigure(f.got, f.want) {
				return &ReportError{Msg: fmt.Sprintf("criteria[%d] (%s): %s is %s, but its confusion matrix gives %s", i, c.ID, f.field, fmtPtr(f.got), fmtPtr(f.want))}
			}
		}
		if c.NotApplicable != want.NotApplicable {
			return &ReportError{Msg: fmt.Sprintf("criteria[%d] (%s): not_applicable is %v, but its counts give %v (n %d, na_both %d, na_or_missing %d; not applicable means both raters said na on every joined item)",
				i, c.ID, c.NotApplicable, want.NotApplicable, c.N, c.NABoth, c.NAOrMissing)}
		}
		if c.Pass != want.Pass {
			return &ReportError{Msg: fmt.Sprintf("criteria[%d] (%s): pass is %v, but its %s figure and min_agreement %g give %v", i, c.ID, c.Pass, rep.Metric, rep.MinAgreement, want.Pass)}
		}
	}
	if rep.Passed != passed {
		return &ReportError{Msg: fmt.Sprintf("passed is %v, but its criteria give %v", rep.Passed, passed)}
	}
	return nil
}

// sameFigure compares two stored figures (nil: undefined), allowing for a
// tool that wrote fewer digits.
func sameFigure(a, b *float64) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return math.Abs(*a-*b) <= 1e-9*math.Max(1, math.Abs(*b))
}

func fmtPtr(v *float64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}
