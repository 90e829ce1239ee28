package baseline

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/rubricgate/rubricgate/gate"
)

// DefaultPoolRuns is how many consecutive runs of the baseline branch a
// new baseline pools by default (see [File.Pool]).
const DefaultPoolRuns = 4

// MaxPoolRuns is the most runs a baseline may pool.
const MaxPoolRuns = 32

// PoolRefusal says why a new baseline was not pooled with the previous
// one: it then holds this run alone.
type PoolRefusal string

// The reasons a new baseline is not pooled.
const (
	PoolOff          PoolRefusal = "pooling is off (baseline-pool 1)"
	PoolNoPrevious   PoolRefusal = "no previous baseline of this branch"
	PoolRubric       PoolRefusal = "the rubric changed"
	PoolItems        PoolRefusal = "the items changed (ids added, removed, unscored or with another task)"
	PoolNotPaired    PoolRefusal = "the run could not be paired with the previous baseline"
	PoolRealChange   PoolRefusal = "this run differs from the previous baseline by more than max-drop beyond noise (its interval lies wholly beyond max-drop)"
	PoolAccepted     PoolRefusal = "the run's regression was accepted"
	PoolInputHashes  PoolRefusal = "the input hashes of the items differ from the previous baseline's"
	PoolNotFromCheck PoolRefusal = "the run was not compared with the previous baseline"
	PoolBranch       PoolRefusal = "the previous baseline is another branch's"
	PoolSameAnswers  PoolRefusal = "the same answers gated again (every item scores as in the run the previous baseline was made from, or moved by the same amount): pooling them would count one run's noise twice"
)

// PoolCheck is what the gate measured of this run against the previous
// baseline, which decides whether the two may be pooled.
type PoolCheck struct {
	// Paired is the comparison of this run with the previous baseline
	// (nil when there was none).
	Paired *gate.Paired
	// Accepted is set when a regression of this run was accepted.
	Accepted bool
	// MaxDrop is the gate's max-drop: a change whose 95% interval lies
	// wholly beyond it (a rise or a drop surely larger than max-drop)
	// starts the pool again; a smaller one, resolved or not, is pooled.
	// 0: any change whose interval excludes 0 starts it again.
	MaxDrop float64
}

// Pool makes f, a new baseline of this run alone, pool prev's items with
// its own, so the next comparison measures against the mean of the last
// runs of the branch rather than one noisy run: with K answers per item,
// the baseline side of a paired comparison then adds 1/P of this run's
// noise instead of as much again (P pooled runs).
//
// It pools only what measures the same thing: the same rubric, exactly
// the same items (ids and, where either has them, input hashes), a run
// paired with prev and not surely more than max-drop away from it (its
// 95% interval of the relative change reaches into [-max-drop, +max-drop]),
// and with width (a run whose every item moved by the same amount is the
// same answers again, not a new measurement), with no accepted
// regression. The rule is symmetric on purpose: a pool that started again
// on every run its interval told from 0 would select the lucky runs (the
// baseline branch's gate blocks the unlucky ones, which never enter), and
// a baseline biased upwards blocks unchanged pull requests (see
// docs/baselines.md for the figures). A change surely larger than
// max-drop is a change of the branch (a real gain, which must not be
// averaged away and then given back unseen), and f is left holding this
// run alone (the refusal says why). At most maxRuns runs are pooled:
// prev's weight is capped at maxRuns-1 runs' worth of answers.
//
// Each item's pooled score is the answer-weighted mean of prev's and this
// run's; its answer count their sum (prev's capped); its variance that of
// all the answers together, the spread between the two runs' means
// included. The aggregate score is the pooled items' mean (what the next
// gate compares with); the pass rate is this run's, at most the share of
// pooled items at the threshold; the per-criterion figures and the trend
// point stay this run's own (RunScore).
func (f *File) Pool(prev *File, check PoolCheck, maxRuns int) (PoolRefusal, error) {
	switch {
	case maxRuns <= 1:
		return PoolOff, nil
	case prev == nil:
		return PoolNoPrevious, nil
	case prev.Branch != "" && f.Branch != "" && prev.Branch != f.Branch:
		return PoolBranch, nil
	case prev.Rubric.Hash != f.Rubric.Hash:
		return PoolRubric, nil
	case check.Accepted:
		return PoolAccepted, nil
	case check.Paired == nil:
		return PoolNotFromCheck, nil
	}
	p := check.Paired
	switch {
	case p.Method != gate.MethodPaired || p.CI95 == nil:
		return PoolNotPaired, nil
	case p.Added+p.Removed+p.Unscored+p.TaskChanged > 0 || prev.Items.Len() != f.Items.Len():
		return PoolItems, nil
	case p.CI95[0] > check.MaxDrop || p.CI95[1] < -check.MaxDrop:
		return PoolRealChange, nil
	case p.CI95[0] == p.CI95[1]:
		return PoolSameAnswers, nil
	}
	runDigest := ItemsDigest(f.Items)
	if runDigest == prev.ownRunDigest() {
		return PoolSameAnswers, nil
	}
	cur, old := f.Items, prev.Items
	n := cur.Len()
	if cur.HasInputHashes() != old.HasInputHashes() {
		return PoolInputHashes, nil
	}
	prevRuns := max(prev.PooledRuns, 1)
	keep := min(prevRuns, maxRuns-1)
	scale := float64(keep) / float64(prevRuns)
	out := gate.NewItemColumns(n, 0)
	for i := range n {
		id := cur.ID(i)
		j := old.Index(id)
		if j < 0 {
			return PoolItems, nil
		}
		if cur.InputHash(i) != old.InputHash(j) {
			return PoolInputHashes, nil
		}
		// prev's answers, scaled to the runs kept: at least one per
		// run kept (prev pooled prevRuns runs of at least one each).
		no := max(int(math.Round(float64(old.Answers(j))*scale)), keep)
		nc := cur.Answers(i)
		mo, mc := old.Score(j), cur.Score(i)
		vo, vc := old.AnswerVar(j), cur.AnswerVar(i)
		nt := no + nc
		m := (float64(no)*mo + float64(nc)*mc) / float64(nt)
		ss := float64(no-1)*vo + float64(nc-1)*vc + float64(no)*float64(nc)/float64(nt)*(mc-mo)*(mc-mo)
		v := ss / float64(nt-1)
		out.AppendAnswers(id, clamp100(m), nt, math.Max(v, 0))
		out.SetInputHash(i, cur.InputHash(i))
	}
	runScore := f.Score
	var sum float64
	at := 0
	threshold := f.rb.Threshold - 1e-9
	for _, s := range out.Scores() {
		sum += s
		if s >= threshold {
			at++
		}
	}
	g := *f
	g.Items = out
	g.Score = sum / float64(n)
	g.PassRate = math.Min(f.PassRate, float64(at)/float64(n))
	g.PooledRuns = keep + 1
	g.RunScore = runScore
	g.RunDigest = runDigest
	g.History.Head = g.headHash()
	if err := g.validate(); err != nil {
		return "", fmt.Errorf("pool with the previous baseline: %w", err)
	}
	*f = g
	return "", nil
}

// ItemsDigest is "sha256:<hex>" of the items' ids, scores, answer counts
// and variances, in order: what tells the same run's answers gated again
// from a new run.
func ItemsDigest(c *gate.ItemColumns) string {
	h := sha256.New()
	var b []byte
	for i := range c.Len() {
		b = b[:0]
		b = strconv.AppendQuote(b, c.ID(i))
		b = append(b, ' ')
		b = strconv.AppendFloat(b, c.Score(i), 'g', -1, 64)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(c.Answers(i)), 10)
		b = append(b, ' ')
		b = strconv.AppendFloat(b, c.AnswerVar(i), 'g', -1, 64)
		b = append(b, '\n')
		h.Write(b)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// ownRunDigest is the digest of the run that made f: its own items, or
// for a pooled baseline the digest it keeps.
func (f *File) ownRunDigest() string {
	if f.PooledRuns > 1 {
		return f.RunDigest
	}
	return ItemsDigest(f.Items)
}

func clamp100(v float64) float64 { return math.Min(100, math.Max(0, v)) }

// checkPool checks the pooled-run fields: none on a file of one run; on a
// pooled file, 2 to MaxPoolRuns runs, this run's own score on 0-100, and
// at least one answer per item per run pooled.
func (f *File) checkPool() error {
	if f.PooledRuns == 0 {
		return nil
	}
	if f.PooledRuns < 2 || f.PooledRuns > MaxPoolRuns {
		return fmt.Errorf("field \"pooled_runs\": %d is not a number of runs from 2 to %d", f.PooledRuns, MaxPoolRuns)
	}
	if err := inRange("run_score", f.RunScore, 0, 100); err != nil {
		return err
	}
	if !isHash(f.RunDigest) {
		return fmt.Errorf("field \"run_digest\": expected \"sha256:<hex>\", found %q", f.RunDigest)
	}
	if f.History.Head == "" {
		return errors.New("field \"history\": a pooled baseline carries its history (its head binds the pooled figures); the file was edited or is corrupt")
	}
	for i := range f.Items.Len() {
		if k := f.Items.Answers(i); k < f.PooledRuns {
			return fmt.Errorf("field \"items.answers[%d]\": %d answers but the baseline pools %d runs of at least one each; the file was edited or is corrupt", i, k, f.PooledRuns)
		}
	}
	return nil
}

// ownScore is the score of the run that made f: its own, not the pooled
// one.
func (f *File) ownScore() float64 {
	if f.PooledRuns > 1 {
		return f.RunScore
	}
	return f.Score
}
