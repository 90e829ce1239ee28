// Command noisesim measures how often the gate blocks a pull request that
// changed nothing (false block) and lets a real 3% drop through (miss),
// under noisy-drop block and warn, for eval sets of 50, 200 and 1,000 items.
//
// The model: every item has a latent difficulty; every run regenerates the
// answers (the normal case; -regen=false re-judges the same answers), and a
// noisy judge scores each answer on the production rubric's four 1-5
// criteria (safety always passes: this measures the relative rule). The
// judge's noise is set so that re-scoring the same answer gives the same
// level about half the time; the program prints the rate it measured. A
// "dropped" run lowers answer quality so that the expected aggregate score
// is 3% lower.
//
// Each simulated run is written as JSON lines and goes through the gate's
// own code: native.Score under rubrics/production.yaml, gate.NewPairer for the
// paired interval, and gate.Decide for the decision, once per noisy-drop
// mode on the same pair of runs.
//
// Usage:
//
//	go run ./scripts/noisesim [-trials 1000] [-sizes 50,200,1000] [-regen=true]
package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// The latent-quality model.
const (
	levelMean  = 3.4  // mean judged level of an average answer
	itemSD     = 0.8  // spread of item difficulty, in levels
	critSD     = 0.4  // spread of an item's criteria around its difficulty
	answerSD   = 0.45 // spread of a regenerated answer's quality
	judgeSD    = 0.5  // the judge's noise, in levels (before rounding)
	realDrop   = 0.03 // the real drop the miss rate is measured on
	calibItems = 200_000
)

var quality = []string{"faithfulness", "relevance", "completeness", "format_tone"}

// item is one eval item's latent state: its difficulty per criterion.
type item struct{ crit [4]float64 }

type model struct {
	rng   *rand.Rand
	items []item
}

func newModel(n int, rng *rand.Rand) *model {
	m := &model{rng: rng, items: make([]item, n)}
	for i := range m.items {
		q := itemSD * rng.NormFloat64()
		for k := range 4 {
			m.items[i].crit[k] = levelMean + q + critSD*rng.NormFloat64()
		}
	}
	return m
}

// answers draws one run's answer quality per item and criterion, shifted
// by shift levels.
func (m *model) answers(shift float64) [][4]float64 {
	a := make([][4]float64, len(m.items))
	for i, it := range m.items {
		e := answerSD * m.rng.NormFloat64()
		for k := range 4 {
			a[i][k] = it.crit[k] + e + shift
		}
	}
	return a
}

// judge scores an answer: its quality plus judge noise, rounded to a level.
func (m *model) judge(q float64) int {
	return int(min(5, max(1, math.Round(q+judgeSD*m.rng.NormFloat64()))))
}

// run writes a judged run as JSON lines.
func (m *model) run(ans [][4]float64) []byte {
	var b bytes.Buffer
	for i, a := range ans {
		b.WriteString(`{"id":"q`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`","scores":{`)
		for k, c := range quality {
			fmt.Fprintf(&b, "%q:%d,", c, m.judge(a[k]))
		}
		b.WriteString(`"safety":1}}` + "\n")
	}
	return b.Bytes()
}

func score(rb *rubric.Rubric, data []byte, onItem func(*gate.ItemResult) error) (*gate.Report, error) {
	return native.Score(rb, []native.Input{{Name: "sim.jsonl", R: bytes.NewReader(data)}}, native.ScoreOptions{Workers: 1, OnItem: onItem})
}

// meanScore is the expected item score of answers shifted by shift, by
// Monte Carlo over many items (through native.Score).
func meanScore(rb *rubric.Rubric, shift float64, seed uint64) float64 {
	m := newModel(calibItems, rand.New(rand.NewPCG(seed, 1)))
	rep, err := score(rb, m.run(m.answers(shift)), nil)
	if err != nil {
		panic(err)
	}
	return *rep.Score
}

// dropShift finds the shift of answer quality that lowers the expected
// aggregate score by realDrop (bisection, same seed on both sides).
func dropShift(rb *rubric.Rubric) float64 {
	base := meanScore(rb, 0, 99)
	lo, hi := -1.0, 0.0
	for range 20 {
		mid := (lo + hi) / 2
		if (base-meanScore(rb, mid, 99))/base > realDrop {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// sameRate is the share of (answer, criterion) scores the judge repeats
// exactly when asked twice.
func sameRate(rng *rand.Rand) float64 {
	m := newModel(50_000, rng)
	same, all := 0, 0
	for _, a := range m.answers(0) {
		for k := range 4 {
			first, second := m.judge(a[k]), m.judge(a[k]) // two calls: two draws of the judge's noise
			if first == second {
				same++
			}
			all++
		}
	}
	return float64(same) / float64(all)
}

// trial gates one current run against one baseline run of n items and
// returns whether each mode blocked.
func trial(rb *rubric.Rubric, m *model, shift float64, regen bool) (blockPlain, blockWarn bool, err error) {
	baseAns := m.answers(0)
	curAns := baseAns
	if regen {
		curAns = m.answers(shift)
	} else if shift != 0 {
		curAns = make([][4]float64, len(baseAns))
		for i := range baseAns {
			for k := range 4 {
				curAns[i][k] = baseAns[i][k] + shift
			}
		}
	}
	var baseItems []gate.ItemScore
	baseRep, err := score(rb, m.run(baseAns), func(it *gate.ItemResult) error {
		baseItems = append(baseItems, gate.ItemScore{ID: it.ID, Score: it.Score})
		return nil
	})
	if err != nil {
		return false, false, err
	}
	pr := gate.NewPairer(baseItems, 0)
	cur, err := score(rb, m.run(curAns), func(it *gate.ItemResult) error { pr.Add(it); return nil })
	if err != nil {
		return false, false, err
	}
	paired := pr.Result()
	b := &gate.Baseline{Rubric: rb, RubricHash: baseRep.Rubric.Hash, Score: *baseRep.Score, PassRate: *baseRep.PassRate, Criteria: baseRep.Criteria, Items: gate.ColumnsOf(baseItems),
		Source: gate.BaselineSource{Kind: "file", Location: "sim", CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	decide := func(mode gate.NoisyMode) bool {
		th := gate.DefaultThresholds
		th.NoisyDrop = mode
		c := *cur
		c.Warnings = append([]string(nil), cur.Warnings...)
		g := gate.Decide(gate.DecideInput{Current: &c, Rubric: rb, Baseline: b, Paired: paired, Now: b.Source.CreatedAt, Thresholds: th, Policy: gate.DefaultPolicy})
		return g.Decision == gate.Block
	}
	return decide(gate.NoisyBlock), decide(gate.NoisyWarn), nil
}

func main() {
	trials := flag.Int("trials", 1000, "simulated pull requests per size and scenario")
	sizes := flag.String("sizes", "50,200,1000", "eval set sizes")
	regen := flag.Bool("regen", true, "regenerate the answers on every run (false: re-judge the same answers)")
	rubricPath := flag.String("rubric", "rubrics/production.yaml", "the rubric")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if err := simulate(*trials, *sizes, *regen, *rubricPath, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "noisesim:", err)
		os.Exit(2)
	}
}

func simulate(trials int, sizes string, regen bool, rubricPath string, seed uint64) error {
	data, err := os.ReadFile(rubricPath)
	if err != nil {
		return err
	}
	rb, _, err := rubric.Load(rubricPath, data)
	if err != nil {
		return err
	}
	shift := dropShift(rb)
	fmt.Printf("model: judge repeats its score on the same answer %.0f%% of the time; answers regenerated every run: %v; a real %.0f%% drop = answer quality %.3f levels lower; %d trials per cell\n",
		100*sameRate(rand.New(rand.NewPCG(seed, 2))), regen, 100*realDrop, shift, trials)
	fmt.Printf("%6s | %-26s | %-26s\n", "", "false block (no change)", "miss (real 3% drop)")
	fmt.Printf("%6s | %12s %12s | %12s %12s\n", "items", "block", "warn", "block", "warn")
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return fmt.Errorf("-sizes: %q is not a size of at least 2", f)
		}
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		var fb, fw, mb, mw int
		for range trials {
			m := newModel(n, rng)
			b, w, err := trial(rb, m, 0, regen)
			if err != nil {
				return err
			}
			fb, fw = fb+btoi(b), fw+btoi(w)
			m = newModel(n, rng)
			b, w, err = trial(rb, m, shift, regen)
			if err != nil {
				return err
			}
			mb, mw = mb+btoi(!b), mw+btoi(!w)
		}
		pct := func(k int) string { return fmt.Sprintf("%.1f%%", 100*float64(k)/float64(trials)) }
		fmt.Printf("%6d | %12s %12s | %12s %12s\n", n, pct(fb), pct(fw), pct(mb), pct(mw))
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
