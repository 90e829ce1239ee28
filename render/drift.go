package render

import (
	"fmt"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// driftFigures are the drift check's figures when fit to show: finite,
// the scores within 0-100 (a report is untrusted).
func driftFigures(g *gate.GateReport) (*gate.DriftCheck, bool) {
	dc := g.DriftCheck
	if dc == nil || !inScore(dc.Anchor.Score) || !finite(dc.Current) || !finite(dc.Cumulative) || !finite(dc.Margin) || !finite(dc.MaxDrift) || !finite(dc.Bound) {
		return nil, false
	}
	return dc, true
}

// anchorCause words what set the anchor; the acceptance's reason is
// untrusted text, escaped by esc.
func anchorCause(a gate.Anchor, esc func(string) string) string {
	at := ""
	if isHexCommit(a.SHA) {
		at = " at " + strings.ToLower(a.SHA[:7])
	}
	switch a.Cause {
	case gate.AnchorAccepted:
		s := "set by an accepted regression" + at
		if a.Reason != "" {
			s += ", “" + esc(a.Reason) + "”"
		}
		return s
	case gate.AnchorImprovement:
		return "raised by an improvement" + at
	}
	return "set by the branch's first baselines" + at
}

// driftSentence is the drift check in words: the anchor, this run's
// cumulative change since it and what is left of max-drift.
func driftSentence(dc *gate.DriftCheck, esc func(string) string, bold func(string) string) string {
	left := fmt.Sprintf("margin to max-drift %s: %.2f%%", pctPlain(dc.MaxDrift), 100*dc.Margin)
	if dc.Margin <= 0 {
		left = fmt.Sprintf("beyond max-drift %s", pctPlain(dc.MaxDrift))
		if !dc.Blocks {
			left += " but within noise (its one-sided 95% bound is " + signedPct(dc.Bound) + ")"
		}
	}
	return fmt.Sprintf("anchor %s (%s); this run %s, %s since the anchor: %s",
		bold(num1(dc.Anchor.Score)), anchorCause(dc.Anchor, esc), num1(dc.Current), bold(signedPct(dc.Cumulative)), left)
}

// writeDrift writes the anchor's line under the aggregate table.
func writeDrift(b *strings.Builder, g *gate.GateReport) {
	dc, ok := driftFigures(g)
	if !ok {
		return
	}
	bold := func(s string) string { return "**" + s + "**" }
	fmt.Fprintf(b, "Drift: %s.\n\n", driftSentence(dc, func(s string) string { return safe.Inline(s, 200) }, bold))
}

// DriftLine is the drift check in one line for a terminal or a log ("" without one).
func DriftLine(g *gate.GateReport) string {
	dc, ok := driftFigures(g)
	if !ok {
		return ""
	}
	return "drift: " + driftSentence(dc, safe.LogLine, func(s string) string { return s })
}
