package render

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// hostileURLs are bare URLs GitHub would auto-link in markdown text.
const hostileURLs = "see https://evil.example/auto and www.evil.example, WWW.evil.example, ftp://evil.example/f"

// setStrings sets every plain string reachable from v (struct fields, slice
// elements, through pointers; not map keys) to s.
func setStrings(v reflect.Value, s string) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			setStrings(v.Elem(), s)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				setStrings(v.Field(i), s)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			setStrings(v.Index(i), s)
		}
	case reflect.String:
		if v.Type() == reflect.TypeOf("") && v.CanSet() {
			v.SetString(s)
		}
	}
}

// codeSpan matches an inline code span (GitHub does not auto-link inside
// one): a run of backticks, the shortest text, the same run.
var codeSpan = regexp.MustCompile("(`+)[^`]*?(`+)")

// outsideCode drops the code spans of md (spans whose fences differ are
// kept, which only makes the check stricter).
func outsideCode(md string) string {
	return codeSpan.ReplaceAllStringFunc(md, func(m string) string {
		sub := codeSpan.FindStringSubmatch(m)
		if sub[1] != sub[2] {
			return m
		}
		return ""
	})
}

// Every untrusted text of a report (ids, reasoning, reasons, warnings,
// names, unscored errors, the baseline's source and run URL) reaches the
// comment and the step summary (both Markdown) and the score command's
// markdown without a bare URL GitHub would auto-link: the text stays
// readable, the link is broken.
func TestMarkdownBreaksAutolinks(t *testing.T) {
	for name, g := range map[string]*gate.GateReport{"pass": passReport(), "blocked": blockedReport()} {
		g.Report.Unscored = gate.Unscored{Count: 1, List: []gate.UnscoredItem{{ID: "u", Error: "e", File: "f"}}}
		g.Report.Warnings = []string{"w"}
		g.DropCheck = &gate.DropCheck{}
		setStrings(reflect.ValueOf(g), hostileURLs)
		g.Decision = gate.Block
		if name == "pass" {
			g.Decision = gate.Pass
		}
		outs := map[string]string{"score markdown": ScoreMarkdown(g.Report)}
		for _, b := range []int{0, 4000} {
			outs["markdown budget "+string(rune('0'+b/1000))] = Markdown(g, MarkdownOptions{Title: hostileURLs, Now: now, Budget: b})
		}
		for what, md := range outs {
			text := outsideCode(md)
			if !strings.Contains(md, "evil.example") {
				t.Fatalf("%s %s: the hostile text is not shown at all:\n%s", name, what, md)
			}
			low := strings.ToLower(text)
			if i := strings.Index(low, "://evil"); i >= 0 {
				t.Errorf("%s %s: a bare URL GitHub auto-links: %q", name, what, text[max(0, i-40):min(len(text), i+40)])
			}
			if i := strings.Index(low, "www.evil"); i >= 0 {
				t.Errorf("%s %s: a www. link GitHub auto-links: %q", name, what, text[max(0, i-40):min(len(text), i+40)])
			}
		}
	}
}

// hostileRefs are references GitHub (#N, GH-N, owner/repo#N, user@SHA)
// and GitLab (!N, $N, &N, ~label, %milestone) would link in a comment or a
// note, and record in the referenced issue's timeline.
const hostileRefs = `fixes #12, GH-7, octo/repo#4039, !5 ~bug ~"x y" %v1 $3 &2 octo@deadbeefcafe1`

// liveRef matches a reference left live in markdown text (outside code
// spans): a sigil straight before what it references.
var liveRef = regexp.MustCompile(`(?i)#[0-9]|gh-[0-9]|![0-9]|\$[0-9]|&(amp;)?[0-9]|~[a-z0-9"]|%[a-z0-9"*]|@[0-9a-f]{7}`)

// Every untrusted text of a report reaches the comment, the step summary
// and the score command's markdown with its issue, pull request, merge
// request, snippet, epic, label, milestone and commit references broken:
// the bot never cross-links the pull request into another issue.
func TestMarkdownBreaksReferences(t *testing.T) {
	for name, g := range map[string]*gate.GateReport{"pass": passReport(), "blocked": blockedReport()} {
		g.Report.Unscored = gate.Unscored{Count: 1, List: []gate.UnscoredItem{{ID: "u", Error: "e", File: "f"}}}
		g.Report.Warnings = []string{"w"}
		g.DropCheck = &gate.DropCheck{}
		setStrings(reflect.ValueOf(g), hostileRefs)
		g.Decision = gate.Block
		if name == "pass" {
			g.Decision = gate.Pass
		}
		outs := map[string]string{"score markdown": ScoreMarkdown(g.Report)}
		for _, b := range []int{0, 4000} {
			outs["markdown budget "+string(rune('0'+b/1000))] = Markdown(g, MarkdownOptions{Title: hostileRefs, Now: now, Budget: b})
		}
		for what, md := range outs {
			if !strings.Contains(md, "octo/repo#") {
				t.Fatalf("%s %s: the hostile text is not shown at all:\n%s", name, what, md)
			}
			text := outsideCode(md)
			for _, loc := range liveRef.FindAllStringIndex(text, -1) {
				t.Errorf("%s %s: a live reference %q in %q", name, what, text[loc[0]:loc[1]], text[max(0, loc[0]-30):min(len(text), loc[1]+30)])
			}
		}
	}
}
