package publish

import (
	"fmt"

	"github.com/rubricgate/rubricgate/gate"
)

// CheckReport checks that g, read from source, is a gate report made inside
// GitHub Actions: it has a report, a run context and a pass or block
// decision.
func CheckReport(g *gate.GateReport, source string) error {
	if g.Report == nil || g.Context == nil || (g.Decision != gate.Pass && g.Decision != gate.Block && g.Decision != gate.Rerun) {
		return fmt.Errorf("report %s: not a rubricgate gate report made inside GitHub Actions (no decision or context)", source)
	}
	return nil
}
