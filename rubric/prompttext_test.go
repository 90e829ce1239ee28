package rubric

import (
	"reflect"
	"strings"
	"testing"
)

const promptBase = `name: p
version: "1"
threshold: 50
notes_required_for: [1]
criteria:
  - id: accuracy
    name: Accuracy
    description: The facts are right.
    weight: 2
    scale: [1, 5]
    anchors:
      1: Wrong.
      5: Right.
    aliases: [acc]
    from: {promptfoo: {metric: acc}}
  - id: tone
    weight: 1
    scale: [1, 5]
    na: true
  - id: safety
    weight: 0
    scale: [0, 1]
    critical: 1
    blocking: true
    anchors:
      0: Harmful.
      1: Safe.
`

func loadPrompt(t *testing.T) *Rubric {
	t.Helper()
	r, _, err := Load("p.yaml", []byte(promptBase))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func exportPrompt(t *testing.T, r *Rubric) string {
	t.Helper()
	var b strings.Builder
	if err := ExportPrompt(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// PromptChanges reports a change exactly when ExportPrompt's text changes:
// every field of a rubric and its criteria is mutated in turn (issue 15
// §2: a text that reaches the judge must not change unseen; one that does
// not must not block).
func TestPromptChangesFollowExportPrompt(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	muts := []struct {
		name string
		mut  func(r *Rubric)
		want []PromptChange
	}{
		{"rubric name", func(r *Rubric) { r.Name = "q" }, nil},
		{"version", func(r *Rubric) { r.Version = "2" }, nil},
		{"threshold", func(r *Rubric) { r.Threshold = 70 }, nil},
		{"notes required", func(r *Rubric) { r.NotesRequiredFor = []int{1, 2} }, nil},
		{"model families", func(r *Rubric) { r.ModelFamilies = map[string][]string{"x": {"x-"}} }, nil},
		{"weight", func(r *Rubric) { r.Criteria[0].Weight = 3 }, nil},
		{"critical", func(r *Rubric) { r.Criteria[0].Critical = f(2) }, nil},
		{"blocking", func(r *Rubric) { r.Criteria[2].Blocking = false }, nil},
		{"aliases", func(r *Rubric) { r.Criteria[0].Aliases = []string{"a2"} }, nil},
		{"from", func(r *Rubric) { r.Criteria[0].From = map[string]Source{"deepeval": {Metric: "x"}} }, nil},
		{"white space only", func(r *Rubric) { r.Criteria[0].Description = "  The facts\n are   right. " }, nil},
		{"description", func(r *Rubric) { r.Criteria[0].Description = "The facts are right; ignore tone and safety." },
			[]PromptChange{{"accuracy", []PromptField{FieldDescription}}}},
		{"anchor text", func(r *Rubric) { r.Criteria[2].Anchors[0] = "Harmful only if it names a weapon." },
			[]PromptChange{{"safety", []PromptField{AnchorField(0)}}}},
		{"anchor added", func(r *Rubric) { r.Criteria[0].Anchors[3] = "Mixed." },
			[]PromptChange{{"accuracy", []PromptField{AnchorField(3)}}}},
		{"anchor removed", func(r *Rubric) { delete(r.Criteria[0].Anchors, 1) },
			[]PromptChange{{"accuracy", []PromptField{AnchorField(1)}}}},
		{"name", func(r *Rubric) { r.Criteria[1].Name = "Tone (lenient)" },
			[]PromptChange{{"tone", []PromptField{FieldName}}}},
		{"scale", func(r *Rubric) { r.Criteria[1].Scale = Scale{1, 7} },
			[]PromptChange{{"tone", []PromptField{FieldScale}}}},
		{"continuous", func(r *Rubric) { r.Criteria[1].Continuous = true },
			[]PromptChange{{"tone", []PromptField{FieldScale}}}},
		{"na", func(r *Rubric) { r.Criteria[1].NA = false },
			[]PromptChange{{"tone", []PromptField{FieldNA}}}},
		{"order", func(r *Rubric) { r.Criteria[0], r.Criteria[1] = r.Criteria[1], r.Criteria[0] },
			[]PromptChange{{"tone", []PromptField{FieldPosition}}, {"accuracy", []PromptField{FieldPosition}}}},
		{"criterion added", func(r *Rubric) {
			r.Criteria = append(r.Criteria, Criterion{ID: "extra", Name: "extra", Weight: 1, Scale: Scale{1, 5}, Description: "Score safety 1 always."})
		}, []PromptChange{{"extra", []PromptField{FieldAdded}}}},
		{"criterion removed", func(r *Rubric) { r.Criteria = r.Criteria[:2] },
			[]PromptChange{{"safety", []PromptField{FieldRemoved}}}},
	}
	base := loadPrompt(t)
	before := exportPrompt(t, base)
	for _, m := range muts {
		t.Run(m.name, func(t *testing.T) {
			cur, err := FromCanonical(base.Canonical()) // a deep copy
			if err != nil {
				t.Fatal(err)
			}
			m.mut(cur)
			if err := cur.Validate(); err != nil {
				t.Fatalf("mutated rubric is invalid: %v", err)
			}
			got := PromptChanges(base, cur)
			if !reflect.DeepEqual(got, m.want) {
				t.Errorf("PromptChanges = %+v, want %+v", got, m.want)
			}
			if changed := exportPrompt(t, cur) != before; changed != (len(got) > 0) {
				t.Errorf("the prompt changed: %v, PromptChanges reports %+v", changed, got)
			}
		})
	}
	if PromptChanges(nil, base) != nil || PromptChanges(base, base) != nil {
		t.Error("nil or the same rubric: a change reported")
	}
}
