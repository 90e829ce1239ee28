package native

import (
	"errors"
	"github.com/rubricgate/rubricgate/gate"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/rubric"
)

func intp(v float64) *float64 { return &v }

// supportRubric is the support rubric of the worked example (4,3,4,1 -> 71.4).
func supportRubric() *rubric.Rubric {
	return &rubric.Rubric{
		Name:      "support",
		Threshold: 70,
		Criteria: []rubric.Criterion{
			{ID: "accuracy", Name: "Policy accuracy", Weight: 3, Scale: rubric.Scale{Low: 1, High: 5}, Aliases: []string{"policy_accuracy"}},
			{ID: "resolution", Name: "Resolution", Weight: 2, Scale: rubric.Scale{Low: 1, High: 5}},
			{ID: "tone", Name: "Tone", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5}},
			{ID: "safety", Name: "Safety and privacy", Weight: 1, Scale: rubric.Scale{Low: 0, High: 1}, Critical: intp(1), Blocking: true},
		},
	}
}

// ragRubric is the RAG review rubric: pass = G=2, A=2, U>=1, C 2 or na.
func ragRubric() *rubric.Rubric {
	return &rubric.Rubric{
		Name:      "rag-review",
		Threshold: 0,
		Criteria: []rubric.Criterion{
			{ID: "grounding", Name: "Grounding", Weight: 1, Scale: rubric.Scale{Low: 0, High: 2}, Critical: intp(2), Aliases: []string{"G"}},
			{ID: "citation", Name: "Citation", Weight: 1, Scale: rubric.Scale{Low: 0, High: 2}, Critical: intp(2), NA: true, Aliases: []string{"C"}},
			{ID: "answer_handling", Name: "Answer handling", Weight: 1, Scale: rubric.Scale{Low: 0, High: 2}, Critical: intp(2), Aliases: []string{"A"}},
			{ID: "usefulness", Name: "Usefulness", Weight: 1, Scale: rubric.Scale{Low: 0, High: 2}, Critical: intp(1), Aliases: []string{"U"}},
		},
		NotesRequiredFor: []int{0},
	}
}

// prodRubric has the five production dimensions.
func prodRubric() *rubric.Rubric {
	c := func(id string, w float64) rubric.Criterion {
		return rubric.Criterion{ID: id, Name: id, Weight: w, Scale: rubric.Scale{Low: 1, High: 5}}
	}
	return &rubric.Rubric{
		Name:      "production",
		Threshold: 70,
		Criteria: []rubric.Criterion{
			c("faithfulness", 3), c("relevance", 2), c("completeness", 2), c("format_tone", 1),
			{ID: "safety", Name: "Safety", Weight: 1, Scale: rubric.Scale{Low: 0, High: 1}, Critical: intp(1), Blocking: true},
		},
	}
}

// wantInputError checks that err is an *InputError at file:line whose
// message contains want.
func wantInputError(t *testing.T, err error, file string, line int, want string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error = %v (%T), want *InputError", err, err)
	}
	if ie.File != file || ie.Line != line {
		t.Errorf("error at %s:%d, want %s:%d (%v)", ie.File, ie.Line, file, line, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not contain %q", err.Error(), want)
	}
}

// readAll reads every item of text as one input.
func readAll(t *testing.T, rb *rubric.Rubric, name, text string, opts ReadOptions) ([]Item, error) {
	t.Helper()
	var items []Item
	err := ReadItems(rb, Input{Name: name, R: strings.NewReader(text)}, opts, func(it *Item) error {
		c := *it
		c.Values = append([]gate.Value(nil), it.Values...)
		items = append(items, c)
		return nil
	})
	return items, err
}
