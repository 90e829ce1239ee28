package finding

import (
	"fmt"
	"strings"
)

// The kinds of the accept label.
const (
	// AcceptanceNotCovered: the accept label was applied for less than this
	// push brings, so the run is blocked again. AcceptLabel, Commit (where it was
	// applied), Waived (the kinds it was applied for), From (that rubric's
	// hash), Adds (what this push adds).
	AcceptanceNotCovered Kind = "acceptance-not-covered"
	// AcceptanceNotShown: the accept label took effect with this run but
	// the run brings more than the gate's comment showed when it was
	// applied (or the comment showed nothing yet), so it accepts nothing.
	// AcceptLabel, Commit (the commit the comment showed, "" for none),
	// Waived (the kinds it showed), Adds (what this run brings beyond).
	AcceptanceNotShown Kind = "acceptance-not-shown"
	// AcceptanceUnreadable: the accept label is on but the record of what
	// it was applied for cannot be read, so it accepts nothing new.
	// AcceptLabel, Detail (why the record cannot be read).
	AcceptanceUnreadable Kind = "acceptance-unreadable"
	// AcceptanceByAuthor: the pull request's author applied the accept
	// label, which under accept-by others accepts nothing. AcceptLabel,
	// AppliedBy.
	AcceptanceByAuthor Kind = "acceptance-by-author"
	// AcceptanceByUnknown: the run cannot tell who applied the accept
	// label (or who wrote the pull request), so under accept-by others it
	// accepts nothing. AcceptLabel, Detail (why).
	AcceptanceByUnknown Kind = "acceptance-by-unknown"
	// AcceptanceByBot: a bot account applied the accept label (an app or a
	// workflow's token, which acts for whoever triggered it), which under
	// accept-by others accepts nothing. AcceptLabel, AppliedBy.
	AcceptanceByBot Kind = "acceptance-by-bot"
)

// acceptKinds are the renderers of these kinds (see renderers).
var acceptKinds = map[Kind]renderer{
	AcceptanceNotCovered: renderAcceptanceNotCovered,
	AcceptanceNotShown:   renderAcceptanceNotShown,
	AcceptanceUnreadable: renderAcceptanceUnreadable,
	AcceptanceByAuthor:   renderAcceptanceByAuthor,
	AcceptanceByUnknown:  renderAcceptanceByUnknown,
	AcceptanceByBot:      renderAcceptanceByBot,
}

func renderAcceptanceByBot(f Finding, e escaper) string {
	return fmt.Sprintf("the %s label was applied by %s, a bot account: an app or a workflow's token acts for whoever triggered it, so under accept-by others its label accepts nothing; a reviewer must remove and re-add the label",
		e.id(f.AcceptLabel), e.id(f.AppliedBy))
}

func renderAcceptanceByAuthor(f Finding, e escaper) string {
	return fmt.Sprintf("the %s label was applied by %s, the pull request's author: under accept-by others an author cannot accept their own regression; another reviewer must remove and re-add the label",
		e.id(f.AcceptLabel), e.id(f.AppliedBy))
}

func renderAcceptanceByUnknown(f Finding, e escaper) string {
	why := ""
	if f.Detail != "" {
		why = " (" + e.text(f.Detail) + ")"
	}
	return fmt.Sprintf("the %s label is on, but who applied it, or who wrote the pull request, cannot be told%s: under accept-by others it accepts nothing; set accept-by anyone to accept a label whoever applied it",
		e.id(f.AcceptLabel), why)
}

func renderAcceptanceNotCovered(f Finding, e escaper) string {
	commit, what := e.appliedFor(f)
	return fmt.Sprintf("the %s label was applied at commit %s for %s (rubric %s); this push adds %s, which the label does not cover: remove and re-add the label to accept again",
		e.id(f.AcceptLabel), e.id(commit), what, e.text(ShortHash(f.From)), e.adds(f.Adds))
}

func renderAcceptanceNotShown(f Finding, e escaper) string {
	shown := "nothing yet"
	if f.Commit != "" {
		commit, what := e.appliedFor(f)
		shown = "commit " + e.id(commit) + ", for " + what
	}
	return fmt.Sprintf("the %s label accepts only what the gate's comment showed when it was applied (%s); this run brings %s, which it does not cover: remove and re-add the label once this comment shows this run's figures",
		e.id(f.AcceptLabel), shown, e.adds(f.Adds))
}

func renderAcceptanceUnreadable(f Finding, e escaper) string {
	return fmt.Sprintf("the %s label is on, but the record of what it was applied for cannot be read (%s), so it accepts nothing new: remove and re-add the label to accept this run",
		e.id(f.AcceptLabel), e.text(f.Detail))
}

// appliedFor is the commit a label was applied at (or the comment showed),
// shortened, and the kinds it was applied for ("nothing" for none).
func (e escaper) appliedFor(f Finding) (commit, what string) {
	what = "nothing"
	if len(f.Waived) > 0 {
		what = e.ids(f.Waived, e.text)
	}
	commit = f.Commit
	if len(commit) > 7 {
		commit = commit[:7]
	}
	return commit, what
}

// adds joins what a push or run adds beyond an acceptance with "; ", the
// first e.list of them when e caps lists, then "N more".
func (e escaper) adds(adds []string) string {
	n := len(adds)
	if e.list > 0 && len(adds) > e.list {
		adds = append(adds[:e.list:e.list], fmt.Sprintf("%d more", n-e.list))
	}
	out := make([]string, len(adds))
	for i, a := range adds {
		out[i] = e.text(a)
	}
	return strings.Join(out, "; ")
}
