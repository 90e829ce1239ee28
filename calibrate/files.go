package calibrate

import (
	"github.com/rubricgate/rubricgate/internal/fraction"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/results"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// ParseOptions reads the metric, minimum agreement and continuous
// tolerance as the user gives them ("kappa", "0.75" or "75%", "10%"); a
// mistake is a *usage.Error naming the flag.
func ParseOptions(metric, minAgreement, tolerance string) (Options, error) {
	m, err := ParseMetric(metric)
	if err != nil {
		return Options{}, usage.Errorf("--metric: %w", err)
	}
	min, err := fraction.ParsePositive("--min-agreement", minAgreement)
	if err != nil {
		return Options{}, err
	}
	tol, err := fraction.ParsePositive("--tolerance", tolerance)
	if err != nil {
		return Options{}, err
	}
	if tol >= 1 {
		return Options{}, usage.Errorf("--tolerance %s: want a share of the scale's range below 100%%, such as 10%%", tolerance)
	}
	return Options{Metric: m, MinAgreement: min, Tolerance: tol}, nil
}

// ReadRatingsFile reads one ratings file in any results format (format ""
// detects it, see results.Open), so another tool's results work too. Stdin
// ("-") and a pattern naming several files are *usage.Error.
func ReadRatingsFile(rb *rubric.Rubric, path, format string) ([]Rating, error) {
	if path == "-" {
		return nil, usage.Errorf("calibrate: name the ratings files (stdin is not read)")
	}
	inputs, closeAll, err := results.Open([]string{path}, format, nil)
	if err != nil {
		return nil, err
	}
	defer closeAll()
	if len(inputs) != 1 {
		return nil, usage.Errorf("calibrate: %q names %d files; expected one ratings file", path, len(inputs))
	}
	return ReadRatings(rb, inputs[0], native.ReadOptions{})
}

// Files names the ratings a calibration compares: Human and Judge, or one
// Reviewers sheet scored by two reviewers. Format is their results format
// ("": each file's own).
type Files struct {
	Human, Judge, Reviewers, Format string
}

// Result is one calibration: the judge-human agreement (Report) or the
// agreement of two reviewers (Reviewers); one of them is set.
type Result struct {
	Report    *Report
	Reviewers *ReviewerReport
}

// Passed reports whether every criterion reached the minimum agreement.
func (r *Result) Passed() bool {
	if r.Reviewers != nil {
		return r.Reviewers.Passed
	}
	return r.Report != nil && r.Report.Passed
}

// CompareFiles reads the ratings files and compares them: the two
// reviewers of f.Reviewers when it is set (see CompareReviewers), else
// f.Human with f.Judge (see Compare).
func CompareFiles(rb *rubric.Rubric, f Files, opts Options) (*Result, error) {
	if f.Reviewers != "" {
		rows, err := ReadRatingsFile(rb, f.Reviewers, f.Format)
		if err != nil {
			return nil, err
		}
		rep, err := CompareReviewers(rb, rows, opts)
		if err != nil {
			return nil, err
		}
		return &Result{Reviewers: rep}, nil
	}
	human, err := ReadRatingsFile(rb, f.Human, f.Format)
	if err != nil {
		return nil, err
	}
	judge, err := ReadRatingsFile(rb, f.Judge, f.Format)
	if err != nil {
		return nil, err
	}
	rep, err := Compare(rb, human, judge, opts)
	if err != nil {
		return nil, err
	}
	return &Result{Report: rep}, nil
}
