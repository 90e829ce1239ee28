package main

import (
	"fmt"
	"path/filepath"
	"testing"
)

// A tiny simulation through the real binary: it completes, the counts fit
// the trials, a drop far past hard-drop is blocked in every mode, and the
// results do not depend on the number of workers.
func TestSimulationDrivesBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it about 40 times")
	}
	bin, err := buildBinary(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rb, err := filepath.Abs("../../rubrics/production.yaml")
	if err != nil {
		t.Fatal(err)
	}
	const trials, n = 3, 20
	// Scenario 1: a huge drop (answer quality 2 levels lower, a drop of
	// about 30%); scenario 2: a real 5% drop (the shift noisesim
	// calibrates for the production rubric).
	shifts := [scenarios]float64{0, -2, -0.13}
	var cells []cell
	for _, workers := range []int{1, 2} {
		c := &config{bin: bin, rubric: rb, k: 2, mainRuns: 2, regen: true, seed: 7, workers: workers}
		s, err := c.cell(n, trials, shifts)
		if err != nil {
			t.Fatal(err)
		}
		// Each trial: 2 main runs, then 3 pull requests × 3 modes, plus
		// the reruns' final gates.
		if got, want := c.calls.Load(), int64(trials*(2+scenarios*modes)+s.reruns); got != want {
			t.Errorf("workers %d: %d binary calls, want %d", workers, got, want)
		}
		cells = append(cells, s)
	}
	s := cells[0]
	if cells[1] != s {
		t.Errorf("1 worker: %+v\n2 workers: %+v", s, cells[1])
	}
	if s.trials != trials || s.mainGated != trials || s.mainBlocks > s.mainGated || s.mainDrift > s.mainBlocks || s.driftAlone > s.mainDrift {
		t.Errorf("trials %d, main runs gated %d, blocked %d (by the drift rule %d, alone %d)", s.trials, s.mainGated, s.mainBlocks, s.mainDrift, s.driftAlone)
	}
	for md, mode := range modeNames {
		if s.wrong[1][md] != 0 {
			t.Errorf("noisy-drop %s: %d of %d huge drops passed", mode, s.wrong[1][md], trials)
		}
		for sc := range scenarios {
			if w := s.wrong[sc][md]; w < 0 || w > trials {
				t.Errorf("scenario %d, noisy-drop %s: %d wrong of %d", sc, mode, w, trials)
			}
		}
	}
	if s.reruns > scenarios*trials || s.extra < s.reruns || s.extra > 4*2*s.reruns {
		t.Errorf("%d reruns adding %d answers per item", s.reruns, s.extra)
	}
}

// The warm-up counts one unchanged pull request per main run, by the runs
// its baseline pools; a slide of large steps is blocked at its first or
// second step, and without the drift rule nothing says it was the drift
// rule.
func TestWarmupAndSlide(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it about 30 times")
	}
	bin, err := buildBinary(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rb, err := filepath.Abs("../../rubrics/production.yaml")
	if err != nil {
		t.Fatal(err)
	}
	c := &config{bin: bin, rubric: rb, k: 1, mainRuns: 3, regen: true, seed: 3, workers: 2, warmup: true, warmOnly: true, known: 8,
		mainArgs: []string{"--noisy-drop", "warn", "--hard-drop", "100%"}}
	s, err := c.cell(30, 2, [scenarios]float64{})
	if err != nil {
		t.Fatal(err)
	}
	gated := 0
	for p, wt := range s.warm.pool {
		n := wt.gated
		gated += n
		if wt.blocked > n || wt.covered > wt.withCI || wt.withCI > n {
			t.Errorf("pool %d: %d gated, %d blocked, %d of %d covered", p, n, wt.blocked, wt.covered, wt.withCI)
		}
	}
	if gated != 2*3 || s.warm.pool[1].gated < 2 {
		t.Errorf("%d warm-up pull requests (%d on one-run baselines), want 6 (at least 2)", gated, s.warm.pool[1].gated)
	}
	// Each is gated against the known baseline too, which is written once
	// per trial: 2 × (1 + 3 main runs + 3 × 2 pull request gates).
	if k := s.warm.known; k.gated != 2*3 || k.withCI != k.gated || k.covered > k.withCI || k.blocked > k.gated {
		t.Errorf("against the known baseline: %+v, want 6 gated, each with an interval", k)
	}
	if got := c.calls.Load(); got != 2*(1+3+3*2) {
		t.Errorf("%d binary calls, want %d", got, 2*(1+3+3*2))
	}
	// Steps of two levels (about 30% each): the first step is blocked.
	levels := []float64{-2, -4, -6}
	for _, flags := range [][]string{nil, {"--max-drift", "0"}} {
		c := &config{bin: bin, rubric: rb, k: 1, mainRuns: 2, regen: true, seed: 3, workers: 1, gateArgs: flags,
			mainArgs: []string{"--noisy-drop", "warn", "--hard-drop", "100%"}}
		res, err := c.slideCell(30, 2, levels, []string{"--noisy-drop", "warn"})
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range res {
			if r.step != 1 || r.main {
				t.Errorf("flags %v, slide %d: first blocked at step %d (main %v), want the first pull request", flags, i, r.step, r.main)
			}
			if flags != nil && r.drift {
				t.Errorf("flags %v, slide %d: the drift rule blocked with max-drift 0", flags, i)
			}
			if flags == nil && !r.drift {
				t.Errorf("slide %d: a 30%% drop below the anchor not blocked by the drift rule", i)
			}
		}
	}
}

// The retry scenario through the real binary: a huge drop re-run 3 times
// never passes, with the attempts' state kept in --attempts-dir (the
// binary writes it there) or not, and the results do not depend on the
// number of workers.
func TestRetryScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs it about 30 times")
	}
	bin, err := buildBinary(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	rb, err := filepath.Abs("../../rubrics/production.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var runs [][]retryResult
	for _, workers := range []int{1, 2} {
		c := &config{bin: bin, rubric: rb, k: 2, mainRuns: 2, regen: true, seed: 7, workers: workers,
			retries: 3, retryMode: "rerun", attempts: true}
		rs, err := c.retryCell(20, 2, -2)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range rs {
			if r.passedAt != 0 {
				t.Errorf("trial %d: a huge drop passed at attempt %d", i, r.passedAt)
			}
		}
		// 2 main runs and 3 attempts, none rerun (a huge drop is real).
		if got := c.calls.Load(); got != 2*(2+3) {
			t.Errorf("%d binary calls, want %d", got, 2*(2+3))
		}
		runs = append(runs, rs)
	}
	if fmt.Sprint(runs[0]) != fmt.Sprint(runs[1]) {
		t.Errorf("1 worker: %v\n2 workers: %v", runs[0], runs[1])
	}
}
