// Package gate reads eval results, scores them against a rubric, aggregates
// the run, compares it with a baseline and decides whether the gate passes.
// It is pure: readers in, values out. Rendering lives elsewhere.
package gate

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/rubricgate/rubricgate/rubric"
)

// Format is the format of a results input.
type Format int

// Results formats.
const (
	// FormatAuto picks the format from the input's name.
	FormatAuto Format = iota
	// FormatJSONL is one JSON object a line (.jsonl, .json).
	FormatJSONL
	// FormatCSV is a review sheet with a header row (.csv).
	FormatCSV
)

// Input is one results stream (a file, a shard, or stdin).
type Input struct {
	// Name is used in error messages and to pick the format ("-" is stdin).
	Name string
	// R is the content.
	R io.Reader
	// Format overrides the format inferred from Name when not FormatAuto.
	Format Format
}

// State says whether an item carries a score for a criterion.
type State uint8

// Value states.
const (
	// Missing: the item has no value for the criterion.
	Missing State = iota
	// Scored: the item has an integer score on the criterion's scale.
	Scored
	// NA: the item says `na` for a criterion that allows it.
	NA
)

// Value is one criterion score on an item.
type Value struct {
	Score int
	State State
}

// Item is one judged item as read from results.
type Item struct {
	// ID identifies the item within the run.
	ID string
	// File and Line locate the item (CSV: the line its row starts on).
	File string
	Line int
	// Values are indexed like the rubric's Criteria. Empty when Error is set.
	Values []Value
	// Error is the judge's error for an unscored item.
	Error string
	// Reasoning is the judge's justification, if any.
	Reasoning string
	// Notes are a reviewer's notes, if any.
	Notes string
	// Reviewer names the reviewer of a review-sheet row, if any.
	Reviewer string
	// JudgeModel is the per-item judge_model field, if any.
	JudgeModel string
	// RetrievalMiss is the review sheet's retrieval_miss tag.
	RetrievalMiss bool
	// Pass is the review sheet's own pass column, nil when absent or empty.
	Pass *bool
	// Length is the answer length in characters when the results carry the
	// answer text (answer/output/response) or a length field; -1 otherwise.
	Length int
	// Meta holds other top-level fields, only when ReadOptions.KeepMeta.
	Meta map[string]json.RawMessage
}

// ReadOptions tune the readers.
type ReadOptions struct {
	// IgnoreUnknown skips keys and columns that name no criterion instead of
	// failing (used to re-score a run under an older rubric).
	IgnoreUnknown bool
	// AllowMissing leaves criteria the item lacks as Missing instead of failing.
	AllowMissing bool
	// KeepMeta keeps unknown top-level fields in Item.Meta.
	KeepMeta bool
	// MaxLine is the longest line accepted, in bytes (0: 1 MiB).
	MaxLine int
}

// InputError is bad input at a position in a results file.
type InputError struct {
	File string
	Line int
	Msg  string
}

func (e *InputError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ReadItems streams the items of one input to fn, in input order, validating
// each against the rubric. It does not detect duplicate ids across items
// (Score does). The *Item passed to fn is only valid during the call.
//
// TODO(scoring helper): implement.
func ReadItems(rb *rubric.Rubric, in Input, opts ReadOptions, fn func(*Item) error) error {
	panic("not implemented")
}
