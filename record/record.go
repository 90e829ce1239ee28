// Package record holds what a reader of another tool's results hands to
// the gate: the Record of one judged item (its samples and metrics, before
// they meet the rubric), the Records input that yields them, and the one
// InputError of bad input that every reader returns. Package formats
// writes records; results/native validates and scores them. Neither
// imports the other: both import this package.
package record

import (
	"fmt"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// Records is a results input already decoded from another tool's output
// (promptfoo, Inspect AI, deepeval, openai/evals, ragas: package formats).
// Set it as native.Input.Records; native.Score and native.ReadItems then
// validate and score its records exactly like results lines: the same
// rules, the same errors.
type Records interface {
	// Format names the tool: the key of a criterion's `from` in the rubric
	// (one of rubric.Sources).
	Format() string
	// Each calls fn with every record, in input order, and returns fn's
	// first error unchanged. It may be called more than once (to show the
	// places of a duplicate id) and must then yield the same records.
	// native.Score keeps each *Record (and its slices) until it returns:
	// pass a fresh Record to every call of fn and do not change it
	// afterwards.
	Each(fn func(*Record) error) error
}

// RecordsWarner is a Records input with remarks on how its records meet
// the rubric, such as a tool's own metric weights that differ from the
// rubric's (the rubric's weights are used). native.Score adds them to the
// report's warnings once the input is read, for the rubric it scored
// under.
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

// InputError is bad input at a position in an input file: the file, the
// line (0 if unknown), the JSON path or zip member when known, and what was
// expected. It is the one input error of every reader: results/native's
// (native.InputError is this type), formats' (which return it) and judge's
// answers (judge.InputError is this type).
type InputError struct {
	File string
	Line int
	Path string
	Msg  string
	// Err is the underlying error of a read failure, if any.
	Err error
}

// Unwrap returns the underlying read error, if any.
func (e *InputError) Unwrap() error { return e.Err }

// Error formats the error as "file:line: message" ("file: message" when the
// line is unknown; "file:line: at path: message" with a path).
func (e *InputError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s:%d", e.File, e.Line)
	}
	if e.Path != "" && e.Path != "$" {
		return fmt.Sprintf("%s: at %s: %s", loc, e.Path, e.Msg)
	}
	return fmt.Sprintf("%s: %s", loc, e.Msg)
}
