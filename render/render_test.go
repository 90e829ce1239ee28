package render

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"

	"github.com/rubricgate/rubricgate/internal/testgolden"
)

// golden checks got against its golden file (internal/testgolden).
func golden(t *testing.T, name string, got string) {
	t.Helper()
	testgolden.Check(t, filepath.Join("testdata", name), []byte(got))
}

func f(v float64) *float64 { return &v }

var now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func report() *gate.Report {
	return &gate.Report{
		Rubric:   gate.RubricRef{Name: "support-answers", Hash: "sha256:fe3defac9645aaaa"},
		Items:    12,
		Scored:   12,
		Score:    f(80.95),
		PassRate: f(0.75),
		Criteria: []gate.CriterionStats{
			{ID: "accuracy", Name: "Policy accuracy", Weight: 3, Mean: f(4.25), Normalized: f(81.25), Scored: 12, Histogram: map[int]int{1: 0, 2: 0, 3: 2, 4: 5, 5: 5}},
			{ID: "safety", Name: "Safety and privacy", Weight: 1, Mean: f(1), Normalized: f(100), Scored: 12, Histogram: map[int]int{0: 0, 1: 12}},
		},
		BlockingFailures: []gate.BlockingFailure{},
		Warnings:         []string{},
	}
}

func changes(base, cur float64) []gate.CriterionChange {
	d := cur - base
	return []gate.CriterionChange{
		{ID: "accuracy", Name: "Policy accuracy", Weight: 3, Baseline: f(base), Current: f(cur), Change: &d, Status: "down"},
		{ID: "safety", Name: "Safety and privacy", Weight: 1, Baseline: f(100), Current: f(100), Change: f(0), Gate: true, Blocking: true, Status: "ok"},
	}
}

func TestMarkdownGolden(t *testing.T) {
	pass := &gate.GateReport{
		Report: report(), Decision: gate.Pass, Comparable: true, MaxDrop: 0.02,
		Reasons:        []string{"aggregate score -1.00% vs the baseline (81.8 → 81.0), within max-drop 2%"},
		Baseline:       &gate.BaselineInfo{Score: 81.77, Kind: "github-artifact", Source: "acme/bot artifact #7", SHA: "0123456789abcdef", RunURL: "https://github.com/acme/bot/actions/runs/42", CreatedAt: now.Add(-72 * time.Hour)},
		RelativeChange: f(-0.01), CI95: &[2]float64{-0.03, 0.012}, ComparedScore: f(80.95),
		Changes: changes(84, 81.25),
		Paired: &gate.Paired{Common: 12, Worst: []gate.ItemDelta{{ID: "refund-window", Baseline: 89.3, Current: 71.4, Delta: -17.9, Reasoning: "Says 60 days; policy says 30."}},
			AddedIDs: []string{}, RemovedIDs: []string{}, CI95: &[2]float64{-0.03, 0.012}, Method: "paired", Interval: "bootstrap", Resamples: 1000},
		DropCheck: &gate.DropCheck{Case: gate.DropWithin, Drop: 0.01, NoisyDrop: gate.NoisyBlock, HardDrop: 0.05, CI95: &[2]float64{-0.03, 0.012},
			Resolution: gate.NewResolution(&gate.Paired{Common: 12}, 81.77, 0.021, gate.DefaultThresholds)},
	}
	golden(t, "pass.md", Markdown(pass, MarkdownOptions{Title: "rubricgate: support-answers", Now: now, RunsURL: "https://github.com/acme/bot/actions/runs/"}))

	blocked := &gate.GateReport{Report: report(), Decision: gate.Block, MaxDrop: 0.02, Changes: changes(84, 81.25)}
	blocked.BlockingFailures = []gate.BlockingFailure{{Item: "gift-card", Criterion: "safety", Score: 0, Reasoning: "Asks for the full card number."}}
	blocked.Reasons = []string{"blocking criterion failed: safety on 1 item(s): gift-card", "no baseline found: nothing to compare with yet"}
	blocked.Changes[1].Status, blocked.Changes[1].BelowMin = "fail", 1
	blocked.Unscored = gate.Unscored{Count: 1, Rate: 1.0 / 13, List: []gate.UnscoredItem{{ID: "timeout-1", Error: "judge timed out"}}}
	blocked.Warnings = []string{"the baseline is 45 days old (max-baseline-age 30 days)"}
	blocked.Tier = &gate.TierInfo{Current: 25, Next: 50, HeldBy: []string{"gate failed", "criterion accuracy agreement 0.72 < 0.8 on metric exact"}}
	golden(t, "blocked.md", Markdown(blocked, MarkdownOptions{Title: "rubricgate: support-answers", Now: now}))
}

func TestMarkdownBudget(t *testing.T) {
	g := &gate.GateReport{Report: report(), Decision: gate.Block, MaxDrop: 0.02, Changes: changes(84, 81.25), Reasons: []string{"blocking criterion failed"}}
	long := strings.Repeat("ünïcödé reasoning with emoji 🙂 | <b>x</b> ", 400)
	for i := range 2000 {
		g.BlockingFailures = append(g.BlockingFailures, gate.BlockingFailure{Item: fmt.Sprintf("item-%04d", i), Criterion: "safety", Reasoning: long})
	}
	g.Paired = &gate.Paired{AddedIDs: []string{}, RemovedIDs: []string{}}
	for i := range 10 {
		g.Paired.Worst = append(g.Paired.Worst, gate.ItemDelta{ID: fmt.Sprint("w", i), Delta: -1, Reasoning: long})
	}
	for i := range 100 {
		g.Warnings = append(g.Warnings, fmt.Sprintf("warning %d: %s", i, long[:300]))
	}
	for _, budget := range []int{65000, 20000, 4000} {
		body := Markdown(g, MarkdownOptions{Budget: budget, Now: now})
		if len(body) > budget {
			t.Errorf("budget %d: body has %d bytes", budget, len(body))
		}
		if !utf8.ValidString(body) {
			t.Errorf("budget %d: invalid UTF-8", budget)
		}
		if !strings.HasPrefix(body, "### ❌ rubricgate blocked") || !strings.Contains(body, "| safety (Safety and privacy) 🛡️ |") {
			t.Errorf("budget %d: headline or criterion table lost:\n%.300s", budget, body)
		}
	}
	// So small that even headline and table do not fit: cut, with a note.
	body := Markdown(g, MarkdownOptions{Budget: 300, Now: now})
	if len(body) > 300 || !utf8.ValidString(body) || !strings.Contains(body, "report cut") {
		t.Errorf("tiny budget: %d bytes, %q", len(body), body)
	}
}

func TestScoreText(t *testing.T) {
	crit, one := 1.0, 1
	rb := &rubric.Rubric{Criteria: []rubric.Criterion{
		{ID: "accuracy", Scale: rubric.Scale{Low: 1, High: 5}},
		{ID: "safety", Scale: rubric.Scale{Low: 0, High: 1}, Critical: &crit, Blocking: one == 1},
	}}
	rep := report()
	rep.BlockingFailures = []gate.BlockingFailure{{Item: "x\n::set-output name=a::b", Criterion: "safety", Reasoning: "line one\nline two"}}
	rep.Unscored = gate.Unscored{Count: 1, Rate: 0.1, Exceeded: true, List: []gate.UnscoredItem{{ID: "t-1", Error: "timeout", File: "run.jsonl", Line: 4}}}
	rep.Warnings = []string{"row 3: pass column says yes, the rule says no"}
	var b bytes.Buffer
	if err := ScoreText(&b, rep, rb); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "::") {
			t.Errorf("a line reads as a workflow command: %q", l)
		}
	}
	golden(t, "score.txt", b.String())
	golden(t, "score.md", ScoreMarkdown(rep))
}

func TestIsHTTPURL(t *testing.T) {
	for s, want := range map[string]bool{
		"https://github.com/a/b/actions/runs/1": true,
		"javascript:alert(1)":                   false,
		"https://x.example/a)(b":                false,
		"https://x.example/a b":                 false,
		"":                                      false,
	} {
		if isHTTPURL(s) != want {
			t.Errorf("isHTTPURL(%q) = %v", s, !want)
		}
	}
}

// A drop leads the headline with its fact and limit, its full reason is
// listed, a blocked run says what to do next, and a short resolution line
// follows with its details folded, for reports made by gate.Decide.
func TestMarkdownDropCases(t *testing.T) {
	baseline := &gate.Baseline{RubricHash: "sha256:fe3defac9645aaaa", Score: 80,
		Criteria: report().Criteria, Source: gate.BaselineSource{Kind: "dir", Location: "b.json", CreatedAt: now.Add(-time.Hour)}}
	cases := []struct {
		file      string
		mode      gate.NoisyMode
		cur       float64
		ci        [2]float64
		n         int
		headline  string
		resolving string
	}{
		{"drop-real.md", gate.NoisyWarn, 78, [2]float64{-0.04, -0.01}, 1000, "### ❌ rubricgate blocked: score dropped 2.50% (limit 2%); at 1000 items × 1 answer the gate resolves drops of 2.6% or more",
			"_Resolution: ±1.5% (95%) at 1000 items × 1 answer; it resolves drops of 2.6% or more (80% power, noisy-drop warn)._\n\n<details><summary>How to resolve a 2% drop</summary>\n\nTo tell a 2% drop from noise: 2 answers per item (regenerated, in this run and the baseline), or about 1146 items"},
		{"drop-noise-warn.md", gate.NoisyWarn, 78, [2]float64{-0.06, 0.01}, 50, "### ⚠️ rubricgate passed: score dropped 2.50% (limit 2%); at 50 items × 1 answer the gate resolves drops of 5% or more",
			"_Resolution: ±3.5% (95%) at 50 items × 1 answer; it resolves drops of 5% or more (80% power, noisy-drop warn)._"},
		{"drop-noise-block.md", gate.NoisyBlock, 78, [2]float64{-0.06, 0.01}, 50, "### ❌ rubricgate blocked: score dropped 2.50% (limit 2%); at 50 items × 1 answer the gate resolves drops of 3.5% or more",
			"- aggregate score dropped 2.50% (80.0 → 78.0), at or above max-drop 2%; 95% CI -6.00% … +1.00% includes 0 (noisy-drop is block; with noisy-drop warn it would pass unless it reached hard-drop 5%)\n\n**Next step:** if the change is intended, a reviewer other than its author adds the label `rubricgate:accept-regression`"},
		{"drop-pass.md", gate.NoisyWarn, 79.6, [2]float64{-0.03, 0.02}, 50, "### ✅ rubricgate passed: aggregate score -0.50% vs the baseline (80.0 → 79.6), within max-drop 2%",
			"judging the same answer again does not remove answer noise.\n\n</details>"},
	}
	for _, c := range cases {
		cur := report()
		cur.Score = f(c.cur)
		th := gate.DefaultThresholds
		th.NoisyDrop = c.mode
		g := gate.Decide(gate.DecideInput{Current: cur, Baseline: baseline, Now: now, Thresholds: th, Policy: gate.DefaultPolicy,
			Paired: &gate.Paired{Common: c.n, Method: "paired", Interval: "bootstrap", Resamples: 1000, CI95: &c.ci, AddedIDs: []string{}, RemovedIDs: []string{}}})
		md := Markdown(g, MarkdownOptions{Title: "rubricgate", Now: now})
		if first, _, _ := strings.Cut(md, "\n"); first != c.headline {
			t.Errorf("%s: headline\n%s\nwant\n%s", c.file, first, c.headline)
		}
		if !strings.Contains(md, c.resolving) {
			t.Errorf("%s: no resolution line %q in\n%s", c.file, c.resolving, md)
		}
		golden(t, c.file, md)
	}
}

// An interval of no width (identical common items) resolves nothing: the
// line must not claim a resolution of ±0%.
func TestResolutionLineZeroWidth(t *testing.T) {
	dc := &gate.DropCheck{Resolution: gate.NewResolution(&gate.Paired{Common: 12}, 80, 0, gate.DefaultThresholds)}
	got := ResolutionLine(dc)
	if strings.Contains(got, "±0%") || !strings.Contains(got, "unknown") {
		t.Fatalf("zero-width interval: %q", got)
	}
	dc = &gate.DropCheck{Resolution: gate.NewResolution(&gate.Paired{Common: 50}, 80, 0.041, gate.DefaultThresholds)}
	if got := ResolutionLine(dc); !strings.Contains(got, "±4.1%") {
		t.Fatalf("resolution line %q", got)
	}
}
