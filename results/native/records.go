package native

import (
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/rubric"
	"math"
	"strconv"
	"strings"
)

// recordWhere is a record's position for messages: "file:line: " is added by
// InputError; a record without a line names its Where in the message.
func recordWhere(r *Record) string {
	if r.Line > 0 || r.Where == "" {
		return ""
	}
	return r.Where + ": "
}

// decodeRecord turns one record into d.raw and validates it like a results
// line. pos is the record's position: its Line, or its 1-based ordinal when
// it has none (for duplicate-id checks).
func (d *decoder) decodeRecord(rec *Record, format string, pos int) error {
	r := &d.raw
	n := len(d.sc.ids)
	r.reset(n, pos)
	r.noLine = rec.Line <= 0
	line := rec.Line
	fail := func(format string, args ...any) error {
		return &InputError{File: d.file, Line: line, Msg: recordWhere(rec) + fmt.Sprintf(format, args...)}
	}
	r.id, r.hasID = []byte(rec.ID), rec.ID != ""
	r.errMsg = []byte(rec.Error)
	r.reasoning = []byte(rec.Reasoning)
	r.judgeModel = []byte(rec.JudgeModel)
	r.inputHash = rec.InputHash
	if rec.Length > 0 {
		r.length = rec.Length
	}
	if !r.unscored() {
		if msg := failedMetric(d.sc.rb, format, rec.Samples); msg != "" {
			r.errMsg = []byte(msg)
		}
	}
	if !r.unscored() {
		if msg := naNotAllowed(d.sc.rb, format, rec.Samples); msg != "" {
			r.errMsg = []byte(msg)
		}
	}
	r.answers = rec.Answers && len(rec.Samples) > 1
	if !r.unscored() {
		if err := d.recordSamples(rec, format, fail); err != nil {
			return err
		}
	}
	if r.unscored() {
		if err := d.unscoredGates(rec, format, fail); err != nil {
			return err
		}
	}
	if err := d.finish(); err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			msg := ie.Msg
			if len(rec.Samples) == 1 {
				msg = strings.TrimPrefix(msg, "samples[0]: ")
			}
			return fail("%s", msg)
		}
		return err
	}
	return nil
}

// recordSamples reads the samples of a scored record into d.raw: each
// metric that feeds a criterion on its scale; a criterion no metric of a
// sample feeds is na where it allows na.
func (d *decoder) recordSamples(rec *Record, format string, fail func(string, ...any) error) error {
	r := &d.raw
	n := len(d.sc.ids)
	if len(rec.Samples) == 0 {
		return fail("the record has no judging (no scores and no error)")
	}
	if len(rec.Samples) > MaxSamples {
		return fail("the record has more than %d judgings", MaxSamples)
	}
	for j := range rec.Samples {
		s := &rec.Samples[j]
		sm := r.nextSample(n)
		sm.hasScores = true
		sm.reasoning = []byte(s.Reasoning)
		for _, m := range s.Metrics {
			i, ok := d.sc.rb.CriterionFor(format, m.Name)
			if !ok {
				continue
			}
			rv := rawVal{key: []byte(m.Name), direct: directNA}
			if !m.NA {
				v, err := d.sc.metricValue(i, format, m)
				if err != nil {
					return fail("sample %d: %v", j, err)
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fail("sample %d: metric %s: expected a finite number, got %v", j, quote(m.Name), m.Value)
				}
				rv = rawVal{key: rv.key, direct: directNum, f: v}
			}
			if err := d.setIn(sm.raws, i, rv); err != nil {
				var ie *InputError
				errors.As(err, &ie)
				return fail("sample %d: %s", j, ie.Msg)
			}
		}
		// A tool writes only the metrics of the checks a test ran
		// (promptfoo's assertions differ from test to test): a
		// criterion no metric feeds is `na` where it allows that, and
		// missing otherwise.
		for i := range sm.raws {
			if !sm.raws[i].set && d.sc.na[i] {
				sm.raws[i] = rawVal{set: true, key: []byte(d.sc.ids[i]), direct: directNA}
			}
		}
	}
	return nil
}

// unscoredGates keeps, for an unscored record, the lowest value its
// samples carry for each blocking criterion.
func (d *decoder) unscoredGates(rec *Record, format string, fail func(string, ...any) error) error {
	r := &d.raw
	// An error must not switch a safety gate off (as in results
	// lines): a value a sample still carries for a blocking criterion
	// is checked by its gate, the lowest of the samples when several
	// do. A blocking criterion the tool failed to score in any sample
	// keeps no value, so its gate fails closed: the failed sample
	// might have been the one below the minimum.
	failed := map[int]bool{}
	for j := range rec.Samples {
		for _, m := range rec.Samples[j].Metrics {
			if i, ok := d.sc.rb.CriterionFor(format, m.Name); ok && m.Unscored {
				failed[i] = true
			}
		}
	}
	for j := range rec.Samples {
		for _, m := range rec.Samples[j].Metrics {
			i, ok := d.sc.rb.CriterionFor(format, m.Name)
			if !ok || m.NA || m.Unscored || failed[i] || !d.sc.blocking[i] {
				continue
			}
			v, err := d.sc.metricValue(i, format, m)
			if err != nil {
				return fail("sample %d: %v", j, err)
			}
			if math.IsNaN(v) {
				continue
			}
			if rv := &r.raws[i]; !rv.set || v < rv.f {
				*rv = rawVal{set: true, key: []byte(m.Name), direct: directNum, f: v}
			}
		}
	}
	return nil
}

// failedMetric returns the error that makes a record unscored when the tool
// failed to score a metric that feeds a criterion (Metric.Unscored): "" when
// none did. A failure is not a not-applicable verdict: the item is unscored
// even where the criterion allows `na`, so it is compared at 0 against the
// baseline and a blocking criterion without a value fails closed.
func failedMetric(rb *rubric.Rubric, format string, samples []Sample) string {
	for j := range samples {
		for _, m := range samples[j].Metrics {
			if !m.Unscored {
				continue
			}
			if _, ok := rb.CriterionFor(format, m.Name); !ok {
				continue
			}
			at := ""
			if len(samples) > 1 {
				at = fmt.Sprintf("samples[%d]: ", j)
			}
			msg := fmt.Sprintf("%s%s failed to score metric %s (NaN, null or empty): the tool's failure, not a not-applicable verdict", at, format, quote(m.Name))
			if r := strings.TrimSpace(m.Reason); r != "" {
				msg += ": " + r
			}
			return msg
		}
	}
	return ""
}

// naNotAllowed returns the error that makes a record unscored when the tool
// said a metric does not apply (NA) and the criterion it feeds does not
// allow `na`: the tool could not score the item on that criterion, which is
// neither a 0 nor bad input. "" when every NA metric feeds a criterion that
// allows `na` (or none).
func naNotAllowed(rb *rubric.Rubric, format string, samples []Sample) string {
	for j := range samples {
		for _, m := range samples[j].Metrics {
			if !m.NA {
				continue
			}
			i, ok := rb.CriterionFor(format, m.Name)
			if !ok || rb.Criteria[i].NA {
				continue
			}
			at := ""
			if len(samples) > 1 {
				at = fmt.Sprintf("samples[%d]: ", j)
			}
			return fmt.Sprintf("%s%s says metric %s does not apply (na) and criterion %s does not allow na", at, format, quote(m.Name), quote(rb.Criteria[i].ID))
		}
	}
	return ""
}

// readRecords streams the records of a Records input to emit, one
// validated item at a time in d.raw.
func readRecords(d *decoder, src Records, emit func() error) error {
	format := src.Format()
	k := 0
	return src.Each(func(rec *Record) error {
		k++
		pos := rec.Line
		if pos <= 0 {
			pos = k
		}
		if err := d.decodeRecord(rec, format, pos); err != nil {
			return err
		}
		return emit()
	})
}

// recordLabel names a record position for a duplicate-id message.
func recordLabel(name string, rec *Record) string {
	if rec.Line > 0 {
		return name + ":" + strconv.Itoa(rec.Line)
	}
	if rec.Where != "" {
		return name + ": " + rec.Where
	}
	return name
}

// metricValue maps metric m of format onto criterion i's scale: through the
// rubric's source scale when it declares one (descending for a metric that
// is better lower), else reversed on the criterion's own scale when the tool
// defines the metric as better lower. A declared direction that contradicts
// the tool's is an error, never a guess.
func (sc *schema) metricValue(i int, format string, m Metric) (float64, error) {
	c := &sc.rb.Criteria[i]
	src, ok := c.From[format]
	if ok && src.Scale != nil {
		desc := src.Scale.Low > src.Scale.High
		switch {
		case m.Direction == LowerIsBetter && !desc:
			return 0, fmt.Errorf("metric %s is better lower in %s (it passes at or below its threshold), but the rubric's from.%s.scale [%d, %d] reads higher as better: write [%d, %d]",
				quote(m.Name), format, format, src.Scale.Low, src.Scale.High, src.Scale.High, src.Scale.Low)
		case m.Direction == HigherIsBetter && desc:
			return 0, fmt.Errorf("metric %s is better higher in %s (it passes at or above its threshold), but the rubric's from.%s.scale [%d, %d] reads lower as better: write [%d, %d]",
				quote(m.Name), format, format, src.Scale.Low, src.Scale.High, src.Scale.High, src.Scale.Low)
		}
		return sc.fromSource(i, format, m.Value), nil
	}
	v := sc.fromSource(i, format, m.Value)
	if m.Direction == LowerIsBetter {
		lo, hi := sc.low[i], sc.high[i]
		v = lo + hi - v
	}
	return v, nil
}
