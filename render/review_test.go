package render

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
)

// REVIEW: a report posted by `rubricgate comment` (pipeline.PostReport) is
// the pull request's own data. Its findings are rendered when their texts
// equal its reasons/warnings, which the forger controls too, so every
// parameter a finding renders must be escaped. Role and the rubric hashes
// (From/To, through ShortHash) are written raw.
func TestReviewForgedFindingParamsRaw(t *testing.T) {
	role := `<img src=x> @octocat [click](https://evil.example) <!-- hides the rest, footer included`
	fs := []finding.Finding{
		{Kind: finding.RubricRescored, Severity: finding.Warning, Params: finding.Params{From: "![](//e.co/)", To: "@octocat"}},
		{Kind: finding.JudgeModelMissing, Severity: finding.Warning, Params: finding.Params{Role: role}},
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
