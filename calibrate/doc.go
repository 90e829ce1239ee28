// Package calibrate measures how far an LLM judge can be trusted before its
// scores gate a release: agreement between human and judge ratings of the same
// items (exact and adjacent agreement, Cohen's kappa unweighted and quadratic,
// Krippendorff's alpha ordinal and interval, confusion matrices, the largest
// disagreements and advice), agreement between two human reviewers in one
// review sheet, judge-bias checks (judge and production model from the same
// family; length bias) and the staged-rollout tier decision.
//
// The package is pure: values in, values out. Computing builds report values
// (Compare, CompareReviewers, CheckLengthBias, DecideTier; the family check is package family);
// rendering them as Markdown or plain text lives in render.go. ReadRatings is
// a thin layer over native.ReadItems (results/native). Only ReadRatingsFile and CompareFiles
// touch files: they open the ratings through package results.
//
// # Conventions
//
// Every metric is a *float64 that is nil (JSON null) when it is undefined, so
// no NaN ever reaches JSON; a nil metric fails the pass check. In particular:
//
//   - With no pair (n == 0) every metric is nil.
//   - Cohen's kappa (weighted or not) when chance agreement is total
//     (p_e == 1: both raters used one and the same level on every item, so
//     observed agreement is total too) is 1 by convention.
//   - Krippendorff's alpha when no disagreement is possible (every pairable
//     value is the same level, D_e == 0) is nil: Krippendorff treats such data
//     as carrying no information about reliability.
//
// The "alpha" metric is Krippendorff's alpha with the ordinal metric, the
// natural choice for rating scales; "alpha_interval" selects the interval one.
// A criterion passes when its metric reaches (>=) the minimum agreement.
package calibrate
