package pipeline

import (
	"fmt"

	"github.com/rubricgate/rubricgate/gate"
)

// TriggeringRun is the run that triggered a workflow_run workflow, as its
// event payload and environment name it.
type TriggeringRun struct {
	// Repository is the repository this workflow runs in (owner/name);
	// PayloadRepository the triggering run's, from the payload ("" when the
	// payload does not say).
	Repository, PayloadRepository string
	// RunID and HeadSHA identify the triggering run.
	RunID   int64
	HeadSHA string
}

// CheckReport checks that g, read from source, is a gate report made inside
// GitHub Actions: it has a report, a run context and a pass or block
// decision.
func CheckReport(g *gate.GateReport, source string) error {
	if g.Report == nil || g.Context == nil || (g.Decision != gate.Pass && g.Decision != gate.Block) {
		return fmt.Errorf("report %s: not a rubricgate gate report made inside GitHub Actions (no decision or context)", source)
	}
	return nil
}

// CheckProvenance checks that a report another job made belongs to the run
// that triggered this one (repository, run id, head SHA) before it is
// posted: the fork-safe pattern, where the report is untrusted data.
func CheckProvenance(g *gate.GateReport, run TriggeringRun) error {
	if g.Context.Repository != run.Repository || (run.PayloadRepository != "" && run.PayloadRepository != run.Repository) {
		return fmt.Errorf("comment: report is for repository %q, the triggering run is in %q", g.Context.Repository, run.Repository)
	}
	if g.Context.RunID != run.RunID {
		return fmt.Errorf("comment: report was made by run %d, the triggering run is %d", g.Context.RunID, run.RunID)
	}
	if g.Context.HeadSHA != run.HeadSHA {
		return fmt.Errorf("comment: report is for commit %s, the triggering run's head is %s", g.Context.HeadSHA, run.HeadSHA)
	}
	return nil
}
