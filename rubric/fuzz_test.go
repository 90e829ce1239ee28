package rubric

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad checks that Load never panics, that every error is a *Error, and
// that every rubric it accepts validates and round-trips through its
// canonical form.
func FuzzLoad(f *testing.F) {
	for _, name := range presets {
		data, err := os.ReadFile(filepath.Join("..", "rubrics", name+".yaml"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{
		base,
		hashBase,
		"",
		"~",
		"name: t\ncriteria: [\n",
		"name: t\ncriteria:\n  - id: a\n    scale: [5, 1]\n",
		"name: t\ncriteria:\n  - id: a\n    scale: [1, 5]\n    anchors: {1: x, 9: y}\n",
		"name: t\ncriteria:\n  - id: a\n    weight: .nan\n    scale: [0, 1]\n",
		"name: &n t\ncriteria:\n  - id: a\n    name: *n\n    scale: [0, 1]\n",
		"a: &a [*a]\n",
		`{"name":"j","criteria":[{"id":"a","scale":[0,1],"anchors":{"0":"n","1":"y"},"aliases":["A"]}],"model_families":{"x":["x-"]}}`,
		"name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n---\nname: u\n",
		"name: t\ncriteria:\n  - {id: a, scale: [-1000000, -999990], critical: -999995, blocking: true}\nnotes_required_for: [3, -3, 3]\n",
		"name: t\ncriteria:\n  - {id: a, scale: [0, 1], continuous: true, critical: -0.0, from: {ragas: ' f ', deepeval: {metric: F, scale: [0, 100]}}}\n  - {id: b, scale: [1, 5], from: {promptfoo: b}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, w, err := Load("fuzz.yaml", data)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not a *rubric.Error: %v", err, err)
			}
			if r != nil || w != nil {
				t.Fatal("rubric or warnings returned with an error")
			}
			return
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("loaded rubric does not validate: %v", err)
		}
		c := r.Canonical()
		back, err := FromCanonical(c)
		if err != nil {
			t.Fatalf("FromCanonical(%s): %v", c, err)
		}
		if !bytes.Equal(back.Canonical(), c) {
			t.Fatalf("round trip changed the canonical form:\n%s\n%s", c, back.Canonical())
		}
		if back.Hash() != r.Hash() {
			t.Fatal("round trip changed the hash")
		}
	})
}
