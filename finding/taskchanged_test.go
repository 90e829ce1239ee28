package finding_test

import (
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
)

// The ids of items whose task changed come from the pull request's answers:
// shown as untrusted text in markdown and the log.
func TestItemTaskChangedRendersIDsSafely(t *testing.T) {
	f := finding.Finding{Kind: finding.ItemTaskChanged, Params: finding.Params{Count: 7, Items: []string{"q-1", "x](https://evil.example)<img src=x>", "a\nb\x1b[31m"}}}
	txt := f.Text()
	if !strings.HasPrefix(txt, "TASK CHANGED: 7 item(s) keep a baseline item's id but not its task") || !strings.Contains(txt, " and 4 more") || !strings.Contains(txt, "removed and a new item added") {
		t.Errorf("text %q", txt)
	}
	// In markdown each id is a code span (a link or HTML in it is inert
	// text), as items-removed shows them; no control character survives.
	md := f.Markdown()
	if !strings.Contains(md, "`x](https://evil.example)<img src=x>`") || strings.ContainsAny(md, "\n\x1b") {
		t.Errorf("markdown %q", md)
	}
	if rm := (finding.Finding{Kind: finding.ItemsRemoved, Params: finding.Params{Count: 7, Items: f.Items}}).Markdown(); !strings.Contains(rm, "`x](https://evil.example)<img src=x>`") {
		t.Errorf("items-removed renders the ids otherwise: %q", rm)
	}
	if log := f.Log(); strings.ContainsAny(log, "\n\x1b") {
		t.Errorf("log line %q", log)
	}
	for _, k := range []finding.Kind{finding.TaskUnboundBaseline, finding.TaskUnboundResults} {
		if s := (finding.Finding{Kind: k, Params: finding.Params{Count: 3}}).Text(); !strings.HasPrefix(s, "3 item(s) were compared with the baseline by id alone") {
			t.Errorf("%s: %q", k, s)
		}
	}
}
