package judge

import (
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/llmfake"
)

// Each results line carries the hash of the item's task as the judge read
// it (question, context passages joined, reference), never of the answer.
func TestResultsCarryInputHash(t *testing.T) {
	h := newHarness(t, llmfake.OpenAI, valid)
	in := `{"id":"a","question":"Q?","context":["p1","p2"],"answer":"A1","reference":"R"}
{"id":"b","question":"Q?","context":["p1","p2"],"answer":"another answer","reference":"R"}
{"id":"c","question":"Q?","context":["p1","p2"],"answer":"A1","reference":"R2"}
{"id":"d","input":"Q?","context":"p1\n\np2","output":"A1","reference":"R"}
`
	ans, err := ReadAnswers("answers.jsonl", strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	lines, _, _, err := h.run(ans)
	if err != nil {
		t.Fatal(err)
	}
	want := gate.HashTask("Q?", "p1\n\np2", "R").String()
	got := make([]string, len(lines))
	for i, l := range lines {
		got[i], _ = l["input_hash"].(string)
	}
	if got[0] != want || got[1] != want || got[3] != want {
		t.Errorf("hashes %v, want %s for a, b (another answer) and d (the same task spelled otherwise)", got, want)
	}
	if got[2] == want || !strings.HasPrefix(got[2], "sha256:") {
		t.Errorf("a changed reference kept the hash: %v", got)
	}
}
