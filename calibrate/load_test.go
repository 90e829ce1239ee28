package calibrate

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/results/native"
)

func TestReadRatingsAndCompare(t *testing.T) {
	rb := ragRubric()
	human := "id,grounding,citation,answer_handling,usefulness,notes\n" +
		"q1,2,2,2,2,\n" +
		"q2,0,na,2,1,says 60 days; passage says 30\n" +
		"q3,2,,2,2,\n"
	judge := `{"id":"q1","grounding":2,"citation":2,"answer_handling":2,"usefulness":1,"reasoning":"ok","answer":"abcd"}
{"id":"q2","grounding":2,"citation":1,"answer_handling":2,"usefulness":1}
{"id":"q9","grounding":2,"citation":2,"answer_handling":2,"usefulness":2}
`
	h, err := ReadRatings(rb, native.Input{Name: "human.csv", R: strings.NewReader(human)}, native.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	j, err := ReadRatings(rb, native.Input{Name: "judge.jsonl", R: strings.NewReader(judge)}, native.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 3 || len(j) != 3 {
		t.Fatalf("read %d human, %d judge ratings", len(h), len(j))
	}
	if h[1].File != "human.csv" || h[1].Line != 3 || h[1].Notes != "says 60 days; passage says 30" {
		t.Errorf("human q2 = %+v", h[1])
	}
	if h[2].Values[1].State != gate.Missing || h[1].Values[1].State != gate.NA {
		t.Errorf("citation states = %v, %v", h[2].Values[1], h[1].Values[1])
	}
	if j[0].Notes != "ok" || j[0].Length != 4 || j[1].Length != -1 {
		t.Errorf("judge q1 notes %q length %d, q2 length %d", j[0].Notes, j[0].Length, j[1].Length)
	}
	rep, err := Compare(rb, h, j, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep.OnlyInHuman, []string{"q3"}) || !reflect.DeepEqual(rep.OnlyInJudge, []string{"q9"}) {
		t.Errorf("only in human %v, judge %v", rep.OnlyInHuman, rep.OnlyInJudge)
	}
	if g := rep.Criteria[0]; g.N != 2 || g.Disagreements[0].ID != "q2" {
		t.Errorf("grounding = %+v", g)
	}
	if c := rep.Criteria[1]; c.N != 1 || c.NAOrMissing != 1 {
		t.Errorf("citation n %d na_or_missing %d", c.N, c.NAOrMissing)
	}
}

func TestReadRatingsReviewerSheet(t *testing.T) {
	rb := ragRubric()
	sheet := "id,reviewer,grounding,citation,answer_handling,usefulness,notes\n" +
		"q1,ana,2,2,2,2,\n" +
		"q1,ben,0,2,2,2,unsupported price\n" +
		"q2,ana,2,2,2,2,\n" +
		"q2,ana,2,2,2,1,\n"
	rows, err := ReadRatings(rb, native.Input{Name: "sheet.csv", R: strings.NewReader(sheet)}, native.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = CompareReviewers(rb, rows, Options{})
	var de *DuplicateError
	if !errors.As(err, &de) || de.First != "sheet.csv:4" || de.Second != "sheet.csv:5" || de.Reviewer != "ana" {
		t.Fatalf("err = %v, want a duplicate naming sheet.csv:4 and :5", err)
	}
	rep, err := CompareReviewers(rb, rows[:3], Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Disagreements) != 1 || rep.Disagreements[0].NotesB != "unsupported price" || !reflect.DeepEqual(rep.OnlyA, []string{"q2"}) {
		t.Errorf("report = %+v", rep)
	}
}

func TestReadRatingsBadInput(t *testing.T) {
	rb := ragRubric()
	_, err := ReadRatings(rb, native.Input{Name: "judge.jsonl", R: strings.NewReader("{\"id\":\"q1\",\"grounding\":7}\n")}, native.ReadOptions{})
	var ie *native.InputError
	if !errors.As(err, &ie) || ie.File != "judge.jsonl" || ie.Line != 1 {
		t.Fatalf("err = %v, want *native.InputError at judge.jsonl:1", err)
	}
}
