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
// is 3% (or 5%) lower.
//
// Each simulated run is written as JSON lines and goes through the gate's
// own code, the functions the binary calls: native.Score under
// rubrics/production.yaml, gate.NewPairer (the baseline's items with their
// answer counts and variances, as a baseline file keeps them) for the
// paired interval, and gate.Decide for the decision, once per noisy-drop
// mode on the same pair of runs. Under rerun, a run whose decision is
// rerun gets its re-run (the answers per item the gate asked for, at most
// 4·K), and the gate on the union of both runs' answers (Final) decides.
// The cost column is the mean extra answers per PR, in runs of K answers.
//
// Usage:
//
//	go run ./scripts/noisesim [-trials 1000] [-sizes 50,200,1000] [-answers 1] [-regen=true]
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
	calibItems = 100_000
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
// by shift levels: k answers per item.
func (m *model) answers(shift float64, k int) [][][4]float64 {
	a := make([][][4]float64, len(m.items))
	for i, it := range m.items {
		a[i] = make([][4]float64, k)
		for j := range k {
			e := answerSD * m.rng.NormFloat64()
			for c := range 4 {
				a[i][j][c] = it.crit[c] + e + shift
			}
		}
	}
	return a
}

// judge scores an answer: its quality plus judge noise, rounded to a level.
func (m *model) judge(q float64) int {
	return int(min(5, max(1, math.Round(q+judgeSD*m.rng.NormFloat64()))))
}

// run writes a judged run as JSON lines: one "scores" object for an item
// with one answer, an "answers" array for more.
func (m *model) run(ans [][][4]float64) []byte {
	var b bytes.Buffer
	for i, as := range ans {
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
				fmt.Fprintf(&b, "%q:%d,", c, m.judge(a[k]))
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

func score(rb *rubric.Rubric, data []byte, onItem func(*gate.ItemResult) error) (*gate.Report, error) {
	return native.Score(rb, []native.Input{{Name: "sim.jsonl", R: bytes.NewReader(data)}}, native.ScoreOptions{Workers: 1, OnItem: onItem})
}

// meanScore is the expected item score of answers shifted by shift, by
// Monte Carlo over many items (through native.Score).
func meanScore(rb *rubric.Rubric, shift float64, seed uint64) float64 {
	m := newModel(calibItems, rand.New(rand.NewPCG(seed, 1)))
	rep, err := score(rb, m.run(m.answers(shift, 1)), nil)
	if err != nil {
		panic(err)
	}
	return *rep.Score
}

// dropShift finds the shift of answer quality that lowers the expected
// aggregate score by realDrop (bisection, same seed on both sides).
func dropShift(rb *rubric.Rubric, realDrop float64) float64 {
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
	for _, as := range m.answers(0, 1) {
		a := as[0]
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

// outcome is one simulated pull request's fate under each mode.
type outcome struct {
	block, warn, rerun bool // blocked
	reran              bool
	extra              int // answers per item the rerun added
}

// scored scores a run and collects its items as a baseline keeps them.
func scored(rb *rubric.Rubric, data []byte, pr *gate.Pairer) (*gate.Report, []gate.ItemScore, error) {
	var items []gate.ItemScore
	rep, err := score(rb, data, func(it *gate.ItemResult) error {
		items = append(items, gate.ItemScore{ID: it.ID, Score: it.Score, Answers: it.Answers, AnswerVar: it.AnswerVar})
		if pr != nil {
			pr.Add(it)
		}
		return nil
	})
	return rep, items, err
}

// trial gates one current run against one baseline run of n items, k
// answers per item each, and returns what each mode did.
func trial(rb *rubric.Rubric, m *model, shift float64, k int, regen bool) (outcome, error) {
	var o outcome
	baseAns := m.answers(0, k)
	curAns := baseAns
	if regen {
		curAns = m.answers(shift, k)
	} else if shift != 0 {
		curAns = make([][][4]float64, len(baseAns))
		for i := range baseAns {
			curAns[i] = make([][4]float64, k)
			for j := range k {
				for c := range 4 {
					curAns[i][j][c] = baseAns[i][j][c] + shift
				}
			}
		}
	}
	baseRep, baseItems, err := scored(rb, m.run(baseAns), nil)
	if err != nil {
		return o, err
	}
	b := &gate.Baseline{Rubric: rb, RubricHash: baseRep.Rubric.Hash, Score: *baseRep.Score, PassRate: *baseRep.PassRate, Criteria: baseRep.Criteria, Items: gate.ColumnsOf(baseItems),
		Source: gate.BaselineSource{Kind: "file", Location: "sim", CreatedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}}
	gateRun := func(data []byte) (*gate.Report, *gate.Paired, error) {
		pr := gate.NewPairerColumns(b.Items, 0)
		cur, _, err := scored(rb, data, pr)
		return cur, pr.Result(), err
	}
	cur, paired, err := gateRun(m.run(curAns))
	if err != nil {
		return o, err
	}
	decide := func(cur *gate.Report, paired *gate.Paired, mode gate.NoisyMode, final bool) *gate.GateReport {
		th := gate.DefaultThresholds
		th.NoisyDrop, th.Final = mode, final
		return gate.Decide(gate.DecideInput{Current: cur, Rubric: rb, Baseline: b, Paired: paired, Now: b.Source.CreatedAt, Thresholds: th, Policy: gate.DefaultPolicy})
	}
	o.block = decide(cur, paired, gate.NoisyBlock, false).Decision == gate.Block
	o.warn = decide(cur, paired, gate.NoisyWarn, false).Decision == gate.Block
	g := decide(cur, paired, gate.NoisyRerun, false)
	o.rerun = g.Decision == gate.Block
	if g.Decision == gate.Rerun {
		o.reran = true
		o.extra = min(max(g.DropCheck.RerunAnswers, 1), 4*k)
		more := m.answers(shift, o.extra)
		if !regen {
			more = curAns // re-judging the same answers
		}
		union := make([][][4]float64, len(curAns))
		for i := range curAns {
			union[i] = append(append([][4]float64{}, curAns[i]...), more[i]...)
		}
		cur2, paired2, err := gateRun(m.run(union))
		if err != nil {
			return o, err
		}
		o.rerun = decide(cur2, paired2, gate.NoisyRerun, true).Decision == gate.Block
	}
	return o, nil
}

func main() {
	trials := flag.Int("trials", 1000, "simulated pull requests per size and scenario")
	sizes := flag.String("sizes", "50,200,1000", "eval set sizes")
	answers := flag.Int("answers", 1, "answers per item in every run (regenerated answers, an \"answers\" array)")
	regen := flag.Bool("regen", true, "regenerate the answers on every run (false: re-judge the same answers)")
	rubricPath := flag.String("rubric", "rubrics/production.yaml", "the rubric")
	seed := flag.Uint64("seed", 1, "random seed")
	flag.Parse()
	if *answers < 1 {
		fmt.Fprintln(os.Stderr, "noisesim: -answers must be at least 1")
		os.Exit(2)
	}
	if err := simulate(*trials, *sizes, *answers, *regen, *rubricPath, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "noisesim:", err)
		os.Exit(2)
	}
}

func simulate(trials int, sizes string, k int, regen bool, rubricPath string, seed uint64) error {
	data, err := os.ReadFile(rubricPath)
	if err != nil {
		return err
	}
	rb, _, err := rubric.Load(rubricPath, data)
	if err != nil {
		return err
	}
	shift3, shift5 := dropShift(rb, 0.03), dropShift(rb, 0.05)
	fmt.Printf("model: judge repeats its score on the same answer %.0f%% of the time; answers regenerated every run: %v; %d answer(s) per item; a real 3%%/5%% drop = answer quality %.3f/%.3f levels lower; %d trials per cell\n",
		100*sameRate(rand.New(rand.NewPCG(seed, 2))), regen, k, shift3, shift5, trials)
	fmt.Printf("%6s | %-22s | %-22s | %-22s | %-18s\n", "", "false block (no change)", "miss (real 3% drop)", "miss (real 5% drop)", "rerun: reruns, cost")
	fmt.Printf("%6s | %6s %6s %8s | %6s %6s %8s | %6s %6s %8s | %8s %9s\n", "items", "block", "warn", "rerun", "block", "warn", "rerun", "block", "warn", "rerun", "rate", "extra runs")
	for _, f := range strings.Split(sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			return fmt.Errorf("-sizes: %q is not a size of at least 2", f)
		}
		rng := rand.New(rand.NewPCG(seed, uint64(n)))
		var cnt [3][3]int // scenario (null, 3%, 5%) × mode
		reruns, extra := 0, 0
		for range trials {
			for sc, shift := range []float64{0, shift3, shift5} {
				o, err := trial(rb, newModel(n, rng), shift, k, regen)
				if err != nil {
					return err
				}
				hit := func(blocked bool) int { return btoi(blocked == (sc == 0)) }
				cnt[sc][0] += hit(o.block)
				cnt[sc][1] += hit(o.warn)
				cnt[sc][2] += hit(o.rerun)
				reruns += btoi(o.reran)
				extra += o.extra
			}
		}
		pct := func(c int) string { return fmt.Sprintf("%.1f%%", 100*float64(c)/float64(trials)) }
		fmt.Printf("%6d | %6s %6s %8s | %6s %6s %8s | %6s %6s %8s | %8s %9.2f\n", n,
			pct(cnt[0][0]), pct(cnt[0][1]), pct(cnt[0][2]), pct(cnt[1][0]), pct(cnt[1][1]), pct(cnt[1][2]), pct(cnt[2][0]), pct(cnt[2][1]), pct(cnt[2][2]),
			fmt.Sprintf("%.1f%%", 100*float64(reruns)/float64(3*trials)), float64(extra)/float64(k)/float64(3*trials))
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
