package render

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/gate"
)

// maxTrendPoints is the most baselines the trend shows: a baseline's
// history (baseline.MaxHistory, 30) and the baseline itself. A report
// claiming more (a report is untrusted) shows its last ones.
const maxTrendPoints = 31

// trendPoint is a point of the trend as the chart shows it: its label
// and its score, both checked.
type trendPoint struct {
	label string
	score float64
}

// trendPoints are the points of t fit to show: scores that are finite and
// within 0-100, at most maxTrendPoints of them (the last), each labelled
// with its short commit when it has one (hex digits only), else its date
// (ISO; with the time, to the minute, else the second, where two points
// share a date, as a local store's runs of one day do), else its position
// (1, 2, ...). Nothing else of a point reaches the chart: a report, and the
// baseline it was made from, are untrusted.
func trendPoints(t *gate.Trend) []trendPoint {
	var pts []trendPoint
	var dated []bool // pts[i] is labelled by its date
	var dates []time.Time
	for i, p := range t.Points {
		if !inScore(p.Score) {
			continue
		}
		label, byDate := fmt.Sprintf("%d", i+1), false
		switch {
		case isHexCommit(p.SHA):
			label = strings.ToLower(p.SHA[:7])
		case !p.Date.IsZero() && p.Date.Year() >= 1 && p.Date.Year() <= 9999:
			label, byDate = p.Date.UTC().Format("2006-01-02"), true
		}
		pts = append(pts, trendPoint{label: label, score: p.Score})
		dated, dates = append(dated, byDate), append(dates, p.Date.UTC())
	}
	if len(pts) > maxTrendPoints {
		cut := len(pts) - maxTrendPoints
		pts, dated, dates = pts[cut:], dated[cut:], dates[cut:]
	}
	// Dates that repeat get the time, to the minute, then to the second.
	for _, layout := range []string{"2006-01-02 15:04", "2006-01-02 15:04:05"} {
		count := map[string]int{}
		for _, p := range pts {
			count[p.label]++
		}
		for i := range pts {
			if dated[i] && count[pts[i].label] > 1 {
				pts[i].label = dates[i].Format(layout)
			}
		}
	}
	// Mermaid merges equal categories: keep every label distinct.
	seen := map[string]int{}
	for i := range pts {
		if n := seen[pts[i].label]; n > 0 {
			seen[pts[i].label] = n + 1
			pts[i].label = fmt.Sprintf("%s (%d)", pts[i].label, n+1)
		} else {
			seen[pts[i].label] = 1
		}
	}
	return pts
}

// trendCurrent is this run's point and interval when fit to show (finite,
// the point within 0-100; the interval clipped to 0-100).
func trendCurrent(t *gate.Trend) (cur float64, ci *[2]float64, ok bool) {
	if t.Current == nil || !inScore(*t.Current) {
		return 0, nil, false
	}
	if c := t.CI95; c != nil && finite(c[0]) && finite(c[1]) && c[0] <= c[1] {
		ci = &[2]float64{clip(c[0]), clip(c[1])}
	}
	return *t.Current, ci, true
}

// writeTrend writes the trend as a mermaid xychart: the line of the
// baselines' scores running on to this run's point, and, with an
// interval, two more lines that leave the last baseline for the
// interval's ends. A caption says what the lines are. Nothing is written
// for a trend of fewer than two baselines.
func writeTrend(b *strings.Builder, g *gate.GateReport) {
	if g.Trend == nil {
		return
	}
	pts := trendPoints(g.Trend)
	if len(pts) < 2 {
		return
	}
	cur, ci, hasCur := trendCurrent(g.Trend)
	labels := make([]string, 0, len(pts)+1)
	scores := make([]string, 0, len(pts)+1)
	lo, hi := 100.0, 0.0
	see := func(v float64) { lo, hi = math.Min(lo, v), math.Max(hi, v) }
	for _, p := range pts {
		labels = append(labels, `"`+p.label+`"`)
		scores = append(scores, num1(p.score))
		see(p.score)
	}
	if hasCur {
		labels = append(labels, `"this run"`)
		scores = append(scores, num1(cur))
		see(cur)
		if ci != nil {
			see(ci[0])
			see(ci[1])
		}
	}
	anchor, floor, hasAnchor, hasFloor := trendAnchor(g.Trend)
	if hasAnchor {
		see(anchor)
	}
	if hasFloor {
		see(floor)
	}
	yLo, yHi := math.Max(0, math.Floor(lo)-1), math.Min(100, math.Ceil(hi)+1)
	fmt.Fprintf(b, "```mermaid\nxychart-beta\n    title \"Score of the last %d baselines", len(pts))
	if hasCur {
		b.WriteString(" and this run")
	}
	fmt.Fprintf(b, " (0-100)\"\n    x-axis [%s]\n    y-axis \"score\" %g --> %g\n    line [%s]\n",
		strings.Join(labels, ", "), yLo, yHi, strings.Join(scores, ", "))
	// The interval is of the baseline the run was compared with: a pooled
	// baseline's mean, not the last run's own score the line shows.
	from, pooled := pts[len(pts)-1].score, ""
	if bl := g.Baseline; bl != nil && bl.PooledRuns > 1 && inScore(bl.Score) {
		from = bl.Score
		pooled = fmt.Sprintf(", the mean of its last %d runs; the line shows each run's own score", bl.PooledRuns)
	}
	if hasCur && ci != nil {
		past := append(scores[:len(scores)-2:len(scores)-2], num1(from))
		line := strings.Join(past, ", ")
		fmt.Fprintf(b, "    line [%s, %s]\n    line [%s, %s]\n", line, num1(ci[0]), line, num1(ci[1]))
	}
	flat := func(v float64) string { return strings.TrimSuffix(strings.Repeat(num1(v)+", ", len(labels)), ", ") }
	if hasAnchor {
		fmt.Fprintf(b, "    line [%s]\n", flat(anchor))
	}
	if hasFloor {
		fmt.Fprintf(b, "    line [%s]\n", flat(floor))
	}
	b.WriteString("```\n\n")
	switch {
	case hasCur && ci != nil:
		fmt.Fprintf(b, "_Trend: the last %d baselines of the branch, oldest first, then this run at **%s** (95%% interval %s … %s, the two lines that leave the baseline's %s%s)._\n\n",
			len(pts), num1(cur), num1(ci[0]), num1(ci[1]), num1(from), pooled)
	case hasCur:
		fmt.Fprintf(b, "_Trend: the last %d baselines of the branch, oldest first, then this run at **%s** (no paired interval)._\n\n", len(pts), num1(cur))
	default:
		fmt.Fprintf(b, "_Trend: the last %d baselines of the branch, oldest first; this run is not comparable with them and is not shown._\n\n", len(pts))
	}
	switch {
	case hasAnchor && hasFloor:
		fmt.Fprintf(b, "_The flat lines: the branch's anchor at **%s** and, max-drift below it, **%s**: a run below that blocks (see the drift line above)._\n\n", num1(anchor), num1(floor))
	case hasAnchor:
		fmt.Fprintf(b, "_The flat line: the branch's anchor at **%s**._\n\n", num1(anchor))
	}
}

// trendAnchor is the anchor's score and the floor max-drift below it, when
// fit to show (within 0-100).
func trendAnchor(t *gate.Trend) (anchor, floor float64, hasAnchor, hasFloor bool) {
	if t.Anchor != nil && inScore(*t.Anchor) {
		anchor, hasAnchor = *t.Anchor, true
	}
	if hasAnchor && t.Floor != nil && inScore(*t.Floor) {
		floor, hasFloor = *t.Floor, true
	}
	return anchor, floor, hasAnchor, hasFloor
}

// TrendLine is the trend in one line for a terminal or a log: "trend 78.2
// to 81.8 over the last 12 baselines (low 77.0, high 82.1); this run 80.9
// (95% CI 78.5 .. 82.8)". It is "" for a trend of fewer than two baselines.
func TrendLine(g *gate.GateReport) string {
	if g.Trend == nil {
		return ""
	}
	pts := trendPoints(g.Trend)
	if len(pts) < 2 {
		return ""
	}
	lo, hi := pts[0].score, pts[0].score
	for _, p := range pts {
		lo, hi = math.Min(lo, p.score), math.Max(hi, p.score)
	}
	s := fmt.Sprintf("trend %s to %s over the last %d baselines (low %s, high %s)",
		num1(pts[0].score), num1(pts[len(pts)-1].score), len(pts), num1(lo), num1(hi))
	cur, ci, ok := trendCurrent(g.Trend)
	switch {
	case ok && ci != nil:
		s += fmt.Sprintf("; this run %s (95%% CI %s .. %s)", num1(cur), num1(ci[0]), num1(ci[1]))
	case ok:
		s += "; this run " + num1(cur)
	}
	return s
}

// isHexCommit reports whether s is a commit id: 7 to 64 hex digits.
func isHexCommit(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func inScore(v float64) bool { return v >= 0 && v <= 100 } // false for NaN

func clip(v float64) float64 { return math.Max(0, math.Min(100, v)) }
