package gate

import (
	"sort"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/rubric"
)

// skipDeprecatedRule warns that on-rubric-change skip is deprecated (read
// as block).
func skipDeprecatedRule(p RubricChangePolicy) ruling {
	if p != RubricChangeSkip {
		return ruling{}
	}
	return ruling{Warn: []finding.Finding{{Kind: finding.SkipDeprecated}}}
}

// renamedRule: a rubric the baseline store knows under another name on
// the branch (r, nil when not) is a rubric change the accept label waives.
func renamedRule(r *RenamedRubric) ruling {
	if r == nil {
		return ruling{}
	}
	f := finding.Finding{Kind: finding.RenamedRubric, Params: finding.Params{RenamedParams: finding.RenamedParams{Rubric: r.Rubric, Rubrics: r.Others, Renamed: r.Same}, BranchParams: finding.BranchParams{Branch: r.Branch}}}
	return ruling{Waivable: []finding.Finding{f}, Waivers: []Waiver{WaiveRenamedRubric}}
}

// rubricOutcome is what the rubric-change rule found, beside its ruling.
type rubricOutcome struct {
	ruling
	// Compared is the run the relative check compares with the baseline:
	// the run itself (same rubric), the run re-scored under the baseline's
	// rubric, or nil when it could not be re-scored.
	Compared *Report
	// Rescored and Change are the report's (nil when none).
	Rescored *RescoredInfo
	Change   *RubricChange
}

// rubricChangeRule compares the run's rubric (cur) with the baseline's
// (in.Baseline, not nil). When they differ the run is compared re-scored
// under the baseline's rubric (a warning says so); a change the gate
// cannot follow (see rubricChange) blocks unless accepted, or, under
// on-rubric-change fail off the baseline branch, blocks for good.
func rubricChangeRule(in DecideInput, cur *Report) rubricOutcome {
	b := in.Baseline
	out := rubricOutcome{Compared: cur}
	if b.RubricHash == cur.Rubric.Hash {
		return out
	}
	if in.Compared != nil && in.Compared.Score != nil {
		out.Compared = in.Compared
		out.Rescored = &RescoredInfo{RubricHash: b.RubricHash, Score: *in.Compared.Score, CurrentRubricScore: cur.Score}
		out.Warn = []finding.Finding{{Kind: finding.RubricRescored, Params: finding.Params{RubricParams: finding.RubricParams{From: b.RubricHash, To: cur.Rubric.Hash}}}}
	} else {
		out.Compared = nil
	}
	rc := rubricChange(in, out.Compared == nil)
	if rc == nil {
		return out
	}
	out.Change = rc
	fs := rc.findings()
	if in.OnRubricChange == RubricChangeFail && !in.BaselineBranchRun {
		fs[0].PolicyFail = true
		out.Hard = fs
	} else {
		out.Waivable, out.Waivers = fs, rc.waivers()
	}
	return out
}

// RescoredInfo records a re-score under the baseline's rubric.
type RescoredInfo struct {
	RubricHash string  `json:"rubric_hash"`
	Score      float64 `json:"score"`
	// CurrentRubricScore is the score under the current rubric, shown beside.
	CurrentRubricScore *float64 `json:"current_rubric_score"`
}

// RubricChange records a rubric change the gate could not follow: the
// baseline's rubric and the current one differ, and the run could not be
// re-scored under the baseline's rubric, does not carry one of its
// blocking criteria, or was judged under other instructions (a text that
// reaches the judge prompt changed).
type RubricChange struct {
	// From and To are the rubric hashes, baseline's and current.
	From string `json:"from"`
	To   string `json:"to"`
	// Removed lists the baseline rubric's criteria the current rubric lacks.
	Removed []string `json:"removed"`
	// UncheckedGates counts, per blocking criterion of the baseline's rubric,
	// the items of this run that do not carry it.
	UncheckedGates map[string]int `json:"unchecked_gates"`
	// RescoreError says why the run could not be re-scored ("" when it was).
	RescoreError string `json:"rescore_error"`
	// PromptChanges lists the criteria whose judge-prompt texts differ from
	// the baseline rubric's, and which texts (see rubric.PromptChanges).
	// A judge given other instructions scores differently, which no
	// re-scoring under the baseline's rubric undoes.
	PromptChanges []rubric.PromptChange `json:"prompt_changes"`
	// Accepted is true when the accept label accepted the change.
	Accepted bool `json:"accepted"`
}

// rubricChange describes a rubric change the gate cannot follow, or returns
// nil when it can: the run was re-scored under the baseline's rubric
// (notCompared false), carries every blocking criterion of it, and no text
// that reaches the judge prompt changed. The baseline's rubric is the one
// embedded in the baseline file, whose hash Read checks, so every baseline
// carries the texts compared.
func rubricChange(in DecideInput, notCompared bool) *RubricChange {
	b := in.Baseline
	rc := &RubricChange{From: b.RubricHash, To: in.Current.Rubric.Hash, Removed: []string{}, UncheckedGates: map[string]int{},
		PromptChanges: []rubric.PromptChange{}}
	if bg := in.BaselineGates; bg != nil {
		for id, n := range bg.Unchecked {
			if n > 0 {
				rc.UncheckedGates[id] = n
			}
		}
	}
	if pc := rubric.PromptChanges(b.Rubric, in.Rubric); pc != nil {
		rc.PromptChanges = pc
	}
	if !notCompared && len(rc.UncheckedGates) == 0 && len(rc.PromptChanges) == 0 {
		return nil
	}
	if notCompared {
		rc.RescoreError = "the results do not carry the baseline rubric's criteria"
		if in.RescoreErr != nil {
			rc.RescoreError = in.RescoreErr.Error()
		}
	}
	if b.Rubric != nil && in.Rubric != nil {
		for _, c := range b.Rubric.Criteria {
			if in.Rubric.Index(c.ID) < 0 {
				rc.Removed = append(rc.Removed, c.ID)
			}
		}
	}
	return rc
}

// findings says what changed, for the reasons: a headline (hashes and
// criteria removed), then one finding per thing the gate could not do.
func (rc *RubricChange) findings() []finding.Finding {
	fs := []finding.Finding{{Kind: finding.RubricChange, Params: finding.Params{RubricParams: finding.RubricParams{From: rc.From, To: rc.To, Criteria: rc.Removed}}}}
	if rc.RescoreError != "" {
		fs = append(fs, finding.Finding{Kind: finding.NotComparable, Params: finding.Params{Detail: rc.RescoreError}})
	}
	ids := make([]string, 0, len(rc.UncheckedGates))
	for id := range rc.UncheckedGates {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		fs = append(fs, finding.Finding{Kind: finding.UncheckedGate, Criterion: id, Params: finding.Params{Count: rc.UncheckedGates[id]}})
	}
	// A criterion removed is named by the headline already.
	for _, pc := range rc.PromptChanges {
		if len(pc.Fields) == 1 && pc.Fields[0] == rubric.FieldRemoved {
			continue
		}
		fields := make([]string, len(pc.Fields))
		for i, f := range pc.Fields {
			fields[i] = string(f)
		}
		fs = append(fs, finding.Finding{Kind: finding.PromptChanged, Criterion: pc.Criterion, Params: finding.Params{RubricParams: finding.RubricParams{Fields: fields}}})
	}
	return fs
}
