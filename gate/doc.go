// Package gate scores a run against a rubric, compares it with a baseline
// and decides whether the gate passes. Scoring is Scorer (an item's
// weighted mean, the threshold and critical minimums), Tally and Run (the
// run's aggregate, folded in input order, and its Report); comparison is
// Pairer (items paired with the baseline's, the noise interval); the
// decision is Decide over a typed DecideInput, with the defaults, the 2%
// rule among them, in DefaultThresholds and DefaultPolicy. It is pure:
// values in, values out. It reads no file: results/native decodes results
// into the items it scores, and rendering lives in render.
package gate
