package finding

import "fmt"

// The kinds of the judge models.
const (
	// JudgeModelMissing: no judge or production model given, so the judge
	// family check could not be made. Role ("judge" or "production").
	JudgeModelMissing Kind = "judge-model-missing"
	// JudgeFamilyUnknown: a judge or production model of no known family.
	// Role, Model.
	JudgeFamilyUnknown Kind = "judge-family-unknown"
	// JudgeSameFamily: the judge and the production model are of one
	// family, allowed by same-family: warn. Model (the judge), Production,
	// Family.
	JudgeSameFamily Kind = "judge-same-family"
	// JudgesUnknownPast: items judged by models of unknown family past the
	// distinct judge models kept by name. Count, Limit.
	JudgesUnknownPast Kind = "judges-unknown-past"
	// LengthBias: scores rise with answer length. Criterion ("" for the
	// item score), Rho, MaxRho, Count (items with a known length).
	LengthBias Kind = "length-bias"
)

// judgeKinds are the renderers of these kinds (see renderers).
var judgeKinds = map[Kind]renderer{
	JudgeModelMissing:  renderJudgeModelMissing,
	JudgeFamilyUnknown: renderJudgeFamilyUnknown,
	JudgeSameFamily:    renderJudgeSameFamily,
	JudgesUnknownPast:  renderJudgesUnknownPast,
	LengthBias:         renderLengthBias,
}

func renderJudgeModelMissing(f Finding, e escaper) string {
	return fmt.Sprintf("no %s model given: the judge family check could not be made", e.text(f.Role))
}

func renderJudgeFamilyUnknown(f Finding, e escaper) string {
	return fmt.Sprintf("%s model %s is of an unknown family: the judge family check could not be made (add it under model_families in the rubric)", e.text(f.Role), e.q(f.Model))
}

func renderJudgeSameFamily(f Finding, e escaper) string {
	return fmt.Sprintf("judge model %s and production model %s are both %s models: a judge favours its own family's outputs; judge with another family", e.q(f.Model), e.q(f.Production), e.id(f.Family))
}

func renderJudgesUnknownPast(f Finding, e escaper) string {
	return fmt.Sprintf("%d more item(s) were judged by models of unknown family (past the first %d distinct judge models named above): the judge family check could not be made for them (add them under model_families in the rubric)", f.Count, f.Limit)
}

func renderLengthBias(f Finding, e escaper) string {
	what := "item scores"
	if f.Criterion != "" {
		what = e.id(f.Criterion) + " scores"
	}
	return fmt.Sprintf("%s rise with answer length (Spearman rho %.2f >= %.2f over %d items): the judge may favour longer answers; check against human scores", what, f.Rho, f.MaxRho, f.Count)
}
