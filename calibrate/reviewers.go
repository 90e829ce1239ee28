package calibrate

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// ReviewerReport compares the two reviewers of one review sheet (two
// reviewers score the same answers and discuss every disagreement).
type ReviewerReport struct {
	Rubric       RubricRef `json:"rubric"`
	Metric       Metric    `json:"metric"`
	MinAgreement float64   `json:"min_agreement"`
	// Reviewers are the two reviewers, in order of first appearance; A is
	// Reviewers[0] (confusion rows) and B is Reviewers[1] (columns).
	Reviewers [2]string `json:"reviewers"`
	// Criteria are per-criterion figures, in rubric order. In Disagreements
	// and advice "human" stands for reviewer A and "judge" for reviewer B.
	Criteria []CriterionAgreement `json:"criteria"`
	// OnlyA and OnlyB list ids scored by one reviewer only, sorted.
	OnlyA []string `json:"only_a"`
	OnlyB []string `json:"only_b"`
	// Disagreements lists every item and criterion the reviewers scored
	// differently, criteria to discuss first ahead (see CompareReviewers).
	Disagreements []ReviewerDisagreement `json:"disagreements"`
	// Passed is true when every criterion passes.
	Passed bool `json:"passed"`
}

// Score is one criterion value as shown in a disagreement: a number, "na"
// or null (missing) in JSON.
type Score gate.Value

// MarshalJSON writes the score as a number, "na" or null.
func (s Score) MarshalJSON() ([]byte, error) {
	switch s.State {
	case gate.Scored:
		return json.Marshal(s.Score)
	case gate.NA:
		return []byte(`"na"`), nil
	}
	return []byte("null"), nil
}

// String is the score, "na" or "-".
func (s Score) String() string {
	switch s.State {
	case gate.Scored:
		return fmt.Sprint(s.Score)
	case gate.NA:
		return "na"
	}
	return "-"
}

// ReviewerDisagreement is one item and criterion scored differently by the
// two reviewers (a score against another score, or against `na`).
type ReviewerDisagreement struct {
	Item      string `json:"item"`
	Criterion string `json:"criterion"`
	A         Score  `json:"a"`
	B         Score  `json:"b"`
	NotesA    string `json:"notes_a"`
	NotesB    string `json:"notes_b"`
	// Discuss marks criteria to discuss first (see CompareReviewers).
	Discuss bool `json:"discuss_first"`
}

// ReviewersError is a review sheet without exactly two reviewers.
type ReviewersError struct {
	File  string
	Found []string
}

func (e *ReviewersError) Error() string {
	q := make([]string, len(e.Found))
	for i, r := range e.Found {
		q[i] = fmt.Sprintf("%q", r)
	}
	return fmt.Sprintf("%s: want exactly two reviewers in the reviewer column, found %d: %s", e.File, len(e.Found), strings.Join(q, ", "))
}

// MissingReviewerError is a review-sheet row with an empty reviewer column.
type MissingReviewerError struct {
	Where string
	ID    string
}

func (e *MissingReviewerError) Error() string {
	return fmt.Sprintf("%s: item %q has no reviewer: the reviewer column must name who scored the row", e.Where, e.ID)
}

// DiscussFirst reports whether disagreements on c are discussed first: the
// criteria that decide the overall verdict on their own, generically those
// whose critical minimum is the top of the scale and that do not allow `na`
// (grounding and answer handling in a RAG review rubric).
func DiscussFirst(c *rubric.Criterion) bool {
	return c.Critical != nil && *c.Critical == float64(c.Scale.High) && !c.NA
}

// CompareReviewers pairs the rows of one review sheet scored by two reviewers
// by id and measures their agreement per criterion like Compare. It needs
// exactly two distinct reviewers (*ReviewersError otherwise, listing who was
// found); a row without a reviewer is a *MissingReviewerError; an id scored
// twice by the same reviewer is a *DuplicateError naming both lines; an id
// scored by one reviewer only is reported.
//
// Every disagreement is listed: criteria where DiscussFirst holds come
// first, then the others, each group in rubric order, then by item id. A pair
// where a side is missing is not a disagreement; `na` against a score is.
func CompareReviewers(rb *rubric.Rubric, rows []Rating, opts Options) (*ReviewerReport, error) {
	opts = opts.withDefaults()
	if err := opts.check(); err != nil {
		return nil, err
	}
	if rb == nil {
		return nil, fmt.Errorf("calibrate: no rubric")
	}
	var names []string
	byRev := map[string][]Rating{}
	file := ""
	for i := range rows {
		r := &rows[i]
		if file == "" {
			file = r.File
		}
		name := strings.TrimSpace(r.Reviewer)
		if name == "" {
			return nil, &MissingReviewerError{Where: r.where(), ID: r.ID}
		}
		if _, ok := byRev[name]; !ok {
			names = append(names, name)
		}
		byRev[name] = append(byRev[name], *r)
	}
	if len(names) != 2 {
		return nil, &ReviewersError{File: file, Found: names}
	}
	a, b := byRev[names[0]], byRev[names[1]]
	aIdx, err := indexByID(a)
	if err != nil {
		return nil, reviewerDup(err, names[0])
	}
	bIdx, err := indexByID(b)
	if err != nil {
		return nil, reviewerDup(err, names[1])
	}
	rep := &ReviewerReport{
		Rubric:        RubricRef{Name: rb.Name, Hash: rb.Hash()},
		Metric:        opts.Metric,
		MinAgreement:  opts.MinAgreement,
		Reviewers:     [2]string{names[0], names[1]},
		OnlyA:         []string{},
		OnlyB:         []string{},
		Disagreements: []ReviewerDisagreement{},
		Passed:        true,
	}
	type joined struct{ a, b *Rating }
	var both []joined
	for i := range a {
		if k, ok := bIdx[a[i].ID]; ok {
			both = append(both, joined{&a[i], &b[k]})
		} else {
			rep.OnlyA = append(rep.OnlyA, a[i].ID)
		}
	}
	for i := range b {
		if _, ok := aIdx[b[i].ID]; !ok {
			rep.OnlyB = append(rep.OnlyB, b[i].ID)
		}
	}
	sort.Strings(rep.OnlyA)
	sort.Strings(rep.OnlyB)
	sort.SliceStable(both, func(i, j int) bool { return both[i].a.ID < both[j].a.ID })
	names2 := [2]string{names[0], names[1]}
	var first, rest []ReviewerDisagreement
	for ci := range rb.Criteria {
		c := &rb.Criteria[ci]
		ps := make([]pair, len(both))
		for k, p := range both {
			ps[k] = pair{id: p.a.ID, a: p.a.value(ci), b: p.b.value(ci)}
			va, vb := ps[k].a, ps[k].b
			if va.State == gate.Missing || vb.State == gate.Missing || sameValue(va, vb) {
				continue
			}
			d := ReviewerDisagreement{Item: p.a.ID, Criterion: c.ID, A: Score(va), B: Score(vb),
				NotesA: p.a.Notes, NotesB: p.b.Notes, Discuss: DiscussFirst(c)}
			if d.Discuss {
				first = append(first, d)
			} else {
				rest = append(rest, d)
			}
		}
		ca := agreement(c, ps, opts, names2)
		rep.Passed = rep.Passed && ca.Pass
		rep.Criteria = append(rep.Criteria, ca)
	}
	rep.Disagreements = append(append(rep.Disagreements, first...), rest...)
	return rep, nil
}

// reviewerDup adds the reviewer to a duplicate error.
func reviewerDup(err error, reviewer string) error {
	var d *DuplicateError
	if errors.As(err, &d) {
		d.Reviewer = reviewer
	}
	return err
}

// sameValue reports whether two values say the same thing.
func sameValue(a, b gate.Value) bool {
	if a.State != b.State {
		return false
	}
	return a.State != gate.Scored || a.Score == b.Score
}
