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
)

// Actor is who applied the accept label and who wrote the change request,
// as the host tells (logins; "" when unknown).
type Actor struct {
	// AppliedBy applied the label (the latest time it was added).
	AppliedBy string `json:"applied_by,omitempty"`
	// Author opened the change request.
	Author string `json:"author,omitempty"`
}

// acceptByRule is the accept-by rule: under accept-by others, a label the
// change request's author applied accepts nothing, nor one whose applier
// or author the run cannot name. It applies to the label only, never to
// --accept (a reason given with the run).
func acceptByRule(p AcceptByPolicy, who Actor) AcceptRefusal {
	switch {
	case p == AcceptByAnyone:
		return ""
	case who.AppliedBy == "" || who.Author == "":
		return RefusedByUnknown
	case strings.EqualFold(who.AppliedBy, who.Author):
		return RefusedByAuthor
	}
	return ""
}

// refusalFinding is the reason of a label the accept-by rule refused.
func (a *AcceptOutcome) refusalFinding(label string) finding.Finding {
	p := finding.Params{Detail: a.ActorWhy, AcceptParams: finding.AcceptParams{AcceptLabel: label, AppliedBy: a.AppliedBy}}
	if a.Refused == RefusedByAuthor {
		return finding.Finding{Kind: finding.AcceptanceByAuthor, Severity: finding.Error, Params: p}
	}
	return finding.Finding{Kind: finding.AcceptanceByUnknown, Severity: finding.Error, Params: p}
}
