package results

import (
	"bytes"
	"fmt"
	"io"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// Source reads the same results more than once (the gate re-scores them
// under the baseline's rubric when it changed): the files are opened again
// each time, and stdin ("-") is buffered once. It implements the gate
// pipeline's Results.
type Source struct {
	patterns []string
	format   string
	stdin    []byte
	// mem, when set, is the one results file, named name, held in memory.
	mem  []byte
	name string
}

// NewMemorySource returns results already in memory: the JSON lines a judge
// run wrote, named name (as errors and the report name them) though not yet
// written there.
func NewMemorySource(name string, data []byte) *Source {
	return &Source{patterns: []string{name}, mem: data, name: name}
}

// NewSource returns the results named by patterns (files, globs, "-" for
// stdin) in format ("" to detect it); stdin is read now when "-" is among
// them.
func NewSource(patterns []string, format string, stdin io.Reader) (*Source, error) {
	s := &Source{patterns: patterns, format: format}
	for _, p := range patterns {
		if p == "-" {
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, fmt.Errorf("read stdin: %w", err)
			}
			s.stdin = data
		}
	}
	return s, nil
}

func (s *Source) open() ([]native.Input, func(), error) {
	if s.mem != nil {
		return []native.Input{{Name: s.name, R: bytes.NewReader(s.mem), Format: native.FormatJSONL}}, func() {}, nil
	}
	return Open(s.patterns, s.format, bytes.NewReader(s.stdin))
}

// Score scores the results under rb.
func (s *Source) Score(rb *rubric.Rubric, opts native.ScoreOptions) (*gate.Report, error) {
	inputs, closeAll, err := s.open()
	if err != nil {
		return nil, err
	}
	defer closeAll()
	return native.Score(rb, inputs, opts)
}

// CheckBlocking checks the results against rb's blocking criteria.
func (s *Source) CheckBlocking(rb *rubric.Rubric) (*gate.GateCheck, error) {
	inputs, closeAll, err := s.open()
	if err != nil {
		return nil, err
	}
	defer closeAll()
	return native.CheckBlocking(rb, inputs)
}
