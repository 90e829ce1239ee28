package rubric

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Load parses and validates a rubric file (YAML or JSON). name is used in
// error messages. Unknown keys are errors; every error is an *Error naming the
// file, line and column. Warnings are returned as data.
//
// TODO(rubric helper): full implementation.
func Load(name string, data []byte) (*Rubric, []Warning, error) {
	panic("not implemented")
}

// Validate checks a Rubric built in code or decoded from its canonical form.
func (r *Rubric) Validate() error { return nil }

// Canonical returns the canonical JSON form: defaults applied, fixed key
// order, no insignificant whitespace. Equal meaning gives equal bytes.
func (r *Rubric) Canonical() []byte {
	b, _ := json.Marshal(r)
	return b
}

// Hash is "sha256:<hex>" of the canonical form.
func (r *Rubric) Hash() string {
	s := sha256.Sum256(r.Canonical())
	return "sha256:" + hex.EncodeToString(s[:])
}

// FromCanonical decodes and validates a rubric in canonical JSON form (as
// stored in a baseline file).
func FromCanonical(data []byte) (*Rubric, error) {
	var r Rubric
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, err
	}
	return &r, r.Validate()
}
