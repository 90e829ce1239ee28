package calibrate

import (
	"math"
	"sort"

	"github.com/rubricgate/rubricgate/rubric"
)

// Confusion counts pairs per (human level, judge level) over every level of a
// criterion's scale, including levels nobody used. Counts[i][j] is the number
// of pairs where the first rater (human, or reviewer A) gave Levels[i] and
// the second (judge, or reviewer B) gave Levels[j].
type Confusion struct {
	Levels []int   `json:"levels"`
	Counts [][]int `json:"counts"`
}

// newConfusion returns an all-zero confusion matrix over the scale's levels.
func newConfusion(s rubric.Scale) Confusion {
	k := s.Levels()
	if k < 1 {
		k = 1
	}
	c := Confusion{Levels: make([]int, k), Counts: make([][]int, k)}
	for i := range c.Levels {
		c.Levels[i] = s.Low + i
		c.Counts[i] = make([]int, k)
	}
	return c
}

// index returns the row/column of level v, or -1.
func (c *Confusion) index(v int) int {
	if len(c.Levels) == 0 {
		return -1
	}
	i := v - c.Levels[0]
	if i < 0 || i >= len(c.Levels) {
		return -1
	}
	return i
}

// add counts one pair; it reports false when a level is off the scale.
func (c *Confusion) add(a, b int) bool {
	i, j := c.index(a), c.index(b)
	if i < 0 || j < 0 {
		return false
	}
	c.Counts[i][j]++
	return true
}

// total is the number of pairs counted.
func (c *Confusion) total() int {
	n := 0
	for _, row := range c.Counts {
		for _, v := range row {
			n += v
		}
	}
	return n
}

// finite returns &v, or nil when v is NaN or infinite.
func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

// exactAgreement is the share of pairs on the diagonal.
func exactAgreement(c *Confusion) *float64 { return withinAgreement(c, 0) }

// adjacentAgreement is the share of pairs at most one level apart.
func adjacentAgreement(c *Confusion) *float64 { return withinAgreement(c, 1) }

func withinAgreement(c *Confusion, d int) *float64 {
	n, ok := 0, 0
	for i, row := range c.Counts {
		for j, v := range row {
			n += v
			if abs(i-j) <= d {
				ok += v
			}
		}
	}
	if n == 0 {
		return nil
	}
	return finite(float64(ok) / float64(n))
}

// kappaWeights selects the disagreement weights of Cohen's kappa.
type kappaWeights int

const (
	unweighted kappaWeights = iota
	quadratic
)

// cohenKappa is Cohen's kappa on a confusion matrix, written in its
// disagreement form kappa = 1 - sum(w*O) / sum(w*E), where E is the matrix
// expected from the marginals and w_ij is 1 off the diagonal (unweighted) or
// (i-j)^2/(k-1)^2 over the k levels of the whole scale (quadratic). With no
// pairs it is nil; when expected disagreement is 0 (both raters used the same
// single level) it is 1 by convention, observed disagreement then being 0.
func cohenKappa(c *Confusion, w kappaWeights) *float64 {
	k := len(c.Levels)
	n := c.total()
	if n == 0 {
		return nil
	}
	rows := make([]float64, k)
	cols := make([]float64, k)
	for i, row := range c.Counts {
		for j, v := range row {
			rows[i] += float64(v)
			cols[j] += float64(v)
		}
	}
	weight := func(i, j int) float64 {
		if i == j {
			return 0
		}
		if w == quadratic {
			d := float64(i - j)
			return d * d / float64((k-1)*(k-1))
		}
		return 1
	}
	var obs, exp float64
	for i := 0; i < k; i++ {
		for j := 0; j < k; j++ {
			wij := weight(i, j)
			obs += wij * float64(c.Counts[i][j])
			exp += wij * rows[i] * cols[j] / float64(n)
		}
	}
	if exp == 0 {
		one := 1.0
		return &one
	}
	return finite(1 - obs/exp)
}

// alphaLevel is the level of measurement (difference function) of
// Krippendorff's alpha.
type alphaLevel int

const (
	nominal alphaLevel = iota
	ordinal
	interval
)

// krippendorffAlpha computes Krippendorff's alpha in its general form for any
// number of coders and missing values. Each unit lists the values the coders
// who coded it assigned (missing values left out; which coder gave which
// value does not matter). levels are the possible values in scale order;
// values not among them are ignored. Units with fewer than two values are not
// pairable and are dropped.
//
// The coincidence matrix is o_ck = sum over units u of (number of ordered
// pairs of values (c, k) from different coders in u) / (m_u - 1); n_c are its
// marginals and n their total. alpha = 1 - (n-1) * sum o_ck d2_ck /
// sum n_c n_k d2_ck, with d2 nominal (0 or 1), interval ((c-k)^2) or ordinal
// ((sum_{g=c..k} n_g - (n_c+n_k)/2)^2). It is nil when no disagreement is
// possible (fewer than two pairable values, or all of them equal).
func krippendorffAlpha(units [][]int, levels []int, lv alphaLevel) *float64 {
	k := len(levels)
	pos := make(map[int]int, k)
	for i, v := range levels {
		pos[v] = i
	}
	o := make([][]float64, k)
	for i := range o {
		o[i] = make([]float64, k)
	}
	idx := make([]int, 0, 8)
	for _, u := range units {
		idx = idx[:0]
		for _, v := range u {
			if i, ok := pos[v]; ok {
				idx = append(idx, i)
			}
		}
		m := len(idx)
		if m < 2 {
			continue
		}
		f := 1 / float64(m-1)
		for a := 0; a < m; a++ {
			for b := 0; b < m; b++ {
				if a != b {
					o[idx[a]][idx[b]] += f
				}
			}
		}
	}
	return alphaFromCoincidences(o, levels, lv)
}

// alphaFromCoincidences computes alpha from a coincidence matrix o over
// levels (see krippendorffAlpha).
func alphaFromCoincidences(o [][]float64, levels []int, lv alphaLevel) *float64 {
	k := len(levels)
	nc := make([]float64, k)
	var n float64
	for i := range o {
		for j := range o[i] {
			nc[i] += o[i][j]
		}
		n += nc[i]
	}
	d2 := func(c, kk int) float64 {
		if c == kk {
			return 0
		}
		switch lv {
		case interval:
			d := float64(levels[c] - levels[kk])
			return d * d
		case ordinal:
			lo, hi := c, kk
			if lo > hi {
				lo, hi = hi, lo
			}
			var s float64
			for g := lo; g <= hi; g++ {
				s += nc[g]
			}
			s -= (nc[lo] + nc[hi]) / 2
			return s * s
		}
		return 1
	}
	var do, de float64
	for c := 0; c < k; c++ {
		for kk := 0; kk < k; kk++ {
			if c == kk {
				continue
			}
			d := d2(c, kk)
			do += o[c][kk] * d
			de += nc[c] * nc[kk] * d
		}
	}
	if n < 2 || de == 0 {
		return nil
	}
	return finite(1 - (n-1)*do/de)
}

// alphaPairs computes alpha over the pairs of a confusion matrix, each pair
// a unit coded by two coders: such a unit (a, b) adds 1 to o_ab and to o_ba,
// so the coincidence matrix is the confusion matrix plus its transpose.
func alphaPairs(c *Confusion, lv alphaLevel) *float64 {
	k := len(c.Levels)
	o := make([][]float64, k)
	for i := range o {
		o[i] = make([]float64, k)
		for j := range o[i] {
			o[i][j] = float64(c.Counts[i][j] + c.Counts[j][i])
		}
	}
	return alphaFromCoincidences(o, c.Levels, lv)
}

// ranks returns the 1-based ranks of xs, ties getting their average rank.
func ranks(xs []float64) []float64 {
	n := len(xs)
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return xs[idx[a]] < xs[idx[b]] })
	r := make([]float64, n)
	for i := 0; i < n; {
		j := i
		for j+1 < n && xs[idx[j+1]] == xs[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for t := i; t <= j; t++ {
			r[idx[t]] = avg
		}
		i = j + 1
	}
	return r
}

// Spearman is Spearman's rank correlation of x and y: Pearson's correlation
// of their ranks, ties getting average ranks. It returns false when it is
// undefined: fewer than two pairs, lengths that differ, a non-finite value,
// or a side with no variation.
func Spearman(x, y []float64) (float64, bool) {
	if len(x) != len(y) || len(x) < 2 {
		return 0, false
	}
	for i := range x {
		if math.IsNaN(x[i]) || math.IsInf(x[i], 0) || math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return 0, false
		}
	}
	rx, ry := ranks(x), ranks(y)
	n := float64(len(x))
	var mx, my float64
	for i := range rx {
		mx += rx[i]
		my += ry[i]
	}
	mx /= n
	my /= n
	var sxy, sxx, syy float64
	for i := range rx {
		dx, dy := rx[i]-mx, ry[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	r := sxy / math.Sqrt(sxx*syy)
	if math.IsNaN(r) {
		return 0, false
	}
	return math.Max(-1, math.Min(1, r)), true
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
