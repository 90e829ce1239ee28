package gate

import (
	"time"

	"github.com/rubricgate/rubricgate/rubric"
)

// ItemScore is one scored item as a baseline keeps it.
type ItemScore struct {
	ID    string
	Score float64
	// Answers is the number of answer samples (regenerated answers) the
	// score is the mean of; 0 or 1 is one answer.
	Answers int
	// AnswerVar is the variance (n - 1 in the denominator, points² on
	// 0-100) of the answers' scores; 0 with one answer.
	AnswerVar float64
}

// BaselineSource says where a baseline came from, for the report.
type BaselineSource struct {
	// Kind is "file", "dir" or "github-artifact".
	Kind string `json:"kind"`
	// Location is a path, or "owner/repo artifact #id".
	Location string `json:"location"`
	// SHA, Ref and Repository are the commit the baseline was made on.
	SHA        string `json:"sha,omitempty"`
	Ref        string `json:"ref,omitempty"`
	Repository string `json:"repository,omitempty"`
	// RunID and RunURL identify the workflow run that made it.
	RunID  int64  `json:"run_id,omitempty"`
	RunURL string `json:"run_url,omitempty"`
	// CreatedAt is when the baseline was made.
	CreatedAt time.Time `json:"created_at"`
}

// Baseline is what the decision needs from the last passing run.
type Baseline struct {
	// Rubric is the rubric the baseline was scored under (from its canonical form).
	Rubric *rubric.Rubric
	// RubricHash is the stored hash of that rubric.
	RubricHash string
	// Score and PassRate are the baseline run's aggregate figures.
	Score    float64
	PassRate float64
	// Criteria are the baseline run's per-criterion figures.
	Criteria []CriterionStats
	// Items are the baseline's items, in the order they were stored.
	Items *ItemColumns
	// Source says where it came from.
	Source BaselineSource
	// PooledRuns is how many consecutive runs of the branch its items
	// pool (0 or 1: one run); Score is then the pooled items' mean.
	PooledRuns int
	// Anchor is the branch's anchor (nil for a baseline without one).
	Anchor *Anchor
	// Trend is the branch's baselines, oldest first, ending with this one
	// (its history and its own point); empty for a baseline without
	// history.
	Trend []TrendPoint
}
