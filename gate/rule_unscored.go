package gate

import (
	"github.com/rubricgate/rubricgate/finding"
)

// unscoredRule blocks a run with no item scored, or with more unscored
// items (judge errors) than max-unscored allows (u.Exceeded); never waived.
func unscoredRule(scored, items int, u Unscored) ruling {
	switch {
	case scored == 0:
		return ruling{Hard: []finding.Finding{{Kind: finding.NoItemScored, Params: finding.Params{Count: u.Count, Total: items}}}}
	case u.Exceeded:
		return ruling{Hard: []finding.Finding{{Kind: finding.TooManyUnscored, Params: finding.Params{Count: u.Count, Total: items, Rate: u.Rate}}}}
	}
	return ruling{}
}
