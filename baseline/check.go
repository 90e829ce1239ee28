package baseline

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// validate checks the figures; errors name the field.
func (f *File) validate() error {
	if f.Schema != Schema {
		return fmt.Errorf("schema %d is not supported (this rubricgate writes schema %d)", f.Schema, Schema)
	}
	if f.Rubric.Name == "" || f.Rubric.Hash == "" {
		return errors.New("rubric name and hash are required")
	}
	if !strings.HasPrefix(f.Rubric.Hash, "sha256:") {
		return fmt.Errorf("field \"rubric.hash\": expected \"sha256:<hex>\", found %q", f.Rubric.Hash)
	}
	if len(f.RubricCanonical) == 0 {
		return errors.New("the canonical rubric is required")
	}
	if f.CreatedAt.IsZero() {
		return errors.New("field \"created_at\" is required")
	}
	if err := inRange("score", f.Score, 0, 100); err != nil {
		return err
	}
	if err := inRange("pass_rate", f.PassRate, 0, 1); err != nil {
		return err
	}
	if f.RunID < 0 {
		return fmt.Errorf("field \"run_id\": expected a positive id, found %d", f.RunID)
	}
	for i, c := range f.Criteria {
		field := fmt.Sprintf("criteria[%d]", i)
		if c.ID == "" {
			return fmt.Errorf("field %q: missing id", field)
		}
		if math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) || c.Weight < 0 {
			return fmt.Errorf("field %q: weight %v is not a finite number >= 0", field+".weight", c.Weight)
		}
		if c.Mean != nil && (math.IsNaN(*c.Mean) || math.IsInf(*c.Mean, 0)) {
			return fmt.Errorf("field %q: not a finite number", field+".mean")
		}
		if c.Normalized != nil {
			if err := inRange(field+".normalized", *c.Normalized, 0, 100); err != nil {
				return err
			}
		}
	}
	n := f.Items.Len()
	if n == 0 {
		return errors.New("field \"items\": no items; a baseline needs the scored items")
	}
	if err := uniqueIDs(f.Items); err != nil {
		return err
	}
	scores := f.Items.Scores()
	for i := range n {
		if id := f.Items.ID(i); id == "" {
			return fmt.Errorf("field \"items.ids[%d]\": empty id", i)
		} else if !utf8.ValidString(id) {
			return fmt.Errorf("field \"items.ids[%d]\": id %q is not valid UTF-8", i, id)
		}
		if s := scores[i]; !(s >= 0 && s <= 100) { // also NaN
			return inRange(fmt.Sprintf("items.scores[%d]", i), s, 0, 100)
		}
	}
	if err := f.checkFigures(); err != nil {
		return err
	}
	if err := f.checkPool(); err != nil {
		return err
	}
	if err := f.checkAnchor(); err != nil {
		return err
	}
	return f.checkHistory()
}

// setAnswers checks the answer columns and puts them in items: both or
// neither, as long as the ids, whole counts of at least 1, variances that
// are 0 for one answer and within what K scores on 0-100 averaging the
// item's score can have (K/(K-1)·m·(100-m)): a variance the item's own
// score contradicts is refused like a doctored aggregate.
func setAnswers(items *gate.ItemColumns, w *wireItems) error {
	switch {
	case w.Answers == nil && w.AnswerVars == nil:
		return nil
	case w.Answers == nil:
		return errors.New("field \"items.answer_vars\" without \"items.answers\"; the file was edited or is corrupt")
	case w.AnswerVars == nil:
		return errors.New("field \"items.answers\" without \"items.answer_vars\"; the file was edited or is corrupt")
	}
	ks, vs := w.Answers.scores, w.AnswerVars.scores
	n := items.Len()
	if len(ks) != n || len(vs) != n {
		return fmt.Errorf("field \"items\": %d ids but %d answers and %d answer_vars; the columns must have the same length", n, len(ks), len(vs))
	}
	k32 := make([]int32, n)
	for i, k := range ks {
		if !(k >= 1 && k <= 1e6) || k != math.Trunc(k) {
			return fmt.Errorf("field \"items.answers[%d]\": %v is not a whole number of answers from 1 to 1000000", i, k)
		}
		k32[i] = int32(k)
		v, m := vs[i], items.Score(i)
		most := 0.0
		if k > 1 {
			most = k / (k - 1) * m * (100 - m)
		}
		if !(v >= 0) || v > most*(1+figureTolerance)+figureTolerance {
			return fmt.Errorf("field \"items.answer_vars[%d]\" is %v but %v answers averaging %v vary by at most %.6g; the file was edited or is corrupt", i, v, k, m, most)
		}
	}
	items.SetAnswers(k32, vs)
	return nil
}

// figureTolerance is how far a stored figure may be from the one recomputed
// from the items: room for summation order and for a JSON tool that wrote
// fewer digits, far below any difference the gate acts on (max-drop is a
// relative 2% of a 0-100 score).
const figureTolerance = 1e-6

// checkFigures recomputes what the items determine and refuses a file whose
// stored figures disagree: the gate decides on the stored score, so a file
// edited to "score": 0 (or 100) must not be believed. The score is the mean
// of the item scores; the pass rate cannot exceed the share of items at or
// above the threshold (an item can also fail a critical criterion, which the
// items do not record). The per-criterion figures cannot be recomputed (the
// items keep no per-criterion scores); they only feed the report's table,
// never the decision, and are checked against their own histograms and the
// embedded rubric.
func (f *File) checkFigures() error {
	var sum float64
	atThreshold := 0
	threshold := math.Inf(1)
	if f.rb != nil {
		threshold = f.rb.Threshold - 1e-9 // as the gate compares
	}
	for _, s := range f.Items.Scores() {
		sum += s
		if s >= threshold {
			atThreshold++
		}
	}
	n := float64(f.Items.Len())
	if mean := sum / n; math.Abs(mean-f.Score) > figureTolerance {
		return fmt.Errorf("field \"score\" is %v but the %d items average %.6g; the file was edited or is corrupt", f.Score, f.Items.Len(), mean)
	}
	if f.rb == nil {
		return nil
	}
	if most := float64(atThreshold) / n; f.PassRate > most+figureTolerance {
		return fmt.Errorf("field \"pass_rate\" is %v but only %d of %d items reach the threshold %v (at most %.6g); the file was edited or is corrupt", f.PassRate, atThreshold, f.Items.Len(), f.rb.Threshold, most)
	}
	if len(f.Criteria) != len(f.rb.Criteria) {
		return fmt.Errorf("field \"criteria\": %d criteria but the embedded rubric has %d", len(f.Criteria), len(f.rb.Criteria))
	}
	// With answer samples an item's value per criterion is the mean of its
	// answers, binned like a judge-samples mean.
	means := f.Items.HasAnswers()
	for i := range f.Criteria {
		if err := checkCriterion(fmt.Sprintf("criteria[%d]", i), &f.Criteria[i], &f.rb.Criteria[i], f.Items.Len(), means); err != nil {
			return err
		}
	}
	return nil
}

// checkCriterion checks one criterion's figures against its rubric entry and
// its own histogram. means is true when items may score a criterion as the
// mean of answer samples (the file has answer columns).
func checkCriterion(field string, c *gate.CriterionStats, rc *rubric.Criterion, items int, means bool) error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("field %q: "+format+"; the file was edited or is corrupt", append([]any{field}, a...)...)
	}
	if c.ID != rc.ID {
		return bad("criterion %q, but the embedded rubric has %q here", c.ID, rc.ID)
	}
	if c.Weight != rc.Weight {
		return bad("weight %v, but the embedded rubric says %v", c.Weight, rc.Weight)
	}
	if c.Scored < 0 || c.NA < 0 || c.BelowMin < 0 || c.Scored+c.NA > items {
		return bad("scored %d and na %d do not fit %d items", c.Scored, c.NA, items)
	}
	if rc.Continuous || c.Spread != nil || means {
		// Continuous scores and means of samples (judge samples, which
		// leave a spread, or answer samples) are binned, not counted per
		// level: the histogram cannot reproduce the mean or the count
		// below the minimum. Check what still must hold.
		if c.BelowMin > c.Scored {
			return bad("below_min %d exceeds scored %d", c.BelowMin, c.Scored)
		}
		if c.Scored == 0 {
			if c.Mean != nil || c.Normalized != nil {
				return bad("a mean with nothing scored")
			}
			return nil
		}
		if c.Mean == nil || !(*c.Mean >= float64(rc.Scale.Low)-figureTolerance && *c.Mean <= float64(rc.Scale.High)+figureTolerance) {
			return bad("mean is missing or off the scale %d..%d", rc.Scale.Low, rc.Scale.High)
		}
		norm := 100 * (*c.Mean - float64(rc.Scale.Low)) / float64(rc.Scale.High-rc.Scale.Low)
		if c.Normalized == nil || math.Abs(*c.Normalized-norm) > figureTolerance {
			return bad("normalized is not the normalised mean %.6g", norm)
		}
		return nil
	}
	var count, sum, below int
	for level, k := range c.Histogram {
		if level < rc.Scale.Low || level > rc.Scale.High || k < 0 {
			return bad("histogram level %d (count %d) is not on the scale %d..%d", level, k, rc.Scale.Low, rc.Scale.High)
		}
		count += k
		sum += level * k
		if !rc.Meets(float64(level)) {
			below += k
		}
	}
	if count != c.Scored {
		return bad("the histogram counts %d scores but scored is %d", count, c.Scored)
	}
	if c.BelowMin != below {
		return bad("below_min is %d but the histogram has %d below the minimum", c.BelowMin, below)
	}
	if c.Scored == 0 {
		if c.Mean != nil || c.Normalized != nil {
			return bad("a mean with nothing scored")
		}
		return nil
	}
	mean := float64(sum) / float64(c.Scored)
	norm := 100 * (mean - float64(rc.Scale.Low)) / float64(rc.Scale.High-rc.Scale.Low)
	if c.Mean == nil || math.Abs(*c.Mean-mean) > figureTolerance {
		return bad("mean is not the histogram's mean %.6g", mean)
	}
	if c.Normalized == nil || math.Abs(*c.Normalized-norm) > figureTolerance {
		return bad("normalized is not the histogram's normalised mean %.6g", norm)
	}
	return nil
}

// uniqueIDs refuses duplicate ids. The columns' id index finds whether
// any id repeats (and is kept for the gate's pairing); the exact check
// names the first repeat.
func uniqueIDs(items *gate.ItemColumns) error {
	if items.HasDuplicate() {
		return uniqueIDsExact(items)
	}
	return nil
}

func uniqueIDsExact(items *gate.ItemColumns) error {
	seen := make(map[string]int, items.Len())
	for i := range items.Len() {
		id := items.ID(i)
		if j, ok := seen[id]; ok {
			return dupError(i, j, id)
		}
		seen[id] = i
	}
	return nil
}

func dupError(i, j int, id string) error {
	return fmt.Errorf("field \"items.ids[%d]\": duplicate id %q (also items.ids[%d])", i, id, j)
}

func inRange(field string, v, lo, hi float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		return fmt.Errorf("field %q: %v is outside %v-%v", field, v, lo, hi)
	}
	return nil
}
