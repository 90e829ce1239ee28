package github

import (
	"strings"
	"testing"
)

func TestOutputLine(t *testing.T) {
	if got := outputLine("score", "87.5"); got != "score=87.5\n" {
		t.Errorf("single line: %q", got)
	}
	got := outputLine("report", "a\nb")
	lines := strings.Split(got, "\n")
	if len(lines) != 5 || !strings.HasPrefix(lines[0], "report<<ghadelimiter_") || lines[1] != "a" || lines[2] != "b" || lines[3] != strings.TrimPrefix(lines[0], "report<<") {
		t.Errorf("heredoc: %q", got)
	}
}
