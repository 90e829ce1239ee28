package gate

import "testing"

func TestScoreDecision(t *testing.T) {
	ok := &Report{Items: 2, Scored: 2}
	if g := ScoreDecision(ok); g.Decision != Pass || g.Report != ok || g.Baseline != nil {
		t.Fatalf("passing run: %+v", g)
	}
	for name, rep := range map[string]*Report{
		"blocking failure": {Items: 2, Scored: 2, BlockingFailures: []BlockingFailure{{Item: "a", Criterion: "safety"}}},
		"nothing scored":   {Items: 2},
	} {
		if g := ScoreDecision(rep); g.Decision != Block {
			t.Errorf("%s: decision %s, want block", name, g.Decision)
		}
	}
}
