package rubric

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// manyCriteria is a rubric with n criteria.
func manyCriteria(n int) []byte {
	var b strings.Builder
	b.WriteString("name: wide\nversion: \"1\"\nthreshold: 50\ncriteria:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - id: c%d\n    weight: 1\n    scale: [0, 1]\n", i)
	}
	return []byte(b.String())
}

// A rubric is capped at MaxCriteria criteria, with an error naming the file
// and line; the canonical form (a baseline's rubric) is held to the same cap.
func TestCriteriaCap(t *testing.T) {
	if _, _, err := Load("wide.yaml", manyCriteria(MaxCriteria)); err != nil {
		t.Fatalf("%d criteria refused: %v", MaxCriteria, err)
	}
	for _, n := range []int{MaxCriteria + 1, 10000} {
		_, _, err := Load("wide.yaml", manyCriteria(n))
		var e *Error
		if !errors.As(err, &e) || e.File != "wide.yaml" || e.Line != 4 || !strings.Contains(err.Error(), fmt.Sprintf("%d criteria: at most %d", n, MaxCriteria)) {
			t.Errorf("%d criteria: err = %v", n, err)
		}
	}
	rb, _, err := Load("wide.yaml", manyCriteria(MaxCriteria))
	if err != nil {
		t.Fatal(err)
	}
	rb.Criteria = append(rb.Criteria, Criterion{ID: "extra", Name: "extra", Weight: 1, Scale: Scale{0, 1}})
	if _, err := FromCanonical(rb.Canonical()); err == nil || !strings.Contains(err.Error(), "at most") {
		t.Errorf("a canonical rubric over the cap: %v", err)
	}
}
