package native

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// Records is a results input already decoded from another tool's output
// (promptfoo, Inspect AI, deepeval, openai/evals, ragas: package formats).
// Set it as Input.Records; Score and ReadItems then validate and score its
// records exactly like results lines: the same rules, the same errors.
type Records interface {
	// Format names the tool: the key of a criterion's `from` in the rubric
	// (one of rubric.Sources).
	Format() string
	// Each calls fn with every record, in input order, and returns fn's
	// first error unchanged. It may be called more than once (to show the
	// places of a duplicate id) and must then yield the same records.
	// Score keeps each *Record (and its slices) until it returns: pass a
	// fresh Record to every call of fn and do not change it afterwards.
	Each(fn func(*Record) error) error
}

// RecordsWarner is a Records input with remarks on how its records meet
// the rubric, such as a tool's own metric weights that differ from the
// rubric's (the rubric's weights are used). Score adds them to the report's
// warnings once the input is read, for the rubric it scored under.
type RecordsWarner interface {
	Records
	Warnings(rb *rubric.Rubric) []finding.Finding
}

// Record is one judged item as another tool writes it, before it is checked
// against the rubric.
type Record struct {
	// ID identifies the item (the reader builds it from the tool's stable
	// fields, never from a per-run random id).
	ID string
	// Line is the 1-based line of the record in the input, 0 when the format
	// has no useful line (the item's Line is then 0 too); Where then locates it (a JSON path such as
	// "results[3]" or a member such as "samples/7_epoch_1.json").
	Line  int
	Where string
	// Samples are the judgings of the item (Inspect epochs, repeated
	// judgings), at least one unless Error is set. Every sample must carry
	// the same criteria; a criterion that allows `na` and that no metric of
	// a sample feeds is `na` in that sample (tools write the metrics of the
	// checks a test ran), any other missing criterion is bad input.
	Samples []Sample
	// Answers is set when the Samples are answer samples (regenerated
	// answers, each judged once: Inspect epochs) rather than judgings of
	// one answer: they are read as a results line's "answers" (the mean,
	// any failing answer fails a gate, the answers' variance kept).
	Answers bool
	// Error is the tool's error for an item it could not score: the item is
	// then unscored (never a 0); of its Samples only the values of blocking
	// criteria are looked at, each checked by its gate (the lowest value
	// of the samples), so an error cannot switch a safety gate off.
	Error string
	// Reasoning is the judge's reasoning for the item, if any.
	Reasoning string
	// JudgeModel names the judge model, if known.
	JudgeModel string
	// Length is the answer length in characters, -1 (or 0 with no answer)
	// when unknown.
	Length int
	// InputHash binds the record to its task when the tool's file carries
	// the input (gate.HashTask of the question, context and reference);
	// zero when it does not.
	InputHash gate.InputHash
}

// Sample is one judging of a record.
type Sample struct {
	// Metrics are the tool's metric (or scorer) values. Each name is mapped
	// to a criterion with rubric.CriterionFor (the rubric's `from`, else the
	// criterion's id or alias); metrics that feed no criterion are ignored,
	// as the tools write many the rubric does not gate.
	Metrics []Metric
	// Reasoning is the judge's reasoning for this judging, if any.
	Reasoning string
}

// Metric is one metric value of a sample.
type Metric struct {
	// Name is the metric or scorer name as the tool writes it.
	Name string
	// Value is the score on the tool's scale (the criterion's scale, or the
	// source scale the rubric's `from` gives). Ignored when NA or Unscored.
	Value float64
	// NA marks the tool's verdict that the metric does not apply to this
	// item: `na` where the criterion allows it, else the item is unscored
	// with an error naming both. No reader of package formats sets it: none
	// of those tools writes such a verdict (see Unscored).
	NA bool
	// Unscored marks a value the tool failed to produce (a NaN or null
	// where a metric raised, timed out, or could not extract what it
	// scores): the item is unscored, like an item with a judge error,
	// whether or not the criterion allows `na`, so a failure is never read
	// as not applicable and cannot pass a blocking criterion. Value is
	// ignored; Reason says why, where the tool says.
	Unscored bool
	// Reason is the tool's message for an Unscored value, if any.
	Reason string
	// Direction is which way the tool defines the metric to improve.
	Direction Direction
}

// Direction says which way a metric's values improve, as its tool defines
// it. A criterion is always better higher: a metric that is better lower
// is mapped onto it reversed.
type Direction int8

// The directions.
const (
	// DirectionAssumed: the tool does not say (or the reader cannot tell);
	// higher is read as better, every tool's convention, unless the rubric's
	// source scale is written descending ([1, 0]).
	DirectionAssumed Direction = iota
	// HigherIsBetter: the tool defines it so (deepeval passes such a metric
	// when score >= threshold); a descending source scale contradicts it.
	HigherIsBetter
	// LowerIsBetter: the tool defines it so (deepeval's Bias,
	// Hallucination, Misuse and Toxicity pass when score <= threshold); it
	// is read reversed, and an ascending source scale contradicts it.
	LowerIsBetter
)

// where is a record's position for messages: "file:line: " is added by
// InputError; a record without a line names its Where in the message.
func (r *Record) where() string {
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
		return &InputError{File: d.file, Line: line, Msg: rec.where() + fmt.Sprintf(format, args...)}
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

// String names the direction: "assumed", "higher" or "lower" (is better).
func (d Direction) String() string {
	switch d {
	case HigherIsBetter:
		return "higher"
	case LowerIsBetter:
		return "lower"
	}
	return "assumed"
}

// MarshalText writes the direction's name.
func (d Direction) MarshalText() ([]byte, error) { return []byte(d.String()), nil }
