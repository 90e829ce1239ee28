package render

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/gate"
)

// trendReport is the passing report of pass.md with a trend: five
// baselines, the last the one compared with, and this run's point.
func trendReport() *gate.GateReport {
	g := &gate.GateReport{
		Report: report(), Decision: gate.Pass, Comparable: true, MaxDrop: 0.02,
		Reasons:        []string{"aggregate score -1.00% vs the baseline (81.8 → 81.0), within max-drop 2%"},
		Baseline:       &gate.BaselineInfo{Score: 81.77, Kind: "dir", Source: "store/support-answers/main.json", CreatedAt: now.Add(-72 * time.Hour)},
		RelativeChange: f(-0.01), CI95: &[2]float64{-0.03, 0.012}, ComparedScore: f(80.95),
		Changes: changes(84, 81.25),
	}
	day := func(d int) time.Time { return now.Add(time.Duration(d-10) * 24 * time.Hour) }
	g.Trend = &gate.Trend{
		Points: []gate.TrendPoint{
			{Score: 78.2, SHA: "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567", Date: day(1)},
			{Score: 79.4, SHA: "1b2c3d4e5f60718293a4b5c6d7e8f9012345678a", Date: day(3)},
			{Score: 80.1, Date: day(5)}, // no commit: its date
			{Score: 82.3, SHA: "2c3d4e5f60718293a4b5c6d7e8f9012345678ab", Date: day(6)},
			{Score: 81.77, SHA: "3d4e5f60718293a4b5c6d7e8f9012345678abc", Date: day(7)},
		},
		Current: f(80.95),
	}
	g.Trend.CI95 = &[2]float64{81.77 * 0.97, 81.77 * 1.012}
	return g
}

func TestMarkdownTrendGolden(t *testing.T) {
	golden(t, "trend.md", Markdown(trendReport(), MarkdownOptions{Title: "rubricgate: support-answers", Now: now}))
}

// mermaidBlocks returns the bodies of the ```mermaid blocks of md.
func mermaidBlocks(t *testing.T, md string) []string {
	t.Helper()
	var out []string
	for _, part := range strings.Split(md, "```mermaid\n")[1:] {
		body, _, ok := strings.Cut(part, "```")
		if !ok {
			t.Fatalf("unclosed mermaid block:\n%s", md)
		}
		out = append(out, body)
	}
	return out
}

// Every text in the trend chart comes from a baseline file or a report,
// both untrusted: a hostile history (commits carrying quotes, newlines,
// fences, mermaid directives and HTML; scores out of range) must neither
// end the block nor put its text in it. Commits become labels only as hex;
// anything else is labelled with the point's date or position, and a score
// outside 0-100 is left out.
func TestMarkdownTrendHostileHistory(t *testing.T) {
	g := trendReport()
	hostile := []string{
		"abc\"]\n```\n<img src=x onerror=alert(1)>",
		"%%{init: {'theme':'dark'}}%%",
		"deadbeef\"; click A href \"javascript:alert(1)\"",
		"`rm -rf /`",
		"<script>alert(1)</script>",
		"0123456\n    line [1, 2]",
	}
	var pts []gate.TrendPoint
	for i, s := range hostile {
		pts = append(pts, gate.TrendPoint{Score: 70 + float64(i), SHA: s, Date: now.Add(time.Duration(i-20) * 24 * time.Hour)})
	}
	pts = append(pts,
		gate.TrendPoint{Score: 75, SHA: "not hex but long enough"}, // no date either: its position
		gate.TrendPoint{Score: math.NaN(), SHA: "aaaaaaa"},
		gate.TrendPoint{Score: 1e9, SHA: "bbbbbbb"},
		gate.TrendPoint{Score: -3, SHA: "ccccccc"},
		gate.TrendPoint{Score: 76, SHA: "ddddddd0"},
		gate.TrendPoint{Score: 77, SHA: "DDDDDDD1"}, // the same short label: kept apart
	)
	g.Trend.Points = append(pts, g.Trend.Points...)
	g.Trend.CI95 = &[2]float64{math.Inf(-1), 90} // not finite: no interval
	md := Markdown(g, MarkdownOptions{Title: "rubricgate: support-answers", Now: now})
	golden(t, "trend-hostile.md", md)
	blocks := mermaidBlocks(t, md)
	if len(blocks) != 2 {
		t.Fatalf("%d mermaid blocks, want the trend and the per-criterion chart:\n%s", len(blocks), md)
	}
	trend := blocks[0]
	for _, bad := range []string{"%%", "<", "`", "javascript", "click", "init", "rm -rf", "not hex", "NaN", "1e+09", "-3"} {
		if strings.Contains(trend, bad) {
			t.Errorf("the trend chart carries %q:\n%s", bad, trend)
		}
	}
	label := regexp.MustCompile(`^"([0-9a-f]{7}|\d{4}-\d{2}-\d{2}( \d{2}:\d{2}(:\d{2})?)?|\d+|this run)( \(\d+\))?"$`)
	lines := strings.Split(strings.TrimSpace(trend), "\n")
	for _, l := range lines {
		l = strings.TrimSpace(l)
		switch {
		case l == "xychart-beta", strings.HasPrefix(l, `title "Score of the last `), strings.HasPrefix(l, `y-axis "score" `):
		case strings.HasPrefix(l, "x-axis [") && strings.HasSuffix(l, "]"):
			for _, lab := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(l, "x-axis ["), "]"), ", ") {
				if !label.MatchString(lab) {
					t.Errorf("label %s is not a short commit, a date, a position or this run", lab)
				}
			}
		case strings.HasPrefix(l, "line [") && regexp.MustCompile(`^line \[[0-9.]+(, [0-9.]+)*\]$`).MatchString(l):
		default:
			t.Errorf("unexpected line in the trend chart: %q", l)
		}
	}
	if !strings.Contains(trend, `"ddddddd", "ddddddd (2)"`) {
		t.Errorf("equal short commits not kept apart:\n%s", trend)
	}
	if strings.Count(trend, "line [") != 1 {
		t.Errorf("an interval that is not finite is drawn:\n%s", trend)
	}
}

// Points without a commit (a local store's) that share a date are told
// apart by their time, to the minute, else to the second; a date alone
// stays a date, and only points equal to the second are numbered.
func TestTrendLabelsOfOneDay(t *testing.T) {
	day := time.Date(2026, 12, 2, 9, 15, 0, 0, time.UTC)
	tr := &gate.Trend{Points: []gate.TrendPoint{
		{Score: 80, Date: day.Add(-24 * time.Hour)},
		{Score: 81, Date: day},
		{Score: 82, Date: day.Add(5 * time.Hour)},
		{Score: 83, Date: day.Add(5*time.Hour + 20*time.Second)},
		{Score: 84, Date: day.Add(7 * time.Hour)},
		{Score: 85, Date: day.Add(7 * time.Hour)},
		{Score: 86, SHA: "a1b2c3d4", Date: day.Add(8 * time.Hour)},
	}}
	var got []string
	for _, p := range trendPoints(tr) {
		got = append(got, p.label)
	}
	want := []string{"2026-12-01", "2026-12-02 09:15", "2026-12-02 14:15:00", "2026-12-02 14:15:20",
		"2026-12-02 16:15:00", "2026-12-02 16:15:00 (2)", "a1b2c3d"}
	if !slices.Equal(got, want) {
		t.Errorf("labels\n got %q\nwant %q", got, want)
	}
}

// The caption says what the chart holds without an interval or a
// comparable point, and a trend of one baseline draws nothing.
func TestMarkdownTrendCases(t *testing.T) {
	g := trendReport()
	g.Trend.CI95 = nil
	md := Markdown(g, MarkdownOptions{})
	if !strings.Contains(md, "then this run at **81.0** (no paired interval)") || strings.Count(mermaidBlocks(t, md)[0], "line [") != 1 {
		t.Errorf("no interval:\n%s", md)
	}
	g.Trend.Current = nil
	md = Markdown(g, MarkdownOptions{})
	if !strings.Contains(md, "this run is not comparable with them and is not shown") || strings.Contains(md, `"this run"`) {
		t.Errorf("not comparable:\n%s", md)
	}
	g.Trend.Points = g.Trend.Points[:1]
	if md := Markdown(g, MarkdownOptions{}); strings.Contains(md, "Score of the last") || strings.Contains(md, "Trend:") {
		t.Errorf("a single baseline drew a trend:\n%s", md)
	}
	g.Trend = nil
	if md := Markdown(g, MarkdownOptions{}); strings.Contains(md, "Trend:") {
		t.Errorf("no trend drew one:\n%s", md)
	}
}

// A report claiming thousands of points (a report is untrusted) shows the
// last 31, and the trend goes, with the other charts, when the comment
// must shrink.
func TestMarkdownTrendBounded(t *testing.T) {
	g := trendReport()
	var pts []gate.TrendPoint
	for i := range 5000 {
		pts = append(pts, gate.TrendPoint{Score: 50 + float64(i%40), SHA: fmt.Sprintf("%07x", i), Date: now})
	}
	g.Trend.Points = pts
	md := Markdown(g, MarkdownOptions{})
	if !strings.Contains(md, "Score of the last 31 baselines") || strings.Contains(md, `"0000000"`) || !strings.Contains(md, fmt.Sprintf(`"%07x"`, 4999)) {
		t.Errorf("not the last 31 points:\n%s", md)
	}
	tight := Markdown(g, MarkdownOptions{Budget: 1500})
	if len(tight) > 1500 || strings.Contains(tight, "Score of the last") {
		t.Errorf("a tight budget (%d bytes) kept the trend:\n%s", len(tight), tight)
	}
}

// The text report and the log carry the trend in one line.
func TestTrendLine(t *testing.T) {
	g := trendReport()
	want := "trend 78.2 to 81.8 over the last 5 baselines (low 78.2, high 82.3); this run 81.0 (95% CI 79.3 .. 82.8)"
	if got := TrendLine(g); got != want {
		t.Errorf("TrendLine = %q\nwant %q", got, want)
	}
	var buf bytes.Buffer
	if err := GateText(&buf, g, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "\n"+want+"\n") {
		t.Errorf("GateText lacks the trend line:\n%s", buf.String())
	}
	found := false
	for _, e := range DecisionLog(g, "", false) {
		found = found || e.Line == "  "+want
	}
	if !found {
		t.Errorf("DecisionLog lacks the trend line: %+v", DecisionLog(g, "", false))
	}
	g.Trend.Current = nil
	if got := TrendLine(g); got != "trend 78.2 to 81.8 over the last 5 baselines (low 78.2, high 82.3)" {
		t.Errorf("not comparable: %q", got)
	}
	g.Trend.Points = g.Trend.Points[:1]
	if got := TrendLine(g); got != "" {
		t.Errorf("one baseline: %q", got)
	}
}

// The anchor is drawn as a flat line across the chart, with the floor
// max-drift below it when the drift rule ran; values out of range (the
// report is untrusted) are left out.
func TestMarkdownTrendAnchor(t *testing.T) {
	g := trendReport()
	g.Trend.Anchor, g.Trend.Floor = f(84.5), f(84.5*0.95)
	md := Markdown(g, MarkdownOptions{})
	chart := mermaidBlocks(t, md)[0]
	if !strings.Contains(chart, "line [84.5, 84.5, 84.5, 84.5, 84.5, 84.5]") || !strings.Contains(chart, "line [80.3, 80.3, 80.3, 80.3, 80.3, 80.3]") {
		t.Errorf("no anchor and floor lines:\n%s", chart)
	}
	if !strings.Contains(md, "the branch's anchor at **84.5** and, max-drift below it, **80.3**") {
		t.Errorf("no caption for the anchor:\n%s", md)
	}
	g.Trend.Floor = nil
	if md := Markdown(g, MarkdownOptions{}); strings.Count(mermaidBlocks(t, md)[0], "line [") != 4 || !strings.Contains(md, "the branch's anchor at **84.5**._") {
		t.Errorf("anchor without a floor:\n%s", md)
	}
	g.Trend.Anchor = f(140)
	if md := Markdown(g, MarkdownOptions{}); strings.Contains(md, "anchor") || strings.Count(mermaidBlocks(t, md)[0], "line [") != 3 {
		t.Errorf("an anchor out of range was drawn:\n%s", md)
	}
}

// With a pooled baseline every figure says which baseline it is: the
// score row the pool's mean, the criteria the last run's own, and the
// trend's interval lines leave the pool's mean, not the last run's point.
func TestMarkdownPooledBaselineFigures(t *testing.T) {
	g := trendReport()
	g.Baseline.Score, g.Baseline.PooledRuns = 80.8, 4
	g.Trend.CI95 = &[2]float64{80.8 * 0.97, 80.8 * 1.012}
	md := Markdown(g, MarkdownOptions{Title: "rubricgate", Now: now})
	for _, want := range []string{
		"| | Baseline (mean of the last 4 runs) | Current |",
		"| Criterion | Weight | Baseline (last run) | Current |",
		"the two lines that leave the baseline's 80.8, the mean of its last 4 runs; the line shows each run's own score",
		"line [78.2, 79.4, 80.1, 82.3, 81.8, 81.0]",
		"line [78.2, 79.4, 80.1, 82.3, 80.8, 78.4]",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in\n%s", want, md)
		}
	}
	g.Baseline.PooledRuns = 0
	md = Markdown(g, MarkdownOptions{Title: "rubricgate", Now: now})
	if strings.Contains(md, "(last run)") || strings.Contains(md, "mean of") {
		t.Errorf("a single-run baseline is labelled as pooled:\n%s", md)
	}
}
