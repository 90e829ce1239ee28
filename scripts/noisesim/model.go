package main

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// model is one eval set: its items and, with -regen=false, the one set of
// answers every run re-judges.
type model struct {
	items []item
	fixed [][][4]float64
}

func newModel(n int, rng *rand.Rand) *model {
	m := &model{items: make([]item, n)}
	for i := range m.items {
		q := itemSD * rng.NormFloat64()
		for k := range 4 {
			m.items[i].crit[k] = levelMean + q + critSD*rng.NormFloat64()
		}
	}
	return m
}

// answers draws one run's answer quality per item and criterion, shifted
// by shift levels: k answers per item. With fixed answers (-regen=false)
// it takes them instead, answer j being fixed answer j mod their count.
func (m *model) answers(rng *rand.Rand, shift float64, k int) [][][4]float64 {
	a := make([][][4]float64, len(m.items))
	for i, it := range m.items {
		a[i] = make([][4]float64, k)
		for j := range k {
			if m.fixed != nil {
				f := m.fixed[i][j%len(m.fixed[i])]
				for c := range 4 {
					a[i][j][c] = f[c] + shift
				}
				continue
			}
			e := answerSD * rng.NormFloat64()
			for c := range 4 {
				a[i][j][c] = it.crit[c] + e + shift
			}
		}
	}
	return a
}

// judge scores an answer: its quality plus judge noise, rounded to a level.
func judge(rng *rand.Rand, q float64) int {
	return int(min(5, max(1, math.Round(q+judgeSD*rng.NormFloat64()))))
}

// run judges the answers and writes the run as writeJudged does.
func run(rng *rand.Rand, ans [][][4]float64) []byte {
	return writeJudged(judged(rng, ans))
}

// meanScore is the expected item score of answers shifted by shift, by
// Monte Carlo over many items (through native.Score, in-process: it only
// calibrates the drop's size).
func meanScore(rb *rubric.Rubric, shift float64, seed uint64) (float64, error) {
	rng := rand.New(rand.NewPCG(seed, 1))
	m := newModel(calibItems, rng)
	data := run(rng, m.answers(rng, shift, 1))
	rep, err := native.Score(rb, []native.Input{{Name: "calibration.jsonl", R: bytes.NewReader(data)}}, native.ScoreOptions{Workers: 1})
	if err != nil {
		return 0, fmt.Errorf("calibrating the drop: %w", err)
	}
	return *rep.Score, nil
}

// dropShift finds the shift of answer quality that lowers the expected
// aggregate score by realDrop (bisection, same seed on both sides).
func dropShift(rb *rubric.Rubric, realDrop float64) (float64, error) {
	base, err := meanScore(rb, 0, 99)
	if err != nil {
		return 0, err
	}
	lo, hi := -1.0, 0.0
	for range 20 {
		mid := (lo + hi) / 2
		s, err := meanScore(rb, mid, 99)
		if err != nil {
			return 0, err
		}
		if (base-s)/base > realDrop {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}

// sameRate is the share of (answer, criterion) scores the judge repeats
// exactly when asked twice.
func sameRate(rng *rand.Rand) float64 {
	m := newModel(50_000, rng)
	same, all := 0, 0
	for _, as := range m.answers(rng, 0, 1) {
		a := as[0]
		for k := range 4 {
			first, second := judge(rng, a[k]), judge(rng, a[k]) // two calls: two draws of the judge's noise
			if first == second {
				same++
			}
			all++
		}
	}
	return float64(same) / float64(all)
}
