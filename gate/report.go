package gate

import "github.com/rubricgate/rubricgate/finding"

// RubricRef names a rubric and its hash.
type RubricRef struct {
	Name string `json:"name"`
	Hash string `json:"hash"`
}

// Report is the scored run: what `rubricgate score --json` prints.
// Numbers are unrounded. Pointer numbers are null when there is nothing to
// average.
type Report struct {
	Rubric RubricRef `json:"rubric"`
	// Items is the number of items read, scored or not.
	Items int `json:"items"`
	// Scored is the number of items with scores (Items - unscored).
	Scored int `json:"scored"`
	// Score is the mean item score (0-100) over scored items.
	Score *float64 `json:"score"`
	// PassRate is the share of scored items that pass.
	PassRate *float64 `json:"pass_rate"`
	// Criteria are per-criterion figures, in rubric order.
	Criteria []CriterionStats `json:"criteria"`
	// BlockingFailures lists every item below a blocking criterion's minimum.
	BlockingFailures []BlockingFailure `json:"blocking_failures"`
	// RetrievalMiss counts review rows tagged as retrieval misses.
	RetrievalMiss RetrievalMiss `json:"retrieval_miss"`
	// Unscored lists items the judge failed on.
	Unscored Unscored `json:"unscored"`
	// Warnings are non-fatal remarks (rubric warnings, pass-column
	// disagreements): the text of Findings, rendered by [finding.Texts].
	// Add to both with [Report.Warn].
	Warnings []string `json:"warnings"`
	// Findings are the typed forms of Warnings, in the same order (every
	// one of severity Warning). In a [GateReport] its own Findings, which
	// hold these and the reasons', take their place in the JSON.
	Findings []finding.Finding `json:"findings"`
	// MaxSamples is the most judgings ("samples") any item carries, when
	// more than one; 0 otherwise.
	MaxSamples int `json:"max_samples,omitempty"`
	// MaxAnswers is the most answer samples (regenerated answers,
	// "answers") any item carries, when more than one; 0 otherwise. Judge
	// samples (MaxSamples) and answer samples are kept apart: they reduce
	// different noise.
	MaxAnswers int `json:"max_answers,omitempty"`
}

// CriterionStats are the figures of one criterion over a run.
type CriterionStats struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
	// Mean is the mean raw score over items that scored it.
	Mean *float64 `json:"mean"`
	// Normalized is the mean normalised score, 0-100.
	Normalized *float64 `json:"normalized"`
	Scored     int      `json:"scored"`
	NA         int      `json:"na"`
	// BelowMin counts items below the critical minimum.
	BelowMin int `json:"below_min"`
	// Outvoted counts items judged several times that meet the minimum by
	// the majority rule although at least one judging is below it.
	Outvoted int `json:"outvoted"`
	// Histogram counts items per level, every level of the scale present
	// (an item whose samples' mean is not an integer counts at the nearest
	// level, halves up). Empty for a continuous criterion, which has Bins.
	Histogram map[int]int `json:"histogram"`
	// Bins is the histogram of a continuous criterion: rubric.ContinuousBins
	// equal bins, each holding its lower edge (the last also its upper).
	Bins []Bin `json:"bins,omitempty"`
	// Spread is the mean within-item standard deviation of the scores of
	// the items judged more than once (null when none is).
	Spread *float64 `json:"spread,omitempty"`
}

// Bin is one bin of a continuous criterion's histogram: Count items with a
// score from Low (inclusive) to High (exclusive, except the last bin).
type Bin struct {
	Low   float64 `json:"low"`
	High  float64 `json:"high"`
	Count int     `json:"count"`
}

// BlockingFailure is one item below a blocking criterion's minimum.
type BlockingFailure struct {
	Item      string  `json:"item"`
	Criterion string  `json:"criterion"`
	Score     float64 `json:"score"`
	// Reasoning is the judge's reasoning or, for review rows, the note.
	Reasoning string `json:"reasoning"`
	// Unscored is true when the item is unscored (a judge error) and carries
	// no value for the criterion: the gate fails closed, as no score can
	// show that the item meets its minimum. Score is then 0.
	Unscored bool `json:"unscored,omitempty"`
}

// RetrievalMiss counts retrieval misses (the answer failed because the
// retrieved context lacked what it needed), apart from generation failures.
type RetrievalMiss struct {
	Count int     `json:"count"`
	Rate  float64 `json:"rate"`
}

// Unscored summarises items that carry a judge error instead of scores.
type Unscored struct {
	Count int `json:"count"`
	// Rate is Count / Items.
	Rate float64 `json:"rate"`
	// Exceeded is true when Rate is above ScoreOptions.MaxUnscored.
	Exceeded bool           `json:"exceeded"`
	List     []UnscoredItem `json:"items"`
}

// UnscoredItem is one item the judge failed on.
type UnscoredItem struct {
	ID    string `json:"id"`
	Error string `json:"error"`
	File  string `json:"file"`
	Line  int    `json:"line"`
}

// ItemResult is the scored form of one item, as `score --items` writes it.
type ItemResult struct {
	ID string `json:"id"`
	// Score is the 0-100 weighted score; meaningless when Unscored.
	Score float64 `json:"score"`
	Pass  bool    `json:"pass"`
	// Failed lists criteria below their critical minimum.
	Failed []string `json:"failed"`
	// NA lists criteria scored `na`.
	NA []string `json:"na"`
	// Unscored is true for items with a judge error.
	Unscored bool `json:"unscored,omitempty"`
	// Answers is the number of answer samples (regenerated answers, an
	// "answers" array) Score is the mean of; omitted for one answer.
	Answers int `json:"answers,omitempty"`
	// AnswerVar is the variance of the answers' scores (points², n - 1 in
	// the denominator); omitted for one answer.
	AnswerVar float64 `json:"answer_var,omitempty"`
	// AnswerScores are the answers' own weighted scores (0-100), in input
	// order, when there are two or more answers (not written by --items):
	// what binds a final gate's union to the first run's answers.
	AnswerScores []float64 `json:"-"`
	// Reasoning is the judge reasoning or review note (not written by --items).
	Reasoning string `json:"-"`
	// JudgeModel is the item's judge_model field, if any (not written by --items).
	JudgeModel string `json:"-"`
	// Length is the answer length in characters, -1 when unknown (not written by --items).
	Length int `json:"-"`
	// InputHash binds the item to its task, zero when the results carry
	// none (not written by --items).
	InputHash InputHash `json:"-"`
}

// Warn adds warnings to the report: fs (their severity set to Warning) to
// Findings and their text to Warnings. It keeps both non-nil, so
// rep.Warn() alone makes an empty report's lists empty, not null.
func (r *Report) Warn(fs ...finding.Finding) {
	if r.Findings == nil {
		r.Findings = []finding.Finding{}
	}
	for _, f := range fs {
		f.Severity = finding.Warning
		r.Findings = append(r.Findings, f)
	}
	if r.Warnings == nil {
		r.Warnings = []string{}
	}
	r.Warnings = append(r.Warnings, finding.Texts(fs)...)
}

// Blocked reports whether the run fails a hard gate on its own: a blocking
// criterion failure, too many unscored items, or no scored item at all.
func (r *Report) Blocked() bool {
	return len(r.BlockingFailures) > 0 || r.Unscored.Exceeded || r.Scored == 0
}
