package gate

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
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
	// the same criteria.
	Samples []Sample
	// Error is the tool's error for an item it could not score: the item is
	// then unscored (never a 0) and Samples are not looked at.
	Error string
	// Reasoning is the judge's reasoning for the item, if any.
	Reasoning string
	// JudgeModel names the judge model, if known.
	JudgeModel string
	// Length is the answer length in characters, -1 (or 0 with no answer)
	// when unknown.
	Length int
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
	// source scale the rubric's `from` gives). Ignored when NA.
	Value float64
	// NA marks a value the tool left unscored for this item (a NaN in the
	// tool's output, a not-applicable verdict); the criterion must allow
	// `na`.
	NA bool
}

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
	if rec.Length > 0 {
		r.length = rec.Length
	}
	if !r.unscored() {
		if len(rec.Samples) == 0 {
			return fail("the record has no judging (no scores and no error)")
		}
		if len(rec.Samples) > maxSamples {
			return fail("the record has more than %d judgings", maxSamples)
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
					v := d.sc.rb.Criteria[i].FromSource(format, m.Value)
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
