package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/rubricgate/rubricgate/gate"
)

// warmPR is an unchanged pull request gated in block mode against the
// baseline of one of the main runs, or against the known baseline
// (-known-baseline).
type warmPR struct {
	pooled  int  // runs its baseline pools
	known   bool // gated against the known baseline, not a main run's
	blocked bool // block mode blocked it
	covered bool // its 95% interval of the relative change includes 0
	hasCI   bool
	// selected: a main run of this trial was blocked before it, so its
	// baseline was made without that (unlucky) run.
	selected bool
}

// maxPool is the largest pool the warm-up table counts on its own.
const maxPool = 8

// warmTally counts warm-up pull requests: gated, falsely blocked, with an
// interval, and with an interval that covers 0.
type warmTally struct{ gated, blocked, withCI, covered int }

func (t *warmTally) add(w warmPR) {
	t.gated++
	if w.blocked {
		t.blocked++
	}
	if w.hasCI {
		t.withCI++
		if w.covered {
			t.covered++
		}
	}
}

// warmCell sums the warm-up pull requests by the runs their baseline
// pools (index 0 unused; maxPool: that many or more): all of them, and
// those after no blocked main run (clean); and those gated against the
// known baseline.
type warmCell struct {
	pool, clean [maxPool + 1]warmTally
	known       warmTally
}

func (c *warmCell) add(w warmPR) {
	if w.known {
		c.known.add(w)
		return
	}
	p := min(max(w.pooled, 1), maxPool)
	c.pool[p].add(w)
	if !w.selected {
		c.clean[p].add(w)
	}
}

// knownBaseline writes known.json, the baseline of one run of c.known
// answers per item (-known-baseline): the items' expected scores, known to
// within 1/c.known of one answer's variance, from a stream of its own.
func (w *worker) knownBaseline(m *model, n, t int) error {
	kr := w.c.rng(n, t, 15)
	if err := w.write("known.jsonl", run(kr, m.answers(kr, 0, w.c.known))); err != nil {
		return err
	}
	g, err := w.gate("--results", "known.jsonl", "--write-baseline", "known.json")
	if err != nil {
		return err
	}
	if ok, err := w.exists("known.json"); !ok || err != nil || g.Decision != gate.Pass {
		return fmt.Errorf("the known baseline of trial %d (%d items): decision %s, written: %v (%v)", t, n, g.Decision, ok, err)
	}
	return nil
}

// warmPR gates an unchanged pull request against the baseline after main
// run i (and, with -known-baseline, against the known baseline), from a
// stream of its own (the other streams stay as without).
func (w *worker) warmPR(r *trialResult, m *model, n, t, i int, last string) error {
	wr := w.c.rng(n, t, 16+i)
	if err := w.write("warm.jsonl", run(wr, m.answers(wr, 0, w.c.k))); err != nil {
		return err
	}
	bases := []string{last}
	if w.c.known > 0 {
		bases = append(bases, "known.json")
	}
	for _, b := range bases {
		g, err := w.gate("--results", "warm.jsonl", "--baseline", b, "--noisy-drop", string(gate.NoisyBlock))
		if err != nil {
			return err
		}
		wp := warmPR{pooled: 1, known: b != last, blocked: g.Decision == gate.Block, hasCI: g.CI95 != nil, selected: r.mainBlocks > 0}
		if g.Baseline != nil && g.Baseline.PooledRuns > 1 {
			wp.pooled = g.Baseline.PooledRuns
		}
		if g.CI95 != nil {
			wp.covered = g.CI95[0] <= 0 && g.CI95[1] >= 0
		}
		r.warm = append(r.warm, wp)
	}
	return nil
}

// rateSE is c of n as a percentage with its binomial standard error.
func rateSE(c, n int) string {
	if n == 0 {
		return "-"
	}
	p := float64(c) / float64(n)
	return fmt.Sprintf("%.1f%% ±%.1f", 100*p, 100*math.Sqrt(p*(1-p)/float64(n)))
}

// printWarm prints the warm-up lines: per number of runs the baseline
// pools, the unchanged pull requests gated, the share blocked and the
// share whose 95% interval covers 0 (± the binomial standard error); the
// same for those after no blocked main run; and against the known
// baseline.
func (c *config) printWarm(wc *warmCell) {
	fmt.Print(" warm-up, an unchanged PR after each main run (block); runs pooled: PRs, false blocks, 95% interval covers 0:")
	printTallies(wc.pool[:])
	fmt.Printf("%8s those after no blocked main run:", "")
	printTallies(wc.clean[:])
	if c.known > 0 {
		k := wc.known
		fmt.Printf("%8s against a known baseline (%d answers per item): %d, %s, %s\n", "", c.known, k.gated, rateSE(k.blocked, k.gated), rateSE(k.covered, k.withCI))
	}
}

func printTallies(ts []warmTally) {
	var all warmTally
	for p := 1; p <= maxPool; p++ {
		t := ts[p]
		if t.gated == 0 {
			continue
		}
		label := strconv.Itoa(p)
		if p == maxPool {
			label += "+"
		}
		fmt.Printf(" %s: %d, %s, %s;", label, t.gated, rateSE(t.blocked, t.gated), rateSE(t.covered, t.withCI))
		all.gated += t.gated
		all.blocked += t.blocked
		all.withCI += t.withCI
		all.covered += t.covered
	}
	fmt.Printf(" all: %d, %s, %s\n", all.gated, rateSE(all.blocked, all.gated), rateSE(all.covered, all.withCI))
}
