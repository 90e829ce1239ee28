package gate

// State says whether an item carries a score for a criterion.
type State uint8

// Value states.
const (
	// Missing: the item has no value for the criterion.
	Missing State = iota
	// Scored: the item has a score on the criterion's scale.
	Scored
	// NA: the item says `na` for a criterion that allows it.
	NA
)

// Value is one criterion score on an item. An item judged several times
// (the "samples" of a results line) has one Value per criterion that sums
// its samples up: the mean of the scored samples, State NA when more than
// half of the samples say `na`, Below by majority.
type Value struct {
	// Score is the score (the mean of the scored samples): an integer on an
	// integer criterion judged once, any number within the scale otherwise.
	Score float64
	// Spread is the standard deviation of the scored samples (n-1 in the
	// denominator); 0 with fewer than two.
	Spread float64
	// Min and Max are the lowest and highest scored sample.
	Min, Max float64
	// N is the number of scored samples, NAs the number of `na` samples
	// (a single judging: N 1, or NAs 1).
	N, NAs uint16
	State  State
	// Below is set when the criterion has a critical minimum that the item
	// fails: not MORE than half of its scored samples meet the minimum (with
	// one judging: the score is below it).
	Below bool
	// Outvoted is set when the criterion has a critical minimum that the
	// item meets by the majority rule although at least one of its scored
	// samples is below it: the failing judging was outvoted.
	Outvoted bool
}
