package finding

import "fmt"

// acceptByText is the text of AcceptanceByAuthor and AcceptanceByUnknown.
func acceptByText(e escaper, f Finding) string {
	if f.Kind == AcceptanceByAuthor {
		return fmt.Sprintf("the %s label was applied by %s, the pull request's author: under accept-by others an author cannot accept their own regression; another reviewer must remove and re-add the label",
			e.id(f.AcceptLabel), e.id(f.AppliedBy))
	}
	why := ""
	if f.Detail != "" {
		why = " (" + e.text(f.Detail) + ")"
	}
	return fmt.Sprintf("the %s label is on, but who applied it, or who wrote the pull request, cannot be told%s: under accept-by others it accepts nothing; set accept-by anyone to accept a label whoever applied it",
		e.id(f.AcceptLabel), why)
}
