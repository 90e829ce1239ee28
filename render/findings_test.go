package render

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
)

// The comment's reasons and warnings are rendered from the findings: ids
// from results are code spans, never markdown, and blocking failures of
// several criteria stay one reason.
func TestMarkdownFromFindings(t *testing.T) {
	hostile := "x*[click](https://evil.example)*<img src=x>"
	cur := report()
	cur.BlockingFailures = []gate.BlockingFailure{{Item: hostile, Criterion: "safety"}, {Item: "b", Criterion: "accuracy"}}
	cur.Warn(finding.Finding{Kind: finding.PassColumnDisagrees, File: "r.csv", Line: 4, Item: "**bold**", Params: finding.Params{RowParams: finding.RowParams{Score: 80}}})
	g := gate.Decide(gate.DecideInput{Current: cur, Now: now, Thresholds: gate.DefaultThresholds, Policy: gate.DefaultPolicy})
	md := Markdown(g, MarkdownOptions{Title: "rubricgate", Now: now})
	head, _, _ := strings.Cut(md, "\n")
	if want := "### ❌ rubricgate blocked: blocking criterion failed: `accuracy` on 1 item(s): `b`; `safety` on 1 item(s): `" + hostile + "`"; head != want {
		t.Errorf("headline\n%s\nwant\n%s", head, want)
	}
	if !strings.Contains(md, "- `r.csv`:4: item `**bold**`: the pass column says fail but the rubric gives pass") {
		t.Errorf("warning not rendered from its finding:\n%s", md)
	}
	if strings.Contains(md, "](https://evil") && !strings.Contains(md, "`"+hostile+"`") {
		t.Errorf("a hostile id became a link:\n%s", md)
	}
}

// A report whose findings do not render to its strings (an older version's,
// or one edited by hand) is rendered from the strings, escaped: nothing the
// strings say is lost.
func TestMarkdownFindingsFallBack(t *testing.T) {
	g := &gate.GateReport{Report: report(), Decision: gate.Block, MaxDrop: 0.02, Changes: changes(84, 81.25),
		Reasons:  []string{"a reason only the strings carry <b>"},
		Findings: []finding.Finding{{Kind: finding.NoBlockingFailed, Severity: finding.Notice}, {Kind: finding.Message, Severity: finding.Warning, Params: finding.Params{Detail: "other"}}}}
	g.Warnings = []string{"a warning only the strings carry"}
	md := Markdown(g, MarkdownOptions{Title: "rubricgate", Now: now})
	if !strings.Contains(md, "a reason only the strings carry &lt;b&gt;") || !strings.Contains(md, "- a warning only the strings carry") {
		t.Errorf("strings not rendered:\n%s", md)
	}
	if strings.Contains(md, "no blocking criterion failed") || strings.Contains(md, "- other") {
		t.Errorf("findings that disagree with the strings were rendered:\n%s", md)
	}
}

// Many warning findings with long untrusted text stay within the comment's
// budget, shortened like the strings were.
func TestMarkdownFindingsBudget(t *testing.T) {
	cur := report()
	long := strings.Repeat("ünïcödé | <b>x</b> `tick` ", 100)
	var fs []finding.Finding
	for i := range 3000 {
		fs = append(fs, finding.Finding{Kind: finding.PassColumnDisagrees, File: long, Line: i + 2, Item: fmt.Sprint(long, i),
			Params: finding.Params{RowParams: finding.RowParams{ColumnPass: true, Below: []finding.Below{{Criterion: long, Score: 0, Min: 1}}}}})
	}
	cur.Warn(fs...)
	crit := make([]string, 500)
	for i := range crit {
		crit[i] = fmt.Sprint(long, i)
	}
	cur.Warn(finding.Finding{Kind: finding.Message, Params: finding.Params{Detail: long}})
	g := gate.Decide(gate.DecideInput{Current: cur, Now: now, Thresholds: gate.DefaultThresholds, Policy: gate.DefaultPolicy})
	g.Findings = append([]finding.Finding{{Kind: finding.RubricChange, Severity: finding.Error, Params: finding.Params{RubricParams: finding.RubricParams{Criteria: crit}}}}, g.Findings...)
	g.Reasons = gate.Texts(g.Findings[:len(g.Findings)-len(g.Warnings)])
	for _, budget := range []int{65000, 20000, 4000} {
		body := Markdown(g, MarkdownOptions{Budget: budget, Now: now})
		if len(body) > budget || !utf8.ValidString(body) {
			t.Errorf("budget %d: %d bytes, valid UTF-8 %v", budget, len(body), utf8.ValidString(body))
		}
	}
	// The removed criteria are listed up to five in the comment.
	body := Markdown(g, MarkdownOptions{Now: now})
	if !strings.Contains(body, " and 495 more") {
		t.Errorf("the criteria list was not cut:\n%.2000s", body)
	}
}
