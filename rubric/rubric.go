// Package rubric holds the rubric model: weighted criteria on their own
// integer or continuous scales, critical minimums, blocking gates, `na` and
// the metrics of other eval tools each criterion is read from. It loads and
// validates rubric files (YAML or JSON), computes the canonical form and hash,
// and exports a rubric as JSON, a blank review sheet or an LLM-judge prompt.
//
// The package is pure: it takes bytes or readers and returns values.
package rubric

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
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

// Scale is an inclusive range [Low, High] with integer ends and Low < High.
// In JSON it is the array [Low, High]. A criterion's scores are the integers
// of the range, or every number in it when the criterion is continuous.
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
	// Scale is the criterion's own scale.
	Scale Scale `json:"scale"`
	// Continuous makes every finite number within Scale a valid score (not
	// only its integers); its histograms have ContinuousBins equal bins.
	Continuous bool `json:"continuous,omitempty"`
	// Anchors maps a level to the text describing it.
	Anchors map[int]string `json:"anchors,omitempty"`
	// Critical, when set, is the minimum score an item needs on this
	// criterion: an integer, or any number within the scale when Continuous.
	Critical *float64 `json:"critical,omitempty"`
	// Blocking marks a critical criterion whose failure on any item blocks the run.
	Blocking bool `json:"blocking,omitempty"`
	// NA allows `na` as a score: the criterion is then left out of that item.
	NA bool `json:"na,omitempty"`
	// Aliases are other names accepted as keys or columns in results.
	Aliases []string `json:"aliases,omitempty"`
	// From maps a results format (see Sources) to the metric of that tool's
	// output this criterion's score is read from, when the names differ.
	From map[string]Source `json:"from,omitempty"`
}

// Source names the metric (or scorer) of another tool's output that a
// criterion is read from.
type Source struct {
	// Metric is the metric or scorer name exactly as the tool writes it
	// (matched ignoring case and surrounding space).
	Metric string `json:"metric"`
	// Scale, when set, is the range the tool reports the metric on, worst
	// first: [0, 1] for a metric better higher, [1, 0] for one better lower
	// (deepeval's Toxicity); a value is mapped linearly onto the
	// criterion's scale, Low onto the criterion's lowest score. Only a
	// continuous criterion may set it (the mapped value is rarely an
	// integer).
	Scale *Scale `json:"scale,omitempty"`
}

// Sources are the format names `from` accepts, one per results format whose
// metric names a rubric may map: promptfoo, inspect (Inspect AI), deepeval,
// openai-evals (openai/evals) and ragas.
var Sources = []string{"promptfoo", "inspect", "deepeval", "openai-evals", "ragas"}

// ContinuousBins is the number of equal bins a continuous criterion's
// histogram has.
const ContinuousBins = 10

// Normalize maps a score on the criterion's scale to 0-1:
// (s - lowest) / (highest - lowest).
func (c *Criterion) Normalize(s float64) float64 {
	return (s - float64(c.Scale.Low)) / float64(c.Scale.High-c.Scale.Low)
}

// Meets reports whether s meets the criterion's critical minimum (always true
// when the criterion has none).
func (c *Criterion) Meets(s float64) bool { return c.Critical == nil || s >= *c.Critical }

// OnScale reports whether s is a valid score of the criterion: a finite
// number within its scale, and an integer unless the criterion is continuous.
func (c *Criterion) OnScale(s float64) bool {
	if !(s >= float64(c.Scale.Low) && s <= float64(c.Scale.High)) { // also NaN
		return false
	}
	return c.Continuous || s == math.Trunc(s)
}

// Bin returns the histogram bin of a score on a continuous criterion: the
// scale cut into ContinuousBins equal bins, each holding its lower edge, the
// last also its upper edge. Scores off the scale are clamped.
func (c *Criterion) Bin(s float64) int {
	b := int(math.Floor(ContinuousBins * c.Normalize(s)))
	return min(max(b, 0), ContinuousBins-1)
}

// BinLow returns the lower edge of histogram bin b of a continuous criterion.
func (c *Criterion) BinLow(b int) float64 {
	lo, hi := float64(c.Scale.Low), float64(c.Scale.High)
	return lo + (hi-lo)*float64(b)/ContinuousBins
}

// SourceMetric returns the metric the criterion is read from in format's
// output and whether the rubric names one.
func (c *Criterion) SourceMetric(format string) (Source, bool) {
	s, ok := c.From[format]
	return s, ok
}

// FromSource maps a value the tool reported on the criterion's source scale
// for format onto the criterion's scale (unchanged without a source scale).
func (c *Criterion) FromSource(format string, v float64) float64 {
	s, ok := c.From[format]
	if !ok || s.Scale == nil {
		return v
	}
	lo, hi := float64(s.Scale.Low), float64(s.Scale.High)
	return float64(c.Scale.Low) + (v-lo)/(hi-lo)*float64(c.Scale.High-c.Scale.Low)
}

// CriterionFor returns the index of the criterion that a metric (or scorer)
// named metric in format's output feeds: the criterion whose `from` names it
// for that format, else the criterion whose id or alias is the metric name,
// unless that criterion names another metric for the format. Names match
// ignoring case and surrounding space. ok is false when no criterion takes
// the metric.
func (r *Rubric) CriterionFor(format, metric string) (int, bool) {
	m := strings.TrimSpace(metric)
	for i := range r.Criteria {
		if s, ok := r.Criteria[i].From[format]; ok && strings.EqualFold(strings.TrimSpace(s.Metric), m) {
			return i, true
		}
	}
	i := r.Index(m)
	if i < 0 {
		return -1, false
	}
	if _, mapped := r.Criteria[i].From[format]; mapped {
		return -1, false
	}
	return i, true
}

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
// It applies to integer criteria (a continuous score has no levels).
func (r *Rubric) NoteRequired(s float64) bool {
	for _, v := range r.NotesRequiredFor {
		if float64(v) == s {
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

// Error formats the error as "file:line:col: message", leaving out the
// position parts that are unknown (and the file when it is empty).
func (e *Error) Error() string {
	switch {
	case e.File == "":
		return e.Msg
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

// String formats the warning like an Error: "file:line:col: message".
func (w Warning) String() string {
	e := Error{File: w.File, Line: w.Line, Col: w.Col, Msg: w.Msg}
	if w.File == "" {
		return w.Msg
	}
	return e.Error()
}

// MarshalJSON encodes the scale as [Low, High].
func (s Scale) MarshalJSON() ([]byte, error) {
	return []byte("[" + strconv.Itoa(s.Low) + "," + strconv.Itoa(s.High) + "]"), nil
}

// UnmarshalJSON decodes [Low, High]: exactly two integers. It does not check
// Low < High; Validate does.
func (s *Scale) UnmarshalJSON(data []byte) error {
	var v []json.RawMessage
	if err := json.Unmarshal(data, &v); err != nil || len(v) != 2 {
		return fmt.Errorf("scale: expected [lowest, highest] integers, got %s", clip(string(data), 40))
	}
	var b [2]int
	for i, n := range v {
		x, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil || x < -maxBound || x > maxBound {
			return fmt.Errorf("scale: expected [lowest, highest] integers within ±%d, got %s", maxBound, clip(string(data), 40))
		}
		b[i] = int(x)
	}
	s.Low, s.High = b[0], b[1]
	return nil
}

// anchorMap marshals anchors with the levels in numeric order (encoding/json
// would sort "10" before "2").
type anchorMap map[int]string

func (m anchorMap) MarshalJSON() ([]byte, error) {
	levels := make([]int, 0, len(m))
	for k := range m {
		levels = append(levels, k)
	}
	slices.Sort(levels)
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range levels {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + strconv.Itoa(k) + `":`)
		t, err := json.Marshal(m[k])
		if err != nil {
			return nil, err
		}
		b.Write(t)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// MarshalJSON encodes the criterion with its fields in declaration order and
// its anchors in level order (a requirement of the canonical form).
func (c Criterion) MarshalJSON() ([]byte, error) {
	type out struct {
		ID          string            `json:"id"`
		Name        string            `json:"name"`
		Description string            `json:"description,omitempty"`
		Weight      float64           `json:"weight"`
		Scale       Scale             `json:"scale"`
		Continuous  bool              `json:"continuous,omitempty"`
		Anchors     anchorMap         `json:"anchors,omitempty"`
		Critical    *float64          `json:"critical,omitempty"`
		Blocking    bool              `json:"blocking,omitempty"`
		NA          bool              `json:"na,omitempty"`
		Aliases     []string          `json:"aliases,omitempty"`
		From        map[string]Source `json:"from,omitempty"`
	}
	// A rubric without the fields continuous and from keeps the bytes (and
	// so the hash) it had before they existed: both are omitted when unset,
	// and an integer critical encodes as before (3, not 3.0).
	return json.Marshal(out{c.ID, c.Name, c.Description, c.Weight, c.Scale, c.Continuous,
		anchorMap(c.Anchors), c.Critical, c.Blocking, c.NA, c.Aliases, c.From})
}

// Gates returns the indices of the criteria that have a critical minimum, in
// rubric order.
func (r *Rubric) Gates() []int {
	var g []int
	for i := range r.Criteria {
		if r.Criteria[i].IsGate() {
			g = append(g, i)
		}
	}
	return g
}

// MaxPoints is how far the criterion can move the 0-100 weighted score:
// 100 * weight / total, where total is the rubric's TotalWeight. It is 0 when
// total is not positive.
func (c *Criterion) MaxPoints(total float64) float64 {
	if !(total > 0) {
		return 0
	}
	return 100 * c.Weight / total
}

// reservedColumns are result keys and review-sheet columns that are not
// criteria; no criterion id or alias may take one of them.
var reservedColumns = []string{
	"id", "question", "answer", "output", "response", "length", "reasoning",
	"notes", "reviewer", "pass", "retrieval_miss", "error", "judge_model", "scores", "samples",
	"usage", "latency_ms", "attempts", "meta", "rubricgate_shard",
}

// Reserved reports whether name (case-insensitively, ignoring surrounding
// space) is a reserved result key or review-sheet column, which no criterion
// id or alias may use: id, question, answer, output, response, length,
// reasoning, notes, reviewer, pass, retrieval_miss, error, judge_model, scores,
// samples, and the judge's usage, latency_ms, attempts, meta and
// rubricgate_shard.
func Reserved(name string) bool {
	k := strings.TrimSpace(name)
	for _, r := range reservedColumns {
		if strings.EqualFold(r, k) {
			return true
		}
	}
	return false
}

// clip shortens untrusted text quoted in an error message.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
