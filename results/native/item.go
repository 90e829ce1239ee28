// Package native reads results into items: rubricgate's own JSON lines and
// review sheets (CSV), and the neutral records the formats package turns
// other tools' files into (see Record). Score reads every input in parallel,
// validates each item against the rubric and hands it to gate's scoring;
// bad input is an *InputError naming the file and line. Which reader a file
// gets is decided by the results package (it opens and detects); gate
// scores, compares and decides, and reads no file.
package native

import (
	"encoding/json"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
	"io"
	"strings"
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
	// Records, when set, replaces R and Format: the input is records already
	// decoded from another tool's output (see Records).
	Records Records
}

// Item is one judged item as read from results.
type Item struct {
	// ID identifies the item within the run.
	ID string
	// File and Line locate the item (CSV: the line its row starts on).
	File string
	Line int
	// Values are indexed like the rubric's Criteria. On an unscored item
	// only the integer values of blocking criteria are kept (see Unscored);
	// the others are Missing.
	Values []gate.Value
	// Error is the judge's error: non-empty exactly when the item is
	// unscored. An error field that is blank (see IsBlank) is no error and
	// reads as "".
	Error string
	// Samples is the number of judgings the values sum up (1 for a line
	// without "samples"; 0 for an unscored item).
	Samples int
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
	// InputHash is the input_hash field: what binds the item to its task
	// (see gate.InputHash); zero when absent.
	InputHash gate.InputHash
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
	// GatesOnly reads for a check of gates alone (see CheckBlocking): an item
	// with no weighted score is no error.
	GatesOnly bool
	// realScales, when set (CheckBlocking), holds per criterion the scale a
	// `from` source value is mapped onto: the criterion's real scale, kept
	// beside the widened one the check reads with.
	realScales []rubric.Scale
}

// defaultMaxLine is the longest results line accepted when ReadOptions.MaxLine is 0.
const defaultMaxLine = 1 << 20

// ReadItems streams the items of one input to fn, in input order, validating
// each against the rubric. It does not detect duplicate ids across items
// (Score does). The *Item passed to fn is only valid during the call.
//
// Every error about the content is an *InputError naming the input and line;
// an error returned by fn is passed back unchanged.
func ReadItems(rb *rubric.Rubric, in Input, opts ReadOptions, fn func(*Item) error) error {
	sc, err := newSchema(rb, opts)
	if err != nil {
		return err
	}
	d := newDecoder(sc, in.Name)
	var it Item
	emit := func() error {
		d.raw.toItem(sc, &it, in.Name)
		return fn(&it)
	}
	if in.Records != nil {
		return readRecords(d, in.Records, emit)
	}
	switch formatOf(in) {
	case FormatCSV:
		cr, err := newCSVReader(sc, in)
		if err != nil {
			return err
		}
		for {
			row, line, err := cr.next()
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
			if err := d.decodeCSV(cr.head, row, line); err != nil {
				return err
			}
			if err := emit(); err != nil {
				return err
			}
		}
	default:
		ch := newChunker(in, sc.maxLine, 64<<10)
		for {
			c, err := ch.next()
			if c != nil {
				for _, l := range c.lines {
					ok, derr := d.decodeJSON(c.buf[l.off:l.end], l.line)
					if derr != nil {
						return derr
					}
					if !ok {
						continue
					}
					if err := emit(); err != nil {
						return err
					}
				}
			}
			if err == io.EOF {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
}

// formatOf returns the input's format, inferred from its name when
// in.Format is FormatAuto: .csv is a review sheet, anything else JSON lines.
func formatOf(in Input) Format {
	if in.Format != FormatAuto {
		return in.Format
	}
	if strings.HasSuffix(strings.ToLower(in.Name), ".csv") {
		return FormatCSV
	}
	return FormatJSONL
}
