package calibrate

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/rubric"

	"github.com/rubricgate/rubricgate/internal/testgolden"
)

// golden checks got against its golden file (internal/testgolden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testgolden.Check(t, filepath.Join("testdata", "golden", name), got)
}

// goldenCalibration is a small but complete calibration: a failing 1-5
// criterion involving levels 2 and 4, a passing 0-2 criterion with na, a
// 0-1 gate where both sides used one level only, hostile ids, and items on
// one side only.
func goldenCalibration(t *testing.T) *Report {
	t.Helper()
	rb := &rubric.Rubric{
		Name:      "support <b>answers</b>",
		Threshold: 70,
		Criteria: []rubric.Criterion{
			{ID: "faithfulness", Name: "Faithfulness", Weight: 3, Scale: rubric.Scale{Low: 1, High: 5}},
			{ID: "citation", Name: "Citation | refs", Weight: 1, Scale: rubric.Scale{Low: 0, High: 2}, NA: true},
			{ID: "safety", Name: "Safety", Weight: 0, Scale: rubric.Scale{Low: 0, High: 1}, Critical: intp(1), Blocking: true},
		},
	}
	h := []int{5, 4, 4, 2, 3, 5, 1, 4, 2, 3, 5, 4}
	j := []int{5, 5, 5, 3, 3, 5, 1, 3, 4, 3, 4, 4}
	ids := []string{"q01", "q02", "q03", "q04|x", "q05", "q06", "q07", "q08", "@octocat <script>", "q10", "q11", "q12"}
	var human, judge []Rating
	for i := range h {
		c1, c2 := sv(2), sv(2)
		switch i {
		case 3:
			c1 = na
		case 5:
			c2 = sv(1)
		case 7:
			c2 = miss
		}
		human = append(human, rating(ids[i], i+2, sv(h[i]), c1, sv(1)))
		judge = append(judge, rating(ids[i], i+1, sv(j[i]), c2, sv(1)))
	}
	human = append(human, rating("only-human\x1b[31m", 40, sv(3), sv(2), sv(1)))
	judge = append(judge, rating("only-judge", 41, sv(3), sv(2), sv(1)))
	rep, err := Compare(rb, human, judge, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep.Rubric.Hash = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	return rep
}

func TestGoldenCalibration(t *testing.T) {
	rep := goldenCalibration(t)
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"calibrate.md", func(b *bytes.Buffer) error { return WriteMarkdown(b, rep) }},
		{"calibrate.txt", func(b *bytes.Buffer) error { return WriteText(b, rep) }},
		{"calibrate.json", func(b *bytes.Buffer) error { return WriteJSON(b, rep) }},
	} {
		t.Run(f.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.write(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, f.name, b.Bytes())
		})
	}
	// The JSON golden file is a valid report for ReadReport.
	var b bytes.Buffer
	if err := WriteJSON(&b, rep); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadReport(&b, 0); err != nil {
		t.Errorf("ReadReport(golden JSON): %v", err)
	}
}

func TestGoldenReviewers(t *testing.T) {
	rb := ragRubric()
	rows := []Rating{
		row("q1", "ana", 2, "", sv(2), sv(2), sv(2), sv(2)),
		row("q1", "ben", 3, "", sv(2), sv(2), sv(2), sv(1)),
		row("q2", "ben", 4, "says 60-day window;\npassage says 30 | @here", sv(0), na, sv(2), sv(2)),
		row("q2", "ana", 5, "", sv(2), sv(1), sv(1), sv(2)),
		row("q3", "ana", 6, "guessed a price", sv(2), sv(2), sv(0), sv(1)),
		row("q3", "ben", 7, "", sv(2), sv(2), sv(0), sv(1)),
		row("q4", "ana", 8, "", sv(2), sv(2), sv(2), sv(2)),
	}
	rep, err := CompareReviewers(rb, rows, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rep.Rubric.Hash = "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
	for _, f := range []struct {
		name  string
		write func(*bytes.Buffer) error
	}{
		{"reviewers.md", func(b *bytes.Buffer) error { return WriteReviewersMarkdown(b, rep) }},
		{"reviewers.txt", func(b *bytes.Buffer) error { return WriteReviewersText(b, rep) }},
		{"reviewers.json", func(b *bytes.Buffer) error { return WriteJSON(b, rep) }},
	} {
		t.Run(f.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := f.write(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, f.name, b.Bytes())
		})
	}
}

func TestSanitize(t *testing.T) {
	tests := []struct {
		in, md, text string
	}{
		{"plain id", "plain id", "plain id"},
		{"a|b", `a\|b`, "a|b"},
		{"<script>x</script>", "&lt;script&gt;x&lt;/script&gt;", "<script>x</script>"},
		{"@octocat hi", "@\u200doctocat hi", "@octocat hi"},
		// The text form is a safe log line: never a workflow command.
		{"::error::x", "::error::x", "%3A:error::x"},
		{"line1\nline2\r\n\tx", "line1 line2 x", "line1 line2 x"},
		{"red\x1b[31mtext", `red \[31mtext`, "red [31mtext"},
		{"rtl\u202eevil", "rtlevil", "rtlevil"},
		{"", `""`, ""},
		{strings.Repeat("x", 300), strings.Repeat("x", maxText) + "…", strings.Repeat("x", maxText) + "…"},
	}
	for _, tt := range tests {
		if got := md(tt.in); got != tt.md {
			t.Errorf("md(%q) = %q, want %q", tt.in, got, tt.md)
		}
		if got := clean(tt.in); got != tt.text {
			t.Errorf("clean(%q) = %q, want %q", tt.in, got, tt.text)
		}
	}
}

func TestTierDecisionString(t *testing.T) {
	tests := []struct {
		d    TierDecision
		want string
	}{
		{TierDecision{MayAdvance: true, Current: 10, Next: 25}, "rollout may widen from 10% to 25%"},
		{TierDecision{Current: 90, Next: 90, Last: true}, "rollout is at its last tier (90%)"},
		{TierDecision{Current: 25, Next: 50, HeldBy: []string{"gate failed", "no calibration given"}}, "rollout held at 25%\n  - gate failed\n  - no calibration given"},
	}
	for _, tt := range tests {
		if got := tt.d.String(); got != tt.want {
			t.Errorf("String() = %q, want %q", got, tt.want)
		}
	}
}
