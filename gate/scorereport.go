package gate

// ScoreDecision is a score report (no baseline) as a gate report, for the
// renderers of gate reports: blocked when the run fails a hard gate on its
// own (see [Report.Blocked]), else passed.
func ScoreDecision(rep *Report) *GateReport {
	g := &GateReport{Report: rep, Decision: Pass}
	if rep.Blocked() {
		g.Decision = Block
	}
	return g
}
