package gaterun

import (
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

const testKey = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

// The attempts line round-trips, among the comment's other hidden lines,
// and a malformed one is an error, never a state read wrong.
func TestAttemptsLine(t *testing.T) {
	st := gate.AttemptState{Key: testKey, Pool: gate.Estimate{N: 3, Change: -0.0312345678901234, SE: 0.0101}, Blocked: true,
		Pending: &gate.RerunRequest{Answers: "sha256:2222222222222222222222222222222222222222222222222222222222222222", K: 4, Asked: 9, First: gate.Estimate{N: 1, Change: -0.025, SE: 0.012}}}
	line := AttemptsField(st)
	if len(line) > 400 {
		t.Errorf("line of %d bytes: %s", len(line), line)
	}
	body := "<!-- rubricgate:comment key=k -->\n<!-- rubricgate:shown sha=x -->\n" + line + "\n### heading\n"
	got, err := ParseAttempts(body)
	if err != nil || got == nil {
		t.Fatalf("parse %q: %v", line, err)
	}
	if got.Key != st.Key || got.Pool != st.Pool || !got.Blocked || *got.Pending != *st.Pending {
		t.Errorf("got %+v %+v, want %+v %+v", got, got.Pending, st, st.Pending)
	}
	if got, err := ParseAttempts("### heading\n" + line); got != nil || err != nil {
		t.Errorf("a line after the heading is text, not state: %+v %v", got, err)
	}
	for _, bad := range []string{
		strings.Replace(line, " hold=1", " hold=2", 1),
		strings.Replace(line, " n=3", " n=-1", 1),
		strings.Replace(line, " se=", " se=NaN x=", 1),
		strings.Replace(line, " change=", " change=1 change=", 1),
		strings.Replace(line, testKey, "sha256:zz", 1),
		strings.Replace(line, ",4,9,", ",0,9,", 1),
		strings.TrimSuffix(line, " -->"),
		strings.Replace(line, " hold=1", "", 1),
	} {
		if got, err := ParseAttempts(bad); err == nil {
			t.Errorf("%q read as %+v", bad, got)
		}
	}
}
