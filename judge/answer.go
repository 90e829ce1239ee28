package judge

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// Score is one criterion's value from the judge: an integer on the
// criterion's scale (any number on it for a continuous criterion), or "na"
// where the criterion allows it.
type Score struct {
	Value float64
	NA    bool
}

// MarshalJSON writes the number or the string "na".
func (s Score) MarshalJSON() ([]byte, error) {
	if s.NA {
		return []byte(`"na"`), nil
	}
	return []byte(strconv.FormatFloat(s.Value, 'f', -1, 64)), nil
}

// Judgment is one validated answer of the judge for one item.
type Judgment struct {
	// Scores are in rubric order, one per criterion.
	Scores    []Score
	Reasoning string
}

// Schema returns the JSON schema of a judge answer: an object with one
// property per criterion (an integer with the scale's minimum and maximum,
// or the string "na" where allowed) and "reasoning", all required, no other
// properties.
func Schema(rb *rubric.Rubric) map[string]any {
	props := map[string]any{}
	req := make([]string, 0, len(rb.Criteria)+1)
	for i := range rb.Criteria {
		c := &rb.Criteria[i]
		typ := "integer"
		if c.Continuous {
			typ = "number"
		}
		intSchema := map[string]any{
			"type":        typ,
			"minimum":     c.Scale.Low,
			"maximum":     c.Scale.High,
			"description": fmt.Sprintf("%s: %s %d to %d", c.ID, typ, c.Scale.Low, c.Scale.High),
		}
		if c.NA {
			props[c.ID] = map[string]any{"anyOf": []any{intSchema, map[string]any{"type": "string", "enum": []any{"na"}}}}
		} else {
			props[c.ID] = intSchema
		}
		req = append(req, c.ID)
	}
	props["reasoning"] = map[string]any{"type": "string", "description": "2-3 sentences justifying the scores"}
	req = append(req, "reasoning")
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             req,
		"additionalProperties": false,
	}
}

// ValidationError is a judge answer that does not fit the rubric. Its
// message is sent back to the judge on the re-ask.
type ValidationError struct{ Msg string }

func (e *ValidationError) Error() string { return e.Msg }

func invalid(format string, a ...any) error {
	return &ValidationError{Msg: fmt.Sprintf(format, a...)}
}

// stripFences returns the text inside a markdown code fence when the whole
// answer is one fenced block (```json ... ```), else the trimmed text.
func stripFences(s string) string {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "```") {
		return t
	}
	body := strings.TrimPrefix(t, "```")
	nl := strings.IndexByte(body, '\n')
	if nl < 0 {
		return t
	}
	lang := strings.TrimSpace(body[:nl])
	if lang != "" && !strings.EqualFold(lang, "json") {
		return t
	}
	body = strings.TrimSpace(body[nl+1:])
	if !strings.HasSuffix(body, "```") {
		return t
	}
	return strings.TrimSpace(strings.TrimSuffix(body, "```"))
}

// Parse validates a judge answer against the rubric: exactly one JSON object
// (a single surrounding code fence is stripped), every criterion present as
// an integer on its scale ("na" only where allowed), a non-empty reasoning
// string, and no other key, each key once (see native.CheckJSON). Errors are
// *ValidationError.
func Parse(rb *rubric.Rubric, text string) (*Judgment, error) {
	t := stripFences(text)
	if t == "" {
		return nil, invalid("the answer is empty: expected one JSON object")
	}
	if t[0] != '{' {
		return nil, invalid("expected only a JSON object, found text before it")
	}
	dec := json.NewDecoder(strings.NewReader(t))
	dec.UseNumber()
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return nil, invalid("the answer is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, invalid("expected only a JSON object, found text after it")
	}
	// The results reader's rule, on an object that decodes: a key given
	// twice ("safety": 0, then "safety": 1) makes no answer, never the last
	// value (nor does nesting the reader refuses).
	if err := native.CheckJSON([]byte(t)); err != nil {
		return nil, invalid("the answer is not valid: %v", err)
	}
	j := &Judgment{Scores: make([]Score, len(rb.Criteria))}
	var problems []string
	for i := range rb.Criteria {
		c := &rb.Criteria[i]
		raw, ok := fields[c.ID]
		if !ok {
			problems = append(problems, fmt.Sprintf("%q is missing", c.ID))
			continue
		}
		s, err := parseScore(c, raw)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%q: %v", c.ID, err))
			continue
		}
		j.Scores[i] = s
	}
	if raw, ok := fields["reasoning"]; !ok {
		problems = append(problems, `"reasoning" is missing`)
	} else if err := json.Unmarshal(raw, &j.Reasoning); err != nil {
		problems = append(problems, `"reasoning" must be a string`)
	} else if strings.TrimSpace(j.Reasoning) == "" {
		problems = append(problems, `"reasoning" is empty`)
	}
	for k := range fields {
		if k != "reasoning" && rb.Index(k) < 0 {
			problems = append(problems, fmt.Sprintf("unexpected key %s", quote(k)))
		} else if k != "reasoning" && rb.Criteria[rb.Index(k)].ID != k {
			problems = append(problems, fmt.Sprintf("unexpected key %s (use the criterion key %q)", quote(k), rb.Criteria[rb.Index(k)].ID))
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return nil, invalid("%s", strings.Join(problems, "; "))
	}
	return j, nil
}

func parseScore(c *rubric.Criterion, raw json.RawMessage) (Score, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '"' {
		var s string
		_ = json.Unmarshal(raw, &s)
		if strings.EqualFold(strings.TrimSpace(s), "na") {
			if !c.NA {
				return Score{}, fmt.Errorf(`"na" is not allowed: expected an integer %d to %d`, c.Scale.Low, c.Scale.High)
			}
			return Score{NA: true}, nil
		}
		return Score{}, fmt.Errorf("expected an integer %d to %d, got the string %s", c.Scale.Low, c.Scale.High, quote(s))
	}
	kind := "an integer"
	if c.Continuous {
		kind = "a number"
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return Score{}, fmt.Errorf("expected %s %d to %d, got %s", kind, c.Scale.Low, c.Scale.High, clip(string(raw)))
	}
	v, err := n.Float64()
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return Score{}, fmt.Errorf("expected %s %d to %d, got %s", kind, c.Scale.Low, c.Scale.High, clip(string(raw)))
	}
	if !(v >= float64(c.Scale.Low) && v <= float64(c.Scale.High)) {
		return Score{}, fmt.Errorf("%s is outside the scale %d to %d", clip(n.String()), c.Scale.Low, c.Scale.High)
	}
	if !c.OnScale(v) {
		return Score{}, fmt.Errorf("expected %s %d to %d, got %s", kind, c.Scale.Low, c.Scale.High, clip(n.String()))
	}
	return Score{Value: v}, nil
}

// failsBlocking reports whether the judgment fails a blocking criterion's
// critical minimum.
func failsBlocking(rb *rubric.Rubric, j *Judgment) bool {
	for i := range rb.Criteria {
		c := &rb.Criteria[i]
		if c.Blocking && c.Critical != nil && !j.Scores[i].NA && j.Scores[i].Value < *c.Critical {
			return true
		}
	}
	return false
}
