package calibrate

import (
	"sort"
	"strconv"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// ReadRatings reads one results input (any format native.ReadItems reads) into
// ratings, in input order. Missing criteria are allowed (they are left out of
// the pairs and counted); opts.AllowMissing is forced on. Duplicate ids are
// not checked here: Compare and CompareReviewers check them with both lines.
// Errors are native.ReadItems' (an *native.InputError naming file and line).
func ReadRatings(rb *rubric.Rubric, in native.Input, opts native.ReadOptions) ([]Rating, error) {
	opts.AllowMissing = true
	var out []Rating
	err := native.ReadItems(rb, in, opts, func(it *native.Item) error {
		r := Rating{
			ID:         it.ID,
			File:       it.File,
			Line:       it.Line,
			Values:     append([]gate.Value(nil), it.Values...),
			Reviewer:   it.Reviewer,
			Notes:      it.Notes,
			JudgeModel: it.JudgeModel,
			Length:     it.Length,
			Error:      it.Error,
		}
		if r.Notes == "" {
			r.Notes = it.Reasoning
		}
		if r.File == "" {
			r.File = in.Name
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// JudgeModels returns the distinct non-empty judge_model values of the
// ratings, sorted: the judge model to give CheckFamilies when the results
// name it.
func JudgeModels(rs []Rating) []string {
	seen := map[string]bool{}
	var out []string
	for i := range rs {
		if m := rs[i].JudgeModel; m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out
}

// fmtNum formats an agreement figure with two decimals, or more when two
// would make it look equal to the threshold it is compared with.
func fmtNum(v, against float64) string {
	s := strconv.FormatFloat(v, 'f', 2, 64)
	if v != against && s == strconv.FormatFloat(against, 'f', 2, 64) {
		s = strconv.FormatFloat(v, 'f', -1, 64)
	}
	return s
}
