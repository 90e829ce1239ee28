package host

// TriggeringRun is the CI run whose report `rubricgate comment` posts (on
// GitHub, the run that triggered a workflow_run workflow), as the host
// reports it: trusted facts, unlike the report the run uploaded.
type TriggeringRun struct {
	// ID is the run's id.
	ID int64
	// Conclusion is how the run ended ("success", "failure", ...; "" when
	// unknown).
	Conclusion string
}
