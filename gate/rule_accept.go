package gate

import (
	"github.com/rubricgate/rubricgate/finding"
)

// acceptanceRule settles the decision from what the rules found (v) and
// the accept label (or --accept), whose step (Step, acceptstate.go) says
// what it does: hard findings block; soft ones block unless accepted, and
// a label whose effect blocks blocks again, first saying why; a drop
// within noise under noisy-drop rerun asks for a re-run. It records on g what the run waives (or would
// with the label on) and what the label made of it, and returns the
// reasons, in order.
func acceptanceRule(in DecideInput, g *GateReport, v *verdict) []finding.Finding {
	var acc *AcceptOutcome
	if !in.BaselineBranchRun || in.AcceptReason != "" {
		now := waivableRecord(in, g, v.waived)
		g.Waivable = &now
		if in.Accepted {
			acc = acceptance(in, now)
			g.Acceptance = acc
		}
	}
	hard, soft, pass, rerun := v.hard, v.soft, v.pass, v.rerun
	var reasons []finding.Finding
	switch {
	case len(hard) > 0:
		g.Decision = Block
		reasons = append(append(setSeverity(hard, finding.Error), setSeverity(soft, finding.Error)...), setSeverity(pass, finding.Notice)...)
	case len(soft) > 0 && acc != nil && acc.Effect != EffectAccept:
		// The label is on but its step blocks (not shown, not covered,
		// unreadable, refused): blocked again, first saying why and how to
		// accept it.
		g.Decision = Block
		reasons = append([]finding.Finding{acc.finding(in.AcceptLabel)}, setSeverity(soft, finding.Error)...)
		reasons = append(reasons, setSeverity(pass, finding.Notice)...)
	case len(soft) > 0 && in.Accepted:
		g.Accepted = true
		if g.RubricChange != nil && in.OnRubricChange != RubricChangeFail && !in.BaselineBranchRun {
			g.RubricChange.Accepted = true
		}
		if g.RemovedItems != nil && !in.BaselineBranchRun {
			g.RemovedItems.Accepted = true
		}
		reasons = setSeverity(pass, finding.Notice)
		for _, f := range soft {
			if in.AcceptReason != "" {
				f.AcceptReason = in.AcceptReason
			} else {
				f.Label = in.AcceptLabel
			}
			f.Severity = finding.Notice
			reasons = append(reasons, f)
		}
	case len(soft) > 0:
		g.Decision = Block
		reasons = append(setSeverity(soft, finding.Error), setSeverity(pass, finding.Notice)...)
	case len(rerun) > 0:
		// Nothing blocks, but the drop is within noise: neither a pass
		// nor a block until more answers are in.
		g.Decision = Rerun
		reasons = append(setSeverity(rerun, finding.Warning), setSeverity(pass, finding.Notice)...)
	default:
		reasons = setSeverity(pass, finding.Notice)
	}
	if g.Decision == Block {
		g.Next = nextStep(g, len(hard) == 0, in.AcceptLabel, in.Acceptance.By)
	}
	return reasons
}

// nextStep is what can be done about a blocked run: accept it with the
// label when nothing hard blocks it (acceptable), else fix the items of
// the blocking failures.
func nextStep(g *GateReport, acceptable bool, label string, by AcceptByPolicy) *NextStep {
	n := &NextStep{Acceptable: acceptable}
	if acceptable {
		n.AcceptLabel, n.AcceptBy = label, by
		if by == "" {
			n.AcceptBy = AcceptByOthers
		}
		return n
	}
	seen := map[string]bool{}
	for _, f := range g.BlockingFailures {
		if seen[f.Item] {
			continue
		}
		seen[f.Item] = true
		if len(n.Fix) < MaxNextItems {
			n.Fix = append(n.Fix, f.Item)
		} else {
			n.FixMore++
		}
	}
	return n
}

// setSeverity sets the severity of every finding of fs (in place) and returns fs.
func setSeverity(fs []finding.Finding, s finding.Severity) []finding.Finding {
	for i := range fs {
		fs[i].Severity = s
	}
	return fs
}
