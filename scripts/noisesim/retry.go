package main

// The retry scenario (-retries): a pull request re-run until it passes.

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"

	"github.com/rubricgate/rubricgate/gate"
)

// retryMainRuns pushes c.mainRuns unchanged runs of m to main, each gated with
// --write-baseline against the last baseline written, and returns the
// last baseline (r counts the blocked main runs).
func (w *worker) retryMainRuns(m *model, rng *rand.Rand, n, t int, r *trialResult) (string, error) {
	c := w.c
	last := ""
	for i := 1; i <= c.mainRuns; i++ {
		if err := w.write("main.jsonl", run(rng, m.answers(rng, 0, c.k))); err != nil {
			return "", err
		}
		out, args := c.mainGate(i, last)
		g, err := w.gate(args...)
		if err != nil {
			return "", err
		}
		wrote, err := w.exists(out)
		if err != nil {
			return "", err
		}
		switch {
		case g.Decision == gate.Pass && wrote:
			last = out
		case g.Decision == gate.Block && !wrote && last != "":
			r.mainBlocks++ // the store keeps the last passing baseline
		default:
			return "", fmt.Errorf("main run %d of trial %d (%d items): decision %s, baseline written: %v (the first run starts the baseline; a run writes one exactly when it passes)", i, t, n, g.Decision, wrote)
		}
	}
	return last, nil
}

// retryResult is one trial of the retry scenario: at which attempt the
// pull request with a real drop first passed (0: none within the retries).
type retryResult struct {
	passedAt   int
	mainBlocks int
	extra      int // answers per item the reruns added
}

// retryTrial is the retry scenario: a pull request with a real drop
// (shift) is re-run up to c.retries times, each attempt regenerating its
// answers (an empty commit, "Re-run jobs"), until one passes. Each attempt
// is gated under c.retryMode; a rerun gets its re-run and the final gate
// on the union. With c.attempts the binary keeps the attempts' state in
// --attempts-dir (as the gate's comment keeps it on a pull request).
func (w *worker) retryTrial(n, t int, shift float64) (retryResult, error) {
	var rr retryResult
	var r trialResult
	c := w.c
	if err := clearDir(w.dir); err != nil {
		return rr, err
	}
	rng := c.rng(n, t, 0)
	m := newModel(n, rng)
	if !c.regen {
		m.fixed = m.answers(rng, 0, c.k)
	}
	last, err := w.retryMainRuns(m, rng, n, t, &r)
	if err != nil {
		return rr, err
	}
	rr.mainBlocks = r.mainBlocks
	state := []string{}
	if c.attempts {
		state = []string{"--attempts-dir", filepath.Join(w.dir, "attempts")}
	}
	for a := 1; a <= c.retries; a++ {
		rng := c.rng(n, t, 16+a)
		cur := m.answers(rng, shift, c.k)
		curJ := judged(rng, cur)
		if err := w.write("pr.jsonl", writeJudged(curJ)); err != nil {
			return rr, err
		}
		args := append([]string{"--results", "pr.jsonl", "--baseline", last, "--noisy-drop", string(c.retryMode)}, state...)
		g, err := w.gate(args...)
		if err != nil {
			return rr, err
		}
		if g.Decision == gate.Rerun {
			if g.DropCheck == nil {
				return rr, fmt.Errorf("retry %d of trial %d: rerun without a drop check", a, t)
			}
			// As pr-check-rerun.yml: the request, which the binary
			// bounds (an older binary did not: 4·K here).
			extra := min(max(g.DropCheck.RerunAnswers, 1), 4*c.k)
			rr.extra += extra
			more := m.answers(rng, shift, extra)
			// The union of both runs as judged: the first run's answers
			// as its file carries them, then the re-run's.
			moreJ := judged(rng, more)
			union := make([][][4]int, len(curJ))
			for i := range curJ {
				union[i] = append(append([][4]int{}, curJ[i]...), moreJ[i]...)
			}
			if err := w.write("union.jsonl", writeJudged(union)); err != nil {
				return rr, err
			}
			final := append([]string{"--results", "union.jsonl", "--baseline", last, "--noisy-drop", string(c.retryMode), "--final"}, state...)
			if g, err = w.gate(final...); err != nil {
				return rr, err
			}
			if g.Decision == gate.Rerun {
				return rr, fmt.Errorf("final gate of retry %d of trial %d asked for another rerun", a, t)
			}
		}
		if g.Decision == gate.Pass {
			rr.passedAt = a
			return rr, nil
		}
	}
	return rr, nil
}

// retryCell runs the retry scenario's trials of n items.
func (c *config) retryCell(n, trials int, shift float64) ([]retryResult, error) {
	return runTrials(c, trials, func(w *worker, t int) (retryResult, error) { return w.retryTrial(n, t, shift) })
}

// retryTable prints the retry scenario: how often a real 3% drop passes
// on its first attempt, and within c.retries attempts.
func (c *config) retryTable(trials int, ns []int, shift float64) error {
	fmt.Printf("retry scenario: a real %.0f%% drop re-run up to %d times until it passes, --noisy-drop %s, attempts' state kept: %v\n", 100*c.retryDrop, c.retries, c.retryMode, c.attempts)
	fmt.Printf("%6s | %14s | %18s | %14s | %s\n", "items", "pass, 1st try", "pass within tries", "mean attempts", "rerun extra runs per PR")
	for _, n := range ns {
		rs, err := c.retryCell(n, trials, shift)
		if err != nil {
			return err
		}
		first, within, tries, extra := 0, 0, 0, 0
		for _, r := range rs {
			if r.passedAt == 1 {
				first++
			}
			if r.passedAt > 0 {
				within++
				tries += r.passedAt
			} else {
				tries += c.retries
			}
			extra += r.extra
		}
		pct := func(x int) string { return fmt.Sprintf("%.1f%%", 100*float64(x)/float64(len(rs))) }
		fmt.Printf("%6d | %14s | %18s | %14.2f | %.2f\n", n, pct(first), pct(within), float64(tries)/float64(len(rs)), float64(extra)/float64(c.k)/float64(len(rs)))
	}
	fmt.Fprintf(os.Stderr, "noisesim: %d binary calls (%d workers)\n", c.calls.Load(), c.workers)
	return nil
}

// judged is the judge's levels of every answer's quality criteria, in
// order: the scores a run's file carries.
func judged(rng *rand.Rand, ans [][][4]float64) [][][4]int {
	j := make([][][4]int, len(ans))
	for i, as := range ans {
		j[i] = make([][4]int, len(as))
		for a, q := range as {
			for k := range quality {
				j[i][a][k] = judge(rng, q[k])
			}
		}
	}
	return j
}

// writeJudged writes a judged run as JSON lines: one "scores" object for an item
// with one answer, an "answers" array for more.
func writeJudged(js [][][4]int) []byte {
	var b bytes.Buffer
	for i, as := range js {
		b.WriteString(`{"id":"q`)
		b.WriteString(strconv.Itoa(i))
		if len(as) > 1 {
			b.WriteString(`","answers":[`)
		} else {
			b.WriteString(`",`)
		}
		for j, a := range as {
			if j > 0 {
				b.WriteString(",")
			}
			if len(as) > 1 {
				b.WriteString("{")
			}
			b.WriteString(`"scores":{`)
			for k, c := range quality {
				fmt.Fprintf(&b, "%q:%d,", c, a[k])
			}
			b.WriteString(`"safety":1}`)
			if len(as) > 1 {
				b.WriteString("}")
			}
		}
		if len(as) > 1 {
			b.WriteString("]")
		}
		b.WriteString("}\n")
	}
	return b.Bytes()
}
