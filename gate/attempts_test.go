package gate

import (
	"math"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
)

const attemptKey = "sha256:1111111111111111111111111111111111111111111111111111111111111111"

// attempt sets the attempts' state read back for this run.
func attempt(prior *AttemptState) func(*DecideInput) {
	return func(in *DecideInput) {
		in.Attempts = AttemptsInput{Kept: true, Key: attemptKey, Prior: prior, Digest: &AnswerDigest{}}
	}
}

func both(fs ...func(*DecideInput)) func(*DecideInput) {
	return func(in *DecideInput) {
		for _, f := range fs {
			f(in)
		}
	}
}

// A change blocked once is not passed by a lucky re-run: a 1.25% drop
// passes alone, but pooled with the blocked attempts the interval does
// not lie within max-drop, so it is held.
func TestAttemptsHoldAfterBlock(t *testing.T) {
	lucky := func(in *DecideInput) { in.Paired = pairedCI(50, -0.035, 0.01) }
	if g := decide(runReport(79), base(80), lucky); g.Decision != Pass {
		t.Fatalf("alone: %s %q", g.Decision, g.Reasons)
	}
	prior := &AttemptState{Key: attemptKey, Pool: Estimate{N: 3, Change: -0.03, SE: 0.007}, Blocked: true}
	g := decide(runReport(79), base(80), both(lucky, attempt(prior)))
	if g.Decision != Block || g.Attempts == nil || g.Attempts.Outcome != AttemptHeld || g.Attempts.Attempts != 4 {
		t.Fatalf("held: %s %+v %q", g.Decision, g.Attempts, g.Reasons)
	}
	if !strings.Contains(g.Reasons[0], "this code was gated 4 times") || !strings.Contains(g.Reasons[0], "pooled change -2.") {
		t.Errorf("reason %q", g.Reasons[0])
	}
	if n := g.Attempts.Next; n == nil || !n.Blocked || n.Pool.N != 4 || n.Key != attemptKey {
		t.Errorf("next state %+v", n)
	}
	// The pooled change is between the two, nearer the tighter estimate.
	if c := *g.Attempts.Change; !(c < -0.0125 && c > -0.03) {
		t.Errorf("pooled change %v", c)
	}
	// The accept label waives it like any drop.
	if g := decide(runReport(79), base(80), both(lucky, attempt(prior), acceptShown)); g.Decision != Pass {
		t.Errorf("accepted: %s %q", g.Decision, g.Reasons)
	}
}

// Once enough evidence says the change is within max-drop, the held code
// passes (an unchanged pull request falsely blocked once).
func TestAttemptsClearAfterBlock(t *testing.T) {
	prior := &AttemptState{Key: attemptKey, Pool: Estimate{N: 5, Change: 0.001, SE: 0.004}, Blocked: true}
	g := decide(runReport(80), base(80), both(func(in *DecideInput) { in.Paired = pairedCI(50, -0.02, 0.02) }, attempt(prior)))
	if g.Decision != Pass || g.Attempts == nil || g.Attempts.Outcome != AttemptCleared {
		t.Fatalf("cleared: %s %+v %q", g.Decision, g.Attempts, g.Reasons)
	}
	if !strings.Contains(g.Reasons[0], "now lies within max-drop") {
		t.Errorf("reason %q", g.Reasons)
	}
}

// Without a block before, the drop rules apply to the pooled change: a
// run within max-drop blocks when the attempts' pool is a drop.
func TestAttemptsPooled(t *testing.T) {
	prior := &AttemptState{Key: attemptKey, Pool: Estimate{N: 2, Change: -0.05, SE: 0.005}}
	g := decide(runReport(80), base(80), both(func(in *DecideInput) { in.Paired = pairedCI(50, -0.02, 0.02) }, attempt(prior)))
	if g.Decision != Block || g.Attempts == nil || g.Attempts.Outcome != AttemptPooled || g.Attempts.Attempts != 3 {
		t.Fatalf("pooled: %s %+v %q", g.Decision, g.Attempts, g.Reasons)
	}
	if !g.Attempts.Next.Blocked {
		t.Error("the blocked attempt is not recorded")
	}
	// Another key (the items, inputs or rubric changed): this run alone.
	other := *prior
	other.Key = "sha256:2222222222222222222222222222222222222222222222222222222222222222"
	g = decide(runReport(80), base(80), both(func(in *DecideInput) { in.Paired = pairedCI(50, -0.02, 0.02) }, attempt(&other)))
	if g.Decision != Pass || g.Attempts == nil || g.Attempts.Outcome != AttemptFirst || g.Attempts.Attempts != 1 || g.Attempts.Next.Pool.N != 1 {
		t.Fatalf("other key: %s %+v", g.Decision, g.Attempts)
	}
}

func TestEstimateAdd(t *testing.T) {
	e := Estimate{N: 1, Change: -0.04, SE: 0.02}.Add(Estimate{N: 1, Change: 0, SE: 0.02})
	if e.N != 2 || math.Abs(e.Change+0.02) > 1e-12 || math.Abs(e.SE-0.02/math.Sqrt2) > 1e-12 {
		t.Errorf("pooled %+v", e)
	}
}

// A first gate that asks for a re-run records its request; a later first
// gate (no final gate came) counts that run as an attempt.
func TestAttemptsRerunRequest(t *testing.T) {
	d := &AnswerDigest{}
	for _, id := range []string{"a", "b"} {
		d.Add(&ItemResult{ID: id, Score: 75, AnswerScores: []float64{70, 80, 75, 75}})
	}
	rerun := func(in *DecideInput) {
		in.NoisyDrop = NoisyRerun
		in.Paired = pairedCI(50, -0.08, 0.02)
		in.Attempts = AttemptsInput{Kept: true, Key: attemptKey, Digest: d}
	}
	g := decide(runReport(77.6), base(80), rerun)
	if g.Decision != Rerun {
		t.Fatalf("decision %s", g.Decision)
	}
	p := g.Attempts.Next.Pending
	if p == nil || p.K != 4 || p.Asked != g.DropCheck.RerunAnswers || p.Answers != d.Answers(4) || g.Attempts.Next.Pool.N != 0 {
		t.Fatalf("request %+v, state %+v", p, g.Attempts.Next)
	}
	// The job re-run instead of the re-run's final gate: the first run is
	// an attempt.
	g = decide(runReport(77.6), base(80), both(rerun, func(in *DecideInput) { in.Attempts.Prior = g.Attempts.Next }))
	if g.Attempts.Attempts != 2 {
		t.Errorf("attempts %d, want 2", g.Attempts.Attempts)
	}
}

// A final gate is bound to its first run: the request at these inputs,
// the first run's answers first in every item, as many more as asked.
func TestFinalBinding(t *testing.T) {
	first := &AnswerDigest{}
	first.Add(&ItemResult{ID: "a", AnswerScores: []float64{70, 80}})
	first.Add(&ItemResult{ID: "b", AnswerScores: []float64{60, 90}})
	req := &AttemptState{Key: attemptKey, Pending: &RerunRequest{Answers: first.Answers(2), K: 2, Asked: 2, First: Estimate{N: 1, Change: -0.03, SE: 0.02}}}
	union := func(a, b []float64) *AnswerDigest {
		d := &AnswerDigest{}
		// In the other order: items may come in any order.
		d.Add(&ItemResult{ID: "b", AnswerScores: b})
		d.Add(&ItemResult{ID: "a", AnswerScores: a})
		return d
	}
	final := func(d *AnswerDigest, prior *AttemptState) func(*DecideInput) {
		return func(in *DecideInput) {
			in.NoisyDrop, in.Final = NoisyRerun, true
			in.Paired = pairedCI(50, -0.02, 0.02)
			in.Attempts = AttemptsInput{Kept: true, Key: attemptKey, Prior: prior, Digest: d}
		}
	}
	kinds := func(g *GateReport) []finding.Kind {
		var ks []finding.Kind
		for _, f := range g.Findings {
			if f.Severity == finding.Error || f.Kind == finding.FinalUnbound {
				ks = append(ks, f.Kind)
			}
		}
		return ks
	}
	tests := []struct {
		name  string
		d     *AnswerDigest
		prior *AttemptState
		want  Decision
		kind  finding.Kind
	}{
		{"the union of both runs", union([]float64{70, 80, 75, 75}, []float64{60, 90, 75, 80}), req, Pass, ""},
		{"the re-run alone", union([]float64{75, 75, 70, 80}, []float64{75, 80, 60, 90}), req, Block, finding.FinalAnswersMissing},
		{"the first run's answers changed", union([]float64{70, 81, 75, 75}, []float64{60, 90, 75, 80}), req, Block, finding.FinalAnswersMissing},
		{"fewer answers than asked", union([]float64{70, 80, 75}, []float64{60, 90, 75}), req, Block, finding.FinalTooFewAnswers},
		{"no request recorded", union([]float64{70, 80, 75, 75}, []float64{60, 90, 75, 80}), nil, Block, finding.FinalNoRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := decide(runReport(80), base(80), final(tt.d, tt.prior))
			ks := kinds(g)
			if g.Decision != tt.want || (tt.kind == "") != (len(ks) == 0) || tt.kind != "" && ks[0] != tt.kind {
				t.Fatalf("%s, findings %v (%q)", g.Decision, ks, g.Reasons)
			}
		})
	}
	// Where no state can be read back, the final gate says it is unbound.
	g := decide(runReport(80), base(80), func(in *DecideInput) { in.NoisyDrop, in.Final = NoisyRerun, true })
	if g.Decision != Pass || !hasWarning(g, "cannot check that the union holds the first run's answers") {
		t.Errorf("unbound: %s %q", g.Decision, g.Warnings)
	}
	// The final gate's union replaces its first run in the pool.
	g = decide(runReport(80), base(80), final(union([]float64{70, 80, 75, 75}, []float64{60, 90, 75, 80}), req))
	if g.Attempts.Attempts != 1 || g.Attempts.Next.Pending != nil || g.Attempts.Next.Pool.N != 1 {
		t.Errorf("after the final gate: %+v %+v", g.Attempts, g.Attempts.Next)
	}
}

// A noisy-drop rerun asks for at most rerun-max-runs times the run's
// answers per item, and says when that does not resolve max-drop.
func TestRerunBound(t *testing.T) {
	tests := []struct {
		name      string
		res       *Resolution
		maxRuns   int
		want      int
		wantBound int
		plan      RerunPlan
	}{
		{"within the bound", &Resolution{Answers: 4, RerunAnswers: 6, rerunResolves: true}, 4, 6, 16, RerunResolves},
		{"1,780 asked, 16 given", &Resolution{Answers: 4, RerunAnswers: 1780, rerunResolves: true}, 4, 16, 16, RerunCapped},
		{"the default bound", &Resolution{Answers: 1, RerunAnswers: 30, rerunResolves: true}, 0, 4, 4, RerunCapped},
		{"nothing resolves it", &Resolution{Answers: 4, RerunAnswers: 4}, 2, 4, 8, RerunUnresolvable},
		{"no resolution", nil, 4, 1, 4, RerunResolves},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dc := &DropCheck{Resolution: tt.res}
			askRerun(dc, tt.maxRuns)
			if !dc.Rerun || dc.RerunAnswers != tt.want || dc.RerunBound != tt.wantBound || dc.RerunPlan != tt.plan {
				t.Errorf("asked %d (bound %d, %s), want %d (%d, %s)", dc.RerunAnswers, dc.RerunBound, dc.RerunPlan, tt.want, tt.wantBound, tt.plan)
			}
		})
	}
	// Through Decide: a wide interval at 1 answer per item asks for more
	// than 2 runs' worth; the bound holds.
	g := decide(runReport(77.6), base(80), func(in *DecideInput) {
		in.NoisyDrop, in.RerunMaxRuns = NoisyRerun, 2
		in.Paired = pairedCI(50, -0.08, 0.02)
	})
	if g.Decision != Rerun || g.DropCheck.RerunAnswers > 2 || g.DropCheck.RerunBound != 2 || g.DropCheck.RerunPlan == RerunResolves {
		t.Errorf("through Decide: %s %+v", g.Decision, g.DropCheck)
	}
}

func TestAnswerDigest(t *testing.T) {
	a, b := &AnswerDigest{}, &AnswerDigest{}
	items := []ItemResult{{ID: "x", AnswerScores: []float64{1, 2, 3}}, {ID: "y", Score: 50}, {ID: "z", Unscored: true}}
	for i := range items {
		a.Add(&items[i])
		b.Add(&items[len(items)-1-i])
	}
	if a.Key("sha256:r") != b.Key("sha256:r") || a.Answers(2) != b.Answers(2) || a.MinAnswers() != 1 {
		t.Fatalf("order matters: %s %s", a.Answers(2), b.Answers(2))
	}
	if a.Key("sha256:r") == a.Key("sha256:s") {
		t.Error("the rubric is not in the key")
	}
	// An item with one answer counts as such in every prefix.
	c := &AnswerDigest{}
	c.Add(&ItemResult{ID: "x", AnswerScores: []float64{1, 2, 3, 4}})
	c.Add(&ItemResult{ID: "y", AnswerScores: []float64{50, 60}})
	if c.Answers(1) != a.Answers(1) || c.Answers(3) == a.Answers(3) {
		t.Error("prefix digests")
	}
	if a.Answers(0) != "" || a.Answers(65) != "" {
		t.Error("out of range")
	}
}

// Under noisy-drop rerun a held attempt asks for a re-run only while the
// pooled interval includes 0; a real pooled drop blocks at once.
func TestAttemptsHeldRerun(t *testing.T) {
	rerun := func(lo, hi float64) func(*DecideInput) {
		return func(in *DecideInput) { in.NoisyDrop = NoisyRerun; in.Paired = pairedCI(50, lo, hi) }
	}
	noisy := &AttemptState{Key: attemptKey, Pool: Estimate{N: 1, Change: -0.02, SE: 0.02}, Blocked: true}
	if g := decide(runReport(79.5), base(80), both(rerun(-0.04, 0.03), attempt(noisy))); g.Decision != Rerun || g.Attempts.Outcome != AttemptHeld {
		t.Errorf("held within noise: %s %+v", g.Decision, g.Attempts)
	}
	real := &AttemptState{Key: attemptKey, Pool: Estimate{N: 4, Change: -0.2, SE: 0.01}, Blocked: true}
	if g := decide(runReport(79.5), base(80), both(rerun(-0.04, 0.03), attempt(real))); g.Decision != Block || g.DropCheck.Case != DropReal {
		t.Errorf("held, a real pooled drop: %s %+v", g.Decision, g.DropCheck)
	}
}
