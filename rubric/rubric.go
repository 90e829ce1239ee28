// Package rubric holds the rubric model: weighted criteria on their own
// integer scales, critical minimums, blocking gates and `na`. It loads and
// validates rubric files (YAML or JSON), computes the canonical form and hash,
// and exports a rubric as JSON, a blank review sheet or an LLM-judge prompt.
//
// The package is pure: it takes bytes or readers and returns values.
package rubric

import (
	"fmt"
	"strings"
)

// Rubric is a validated, normalised rubric. Defaults are applied: every
// criterion has a Name and a Weight.
type Rubric struct {
	// Name identifies the rubric; baselines are kept per rubric name.
	Name string `json:"name"`
	// Version is an optional free-form version label.
	Version string `json:"version,omitempty"`
	// Threshold is the item pass threshold on the 0-100 weighted score.
	Threshold float64 `json:"threshold"`
	// Criteria are the scored dimensions, in file order.
	Criteria []Criterion `json:"criteria"`
	// NotesRequiredFor lists scores that must come with a note in a review sheet.
	NotesRequiredFor []int `json:"notes_required_for,omitempty"`
	// ModelFamilies adds model families to the built-in table used by the
	// judge bias check: family name -> name patterns (case-insensitive prefixes).
	ModelFamilies map[string][]string `json:"model_families,omitempty"`
}

// Scale is an inclusive integer range [Low, High] with Low < High.
type Scale struct {
	Low  int
	High int
}

// Levels is the number of levels on the scale.
func (s Scale) Levels() int { return s.High - s.Low + 1 }

// Contains reports whether v lies on the scale.
func (s Scale) Contains(v int) bool { return v >= s.Low && v <= s.High }

// Criterion is one scored dimension of a rubric.
type Criterion struct {
	// ID is unique within the rubric and matches [a-z0-9_]+.
	ID string `json:"id"`
	// Name is the display name (defaults to ID).
	Name string `json:"name"`
	// Description says what the criterion measures.
	Description string `json:"description,omitempty"`
	// Weight is >= 0; 0 makes a pure gate that adds nothing to the score.
	Weight float64 `json:"weight"`
	// Scale is the criterion's own integer scale.
	Scale Scale `json:"scale"`
	// Anchors maps a level to the text describing it.
	Anchors map[int]string `json:"anchors,omitempty"`
	// Critical, when set, is the minimum score an item needs on this criterion.
	Critical *int `json:"critical,omitempty"`
	// Blocking marks a critical criterion whose failure on any item blocks the run.
	Blocking bool `json:"blocking,omitempty"`
	// NA allows `na` as a score: the criterion is then left out of that item.
	NA bool `json:"na,omitempty"`
	// Aliases are other names accepted as keys or columns in results.
	Aliases []string `json:"aliases,omitempty"`
}

// Normalize maps a score on the criterion's scale to 0-1:
// (s - lowest) / (highest - lowest).
func (c *Criterion) Normalize(s int) float64 {
	return float64(s-c.Scale.Low) / float64(c.Scale.High-c.Scale.Low)
}

// Meets reports whether s meets the criterion's critical minimum (always true
// when the criterion has none).
func (c *Criterion) Meets(s int) bool { return c.Critical == nil || s >= *c.Critical }

// IsGate reports whether the criterion has a critical minimum.
func (c *Criterion) IsGate() bool { return c.Critical != nil }

// Index returns the index of the criterion whose id or alias equals key,
// case-insensitively, or -1.
func (r *Rubric) Index(key string) int {
	k := strings.TrimSpace(key)
	for i := range r.Criteria {
		c := &r.Criteria[i]
		if strings.EqualFold(c.ID, k) {
			return i
		}
		for _, a := range c.Aliases {
			if strings.EqualFold(a, k) {
				return i
			}
		}
	}
	return -1
}

// TotalWeight is the sum of all criterion weights.
func (r *Rubric) TotalWeight() float64 {
	var t float64
	for i := range r.Criteria {
		t += r.Criteria[i].Weight
	}
	return t
}

// NoteRequired reports whether a review-sheet score of s must carry a note.
func (r *Rubric) NoteRequired(s int) bool {
	for _, v := range r.NotesRequiredFor {
		if v == s {
			return true
		}
	}
	return false
}

// Error is a rubric error with its position in the source file.
type Error struct {
	File string
	Line int // 1-based; 0 when unknown
	Col  int // 1-based; 0 when unknown
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// Warning is a non-fatal remark about a rubric, carried as data.
type Warning struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
	// Criterion is the id the warning is about, if any.
	Criterion string `json:"criterion,omitempty"`
	Msg       string `json:"message"`
}

func (w Warning) String() string {
	e := Error{File: w.File, Line: w.Line, Col: w.Col, Msg: w.Msg}
	if w.File == "" {
		return w.Msg
	}
	return e.Error()
}
