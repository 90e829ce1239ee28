package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// slideResult is one slide trial: the step (1-based) at which a gate
// first blocked, 0 when none did, whether that was the pull request's
// gate or the main run's, and whether the drift rule blocked it.
type slideResult struct {
	step        int
	main, drift bool
	dropToo     bool // the drop check blocked it as well
}

// slide runs one slide trial of n items: c.mainRuns unchanged main runs,
// then one step per level of levels (the answer-quality shift of each
// step, each lower than the last): a pull request at that level gated
// against the last baseline (-slide-pr-flags), then, if it passed, its
// main run at the same level gated with the main flags and writing the
// next baseline. The slide stops at the first block.
func (w *worker) slide(n, t int, levels []float64, prArgs []string) (slideResult, error) {
	var r slideResult
	c := w.c
	if err := clearDir(w.dir); err != nil {
		return r, err
	}
	rng := c.rng(n, t, 0)
	m := newModel(n, rng)
	last := ""
	mainRun := func(i int, shift float64) (*gateReport, error) {
		if err := w.write("main.jsonl", run(rng, m.answers(rng, shift, c.k))); err != nil {
			return nil, err
		}
		out, args := c.mainGate(i, last)
		g, err := w.gate(args...)
		if err != nil {
			return nil, err
		}
		wrote, err := w.exists(out)
		if err != nil {
			return nil, err
		}
		switch {
		case g.Decision == gate.Pass && wrote:
			last = out
		case g.Decision == gate.Block && !wrote && last != "":
		default:
			return nil, fmt.Errorf("main run %d of slide trial %d (%d items): decision %s, baseline written: %v", i, t, n, g.Decision, wrote)
		}
		return g, nil
	}
	for i := 1; i <= c.mainRuns; i++ {
		if _, err := mainRun(i, 0); err != nil {
			return r, err
		}
	}
	for s, shift := range levels {
		prRng := c.rng(n, t, 64+s)
		if err := w.write("pr.jsonl", run(prRng, m.answers(prRng, shift, c.k))); err != nil {
			return r, err
		}
		g, err := w.gate(append([]string{"--results", "pr.jsonl", "--baseline", last}, prArgs...)...)
		if err != nil {
			return r, err
		}
		if g.Decision == gate.Rerun {
			return r, fmt.Errorf("slide trial %d (%d items), step %d: decision rerun (the slide's pull requests are gated under -slide-pr-flags, which must not be noisy-drop rerun)", t, n, s+1)
		}
		if g.Decision != gate.Block {
			if g, err = mainRun(c.mainRuns+s+1, shift); err != nil {
				return r, err
			}
			r.main = true
		}
		if g.Decision == gate.Block {
			r.step, r.drift, r.dropToo = s+1, g.driftBlocks(), g.dropBlocks()
			return r, nil
		}
		r.main = false
	}
	return r, nil
}

// slideCell runs slide trials of n items on c.workers workers.
func (c *config) slideCell(n, trials int, levels []float64, prArgs []string) ([]slideResult, error) {
	return runTrials(c, trials, func(w *worker, t int) (slideResult, error) { return w.slide(n, t, levels, prArgs) })
}

// slideLevels are the answer-quality shifts of a slide of steps steps,
// each drop lower than the last (compounded): interpolated on a grid of
// shifts measured as dropShift does.
func slideLevels(rb *rubric.Rubric, steps int, drop float64) ([]float64, error) {
	base, err := meanScore(rb, 0, 99)
	if err != nil {
		return nil, err
	}
	const grid = 0.05
	type pt struct{ shift, drop float64 }
	pts := []pt{{0, 0}}
	want := 1 - math.Pow(1-drop, float64(steps))
	for sh := -grid; pts[len(pts)-1].drop < want; sh -= grid {
		if sh < -4 {
			return nil, fmt.Errorf("a slide of %d steps of %.1f%%: no shift of up to 4 levels drops the score by %.1f%%", steps, 100*drop, 100*want)
		}
		sc, err := meanScore(rb, sh, 99)
		if err != nil {
			return nil, err
		}
		pts = append(pts, pt{sh, (base - sc) / base})
	}
	levels := make([]float64, steps)
	for s := range steps {
		d := 1 - math.Pow(1-drop, float64(s+1))
		for j := 1; j < len(pts); j++ {
			if pts[j].drop >= d {
				a, b := pts[j-1], pts[j]
				levels[s] = a.shift + (b.shift-a.shift)*(d-a.drop)/(b.drop-a.drop)
				break
			}
		}
	}
	return levels, nil
}

// slideMain runs the slide: for each size, the share of slides first
// blocked by each step.
func (c *config) slideMain(trials int, sizes, rubricPath, bin string, steps int, step float64, prArgs []string) error {
	if steps < 1 || !(step > 0 && step < 0.5) {
		return errors.New("-slide must be at least 1 and -slide-step between 0 and 0.5")
	}
	ns, rb, cleanup, err := c.setup(trials, sizes, rubricPath, bin)
	defer cleanup()
	if err != nil {
		return err
	}
	start := time.Now()
	levels, err := slideLevels(rb, steps, step)
	if err != nil {
		return err
	}
	fmt.Printf("slide: %d steps of %.1f%% (compounded: %.1f%% in all), each a pull request (%s) then its main run (%s); %d answer(s) per item; %d main run(s) first; %d trials per size; every gate: %q\n",
		steps, 100*step, 100*(1-math.Pow(1-step, float64(steps))), strings.Join(prArgs, " "), strings.Join(c.mainArgs, " "), c.k, c.mainRuns, trials, strings.Join(c.gateArgs, " "))
	fmt.Printf("%6s | %-47s | %9s | %-27s\n", "", "blocked by step (cumulative share of slides)", "never", "first block: PR; by drift")
	fmt.Printf("%6s | %5s %5s %5s %5s %5s %5s %5s %5s | %9s | %8s %8s %9s\n", "items", "1", "2", "3", "4", "5", "6", "10", "20", "", "PR", "drift", "drop too")
	for _, n := range ns {
		res, err := c.slideCell(n, trials, levels, prArgs)
		if err != nil {
			return err
		}
		by := make([]int, steps+1)
		never, pr, drift, dropToo, blocked := 0, 0, 0, 0, 0
		for _, r := range res {
			if r.step == 0 {
				never++
				continue
			}
			blocked++
			by[r.step]++
			if !r.main {
				pr++
			}
			if r.drift {
				drift++
			}
			if r.dropToo {
				dropToo++
			}
		}
		pct := func(c, of int) string {
			if of == 0 {
				return "-"
			}
			return fmt.Sprintf("%.1f%%", 100*float64(c)/float64(of))
		}
		cum := func(s int) string {
			if s > steps {
				return "-"
			}
			t := 0
			for i := 1; i <= s; i++ {
				t += by[i]
			}
			return pct(t, len(res))
		}
		fmt.Printf("%6d | %5s %5s %5s %5s %5s %5s %5s %5s | %9s | %8s %8s %9s\n", n, cum(1), cum(2), cum(3), cum(4), cum(5), cum(6), cum(10), cum(20),
			pct(never, len(res)), pct(pr, blocked), pct(drift, blocked), pct(dropToo, blocked))
	}
	fmt.Fprintf(os.Stderr, "noisesim: %d binary calls, %.1f s wall (%d workers)\n", c.calls.Load(), time.Since(start).Seconds(), c.workers)
	return nil
}
