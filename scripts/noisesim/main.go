// Command noisesim measures how often the gate blocks a pull request that
// changed nothing (false block) and lets a real drop through (miss), under
// noisy-drop block, warn and rerun, for eval sets of 50, 200 and 1,000
// items with K answers per item (-answers; regenerated answers, each judged
// once, written as an "answers" array).
//
// The model: every item has a latent difficulty; every run regenerates the
// answers (the normal case; -regen=false re-judges the same answers), and a
// noisy judge scores each answer on the production rubric's four 1-5
// criteria (safety always passes: this measures the relative rule). The
// judge's noise is set so that re-scoring the same answer gives the same
// level about half the time; the program prints the rate it measured. A
// "dropped" run lowers answer quality so that the expected aggregate score
// is 3% (or 5%) lower. That shift is calibrated in-process with
// native.Score on 100,000 items (it only defines the drop's size: no
// decision is taken there).
//
// Every decision and every baseline comes from the rubricgate binary, as a
// user's CI would produce them (-bin, or by default ./cmd/rubricgate built
// once into a temporary directory). Each trial is a fresh model of n
// items: -main-runs pushes to main, each an unchanged run gated with
// --write-baseline (the first without a baseline: it passes and writes
// one; each next against the last baseline written, which a blocked main
// run does not replace, as a store keeps the last passing baseline; the
// main-run block rate is printed), then three pull requests against the
// last baseline, one unchanged and one each with a real 3% and 5% drop,
// each gated under --noisy-drop block, warn and rerun (--json: the
// decision and rerun_answers are read from the report). Under rerun, a
// pull request whose decision is rerun gets its re-run (the answers per
// item the gate asked for, at most 4·K), and the gate of the union of both
// runs' answers with --final decides. The cost column is the mean extra
// answers per pull request, in runs of K answers. -pool N passes
// --baseline-pool N on the main runs (0: the binary's default, which
// pools the last 4 main runs that agree within noise); -main-flags are
// the main runs' decision flags ("--noisy-drop warn --hard-drop 100%", as
// examples/workflows/baseline.yml gates main: a run blocked on noise never
// becomes the baseline while a lucky one does, so blocking main on noise
// biases the baseline upwards). The last column is the main-run block
// rate and the mean runs the pull requests' baselines pool.
//
// Three more measurements (see CONTRIBUTING.md): -warmup gates an
// unchanged pull request (noisy-drop block) after every main run and
// counts its false blocks and whether its 95% interval covers 0, by the
// runs the baseline pools (-warmup-only: nothing else), with a second line
// for those after no blocked main run of their trial (a blocked main run
// is an unlucky run left out of the baseline), and with -known-baseline M
// a third: each of those pull requests gated also against a baseline of
// one run of M answers per item (the items' expected scores known almost
// exactly: the floor no baseline can go under); -slide N runs, after
// the main runs, N steps each -slide-step lower than the last, each a pull
// request (-slide-pr-flags) and its main run, until the first block, and
// prints the share of slides blocked by each step and by which rule;
// -unchanged-only gates only the unchanged pull request under block. The
// second line of the pull request table counts what the drift rule
// blocked (alone: the drop check passed it). -gate-flags are passed to
// every gate ("--max-drift 0" switches the drift rule off).
//
// The binary runs in a temporary directory per worker, outside any git
// checkout, with a minimal environment and never --branch, so it saves
// into no local store: only the --baseline and --write-baseline files.
// Results depend on -seed only, not on -workers (each trial's random
// streams come from the seed, the size and the trial's number).
//
// -retries R runs the retry scenario instead (retry.go): a pull request
// with a real 3% drop (-retry-drop; 0: an unchanged one) is re-run up to R
// times, each attempt regenerating its answers as "Re-run jobs" or an
// empty commit does, until one passes, under -retry-mode (default rerun,
// with its re-run and the final gate on the union of both runs as
// judged); with -attempts (the default) the binary keeps the attempts'
// state in --attempts-dir, as the gate's comment keeps it on a pull
// request (-attempts=false: each attempt alone, for a binary without it).
//
// Usage:
//
//	go run ./scripts/noisesim [-trials 1000] [-sizes 50,200,1000] [-answers 1] [-regen=true]
//	    [-main-runs 4] [-pool 0] [-main-flags "--noisy-drop warn --hard-drop 100%"] [-gate-flags ""]
//	    [-warmup | -warmup-only [-known-baseline 0] | -unchanged-only | -slide 20 [-slide-step 0.015] [-slide-pr-flags "--noisy-drop warn"]]
//	    [-retries 0 [-retry-mode rerun] [-retry-drop 0.03] [-attempts=true]]
//	    [-bin PATH] [-workers N] [-seed 1]
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// The latent-quality model.
const (
	levelMean  = 3.4  // mean judged level of an average answer
	itemSD     = 0.8  // spread of item difficulty, in levels
	critSD     = 0.4  // spread of an item's criteria around its difficulty
	answerSD   = 0.45 // spread of a regenerated answer's quality
	judgeSD    = 0.5  // the judge's noise, in levels (before rounding)
	calibItems = 100_000
)

var quality = []string{"faithfulness", "relevance", "completeness", "format_tone"}

// item is one eval item's latent state: its difficulty per criterion.
type item struct{ crit [4]float64 }

// config is what every trial shares: the binary, the rubric and the
// shape of the runs.
type config struct {
	bin      string   // the rubricgate binary (absolute)
	rubric   string   // the rubric (absolute)
	k        int      // answers per item in every run
	mainRuns int      // main runs before the pull request
	pool     int      // --baseline-pool on the main runs; 0: not passed
	mainArgs []string // the main runs' decision flags
	regen    bool     // regenerate the answers on every run
	gateArgs []string // flags passed to every gate (-gate-flags)
	warmup   bool     // gate an unchanged pull request after every main run
	warmOnly bool     // only that: no pull request scenarios
	known    int      // -known-baseline: answers per item of the known baseline (0: none)
	oneOnly  bool     // only the unchanged pull request, under noisy-drop block
	seed     uint64
	workers  int
	calls    atomic.Int64 // binary calls
	// The retry scenario (-retries > 0, retry.go): a real drop of
	// retryDrop (0: an unchanged pull request) re-run up to retries times
	// under retryMode, with the attempts' state kept (attempts) or not.
	retries   int
	retryMode gate.NoisyMode
	attempts  bool
	retryDrop float64
}

// The scenarios of a trial's pull request, and the modes each is gated in.
const (
	scenarios = 3 // unchanged, real 3% drop, real 5% drop
	modes     = 3 // block, warn, rerun
)

var modeNames = [modes]gate.NoisyMode{gate.NoisyBlock, gate.NoisyWarn, gate.NoisyRerun}

// trialResult is one trial: what each mode did to each scenario's pull
// request, and what the main runs did.
type trialResult struct {
	blocked    [scenarios][modes]bool
	reran      [scenarios]bool
	extra      [scenarios]int // answers per item the rerun added
	mainBlocks int            // main runs (after the first) blocked
	mainDrift  int            // of them, by the drift rule
	driftAlone int            // of those, by the drift rule alone (the drop check passed them)
	pooled     int            // runs the pull request's baseline pools
	// drift[sc][md]: the drift rule blocked the pull request; driftOnly:
	// nothing else did (the drop check passed it)
	drift, driftOnly [scenarios][modes]bool
	// warm are the unchanged pull requests gated (block mode) after each
	// main run that left a baseline (-warmup)
	warm []warmPR
}

// cell sums the trials of one size.
type cell struct {
	trials     int
	wrong      [scenarios][modes]int // false blocks (unchanged) or misses (drops)
	reruns     int                   // pull requests whose first gate under rerun said rerun
	extra      int                   // answers per item added by the reruns
	mainBlocks int
	mainDrift  int // main runs blocked by the drift rule
	driftAlone int // of them, by the drift rule alone
	mainGated  int // main runs gated against a baseline
	pooled     int // runs the pull requests' baselines pool, summed
	drift      [scenarios][modes]int
	driftOnly  [scenarios][modes]int
	warm       warmCell
}

func (c *cell) add(r trialResult, mainRuns int) {
	c.trials++
	for sc := range scenarios {
		for md := range modes {
			if r.blocked[sc][md] == (sc == 0) {
				c.wrong[sc][md]++
			}
		}
		if r.reran[sc] {
			c.reruns++
		}
		c.extra += r.extra[sc]
	}
	c.mainBlocks += r.mainBlocks
	c.mainDrift += r.mainDrift
	c.driftAlone += r.driftAlone
	c.mainGated += mainRuns - 1
	c.pooled += r.pooled
	for sc := range scenarios {
		for md := range modes {
			if r.drift[sc][md] {
				c.drift[sc][md]++
			}
			if r.driftOnly[sc][md] {
				c.driftOnly[sc][md]++
			}
		}
	}
	for _, w := range r.warm {
		c.warm.add(w)
	}
}

// rng is the random stream of one part (0: the model and main runs, 1+sc:
// scenario sc's pull request) of one trial of one size: the same whatever
// the worker that runs it.
func (c *config) rng(n, trial, part int) *rand.Rand {
	return rand.New(rand.NewPCG(c.seed, uint64(n)<<40|uint64(trial)<<8|uint64(part)))
}

// worker runs trials in its own directory.
type worker struct {
	c   *config
	dir string
}

// gateReport is what the sim reads from the binary's JSON report.
type gateReport struct {
	Decision  gate.Decision   `json:"decision"`
	DropCheck *gate.DropCheck `json:"drop_check"`
	Baseline  *struct {
		PooledRuns int `json:"pooled_runs"`
	} `json:"baseline"`
	CI95       *[2]float64 `json:"ci95"`
	DriftCheck *struct {
		Blocks bool `json:"blocks"`
	} `json:"drift_check"`
}

// driftBlocks reports whether the drift rule blocked the run.
func (g *gateReport) driftBlocks() bool { return g.DriftCheck != nil && g.DriftCheck.Blocks }

// dropBlocks reports whether the drop check blocked the run.
func (g *gateReport) dropBlocks() bool { return g.DropCheck != nil && g.DropCheck.Blocks }

// errBinary is the binary failing (exit 2 or a status it never returns).
type errBinary struct {
	args   []string
	code   int
	stderr string
}

func (e *errBinary) Error() string {
	return fmt.Sprintf("rubricgate %s: exit %d:\n%s", strings.Join(e.args, " "), e.code, strings.TrimSpace(e.stderr))
}

// gate runs `rubricgate gate` with args plus --rubric and --json, in the
// worker's directory, and returns the decision from the JSON report, after
// checking it against the exit status.
func (w *worker) gate(args ...string) (*gateReport, error) {
	args = append(append([]string{"gate", "--rubric", w.c.rubric, "--json", "report.json"}, w.c.gateArgs...), args...)
	if err := os.Remove(filepath.Join(w.dir, "report.json")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	cmd := exec.Command(w.c.bin, args...)
	cmd.Dir = w.dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.dir, "TMPDIR=" + os.TempDir(), "NO_COLOR=1"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	w.c.calls.Add(1)
	err := cmd.Run()
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			return nil, fmt.Errorf("running %s: %w", w.c.bin, err)
		}
		code = ee.ExitCode()
	}
	want, ok := map[int]gate.Decision{0: gate.Pass, 1: gate.Block, 3: gate.Rerun}[code]
	if !ok {
		return nil, &errBinary{args: args, code: code, stderr: stderr.String()}
	}
	data, err := os.ReadFile(filepath.Join(w.dir, "report.json"))
	if err != nil {
		return nil, fmt.Errorf("rubricgate %s: exit %d and no JSON report: %w", strings.Join(args, " "), code, err)
	}
	var rep gateReport
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("rubricgate %s: the JSON report: %w", strings.Join(args, " "), err)
	}
	if rep.Decision != want {
		return nil, fmt.Errorf("rubricgate %s: exit %d but decision %q in the JSON report", strings.Join(args, " "), code, rep.Decision)
	}
	return &rep, nil
}

// write writes a run file into the worker's directory.
func (w *worker) write(name string, data []byte) error {
	return os.WriteFile(filepath.Join(w.dir, name), data, 0o644)
}

func (w *worker) exists(name string) (bool, error) {
	_, err := os.Stat(filepath.Join(w.dir, name))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return err == nil, err
}

// trial runs one trial of n items: the main runs that make the baseline,
// then each scenario's pull request under each mode.
func (w *worker) trial(n, t int, shifts [scenarios]float64) (trialResult, error) {
	var r trialResult
	c := w.c
	if err := clearDir(w.dir); err != nil {
		return r, err
	}
	rng := c.rng(n, t, 0)
	m := newModel(n, rng)
	if !c.regen {
		m.fixed = m.answers(rng, 0, c.k)
	}
	if c.warmup && c.known > 0 {
		if err := w.knownBaseline(m, n, t); err != nil {
			return r, err
		}
	}
	last := ""
	for i := 1; i <= c.mainRuns; i++ {
		var err error
		if last, err = w.mainRun(&r, m, rng, n, t, i, last); err != nil {
			return r, err
		}
		if c.warmup {
			if err := w.warmPR(&r, m, n, t, i, last); err != nil {
				return r, err
			}
		}
	}
	if c.warmOnly {
		return r, nil
	}
	for sc, shift := range shifts {
		if c.oneOnly && sc > 0 {
			break
		}
		if err := w.pullRequest(&r, m, n, t, sc, shift, last); err != nil {
			return r, err
		}
	}
	return r, nil
}

// mainGate is where main run i writes its baseline, and the arguments of
// its gate (main.jsonl against last, "" for none, with the main flags).
func (c *config) mainGate(i int, last string) (string, []string) {
	out := fmt.Sprintf("baseline-%d.json", i)
	args := []string{"--results", "main.jsonl", "--write-baseline", out}
	if last != "" {
		args = append(args, "--baseline", last)
	}
	if c.pool > 0 {
		args = append(args, "--baseline-pool", strconv.Itoa(c.pool))
	}
	return out, append(args, c.mainArgs...)
}

// mainRun gates main run i of trial t, writing the next baseline when it
// passes, and returns the last passing baseline (last, when it blocked).
func (w *worker) mainRun(r *trialResult, m *model, rng *rand.Rand, n, t, i int, last string) (string, error) {
	c := w.c
	if err := w.write("main.jsonl", run(rng, m.answers(rng, 0, c.k))); err != nil {
		return last, err
	}
	out, args := c.mainGate(i, last)
	g, err := w.gate(args...)
	if err != nil {
		return last, err
	}
	wrote, err := w.exists(out)
	if err != nil {
		return last, err
	}
	switch {
	case g.Decision == gate.Pass && wrote:
		return out, nil
	case g.Decision == gate.Block && !wrote && last != "":
		r.mainBlocks++ // the store keeps the last passing baseline
		if g.driftBlocks() {
			r.mainDrift++
			if !g.dropBlocks() {
				r.driftAlone++
			}
		}
		return last, nil
	}
	return last, fmt.Errorf("main run %d of trial %d (%d items): decision %s, baseline written: %v (the first run starts the baseline; a run writes one exactly when it passes)", i, t, n, g.Decision, wrote)
}

// pullRequest gates scenario sc's pull request (its answers shifted by
// shift) against the last baseline under each mode; under rerun, a
// re-run's answers are added and the union gated with --final.
func (w *worker) pullRequest(r *trialResult, m *model, n, t, sc int, shift float64, last string) error {
	c := w.c
	rng := c.rng(n, t, 1+sc)
	cur := m.answers(rng, shift, c.k)
	if err := w.write("pr.jsonl", run(rng, cur)); err != nil {
		return err
	}
	for md, mode := range modeNames {
		if c.oneOnly && md > 0 {
			break
		}
		g, err := w.gate("--results", "pr.jsonl", "--baseline", last, "--noisy-drop", string(mode))
		if err != nil {
			return err
		}
		if sc == 0 && md == 0 {
			r.pooled = 1
			if g.Baseline != nil && g.Baseline.PooledRuns > 1 {
				r.pooled = g.Baseline.PooledRuns
			}
		}
		if g.Decision == gate.Rerun {
			if mode != gate.NoisyRerun || g.DropCheck == nil {
				return fmt.Errorf("pull request of trial %d (%d items): decision rerun under noisy-drop %s (drop check: %v)", t, n, mode, g.DropCheck != nil)
			}
			if g, err = w.rerunFinal(r, m, rng, cur, n, t, sc, shift, last, mode, g); err != nil {
				return err
			}
		}
		r.blocked[sc][md] = g.Decision == gate.Block
		r.drift[sc][md] = g.driftBlocks()
		r.driftOnly[sc][md] = g.driftBlocks() && !g.dropBlocks()
	}
	return nil
}

// rerunFinal brings the answers the gate g asked for, and gates the union
// of cur and them with --final: the final decision.
func (w *worker) rerunFinal(r *trialResult, m *model, rng *rand.Rand, cur [][][4]float64, n, t, sc int, shift float64, last string, mode gate.NoisyMode, g *gateReport) (*gateReport, error) {
	r.reran[sc] = true
	r.extra[sc] = min(max(g.DropCheck.RerunAnswers, 1), 4*w.c.k)
	more := m.answers(rng, shift, r.extra[sc])
	union := make([][][4]float64, len(cur))
	for i := range cur {
		union[i] = append(append([][4]float64{}, cur[i]...), more[i]...)
	}
	if err := w.write("union.jsonl", run(rng, union)); err != nil {
		return nil, err
	}
	g, err := w.gate("--results", "union.jsonl", "--baseline", last, "--noisy-drop", string(mode), "--final")
	if err != nil {
		return nil, err
	}
	if g.Decision == gate.Rerun {
		return nil, fmt.Errorf("final gate of trial %d (%d items) asked for another rerun", t, n)
	}
	return g, nil
}

// clearDir empties dir, so no file of an earlier trial is read by mistake.
func clearDir(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}

// outsideGit refuses a directory inside a git checkout: the binary would
// read its branch there and could save into a local store.
func outsideGit(dir string) error {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return fmt.Errorf("the work directory %s is inside a git checkout (%s): set TMPDIR outside it", dir, d)
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// cell runs trials of n items on c.workers workers, each in its own
// temporary directory, and sums them in trial order.
func (c *config) cell(n, trials int, shifts [scenarios]float64) (cell, error) {
	results, err := runTrials(c, trials, func(w *worker, t int) (trialResult, error) {
		r, err := w.trial(n, t, shifts)
		if err != nil {
			return r, err
		}
		// The binary saves nowhere but the files it is given.
		if ok, err := w.exists(".rubricgate"); ok || err != nil {
			return r, fmt.Errorf("the binary wrote a local store in %s (%v)", w.dir, err)
		}
		return r, nil
	})
	var sum cell
	if err != nil {
		return sum, err
	}
	for _, r := range results {
		sum.add(r, c.mainRuns)
	}
	return sum, nil
}

// buildBinary builds ./cmd/rubricgate into dir, once.
func buildBinary(dir string) (string, error) {
	bin := filepath.Join(dir, "rubricgate")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	cmd := exec.Command("go", "build", "-o", bin, "github.com/rubricgate/rubricgate/cmd/rubricgate")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/rubricgate (run noisesim inside the module, or pass -bin): %w\n%s", err, out)
	}
	return bin, nil
}

func main() {
	trials := flag.Int("trials", 1000, "simulated pull requests per size and scenario")
	sizes := flag.String("sizes", "50,200,1000", "eval set sizes")
	answers := flag.Int("answers", 1, "answers per item in every run (regenerated answers, an \"answers\" array)")
	regen := flag.Bool("regen", true, "regenerate the answers on every run (false: re-judge the same answers)")
	rubricPath := flag.String("rubric", "rubrics/production.yaml", "the rubric")
	seed := flag.Uint64("seed", 1, "random seed")
	bin := flag.String("bin", "", "the rubricgate binary (default: build ./cmd/rubricgate into a temporary directory)")
	mainRuns := flag.Int("main-runs", 4, "unchanged main runs before each pull request; each passing one writes the next baseline")
	pool := flag.Int("pool", 0, "pass --baseline-pool N on the main runs (0: don't pass it, the binary's default)")
	mainFlags := flag.String("main-flags", "--noisy-drop warn --hard-drop 100%", "the main runs' decision flags, as examples/workflows/baseline.yml sets them (\"\": the binary's defaults)")
	workers := flag.Int("workers", runtime.NumCPU(), "trials run in parallel")
	gateFlags := flag.String("gate-flags", "", "flags passed to every gate, main runs and pull requests (\"--max-drift 0\" switches the drift rule off)")
	warmup := flag.Bool("warmup", false, "after every main run, gate an unchanged pull request (noisy-drop block) against its baseline: false blocks and interval coverage by the runs the baseline pools")
	oneOnly := flag.Bool("unchanged-only", false, "gate only the unchanged pull request, under noisy-drop block (the other columns read 0)")
	warmOnly := flag.Bool("warmup-only", false, "-warmup without the pull request scenarios (only the warm-up line is printed)")
	known := flag.Int("known-baseline", 0, "with -warmup: gate each warm-up pull request also against a baseline of one run of N answers per item, the items' expected scores known almost exactly (0: off)")
	slide := flag.Int("slide", 0, "instead of the pull request table: a slide of N steps after the main runs, each step a pull request and its main run -slide-step lower than the last; prints the step that was first blocked")
	slideStep := flag.Float64("slide-step", 0.015, "the relative drop of each slide step")
	slidePR := flag.String("slide-pr-flags", "--noisy-drop warn", "the decision flags of the slide's pull requests")
	retries := flag.Int("retries", 0, "the retry scenario instead: a pull request with a real drop re-run up to N times until it passes (0: off)")
	retryMode := flag.String("retry-mode", "rerun", "the retry scenario's --noisy-drop")
	retryDrop := flag.Float64("retry-drop", 0.03, "the retry scenario's real drop (0: an unchanged pull request, re-run until it passes)")
	attempts := flag.Bool("attempts", true, "the retry scenario keeps the attempts' state (--attempts-dir); false: each attempt alone, as before it was kept")
	flag.Parse()
	c := &config{retries: *retries, retryMode: gate.NoisyMode(*retryMode), attempts: *attempts, retryDrop: *retryDrop,
		k: *answers, mainRuns: *mainRuns, pool: *pool, mainArgs: strings.Fields(*mainFlags), regen: *regen, seed: *seed, workers: *workers,
		gateArgs: strings.Fields(*gateFlags), warmup: *warmup || *warmOnly, warmOnly: *warmOnly, oneOnly: *oneOnly, known: *known}
	if *slide > 0 {
		if err := c.slideMain(*trials, *sizes, *rubricPath, *bin, *slide, *slideStep, strings.Fields(*slidePR)); err != nil {
			fmt.Fprintln(os.Stderr, "noisesim:", err)
			os.Exit(2)
		}
		return
	}
	if err := c.main(*trials, *sizes, *rubricPath, *bin); err != nil {
		fmt.Fprintln(os.Stderr, "noisesim:", err)
		os.Exit(2)
	}
}

// setup checks the settings, reads the rubric and builds (or finds) the
// binary; cleanup removes what it built.
func (c *config) setup(trials int, sizes, rubricPath, bin string) (ns []int, rb *rubric.Rubric, cleanup func(), err error) {
	cleanup = func() {}
	switch {
	case c.k < 1:
		return nil, nil, cleanup, errors.New("-answers must be at least 1")
	case c.mainRuns < 1:
		return nil, nil, cleanup, errors.New("-main-runs must be at least 1")
	case c.pool < 0:
		return nil, nil, cleanup, errors.New("-pool must be 0 (the binary's default) or more")
	case c.workers < 1:
		return nil, nil, cleanup, errors.New("-workers must be at least 1")
	case trials < 1:
		return nil, nil, cleanup, errors.New("-trials must be at least 1")
	}
	for f := range strings.SplitSeq(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return nil, nil, cleanup, fmt.Errorf("-sizes: %q is not a size of at least 2", f)
		}
		ns = append(ns, n)
	}
	if c.rubric, err = filepath.Abs(rubricPath); err != nil {
		return nil, nil, cleanup, err
	}
	data, err := os.ReadFile(c.rubric)
	if err != nil {
		return nil, nil, cleanup, err
	}
	if rb, _, err = rubric.Load(rubricPath, data); err != nil {
		return nil, nil, cleanup, err
	}
	if bin == "" {
		dir, err := os.MkdirTemp("", "noisesim-bin-")
		if err != nil {
			return nil, nil, cleanup, err
		}
		cleanup = func() { os.RemoveAll(dir) }
		fmt.Fprintf(os.Stderr, "noisesim: building ./cmd/rubricgate into %s (-bin to use another binary)\n", dir)
		if bin, err = buildBinary(dir); err != nil {
			return nil, nil, cleanup, err
		}
	}
	if c.bin, err = filepath.Abs(bin); err != nil {
		return nil, nil, cleanup, err
	}
	return ns, rb, cleanup, nil
}

func (c *config) main(trials int, sizes, rubricPath, bin string) error {
	ns, rb, cleanup, err := c.setup(trials, sizes, rubricPath, bin)
	defer cleanup()
	if err != nil {
		return err
	}
	start := time.Now()
	if c.warmOnly {
		fmt.Printf("warm-up: %d answer(s) per item; %d main run(s), each followed by an unchanged pull request; %d trials per size; main: %q; every gate: %q\n",
			c.k, c.mainRuns, trials, strings.Join(c.mainArgs, " "), strings.Join(c.gateArgs, " "))
		for _, n := range ns {
			s, err := c.cell(n, trials, [scenarios]float64{})
			if err != nil {
				return err
			}
			fmt.Printf("%6d |", n)
			c.printWarm(&s.warm)
		}
		fmt.Fprintf(os.Stderr, "noisesim: %d binary calls, %.1f s wall (%d workers)\n", c.calls.Load(), time.Since(start).Seconds(), c.workers)
		return nil
	}
	var shift [2]float64
	var serr [2]error
	var wg sync.WaitGroup
	for i, d := range []float64{0.03, 0.05} {
		if i == 0 && c.retries > 0 {
			d = c.retryDrop
		}
		if d == 0 {
			continue // no drop: no shift
		}
		wg.Go(func() { shift[i], serr[i] = dropShift(rb, d) })
	}
	wg.Wait()
	if err := errors.Join(serr[:]...); err != nil {
		return err
	}
	if c.retries > 0 {
		return c.retryTable(trials, ns, shift[0])
	}
	pool := "the binary's default"
	if c.pool > 0 {
		pool = strconv.Itoa(c.pool)
	}
	fmt.Printf("model: judge repeats its score on the same answer %.0f%% of the time; answers regenerated every run: %v; %d answer(s) per item; a real 3%%/5%% drop = answer quality %.3f/%.3f levels lower; %d trials per cell; %d main run(s) before each PR, baseline pool %s\n",
		100*sameRate(rand.New(rand.NewPCG(c.seed, 2))), c.regen, c.k, shift[0], shift[1], trials, c.mainRuns, pool)
	fmt.Printf("%6s | %-22s | %-22s | %-22s | %-18s | %s\n", "", "false block (no change)", "miss (real 3% drop)", "miss (real 5% drop)", "rerun: reruns, cost", "main runs")
	fmt.Printf("%6s | %6s %6s %8s | %6s %6s %8s | %6s %6s %8s | %8s %9s | %s\n", "items", "block", "warn", "rerun", "block", "warn", "rerun", "block", "warn", "rerun", "rate", "extra runs", "blocked; baseline runs")
	for _, n := range ns {
		s, err := c.cell(n, trials, [scenarios]float64{0, shift[0], shift[1]})
		if err != nil {
			return err
		}
		pct := func(c, of int) string {
			if of == 0 {
				return "-"
			}
			return fmt.Sprintf("%.1f%%", 100*float64(c)/float64(of))
		}
		w := func(sc, md int) string { return pct(s.wrong[sc][md], s.trials) }
		fmt.Printf("%6d | %6s %6s %8s | %6s %6s %8s | %6s %6s %8s | %8s %9.2f | %s; %.2f\n", n,
			w(0, 0), w(0, 1), w(0, 2), w(1, 0), w(1, 1), w(1, 2), w(2, 0), w(2, 1), w(2, 2),
			pct(s.reruns, scenarios*s.trials), float64(s.extra)/float64(c.k)/float64(scenarios*s.trials), fmt.Sprintf("%d of %d (%s)", s.mainBlocks, s.mainGated, pct(s.mainBlocks, s.mainGated)), float64(s.pooled)/float64(s.trials))
		d := func(sc, md int) string {
			return pct(s.drift[sc][md], s.trials) + " (" + pct(s.driftOnly[sc][md], s.trials) + ")"
		}
		fmt.Printf("%6s   drift rule blocked (alone) block/warn/rerun: unchanged %s / %s / %s; 3%% drop %s / %s / %s; 5%% drop %s / %s / %s; main runs blocked by it: %d of %d (%s; alone %d, %s; with a drop %d)\n", "",
			d(0, 0), d(0, 1), d(0, 2), d(1, 0), d(1, 1), d(1, 2), d(2, 0), d(2, 1), d(2, 2), s.mainDrift, s.mainGated, pct(s.mainDrift, s.mainGated),
			s.driftAlone, rateSE(s.driftAlone, s.mainGated), s.mainDrift-s.driftAlone)
		if c.warmup {
			fmt.Printf("%6s  ", "")
			c.printWarm(&s.warm)
		}
	}
	fmt.Fprintf(os.Stderr, "noisesim: %d binary calls, %.1f s wall (%d workers)\n", c.calls.Load(), time.Since(start).Seconds(), c.workers)
	return nil
}
