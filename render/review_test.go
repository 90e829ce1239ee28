package render

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
)

// REVIEW: a report posted by `rubricgate comment` (publish.PostReport) is
// the pull request's own data. Its findings are rendered when their texts
// equal its reasons/warnings, which the forger controls too, so every
// parameter a finding renders must be escaped. Role and the rubric hashes
// (From/To, through ShortHash) are written raw.
func TestReviewForgedFindingParamsRaw(t *testing.T) {
	role := `<img src=x> @octocat [click](https://evil.example) <!-- hides the rest, footer included`
	fs := []finding.Finding{
		{Kind: finding.RubricRescored, Severity: finding.Warning, Params: finding.Params{RubricParams: finding.RubricParams{From: "![](//e.co/)", To: "@octocat"}}},
		{Kind: finding.JudgeModelMissing, Severity: finding.Warning, Params: finding.Params{JudgeParams: finding.JudgeParams{Role: role}}},
	}
	g := &gate.GateReport{Report: report(), Decision: gate.Pass, MaxDrop: 0.02, Changes: changes(84, 84), Findings: fs}
	g.Warnings = finding.Texts(fs) // the forger makes the strings match
	md := Markdown(g, MarkdownOptions{Title: "rubricgate", Now: now})
	for _, raw := range []string{"<img src=x", "@octocat", "[click](https://evil.example)", "![](//e.co/)", "<!--"} {
		if strings.Contains(md, raw) {
			t.Errorf("untrusted %q reaches the comment unescaped", raw)
		}
	}
}

// REVIEW (older than today's changes): the paired method is written raw.
func TestReviewForgedPairedMethodRaw(t *testing.T) {
	g := &gate.GateReport{Report: report(), Decision: gate.Pass, MaxDrop: 0.02, Changes: changes(84, 84)}
	g.Paired = &gate.Paired{Common: 3, Method: "<!-- @octocat", Interval: "bootstrap", Resamples: 10, CI95: &[2]float64{-1, 1}}
	md := Markdown(g, MarkdownOptions{Title: "rubricgate", Now: now})
	if strings.Contains(md, "<!-- @octocat") {
		t.Errorf("untrusted Paired.Method reaches the comment unescaped")
	}
}

// REVIEW: a forged report never panics the renderer (rubricgate comment
// renders whatever the pull request's job uploaded).
func FuzzReviewForgedReport(f *testing.F) {
	if seed, err := os.ReadFile("../gate/testdata/report.golden.json"); err == nil {
		f.Add(seed)
	}
	f.Add([]byte(`{"decision":"block","context":{},"rubric":{"name":"x"},"findings":[{"kind":"acceptance-not-covered","adds":["a","b","c","d","e","f","g"]}],"reasons":["x"],"paired":{"worst":[{"id":"a"}],"ci95":[0,1]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var g gate.GateReport
		if json.Unmarshal(data, &g) != nil || g.Report == nil {
			return
		}
		g.Reasons = finding.Texts(g.Findings)
		for _, b := range []int{0, 300, 5000} {
			md := Markdown(&g, MarkdownOptions{Budget: b, Now: now})
			if b > 0 && len(md) > b {
				t.Fatalf("budget %d: %d bytes", b, len(md))
			}
		}
	})
}

// The baseline's run URL comes from the baseline file or, in `comment
// --report`, from the pull request's own report: it is a link only to a run
// of this repository on this server, otherwise escaped text (issue 15 §7).
func TestBaselineRunURLLinksOnlyToThisRepositorysRuns(t *testing.T) {
	const runs = "https://github.com/acme/bot/actions/runs/"
	for _, tc := range []struct {
		url, runs string
		link      bool
	}{
		{runs + "42", runs, true},
		{"https://evil.example/acme/bot/actions/runs/42", runs, false},
		{"https://github.com/other/repo/actions/runs/42", runs, false},
		{runs + "42/../../../../evil", runs, false},
		{runs + "42?x=https://evil.example", runs, false},
		{runs + "42#x", runs, false},
		{runs, runs, false},
		{runs + "042", runs, false},
		{"https://github.com/acme/bot/actions/runs/42", "", false}, // no server known: text
		{"http://github.com.evil.example/acme/bot/actions/runs/42", runs, false},
	} {
		g := &gate.GateReport{Report: report(), Decision: gate.Pass, MaxDrop: 0.02, Changes: changes(84, 84),
			Baseline: &gate.BaselineInfo{Kind: "github-artifact", Source: "acme/bot artifact #7", RunURL: tc.url}}
		md := Markdown(g, MarkdownOptions{Title: "rubricgate", Now: now, RunsURL: tc.runs})
		linked := strings.Contains(md, "[run]("+tc.url+")")
		if linked != tc.link {
			t.Errorf("run URL %q under %q: linked %v, want %v", tc.url, tc.runs, linked, tc.link)
		}
		if !tc.link {
			if strings.Contains(md, "]("+tc.url) {
				t.Errorf("run URL %q is a link", tc.url)
			}
			if !strings.Contains(md, "from run `") {
				t.Errorf("run URL %q is not shown as text:\n%s", tc.url, md)
			}
		}
	}
}

// An unscored item shows as such, not as a score of 0: in the largest
// regressions (compared at 0) and in the blocking failures (no score; it
// fails closed), in markdown, text and JUnit (issue 15 §6).
func TestUnscoredItemsShownAsUnscored(t *testing.T) {
	rep := report()
	rep.BlockingFailures = []gate.BlockingFailure{{Item: "q-7", Criterion: "safety", Unscored: true, Reasoning: "[no score: the item carries a judge error: timeout]"}}
	g := &gate.GateReport{Report: rep, Decision: gate.Block, MaxDrop: 0.02, Changes: changes(84, 84),
		Paired: &gate.Paired{Common: 3, Unscored: 1, AddedIDs: []string{}, RemovedIDs: []string{},
			Worst: []gate.ItemDelta{{ID: "q-7", Baseline: 80, Current: 0, Delta: -80, Reasoning: "timeout", Unscored: true}}}}
	md := Markdown(g, MarkdownOptions{Title: "rubricgate", Now: now})
	for _, want := range []string{"| q-7 | 80.0 | unscored (0) |", "- `q-7`: safety = no score", "(1 of those in common unscored now, compared at 0)"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	var junit strings.Builder
	if err := JUnit(&junit, g, JUnitOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(junit.String(), "item q-7 has no score on blocking criterion safety") {
		t.Errorf("junit:\n%s", junit.String())
	}
}
