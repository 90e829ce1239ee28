package gate

import (
	"fmt"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
)

// AcceptByPolicy is the accept-by policy: whose accept label accepts a
// regression.
type AcceptByPolicy string

// The accept-by policies.
const (
	// AcceptByOthers: a label applied by the change request's author, or
	// by someone the run cannot name, accepts nothing (the default; the
	// zero value means the same).
	AcceptByOthers AcceptByPolicy = "others"
	// AcceptByAnyone: whoever applied the label, it accepts.
	AcceptByAnyone AcceptByPolicy = "anyone"
)

// ParseAcceptBy reads the accept-by setting.
func ParseAcceptBy(s string) (AcceptByPolicy, error) {
	switch p := AcceptByPolicy(s); p {
	case AcceptByOthers, AcceptByAnyone:
		return p, nil
	}
	return "", fmt.Errorf("accept-by %q: expected others or anyone", s)
}

// AcceptRefusal is why the accept-by rule refused the label.
type AcceptRefusal string

// The refusals of the accept-by rule.
const (
	// RefusedByAuthor: the change request's author applied the label.
	RefusedByAuthor AcceptRefusal = "by-author"
	// RefusedByUnknown: the run cannot name who applied the label, or the
	// change request's author (Acceptance.ActorWhy says why).
	RefusedByUnknown AcceptRefusal = "by-unknown"
	// RefusedByBot: a bot account applied the label (an app, or a
	// workflow's or pipeline's token, which acts for whoever triggered it,
	// the change request's author included): no reviewer's act.
	RefusedByBot AcceptRefusal = "by-bot"
)

// Actor is who applied the accept label and who wrote the change request,
// as the host tells (logins; "" when unknown).
type Actor struct {
	// AppliedBy applied the label (the latest time it was added).
	AppliedBy string `json:"applied_by,omitempty"`
	// Author opened the change request.
	Author string `json:"author,omitempty"`
	// AppliedByBot is true when AppliedBy is a bot account, as the host
	// tells (GitHub: a user of type Bot; GitLab: a project or group access
	// token's bot, or the gate's own token's user).
	AppliedByBot bool `json:"applied_by_bot,omitempty"`
	// Removed is true when the host's latest event for the label removes
	// it: the label is off now, though the run started with it on (a
	// re-run or a retried job keeps the labels its run started with).
	Removed bool `json:"label_removed,omitempty"`
}

// acceptByRule is the accept-by rule: under accept-by others, a label the
// change request's author applied accepts nothing, nor one a bot account
// applied (whoever triggered the bot, the author included, may have), nor
// one whose applier or author the run cannot name. It applies to the label
// only, never to --accept (a reason given with the run). A label the host
// says was removed since the run started (Actor.Removed) is no applier's:
// Step reads it as the event EventRemoved, under any policy.
func acceptByRule(p AcceptByPolicy, who Actor) AcceptRefusal {
	switch {
	case p == AcceptByAnyone:
		return ""
	case who.AppliedBy == "" || who.Author == "":
		return RefusedByUnknown
	case strings.EqualFold(who.AppliedBy, who.Author):
		return RefusedByAuthor
	case who.AppliedByBot:
		return RefusedByBot
	}
	return ""
}

// refusalFinding is the reason of a label the accept-by rule refused.
func (a *AcceptOutcome) refusalFinding(label string) finding.Finding {
	p := finding.Params{Detail: a.ActorWhy, AcceptParams: finding.AcceptParams{AcceptLabel: label, AppliedBy: a.AppliedBy}}
	switch a.Refused {
	case RefusedByAuthor:
		return finding.Finding{Kind: finding.AcceptanceByAuthor, Severity: finding.Error, Params: p}
	case RefusedByBot:
		return finding.Finding{Kind: finding.AcceptanceByBot, Severity: finding.Error, Params: p}
	}
	return finding.Finding{Kind: finding.AcceptanceByUnknown, Severity: finding.Error, Params: p}
}
