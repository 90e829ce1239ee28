package render

import (
	"fmt"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// The sections of the markdown report, in the order markdownAt writes them.

// writeHeadline writes the headline: the decision, its first reason, the
// other reasons as a list and what the interval can tell apart.
func writeHeadline(b *strings.Builder, g *gate.GateReport, o MarkdownOptions, reasons []string) {
	icon, word := "✅", "passed"
	if g.Decision == gate.Block {
		icon, word = "❌", "blocked"
	} else if g.Decision == gate.Rerun {
		icon, word = "🔁", "needs a re-run"
	} else if g.Accepted {
		icon, word = "⚠️", "passed (regression accepted)"
	}
	reason, list := "", reasons
	if lead := dropLead(g); lead != "" && len(reasons) > 0 {
		// The drop leads with its fact and limit; its full reason (the
		// interval, what noisy-drop does) is the first of the list.
		reason = ": " + lead
	} else if len(reasons) > 0 {
		reason, list = ": "+reasons[0], reasons[1:]
	}
	if len(reasons) > 0 && g.Decision == gate.Pass && !g.Accepted && g.DropCheck != nil && g.DropCheck.Case == gate.DropNoise {
		icon = "⚠️"
	}
	fmt.Fprintf(b, "### %s %s %s%s\n\n", icon, safe.Inline(o.Title, 80), word, reason)
	for _, r := range list {
		fmt.Fprintf(b, "- %s\n", r)
	}
	if len(list) > 0 {
		fmt.Fprintf(b, "\n")
	}
	if next := nextStepMarkdown(g); next != "" {
		fmt.Fprintf(b, "%s\n\n", next)
	}
	if line := resolutionLine(g.DropCheck); line != "" {
		fmt.Fprintf(b, "%s\n\n", line)
	}
}

// writeAggregate writes the aggregate table (the figures the decision
// used) and the notes on a re-scored or incomparable run.
func writeAggregate(b *strings.Builder, g *gate.GateReport) {
	fmt.Fprintf(b, "| | %s | Current | Change | 95%% CI |\n|---|---:|---:|---:|---:|\n", baselineColumn(g, true))
	// The figures the decision used (see headlineFigures); the full sets'
	// on a row of their own when they differ.
	hf := headlineFigures(g)
	change, ci := "—", "—"
	if hf.change != nil {
		change = gate.FormatChange(*hf.change, g.MaxDrop)
	}
	if hf.ci != nil {
		ci = fmt.Sprintf("%s … %s", signedPct(hf.ci[0]), signedPct(hf.ci[1]))
	}
	label := "Score (0-100)"
	if hf.basis != "" {
		label += ", " + hf.basis
	}
	fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", label, numPtr(hf.base), numPtr(hf.cur), change, ci)
	if hf.fullNote(0) != "" {
		fullChange := "—"
		if hf.fullChange != nil {
			fullChange = gate.FormatChange(*hf.fullChange, g.MaxDrop)
		}
		fmt.Fprintf(b, "| Score, full sets | %s | %s | %s | |\n", numPtr(hf.fullBase), numPtr(hf.fullCur), fullChange)
	}
	fmt.Fprintf(b, "| Pass rate | — | %s | | |\n", pctPtr(g.PassRate))
	fmt.Fprintf(b, "| Items | — | %d scored of %d | | |\n\n", g.Scored, g.Items)
	writeDrift(b, g)
	if g.Rescored != nil {
		fmt.Fprintf(b, "The rubric changed: the run was re-scored under the baseline's rubric to compare. Under the new rubric it scores **%s**.\n\n", numPtr(g.Rescored.CurrentRubricScore))
	}
	if !g.Comparable && g.Baseline != nil {
		fmt.Fprintf(b, "> [!WARNING]\n> **Scores are not comparable with the baseline**: the relative check was skipped. Hard gates still apply.\n\n")
	}
}

// writeCriteria writes the per-criterion table: always kept whole. When
// items were judged several times, a column shows each criterion's spread
// (the mean within-item standard deviation of the samples, raw scale).
func writeCriteria(b *strings.Builder, g *gate.GateReport) {
	spread := map[string]*float64{}
	if g.Report != nil && g.MaxSamples > 1 {
		for _, c := range g.Criteria {
			spread[c.ID] = c.Spread
		}
		fmt.Fprintf(b, "| Criterion | Weight | %s | Current | Change | Status | Spread |\n|---|---:|---:|---:|---:|---|---:|\n", baselineColumn(g, false))
	} else {
		fmt.Fprintf(b, "| Criterion | Weight | %s | Current | Change | Status |\n|---|---:|---:|---:|---:|---|\n", baselineColumn(g, false))
	}
	for _, c := range g.Changes {
		name := safe.Cell(c.ID, 60)
		if c.Name != "" && c.Name != c.ID {
			name += " (" + safe.Cell(c.Name, 60) + ")"
		}
		if c.Blocking {
			name += " 🛡️"
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |", name, num(c.Weight), numPtr(c.Baseline), numPtr(c.Current), signedPtr(c.Change), status(c))
		if len(spread) > 0 {
			fmt.Fprintf(b, " %s |", spreadText(spread[c.ID]))
		}
		fmt.Fprintf(b, "\n")
	}
	fmt.Fprintf(b, "\n")
}

// writeFailures lists the blocking failures, l.failures of them, with
// l.reasoning runes of each one's reasoning.
func writeFailures(b *strings.Builder, g *gate.GateReport, l level) {
	if n := len(g.BlockingFailures); n > 0 {
		fmt.Fprintf(b, "**Blocking failures (%d)**\n\n", n)
		for i, f := range g.BlockingFailures {
			if i == l.failures {
				fmt.Fprintf(b, "- … and %d more (see the JSON report)\n", n-i)
				break
			}
			line := fmt.Sprintf("- %s: %s = %s", safe.Code(f.Item, 80), safe.Inline(f.Criterion, 60), failureScore(f))
			if l.reasoning > 0 && f.Reasoning != "" {
				line += " — " + safe.Inline(f.Reasoning, l.reasoning)
			}
			fmt.Fprintf(b, "%s\n", line)
		}
		fmt.Fprintf(b, "\n")
	}
}

// writeUnscored lists the unscored items (judge errors), l.unscored of them.
func writeUnscored(b *strings.Builder, g *gate.GateReport, l level) {
	if g.Unscored.Count > 0 {
		fmt.Fprintf(b, "**Unscored items (%d, judge errors)**", g.Unscored.Count)
		if l.unscored > 0 {
			fmt.Fprintf(b, ":")
			for i, u := range g.Unscored.List {
				if i == l.unscored {
					fmt.Fprintf(b, " … and %d more", g.Unscored.Count-i)
					break
				}
				fmt.Fprintf(b, " %s", safe.Code(u.ID, 80))
			}
		}
		fmt.Fprintf(b, "\n\n")
	}
}

// writeWorst writes the largest item regressions, collapsed, l.worst of them.
func writeWorst(b *strings.Builder, g *gate.GateReport, l level) {
	if p := g.Paired; p != nil && l.worst > 0 && len(p.Worst) > 0 {
		k := min(l.worst, len(p.Worst))
		fmt.Fprintf(b, "<details><summary>Largest item regressions (%d)</summary>\n\n| Item | Baseline | Current | Change | Reasoning |\n|---|---:|---:|---:|---|\n", k)
		for _, d := range p.Worst[:k] {
			cur := num1(d.Current)
			if d.Unscored {
				cur = "unscored (0)"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", safe.Cell(d.ID, 80), num1(d.Baseline), cur, signed1(d.Delta), safe.Cell(d.Reasoning, max(l.reasoning, 1)))
		}
		fmt.Fprintf(b, "\n</details>\n\n")
	}
}

// writeItemSets says how the item sets compare and how the interval was
// made (with l.misc).
func writeItemSets(b *strings.Builder, g *gate.GateReport, l level) {
	if p := g.Paired; p != nil && l.misc {
		fmt.Fprintf(b, "Items: %d in common, %d added, %d removed", p.Common, p.Added, p.Removed)
		if p.Unscored > 0 {
			fmt.Fprintf(b, " (%d of those in common unscored now, compared at 0)", p.Unscored)
		}
		if l.listIDs > 0 && len(p.AddedIDs) > 0 {
			fmt.Fprintf(b, "; added: %s", idList(p.AddedIDs, l.listIDs, p.Added))
		}
		if l.listIDs > 0 && len(p.RemovedIDs) > 0 {
			fmt.Fprintf(b, "; removed: %s", idList(p.RemovedIDs, l.listIDs, p.Removed))
		}
		if p.CI95 != nil {
			if p.Interval == gate.IntervalNormal {
				fmt.Fprintf(b, ". CI: %s normal interval (delta method)", safe.Cell(string(p.Method), 20))
			} else {
				fmt.Fprintf(b, ". CI: %s bootstrap, %d resamples, fixed seed", safe.Cell(string(p.Method), 20), p.Resamples)
			}
		}
		fmt.Fprintf(b, ".\n\n")
	}
}

// writeWarnings lists the warnings, l.warnings of them (a count alone at 0).
func writeWarnings(b *strings.Builder, warnings []string, l level) {
	if n := len(warnings); n > 0 && l.warnings > 0 {
		fmt.Fprintf(b, "**Warnings**\n\n")
		for i, s := range warnings {
			if i == l.warnings {
				fmt.Fprintf(b, "- … and %d more\n", n-i)
				break
			}
			fmt.Fprintf(b, "- %s\n", s)
		}
		fmt.Fprintf(b, "\n")
	} else if n > 0 {
		fmt.Fprintf(b, "%d warning(s): see the job log.\n\n", n)
	}
}

// writeTier says whether the rollout tier may advance.
func writeTier(b *strings.Builder, g *gate.GateReport) {
	if t := g.Tier; t != nil {
		if t.MayAdvance {
			fmt.Fprintf(b, "**Rollout**: tier %d%% may advance to %d%%.\n\n", t.Current, t.Next)
		} else {
			fmt.Fprintf(b, "**Rollout**: tier %d%% holds.", t.Current)
			for _, h := range t.HeldBy {
				fmt.Fprintf(b, " %s.", safe.Inline(h, 200))
			}
			fmt.Fprintf(b, "\n\n")
		}
	}
}

// writeProvenance writes where the baseline came from, the rubric and max-drop.
func writeProvenance(b *strings.Builder, g *gate.GateReport, o MarkdownOptions) {
	if bl := g.Baseline; bl != nil {
		fmt.Fprintf(b, "<sub>Baseline: %s", safe.Inline(bl.Kind, 40))
		switch {
		case isRunURL(bl.RunURL, o.RunsURL):
			fmt.Fprintf(b, " from [run](%s)", bl.RunURL)
		case bl.RunURL != "":
			fmt.Fprintf(b, " from run %s", safe.Code(bl.RunURL, 120))
		case bl.Source != "":
			fmt.Fprintf(b, " %s", safe.Code(bl.Source, 120))
		}
		if bl.SHA != "" {
			fmt.Fprintf(b, " at %s", safe.Code(shortSHA(bl.SHA), 20))
		}
		if !bl.CreatedAt.IsZero() && !o.Now.IsZero() {
			fmt.Fprintf(b, ", %s old", age(o.Now.Sub(bl.CreatedAt)))
		}
		if bl.PooledRuns > 1 {
			fmt.Fprintf(b, ", pooling the last %d runs of its branch", bl.PooledRuns)
		}
		fmt.Fprintf(b, ". Rubric %s, max-drop %s.</sub>\n", safe.Code(shortSHA(trimHash(g.Rubric.Hash)), 20), pctPlain(g.MaxDrop))
	} else {
		fmt.Fprintf(b, "<sub>No baseline. Rubric %s.</sub>\n", safe.Code(shortSHA(trimHash(g.Rubric.Hash)), 20))
	}
}

// baselineColumn heads a table's baseline column: "Baseline", and, when
// the baseline pools runs, which baseline its figures are: the pool's mean
// (pooledFigures) or the last run's own (the per-criterion figures).
func baselineColumn(g *gate.GateReport, pooledFigures bool) string {
	switch {
	case g.Baseline == nil || g.Baseline.PooledRuns <= 1:
		return "Baseline"
	case pooledFigures:
		return fmt.Sprintf("Baseline (mean of the last %d runs)", g.Baseline.PooledRuns)
	}
	return "Baseline (last run)"
}
