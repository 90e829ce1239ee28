package main

import (
	"strings"
	"testing"
)

// TestActionAnnotationLevelsFromFindings: in a blocked run, a reason that
// does not block (the no-baseline note) is a notice, not an error, and the
// blocking failure is still an error annotation.
func TestActionAnnotationLevelsFromFindings(t *testing.T) {
	h := newHarness(t)
	h.gateInputs(goodRun + line("q-5", 5, 5, 5, 0, "asked for the full card number"))
	if code := h.action(); code != exitBlocked {
		t.Fatalf("exit %d, want 1", code)
	}
	out := h.stdout.String()
	if !strings.Contains(out, "::error title=rubricgate blocked::blocking criterion failed: safety on 1 item(s): q-5") {
		t.Errorf("no error annotation for the blocking failure:\n%s", out)
	}
	var notice string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "nothing to compare with yet") {
			notice = l
		}
	}
	if !strings.HasPrefix(notice, "::notice title=rubricgate::") {
		t.Errorf("the no-baseline note is annotated as %q, want a notice:\n%s", notice, out)
	}
}
