package gate

import "github.com/rubricgate/rubricgate/rubric"

// Score reads every input (shards of one run), scores each item, and
// aggregates the run. It streams and uses every core. Bad input returns an
// *InputError naming file and line; a duplicate id names both places. An
// empty run is an error.
//
// TODO(scoring helper): implement.
func Score(rb *rubric.Rubric, inputs []Input, opts ScoreOptions) (*Report, error) {
	panic("not implemented")
}
