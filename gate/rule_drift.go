package gate

import "github.com/rubricgate/rubricgate/finding"

// driftOutcome is what the drift rule found, beside its ruling.
type driftOutcome struct {
	ruling
	// Check is the drift rule's outcome (nil when it did not run).
	Check *DriftCheck
}

// driftInputOf is the drift rule's input for a run compared with b: the
// drop check's change (on its basis: the items in common when the sets
// differ), this run's standard error from the paired comparison (0
// without one), and max-drift. A run the drop check did not compare has
// nothing to check (a zero anchor).
func driftInputOf(b *Baseline, dc *DropCheck, p *Paired, maxDrift float64) DriftInput {
	if b == nil || dc == nil || !(dc.Baseline > 0) {
		return DriftInput{}
	}
	in := DriftInput{Anchor: b.Anchor, BaselineScore: b.Score, Change: dc.Current/dc.Baseline - 1, MaxDrift: maxDrift}
	if se, _, ok := RunNoise(p, dc.Baseline); ok {
		// On the baseline's scale: the SE of the change, times its score.
		in.RunSE = se / dc.Baseline * b.Score
	}
	return in
}

// driftRule bounds the cumulative drop: a run max-drift or more below the
// branch's anchor, beyond noise (CheckDrift), blocks unless accepted, on
// the baseline branch too, like the relative drop: a regression landed in
// slices under max-drop each is still a regression. When the drop check
// already blocks the run (dropBlocks), its reason stands for both: the
// figures are in the report (DriftCheck) and the comment's drift line,
// not in a second reason for the same drop.
func driftRule(in DriftInput, dropBlocks bool) driftOutcome {
	var out driftOutcome
	dc := CheckDrift(in)
	out.Check = dc
	if dc == nil || !dc.Blocks || dropBlocks {
		return out
	}
	f := finding.Finding{Kind: finding.CumulativeDrift, Params: finding.Params{
		DropParams: finding.DropParams{Change: dc.Cumulative, Baseline: dc.Anchor.Score, Current: dc.Current, MaxDrop: dc.MaxDrift},
	}}
	f.Commit = dc.Anchor.SHA
	out.Soft, out.Waivers = []finding.Finding{f}, []Waiver{WaiveDrift}
	return out
}
