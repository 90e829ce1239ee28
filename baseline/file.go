// Package baseline keeps the last passing run: the baseline.json file format
// (versioned, with the rubric embedded in canonical form and every item's
// score in compact columns) and the stores it lives in: a local directory, a
// single named file, and GitHub Actions artifacts.
//
// A baseline is only written for a run that passed the gate. That rule
// belongs to the caller (the gate command): this package writes whatever it is
// given and never judges a run.
//
// Everything read here is untrusted: a baseline file may have been edited by
// hand, truncated, or (for artifacts) produced by someone else. Read checks
// the schema, the size, the required fields, the ranges of the figures, the
// hash of the embedded rubric and the hash chain of the history (the
// branch's earlier baselines, for the trend) before anything uses it.
package baseline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// Schema is the baseline file schema this package writes and reads.
const Schema = 1

// DefaultMaxSize is the largest baseline file Read accepts when given no
// limit: 100 MiB, the artifact size limit.
const DefaultMaxSize int64 = 100 << 20

// File is one baseline: the figures of a passing run, the rubric it was
// scored under, and where it was made.
type File struct {
	// Schema is the file format version (Schema).
	Schema int
	// Rubric names the rubric and its hash ("sha256:<hex>" of RubricCanonical).
	Rubric gate.RubricRef
	// RubricCanonical is the rubric in canonical JSON form, so a later run can
	// re-score under it.
	RubricCanonical json.RawMessage
	// CreatedAt is when the baseline was made (UTC, second precision).
	CreatedAt time.Time
	// SHA, Ref, Branch and Repository describe the commit the run was on.
	SHA, Ref, Branch, Repository string
	// RunID and RunURL identify the workflow run (0 and "" outside Actions).
	RunID  int64
	RunURL string
	// Score is the run's mean item score (0-100); PassRate its share of
	// passing items (0-1).
	Score, PassRate float64
	// Criteria are the run's per-criterion figures, in rubric order.
	Criteria []gate.CriterionStats
	// Items are the scored items, in run order, in pointer-free columns
	// (stored as columns in the file too).
	Items *gate.ItemColumns
	// History is the chain of the branch's earlier baselines (see
	// [History]); empty for a file written before baselines had one.
	History History
	// PooledRuns is how many consecutive runs of the branch the items
	// pool (see [File.Pool]); 0 for a baseline of one run. RunScore is
	// then the score of the run that made it (Score is the pooled
	// items' mean, what the gate compares with).
	PooledRuns int
	RunScore   float64
	// RunDigest is [ItemsDigest] of the items of the run that made a
	// pooled baseline, before pooling: the same answers gated again are
	// not pooled again.
	RunDigest string
	// Anchor is the branch's anchor (see [gate.Anchor], [File.SetAnchor]);
	// nil for a file written before baselines carried one.
	Anchor *gate.Anchor

	// rb caches the decoded rubric (set by New and Read).
	rb *rubric.Rubric
}

// Meta describes where and when a baseline was made.
type Meta struct {
	CreatedAt                    time.Time
	SHA, Ref, Branch, Repository string
	RunID                        int64
	RunURL                       string
}

// New builds a baseline from a scored run. It refuses a report with nothing
// scored (nil Score or PassRate), a report scored under another rubric, and
// items with empty or duplicate ids or scores outside 0-100. items are the
// run's scored items (unscored items are left out by the caller).
//
// New does not check that the run passed: only write baselines of passing
// runs (the caller's rule).
func New(rb *rubric.Rubric, rep *gate.Report, items []gate.ItemScore, m Meta) (*File, error) {
	return NewColumns(rb, rep, gate.ColumnsOf(items), m)
}

// NewColumns is [New] with the items in columns, which the file keeps (the
// caller must not append to them afterwards).
func NewColumns(rb *rubric.Rubric, rep *gate.Report, items *gate.ItemColumns, m Meta) (*File, error) {
	if items == nil {
		items = &gate.ItemColumns{}
	}
	if rb == nil {
		return nil, errors.New("no rubric")
	}
	if rep == nil {
		return nil, errors.New("no report")
	}
	if rep.Score == nil || rep.PassRate == nil || rep.Scored == 0 {
		return nil, errors.New("the report scored nothing; a baseline needs a scored run")
	}
	hash := rb.Hash()
	if rep.Rubric.Hash != "" && rep.Rubric.Hash != hash {
		return nil, fmt.Errorf("baseline: the report was scored under rubric %s, not %s (%q)", rep.Rubric.Hash, hash, rb.Name)
	}
	canon, err := compactJSON(rb.Canonical())
	if err != nil {
		return nil, fmt.Errorf("baseline: rubric %q: canonical form is not valid JSON: %w", rb.Name, err)
	}
	if got := hashOf(canon); got != hash {
		return nil, fmt.Errorf("baseline: rubric %q: Hash() %s is not the sha256 of its canonical form (%s)", rb.Name, hash, got)
	}
	if m.CreatedAt.IsZero() {
		return nil, errors.New("baseline: Meta.CreatedAt is required")
	}
	f := &File{
		Schema:          Schema,
		Rubric:          gate.RubricRef{Name: rb.Name, Hash: hash},
		RubricCanonical: canon,
		CreatedAt:       m.CreatedAt.UTC().Truncate(time.Second),
		SHA:             m.SHA,
		Ref:             m.Ref,
		Branch:          m.Branch,
		Repository:      m.Repository,
		RunID:           m.RunID,
		RunURL:          m.RunURL,
		Score:           *rep.Score,
		PassRate:        *rep.PassRate,
		Criteria:        append([]gate.CriterionStats(nil), rep.Criteria...),
		Items:           items,
		rb:              rb,
	}
	f.Continue(nil) // a new chain; the caller continues the previous baseline's
	if err := f.validate(); err != nil {
		return nil, fmt.Errorf("baseline: %w", err)
	}
	return f, nil
}

// wire is the JSON form of a File. Pointers tell a missing field from a
// zero one. Items are decoded as plain columns (no custom unmarshaler) so a
// type error anywhere still leaves Schema decoded, for a clear schema error.
type wire struct {
	Schema          *int                   `json:"schema"`
	Rubric          *gate.RubricRef        `json:"rubric"`
	CreatedAt       *string                `json:"created_at"`
	SHA             string                 `json:"sha"`
	Ref             string                 `json:"ref"`
	Branch          string                 `json:"branch"`
	Repository      string                 `json:"repository"`
	RunID           int64                  `json:"run_id"`
	RunURL          string                 `json:"run_url"`
	Score           *float64               `json:"score"`
	PassRate        *float64               `json:"pass_rate"`
	Criteria        *[]gate.CriterionStats `json:"criteria"`
	RubricCanonical json.RawMessage        `json:"rubric_canonical"`
	Items           *wireItems             `json:"items,omitempty"`
	History         *wireHistory           `json:"history,omitempty"`
	// PooledRuns and RunScore are set on a pooled baseline (File.Pool).
	PooledRuns *int     `json:"pooled_runs,omitempty"`
	RunScore   *float64 `json:"run_score,omitempty"`
	RunDigest  string   `json:"run_digest,omitempty"`
	// Anchor is the branch's anchor, bound by history.head.
	Anchor *wireAnchor `json:"anchor,omitempty"`
}

type wireItems struct {
	Count  *int         `json:"count"`
	IDs    *idColumn    `json:"ids"`
	Scores *scoreColumn `json:"scores"`
	// InputHashes, optional, binds each item to its task (see
	// gate.InputHash and hashColumn).
	InputHashes *hashColumn `json:"input_hashes,omitempty"`
	// Answers and AnswerVars are written when an item has more than one
	// answer sample: per item, the answers its score is the mean of and
	// the variance of their scores (what the next comparison needs to
	// count answer noise). A file without them has one answer per item.
	Answers    *answersColumn    `json:"answers,omitempty"`
	AnswerVars *answerVarsColumn `json:"answer_vars,omitempty"`
}

// Gate returns what the gate needs, with src describing where the file came
// from. Fields of src left empty (SHA, Ref, Repository, RunID, RunURL,
// CreatedAt) are filled from the file.
func (f *File) Gate(src gate.BaselineSource) (*gate.Baseline, error) {
	rb := f.rb
	if rb == nil {
		var err error
		if rb, err = rubric.FromCanonical(f.RubricCanonical); err != nil {
			return nil, fmt.Errorf("baseline: embedded rubric %q: %w", f.Rubric.Name, err)
		}
		f.rb = rb
	}
	return &gate.Baseline{
		Rubric:     rb,
		RubricHash: f.Rubric.Hash,
		Score:      f.Score,
		PassRate:   f.PassRate,
		Criteria:   f.Criteria,
		Items:      f.Items,
		Source:     f.source(src),
		Trend:      f.Trend(),
		PooledRuns: f.PooledRuns,
		Anchor:     f.anchorCopy(),
	}, nil
}

// source fills the empty fields of src from the file.
func (f *File) source(src gate.BaselineSource) gate.BaselineSource {
	if src.SHA == "" {
		src.SHA = f.SHA
	}
	if src.Ref == "" {
		src.Ref = f.Ref
	}
	if src.Repository == "" {
		src.Repository = f.Repository
	}
	if src.RunID == 0 {
		src.RunID = f.RunID
	}
	if src.RunURL == "" {
		src.RunURL = f.RunURL
	}
	if src.CreatedAt.IsZero() {
		src.CreatedAt = f.CreatedAt
	}
	return src
}

func compactJSON(b []byte) (json.RawMessage, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func hashOf(canon []byte) string {
	s := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(s[:])
}
