package finding

import "fmt"

// The kinds of the drift rule: the cumulative drop below the branch's
// anchor.
const (
	// CumulativeDrift: the run is max-drift or more below the branch's
	// anchor, beyond noise. Change (the cumulative change since the
	// anchor, negative), Baseline (the anchor's score), Current (this
	// run's, on the anchor's scale), MaxDrop (max-drift), Commit (the
	// commit that set the anchor, "" when unknown), and Label or
	// AcceptReason when accepted.
	CumulativeDrift Kind = "cumulative-drift"
)

// driftKinds are the renderers of these kinds (see renderers).
var driftKinds = map[Kind]renderer{
	CumulativeDrift: renderCumulativeDrift,
}

func renderCumulativeDrift(f Finding, e escaper) string {
	anchor := "the branch's anchor"
	if c := f.Commit; c != "" {
		if len(c) > 7 {
			c = c[:7]
		}
		anchor += " (set at " + e.id(c) + ")"
	}
	s := fmt.Sprintf("aggregate score %s%% below %s (%s), at or beyond max-drift %s and beyond noise: drops under max-drop add up since the anchor",
		DropPct(-f.Change, f.MaxDrop), anchor, Scores(f.Baseline, f.Current, f.MaxDrop), Pct(f.MaxDrop))
	return accepted(e, f, s)
}
