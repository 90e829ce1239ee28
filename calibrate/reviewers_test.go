package calibrate

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// ragRubric is the RAG review rubric: grounding and answer
// handling are critical at the top of their scale and have no na.
func ragRubric() *rubric.Rubric {
	s := rubric.Scale{Low: 0, High: 2}
	return &rubric.Rubric{
		Name:      "rag-review",
		Threshold: 75,
		Criteria: []rubric.Criterion{
			{ID: "grounding", Name: "Grounding", Weight: 1, Scale: s, Critical: intp(2), Blocking: true},
			{ID: "citation", Name: "Citation", Weight: 1, Scale: s, Critical: intp(2), NA: true},
			{ID: "answer_handling", Name: "Answer handling", Weight: 1, Scale: s, Critical: intp(2)},
			{ID: "usefulness", Name: "Usefulness", Weight: 1, Scale: s, Critical: intp(1)},
		},
	}
}

func row(id, reviewer string, line int, notes string, vs ...gate.Value) Rating {
	return Rating{ID: id, File: "sheet.csv", Line: line, Reviewer: reviewer, Notes: notes, Values: vs, Length: -1}
}

func TestCompareReviewers(t *testing.T) {
	rb := ragRubric()
	rows := []Rating{
		row("q1", "ana", 2, "", sv(2), sv(2), sv(2), sv(2)),
		row("q1", "ben", 3, "", sv(2), sv(2), sv(2), sv(1)),
		row("q2", "ben", 4, "says 60-day window; passage says 30", sv(0), na, sv(2), sv(2)),
		row("q2", "ana", 5, "", sv(2), sv(1), sv(1), sv(2)),
		row("q3", "ana", 6, "", sv(1), sv(2), sv(2), miss),
		row("q3", "ben", 7, "", sv(1), sv(2), sv(2), sv(0)),
		row("q4", "ana", 8, "", sv(2), sv(2), sv(2), sv(2)),
		row("q0", "ben", 9, "", sv(2), sv(2), sv(2), sv(2)),
	}
	rep, err := CompareReviewers(rb, rows, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Reviewers != [2]string{"ana", "ben"} {
		t.Errorf("reviewers = %v", rep.Reviewers)
	}
	if !reflect.DeepEqual(rep.OnlyA, []string{"q4"}) || !reflect.DeepEqual(rep.OnlyB, []string{"q0"}) {
		t.Errorf("only_a = %v, only_b = %v", rep.OnlyA, rep.OnlyB)
	}
	type d struct{ item, crit, a, b string }
	var got []d
	for _, x := range rep.Disagreements {
		got = append(got, d{x.Item, x.Criterion, x.A.String(), x.B.String()})
	}
	// Grounding and answer handling first (rubric order), then citation and
	// usefulness; the missing usefulness of q3 is no disagreement.
	want := []d{
		{"q2", "grounding", "2", "0"},
		{"q2", "answer_handling", "1", "2"},
		{"q2", "citation", "1", "na"},
		{"q1", "usefulness", "2", "1"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("disagreements = %v\nwant %v", got, want)
	}
	if n := rep.Disagreements[0].NotesB; n != "says 60-day window; passage says 30" {
		t.Errorf("notes_b = %q", n)
	}
	if !rep.Disagreements[0].Discuss || rep.Disagreements[2].Discuss {
		t.Error("discuss_first flags wrong")
	}
	g := rep.Criteria[0]
	if g.N != 3 || g.Confusion.Counts[2][0] != 1 {
		t.Errorf("grounding n = %d confusion %v", g.N, g.Confusion.Counts)
	}
	if !strings.Contains(g.Advice, "ana 2 vs ben 0 (1)") {
		t.Errorf("advice %q does not name the reviewers", g.Advice)
	}
	data, err := json.Marshal(rep.Disagreements[2])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"a":1,"b":"na"`) {
		t.Errorf("json %s", data)
	}
}

func TestCompareReviewersErrors(t *testing.T) {
	rb := ragRubric()
	v := []gate.Value{sv(2), sv(2), sv(2), sv(2)}
	tests := []struct {
		name string
		rows []Rating
		as   any
		want string
	}{
		{"one reviewer", []Rating{row("q1", "ana", 2, "", v...)}, new(*ReviewersError),
			`sheet.csv: want exactly two reviewers in the reviewer column, found 1: "ana"`},
		{"three reviewers", []Rating{row("q1", "ana", 2, "", v...), row("q1", "ben", 3, "", v...), row("q1", "cy", 4, "", v...)}, new(*ReviewersError),
			`found 3: "ana", "ben", "cy"`},
		{"no reviewer", []Rating{row("q1", "ana", 2, "", v...), row("q1", " ", 3, "", v...)}, new(*MissingReviewerError),
			`sheet.csv:3: item "q1" has no reviewer`},
		{"scored twice", []Rating{row("q1", "ana", 2, "", v...), row("q1", "ben", 3, "", v...), row("q1", "ana", 9, "", v...)}, new(*DuplicateError),
			`sheet.csv:9: item "q1" scored twice by reviewer "ana" (first at sheet.csv:2)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := CompareReviewers(rb, tt.rows, Options{})
			if err == nil || !errors.As(err, tt.as) {
				t.Fatalf("err = %v (%T), want %T", err, err, tt.as)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %q, want %q", err, tt.want)
			}
		})
	}
}

func TestDiscussFirst(t *testing.T) {
	rb := ragRubric()
	want := []bool{true, false, true, false}
	for i := range rb.Criteria {
		if got := DiscussFirst(&rb.Criteria[i]); got != want[i] {
			t.Errorf("%s: DiscussFirst = %v, want %v", rb.Criteria[i].ID, got, want[i])
		}
	}
}
