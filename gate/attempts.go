package gate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
)

// AttemptState is what the gate keeps between the attempts of one change
// request at the same evaluated inputs (the same items, their input
// hashes and the rubric: [AnswerDigest.Key]): re-running the eval on the
// same code regenerates the answers, and each attempt is decided on the
// evidence of all of them, so re-running converges on the real change
// instead of fishing for a lucky draw. It is kept where the change
// request cannot write it (the gate's own sticky comment, read back only
// from the token's identity; outside CI the local store).
type AttemptState struct {
	// Key is the digest of the evaluated inputs and the rubric.
	Key string
	// Pool is the inverse-variance pool of the settled attempts (Pending's
	// first run is not in it).
	Pool Estimate
	// Blocked is true when an earlier attempt's drop blocked: a later one
	// then passes only when the pooled interval lies within max-drop.
	Blocked bool
	// Pending is the re-run the last attempt asked for (noisy-drop rerun),
	// which its final gate is bound to; nil when none.
	Pending *RerunRequest
}

// Estimate is a pooled estimate of the relative change of the aggregate
// score: N attempts, their inverse-variance mean Change (negative for a
// drop) and its standard error SE.
type Estimate struct {
	N          int
	Change, SE float64
}

// Add pools e with o (inverse-variance; an estimate without a standard
// error counts as an attempt and adds nothing).
func (e Estimate) Add(o Estimate) Estimate {
	switch {
	case o.N == 0:
		return e
	case e.N == 0:
		return o
	case !(o.SE > 0) || !(e.SE > 0):
		// Both are kept only with a standard error (see attemptEstimate).
		return Estimate{N: e.N + o.N, Change: e.Change, SE: e.SE}
	}
	we, wo := 1/(e.SE*e.SE), 1/(o.SE*o.SE)
	return Estimate{N: e.N + o.N, Change: (we*e.Change + wo*o.Change) / (we + wo), SE: 1 / math.Sqrt(we+wo)}
}

// CI95 is the estimate's 95% interval.
func (e Estimate) CI95() [2]float64 {
	return [2]float64{e.Change - z975*e.SE, e.Change + z975*e.SE}
}

// RerunRequest is a re-run asked for (noisy-drop rerun): the first run's
// answers, which the final gate's union must hold, and how many more
// answers per item it must bring.
type RerunRequest struct {
	// Answers is the digest of the first run's answers: the first K of
	// every item (AnswerDigest.Answers).
	Answers string
	// K is the first run's answers per item (the fewest of its items);
	// Asked the answers per item the re-run was asked for.
	K, Asked int
	// First is the first run's own estimate: an attempt, pooled when no
	// final gate follows.
	First Estimate
}

// maxDigestAnswers bounds the answer prefixes an [AnswerDigest] keeps a
// digest of: a first run of more answers per item binds its first 64.
const maxDigestAnswers = 64

// AnswerDigest digests a run's items as they are scored: the evaluated
// inputs (ids and input hashes, for [AnswerDigest.Key]) and, for each
// k up to 64, the first k answers of every item (their weighted scores,
// for [AnswerDigest.Answers]). Items come in any order: the per-item
// digests are combined by XOR (ids are unique in a run).
type AnswerDigest struct {
	inputs [32]byte
	// prefix[k-1] combines the digests of the items' first k answers
	// (all of them for an item with fewer); tail[k-1] those of the items
	// with exactly k, which every longer prefix takes as they are.
	prefix, tail [maxDigestAnswers][32]byte
	minAnswers   int
	items        int
}

// Add digests one item (unscored items count for the inputs only).
func (d *AnswerDigest) Add(it *ItemResult) {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(it.ID)))
	h.Write(n[:])
	h.Write([]byte(it.ID))
	h.Write(it.InputHash[:])
	var sum [32]byte
	h.Sum(sum[:0])
	xor(&d.inputs, &sum)
	if it.Unscored {
		return
	}
	d.items++
	scores := it.AnswerScores
	if len(scores) == 0 {
		scores = []float64{it.Score}
	}
	if d.items == 1 || len(scores) < d.minAnswers {
		d.minAnswers = len(scores)
	}
	chain := sum
	for k, s := range scores[:min(len(scores), maxDigestAnswers)] {
		// Rounded to 1e-6 points: the same answer scores the same
		// whichever file it is read from.
		c := sha256.Sum256(append(chain[:], strconv.FormatFloat(s, 'f', 6, 64)...))
		chain = c
		xor(&d.prefix[k], &chain)
		if k == len(scores)-1 {
			xor(&d.tail[k], &chain)
		}
	}
}

// Key is the digest of the run's evaluated inputs (item ids and input
// hashes) under the rubric whose hash is rubricHash.
func (d *AnswerDigest) Key(rubricHash string) string {
	h := sha256.New()
	h.Write([]byte("rubricgate-attempts\x00" + rubricHash + "\x00"))
	h.Write(d.inputs[:])
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// MinAnswers is the fewest answers of a scored item (0 without one).
func (d *AnswerDigest) MinAnswers() int { return d.minAnswers }

// Answers is the digest of the first k answers of every scored item
// (all of an item's when it has fewer); "" when k is not from 1 to 64.
func (d *AnswerDigest) Answers(k int) string {
	if k < 1 || k > maxDigestAnswers {
		return ""
	}
	acc := d.prefix[k-1]
	for j := 0; j < k-1; j++ {
		xor(&acc, &d.tail[j])
	}
	return "sha256:" + hex.EncodeToString(acc[:])
}

func xor(dst, src *[32]byte) {
	for i := range dst {
		dst[i] ^= src[i]
	}
}
