package rubric

import (
	"strconv"
)

// PromptField names a criterion's text that reaches the judge prompt
// ([ExportPrompt]): what the judge reads to decide a score.
type PromptField string

// The prompt-bearing fields of a criterion. An anchor's field is
// "anchor N" for level N (see [AnchorField]).
const (
	// FieldAdded: the criterion is new in the prompt.
	FieldAdded PromptField = "added"
	// FieldRemoved: the criterion is gone from the prompt.
	FieldRemoved PromptField = "removed"
	// FieldPosition: its number in the prompt's list of criteria.
	FieldPosition PromptField = "position"
	// FieldName: its display name.
	FieldName PromptField = "name"
	// FieldScale: its scale (and whether it is continuous).
	FieldScale PromptField = "scale"
	// FieldDescription: its description.
	FieldDescription PromptField = "description"
	// FieldNA: whether "na" is offered as an answer.
	FieldNA PromptField = "na"
)

// AnchorField is the field of the anchor text of level n.
func AnchorField(n int) PromptField { return PromptField("anchor " + strconv.Itoa(n)) }

// PromptChange is one prompt-bearing text that differs between two rubrics.
type PromptChange struct {
	// Criterion is the criterion's id.
	Criterion string `json:"criterion"`
	// Fields are the texts of it that differ, in prompt order.
	Fields []PromptField `json:"fields"`
}

// promptText is one criterion's prompt-bearing texts, as the prompt shows
// them (flattened by oneLine), in prompt order.
type promptText struct {
	fields []PromptField
	text   map[PromptField]string
}

// promptTexts lists, per criterion id, the texts [ExportPrompt] writes for
// it. Keep the two in step: TestPromptChangesFollowExportPrompt mutates
// every field of a rubric and checks that the prompt changes exactly when
// PromptChanges reports a change.
func promptTexts(r *Rubric) (ids []string, m map[string]*promptText) {
	n := normalized(r)
	m = make(map[string]*promptText, len(n.Criteria))
	for i := range n.Criteria {
		c := &n.Criteria[i]
		pt := &promptText{text: map[PromptField]string{}}
		add := func(f PromptField, s string) {
			pt.fields = append(pt.fields, f)
			pt.text[f] = s
		}
		add(FieldPosition, strconv.Itoa(i+1))
		add(FieldName, oneLine(c.Name))
		scale := scaleText(c)
		if c.Continuous {
			scale += " continuous"
		}
		add(FieldScale, scale)
		add(FieldDescription, oneLine(c.Description))
		for _, lvl := range sortedLevels(c.Anchors) {
			add(AnchorField(lvl), oneLine(c.Anchors[lvl]))
		}
		add(FieldNA, strconv.FormatBool(c.NA))
		ids = append(ids, c.ID)
		m[c.ID] = pt
	}
	return ids, m
}

// PromptChanges lists the prompt-bearing texts that differ from old to
// cur, per criterion (cur's order, then old's criteria cur lacks): what
// would make a judge given cur's prompt score differently from one given
// old's, with the same ids, scales and minimums. Texts are compared as the
// prompt shows them, so a change of white space only is none. Nil when the
// prompts the two rubrics give are the same, or either is nil.
func PromptChanges(old, cur *Rubric) []PromptChange {
	if old == nil || cur == nil {
		return nil
	}
	oldIDs, o := promptTexts(old)
	curIDs, c := promptTexts(cur)
	var out []PromptChange
	for _, id := range curIDs {
		ct, ot := c[id], o[id]
		if ot == nil {
			out = append(out, PromptChange{Criterion: id, Fields: []PromptField{FieldAdded}})
			continue
		}
		var fs []PromptField
		for _, f := range ct.fields {
			if v, ok := ot.text[f]; !ok || v != ct.text[f] {
				fs = append(fs, f)
			}
		}
		for _, f := range ot.fields {
			if _, ok := ct.text[f]; !ok {
				fs = append(fs, f)
			}
		}
		if len(fs) > 0 {
			out = append(out, PromptChange{Criterion: id, Fields: fs})
		}
	}
	for _, id := range oldIDs {
		if c[id] == nil {
			out = append(out, PromptChange{Criterion: id, Fields: []PromptField{FieldRemoved}})
		}
	}
	return out
}
