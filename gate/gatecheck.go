package gate

// GateCheck is the outcome of checking a rubric's blocking criteria on a
// run that was scored under another rubric.
type GateCheck struct {
	// Failures are the items that fail one of the blocking criteria.
	Failures []BlockingFailure
	// Unchecked counts, per blocking criterion, the items that do not carry it.
	Unchecked map[string]int
}
