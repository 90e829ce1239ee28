package native

import (
	"bytes"
	"fmt"
	"github.com/rubricgate/rubricgate/gate"
	"math"
	"strings"
)

// decoder turns lines or rows of one input into validated raw items.
type decoder struct {
	sc   *schema
	file string
	s    scanner
	raw  rawItem
	view gate.Judged // raw as scoring reads it (see judged)
	hint int         // index of the criterion expected next (see find)
	strs map[string]string
	// shard is the input's shard header, once read (see shardHeader).
	shard *ShardHeader
}

// intern returns b as a string, sharing the strings of values seen before
// (judge model names repeat on every line).
func (d *decoder) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := d.strs[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.strs == nil {
		d.strs = make(map[string]string)
	}
	if len(d.strs) < 64 {
		d.strs[s] = s
	}
	return s
}

func newDecoder(sc *schema, file string) *decoder {
	return &decoder{sc: sc, file: file}
}

func (d *decoder) errf(line int, format string, args ...any) error {
	return &InputError{File: d.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// setVal records a criterion value, refusing a second one for the same
// criterion (twice by id and alias, or top-level and inside "scores").
func (d *decoder) setVal(i int, v rawVal) error {
	d.raw.hasScores = true
	rv := &d.raw.raws[i]
	if rv.set {
		return d.twice(rv, i, v)
	}
	v.set = true
	*rv = v
	return nil
}

// setIn records a criterion value in raws (the item's or a sample's).
func (d *decoder) setIn(raws []rawVal, i int, v rawVal) error {
	rv := &raws[i]
	if rv.set {
		return d.twice(rv, i, v)
	}
	v.set = true
	*rv = v
	return nil
}

// twice is the error for a criterion given a second time.
func (d *decoder) twice(rv *rawVal, i int, v rawVal) error {
	if bytes.Equal(rv.key, v.key) {
		return d.errf(d.raw.line, "criterion %q given twice (as %s)", d.sc.ids[i], quoteBytes(v.key))
	}
	return d.errf(d.raw.line, "criterion %q given twice (as %s and %s)", d.sc.ids[i], quoteBytes(rv.key), quoteBytes(v.key))
}

// finish validates the decoded item against the rubric: id, scores on
// scale, na where allowed, missing criteria, required notes, and that the
// item has a weighted criterion to score.
func (d *decoder) finish() error {
	r := &d.raw
	sc := d.sc
	line := r.line
	if !r.hasID {
		return d.errf(line, `missing "id": every item needs a non-empty id`)
	}
	// One rule for JSON lines and review sheets: surrounding white space
	// and invisible characters are not part of an id ("a", "a " and
	// "a\u200b" are one item); one inside it is refused (see trimID).
	id, bad := trimID(r.id)
	r.id = id
	if len(id) == 0 {
		return d.errf(line, `empty "id": every item needs a non-empty id`)
	}
	if bad >= 0 {
		return d.errf(line, `"id" %s contains the invisible character U+%04X (a control or format character: zero width, bidi override, ...): an id must show what it is`, quoteBytes(id), bad)
	}
	if r.length < 0 {
		r.length = r.answerLen
	}
	if r.nSamples == 0 && r.answers {
		return d.errf(line, `"answers" is empty: expected one object {"scores": {...}, "reasoning": "..."} per answer`)
	}
	if r.nSamples == 0 {
		return d.errf(line, `"samples" is empty: expected one object {"scores": {...}, "reasoning": "..."} per judging`)
	}
	if r.nSamples > 0 && r.hasScores && r.answers {
		return d.errf(line, `the item has both "answers" and scores: put every answer's scores in "answers", or give one "scores" without "answers"`)
	}
	if r.nSamples > 0 && r.hasScores {
		return d.errf(line, `the item has both "samples" and scores: put every judging's scores in "samples", or give one "scores" without "samples"`)
	}
	if r.unscored() {
		// The judge failed: the item has no score. But a value it carries for
		// a blocking criterion is still checked by that gate (see
		// partial.add and CheckBlocking): an error field must not switch a
		// safety gate off. Values that are not integers (null, "", "na",
		// text) are placeholders of the failed judge and are ignored. The
		// values inside "samples" are checked the same way, the lowest
		// across samples: a failing sample blocks (no majority is taken
		// among the judgings of a failed judge).
		clear(r.vals)
		for i := range r.raws {
			if !sc.blocking[i] {
				continue
			}
			sc.unscoredValue(i, &r.raws[i], &r.vals[i])
			for j := 0; j < r.nSamples; j++ {
				sc.unscoredValue(i, &r.samples[j].raws[i], &r.vals[i])
			}
		}
		return nil
	}
	if r.nSamples > 0 {
		return d.finishSamples()
	}
	var missing []string
	var weight float64
	for i := range r.raws {
		rv := &r.raws[i]
		if !rv.set {
			missing = append(missing, sc.ids[i])
			continue
		}
		v, err := sc.parseValue(i, rv)
		if err != nil {
			return d.errf(line, "criterion %q: %s", sc.ids[i], err.Error())
		}
		r.vals[i] = v
		if v.State == gate.Scored {
			weight += sc.weight[i]
		}
	}
	if err := d.missingError(line, missing); err != nil {
		return err
	}
	if len(sc.rb.NotesRequiredFor) > 0 && IsBlank(r.notes) {
		for i, v := range r.vals {
			if v.State == gate.Scored && !sc.cont[i] && sc.rb.NoteRequired(v.Score) {
				return d.errf(line, "criterion %q: a score of %s needs a note in \"notes\" (notes_required_for)", sc.ids[i], fmtNum(v.Score))
			}
		}
	}
	if !(weight > 0) && !sc.opts.GatesOnly {
		return d.errf(line, "item has no weighted criterion with a score (every weighted criterion is na or missing), so it has no score")
	}
	return nil
}

// finishSamples validates an item judged several times and sums each
// criterion's samples up into one Value: `na` when more than half of the
// samples say na, else the mean of the scored samples; the critical minimum
// is met when more than half of the scored samples meet it (a tie fails).
// Every sample must score the same criteria; notes_required_for applies to
// every sample's score.
func (d *decoder) finishSamples() error {
	r := &d.raw
	sc := d.sc
	line := r.line
	k := r.nSamples
	samples := r.samples[:k]
	for j := range samples {
		if !samples[j].hasScores {
			return d.errf(line, `%s[%d]: expected an object with "scores" (and "reasoning")`, r.arrName(), j)
		}
	}
	needNote := len(sc.rb.NotesRequiredFor) > 0 && len(bytes.TrimSpace(r.notes)) == 0
	var weight float64
	var missing []string
	for i := range sc.ids {
		present := 0
		for j := range samples {
			if samples[j].raws[i].set {
				present++
			}
		}
		if present == 0 {
			missing = append(missing, sc.ids[i])
			continue
		}
		if present < k {
			for j := range samples {
				if !samples[j].raws[i].set {
					return d.errf(line, "%s[%d]: missing a score for criterion %q (every %s scores the same criteria)", r.arrName(), j, sc.ids[i], strings.TrimSuffix(r.arrName(), "s"))
				}
			}
		}
		v, err := d.reduceSamples(i, samples, needNote)
		if err != nil {
			return err
		}
		r.vals[i] = v
		if v.State == gate.Scored {
			weight += sc.weight[i]
		}
	}
	if err := d.missingError(line, missing); err != nil {
		return err
	}
	if len(bytes.TrimSpace(r.reasoning)) == 0 {
		for j := range samples {
			if len(bytes.TrimSpace(samples[j].reasoning)) > 0 {
				r.reasoning = samples[j].reasoning
				break
			}
		}
	}
	if !(weight > 0) && !sc.opts.GatesOnly {
		return d.errf(line, "item has no weighted criterion with a score (every weighted criterion is na or missing), so it has no score")
	}
	if r.answers && k > 1 {
		r.answerVar, r.answerScores = d.answerVariance(samples, r.answerScores[:0])
	}
	return nil
}

// missingError is the error of an item that scores none of the criteria
// missing (nil for none, or when ReadOptions.AllowMissing).
func (d *decoder) missingError(line int, missing []string) error {
	if len(missing) == 0 || d.sc.opts.AllowMissing {
		return nil
	}
	if len(missing) == 1 {
		return d.errf(line, "missing a score for criterion %q", missing[0])
	}
	return d.errf(line, "missing scores for criteria %s", strings.Join(quoteAll(missing), ", "))
}

// reduceSamples sums criterion i up over the samples of the item (na by
// majority; the mean, the spread of judge samples, the gate by majority of
// judge samples or by every answer), checking each value and its note.
func (d *decoder) reduceSamples(i int, samples []sampleRaw, needNote bool) (gate.Value, error) {
	r := &d.raw
	sc := d.sc
	var v gate.Value
	var sum, sumSq float64
	meets := 0
	firstBelow := -1
	for j := range samples {
		sv, err := sc.parseValue(i, &samples[j].raws[i])
		if err != nil {
			return v, d.errf(r.line, "%s[%d]: criterion %q: %s", r.arrName(), j, sc.ids[i], err.Error())
		}
		if sv.State == gate.NA {
			v.NAs++
			continue
		}
		if needNote && !sc.cont[i] && sc.rb.NoteRequired(sv.Score) {
			return v, d.errf(r.line, "%s[%d]: criterion %q: a score of %s needs a note in \"notes\" (notes_required_for)", r.arrName(), j, sc.ids[i], fmtNum(sv.Score))
		}
		if v.N == 0 || sv.Score < v.Min {
			v.Min = sv.Score
		}
		if v.N == 0 || sv.Score > v.Max {
			v.Max = sv.Score
		}
		v.N++
		sum += sv.Score
		if !sc.critical[i] || sv.Score >= sc.min[i] {
			meets++
		} else if firstBelow < 0 {
			firstBelow = j
		}
	}
	if 2*int(v.NAs) > len(samples) {
		v.State = gate.NA
		v.Min, v.Max = 0, 0
		return v, nil
	}
	v.State = gate.Scored
	n := float64(v.N)
	v.Score = sum / n
	// The mean of values within the scale lies within it; rounding
	// cannot take it out.
	v.Score = min(max(v.Score, v.Min), v.Max)
	if v.N > 1 && !r.answers { // the judge's spread; answer noise goes to the gate's resolution
		for j := range samples {
			rv := &samples[j].raws[i]
			sv, _ := sc.parseValue(i, rv)
			if sv.State == gate.Scored {
				dv := sv.Score - v.Score
				sumSq += dv * dv
			}
		}
		v.Spread = math.Sqrt(sumSq / (n - 1))
	}
	// Judge samples decide a gate by majority; answer samples are
	// answers a user may get, so one failing answer fails it.
	if sc.critical[i] && !r.answers && 2*meets > int(v.N) && firstBelow >= 0 {
		v.Outvoted = true
	}
	if sc.critical[i] && (2*meets <= int(v.N) || r.answers && meets < int(v.N)) {
		v.Below = true
		if firstBelow >= 0 && len(samples[firstBelow].reasoning) > 0 {
			if r.why == nil {
				r.why = make([][]byte, len(sc.ids))
			}
			r.why[i] = samples[firstBelow].reasoning
		}
	}
	return v, nil
}

// answerVariance is the variance (n - 1) of the answers' own weighted
// scores (0-100, each over the criteria it scores, as an item's score),
// the between-answer noise the gate's interval and resolution count.
// Answers with no weighted score are left out. The answers' scores are
// appended to xs, in input order, and returned.
func (d *decoder) answerVariance(answers []sampleRaw, xs []float64) (float64, []float64) {
	sc := d.sc
	var n int
	var mean, m2 float64
	for j := range answers {
		var num, den float64
		for i := range sc.ids {
			if !answers[j].raws[i].set {
				continue
			}
			v, err := sc.parseValue(i, &answers[j].raws[i])
			if err != nil || v.State != gate.Scored {
				continue
			}
			num += sc.weight[i] * (v.Score - sc.low[i]) / sc.span[i]
			den += sc.weight[i]
		}
		if !(den > 0) {
			continue
		}
		x := 100 * num / den
		xs = append(xs, x)
		n++
		dx := x - mean
		mean += dx / float64(n)
		m2 += dx * (x - mean)
	}
	if n < 2 {
		return 0, xs
	}
	return m2 / float64(n-1), xs
}

// itemLine is the line to show for the item: 0 for a record without one.
// judged returns the decoded item as scoring reads it (in d.view, reused);
// keep also interns its judge model.
func (d *decoder) judged(keep bool) *gate.Judged {
	r, j := &d.raw, &d.view
	*j = gate.Judged{ID: r.id, Line: r.line, ItemLine: r.itemLine(), Values: r.vals, Unscored: r.unscored(), Error: r.errMsg,
		Reasoning: r.reasoning, Notes: r.notes, Why: r.why, Length: r.length, Pass: r.pass, RetrievalMiss: r.retrievalMiss, Samples: r.nSamples, InputHash: r.inputHash}
	if r.answers {
		j.Samples, j.Answers, j.AnswerVar, j.AnswerScores = 1, r.nSamples, r.answerVar, r.answerScores
	}
	if keep {
		j.JudgeModel = d.intern(r.judgeModel)
	}
	return j
}

// inputHash sets the item's input_hash from its text v: "sha256:" and 64
// lowercase hex digits, as the judge writes it; anything else is refused
// (a hash misread as none would let the item's task change unseen).
func (d *decoder) inputHash(v []byte) error {
	h, ok := gate.ParseInputHash(v)
	if !ok {
		return d.errf(d.raw.line, `"input_hash" must be "sha256:" and 64 lowercase hex digits (as rubricgate judge writes it), got %s`, quoteBytes(v))
	}
	d.raw.inputHash = h
	return nil
}
