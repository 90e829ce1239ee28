package gate

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
)

// Waiver is a kind of reason the accept label waives.
type Waiver string

// The kinds of reasons the accept label waives.
const (
	// WaiveDrop is a relative drop at or above max-drop.
	WaiveDrop Waiver = "drop"
	// WaiveRubricChange is a rubric change the gate cannot follow.
	WaiveRubricChange Waiver = "rubric-change"
	// WaiveUncheckedGates is a baseline blocking criterion the run lacks.
	WaiveUncheckedGates Waiver = "unchecked-gates"
	// WaiveRemovedCriteria is a baseline criterion the rubric removed.
	WaiveRemovedCriteria Waiver = "removed-criteria"
	// WaiveRemovedItems is baseline items the run no longer carries.
	WaiveRemovedItems Waiver = "removed-items"
	// WaiveRenamedRubric is a rubric name the baseline branch's store does
	// not know while it holds baselines under other names.
	WaiveRenamedRubric Waiver = "renamed-rubric"
	// WaiveDrift is a cumulative drop of max-drift or more below the
	// branch's anchor.
	WaiveDrift Waiver = "drift"
)

// KnownWaiver reports whether w is one of the kinds above.
func KnownWaiver(w Waiver) bool {
	switch w {
	case WaiveDrop, WaiveRubricChange, WaiveUncheckedGates, WaiveRemovedCriteria, WaiveRemovedItems, WaiveRenamedRubric, WaiveDrift:
		return true
	}
	return false
}

// AcceptState is what the run knows of the accept label's record, and
// what bound the label at a run (Transition.State). The decision reads it
// with the fields of Acceptance as a state and an event of Step.
type AcceptState string

// The states of the accept label's record.
const (
	// AcceptFresh: the label takes effect with this run (it was just added,
	// or no earlier run recorded it). It accepts what this run waives only
	// within what the gate's comment showed (Acceptance.Shown: the same
	// head commit, no new kind of reason, the same removed items, a drop
	// no larger), and records it; nothing shown, nothing accepted (unless
	// Acceptance.Unbound). The zero value means the same.
	AcceptFresh AcceptState = "fresh"
	// AcceptRecorded: Acceptance.Record says what the label was applied
	// for; it covers this run only within that.
	AcceptRecorded AcceptState = "recorded"
	// AcceptUnreadable: the label is on but its record cannot be read (the
	// gate cannot read back its comment, the read failed, or an earlier
	// run could not read it either): the label accepts nothing new.
	AcceptUnreadable AcceptState = "unreadable"
)

// Acceptance is the accept label as an input of the decision (used when
// Policy.Accepted says the label is on).
type Acceptance struct {
	State AcceptState
	// Record is what the label was applied for (AcceptRecorded).
	Record *AcceptRecord
	// HeadSHA is the change request's head commit, recorded by a fresh
	// acceptance.
	HeadSHA string
	// Shown is what the gate's comment showed before this run (the head
	// commit of the run that wrote it and what that run waived or would
	// have waived; [GateReport.Waivable]): a fresh acceptance accepts
	// nothing beyond it. Nil when the comment shows none (no comment yet,
	// or one of an older version).
	Shown *AcceptRecord
	// ShownLabeled is true when the label was already on when the comment
	// showed Shown: the label was applied before those figures were shown,
	// so only applying it again (Applied) accepts them.
	ShownLabeled bool
	// Applied is true when adding the label started this run (GitHub's
	// labeled event): it was applied after the comment showed Shown.
	Applied bool
	// Unbound is true for a label applied with this run where no comment
	// can show what it is applied for (the gate cannot read its comment
	// back: a fork's pull request, comment: never): a fresh acceptance
	// then accepts what this run waives.
	Unbound bool
	// Why says why no record could be read (AcceptUnreadable).
	Why string
	// By is the accept-by policy (zero: AcceptByOthers).
	By AcceptByPolicy
	// Actor is who applied the label and who wrote the change request;
	// ActorWhy says why either is unknown.
	Actor    Actor
	ActorWhy string
}

// AcceptRecord is what an accept label was applied for: the head commit and
// score at which it took effect, the rubric's hash, the kinds of reasons it
// waived, the relative drop and the set of removed items (a digest).
type AcceptRecord struct {
	SHA    string   `json:"sha"`
	Score  float64  `json:"score"`
	Rubric string   `json:"rubric"`
	Kinds  []Waiver `json:"kinds"`
	// Drop is the relative change the drop check blocked on (negative), nil
	// without one.
	Drop *float64 `json:"drop,omitempty"`
	// Items is [RemovedDigest] of the removed items ("" when none).
	Items string `json:"items,omitempty"`
	// Legacy is true for a record of an older version, which holds only the
	// commit and the score: it is bound from this run on to what this run
	// waives.
	Legacy bool `json:"-"`
}

// AcceptOutcome is what the decision made of the accept label.
type AcceptOutcome struct {
	// State is the input's state.
	State AcceptState `json:"state"`
	// Record is the record to keep while the label is on: the earlier one,
	// or this run's when the label took effect with it. Nil when there is
	// none to keep (AcceptUnreadable).
	Record *AcceptRecord `json:"record,omitempty"`
	// Now is what this run waives, as a record.
	Now AcceptRecord `json:"now"`
	// Adds lists what this run brings that Record (for a fresh
	// acceptance: Shown) does not cover; the run is then blocked.
	Adds []string `json:"adds,omitempty"`
	// Shown is what the gate's comment showed, which a fresh acceptance is
	// bound to (nil when it showed nothing, or the acceptance is unbound).
	Shown *AcceptRecord `json:"shown,omitempty"`
	// Why says why no record could be read (AcceptUnreadable).
	Why string `json:"why,omitempty"`
	// Reason is the reason given with --accept ("" for the label).
	Reason string `json:"reason,omitempty"`
	// Actor is who applied the label and who wrote the change request
	// (for the label only).
	Actor
	// ActorWhy says why either is unknown.
	ActorWhy string `json:"actor_why,omitempty"`
	// By is the accept-by policy applied to the label.
	By AcceptByPolicy `json:"accept_by,omitempty"`
	// Refused says why the accept-by rule refused the label ("" when it
	// did not): it then accepts nothing.
	Refused AcceptRefusal `json:"refused,omitempty"`
	// Effect is what the label did to the run's waivable reasons (Step).
	Effect AcceptEffect `json:"-"`
	// Next is the label's phase for the next run: what the comment keeps
	// (the record while accepted, the lost line while lost).
	Next LabelPhase `json:"-"`
}

// Covered reports whether the label covers the run (also for an outcome
// read back from a JSON report, which carries no Effect).
func (a *AcceptOutcome) Covered() bool {
	return a.State != AcceptUnreadable && len(a.Adds) == 0 && a.Refused == ""
}

// RemovedDigest is the digest of a set of item ids ("" for none): the
// sha256 of the sorted ids, one a line.
func RemovedDigest(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	s := append([]string(nil), ids...)
	sort.Strings(s)
	h := sha256.New()
	for _, id := range s {
		h.Write([]byte(id))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// notCovered lists what now brings that was does not cover: a new kind of
// waived reason, another rubric, a drop larger than the accepted (or, for
// verb "shown", the shown) one by more than maxDrop, another set of removed
// items.
func notCovered(was, now AcceptRecord, maxDrop float64, verb string) []string {
	var adds []string
	had := map[Waiver]bool{}
	for _, k := range was.Kinds {
		had[k] = true
	}
	for _, k := range now.Kinds {
		if !had[k] {
			adds = append(adds, "a new kind of waived reason: "+string(k))
		}
	}
	if was.Rubric != now.Rubric {
		adds = append(adds, fmt.Sprintf("another rubric (%s, %s %s)", shortHash(now.Rubric), verb, shortHash(was.Rubric)))
	}
	// dropEpsilon: the same drop pooled over a different number of attempts
	// differs in its last bits, which is not a larger drop.
	if was.Drop != nil && now.Drop != nil && *now.Drop < *was.Drop-maxDrop-dropEpsilon {
		adds = append(adds, fmt.Sprintf("a larger drop (%.2f%%, %s %.2f%%)", -100**now.Drop, verb, -100**was.Drop))
	}
	if had[WaiveRemovedItems] && now.Items != "" && now.Items != was.Items {
		adds = append(adds, "another set of removed items")
	}
	return adds
}

// dropEpsilon is how much larger than a recorded or shown drop a drop must
// be to be larger: far below what any report shows (0.01%).
const dropEpsilon = 1e-9

func shortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// waivers are the kinds of reasons a rubric change brings.
func (rc *RubricChange) waivers() []Waiver {
	ks := []Waiver{WaiveRubricChange}
	if len(rc.Removed) > 0 {
		ks = append(ks, WaiveRemovedCriteria)
	}
	if len(rc.UncheckedGates) > 0 {
		ks = append(ks, WaiveUncheckedGates)
	}
	return ks
}

// waivableRecord is what this run waives (kinds), or would waive with the
// accept label on, as a record at the change request's head.
func waivableRecord(in DecideInput, g *GateReport, kinds []Waiver) AcceptRecord {
	kinds = append([]Waiver(nil), kinds...)
	sort.Slice(kinds, func(i, j int) bool { return kinds[i] < kinds[j] })
	kinds = compactWaivers(kinds)
	now := AcceptRecord{SHA: in.Acceptance.HeadSHA, Rubric: in.Current.Rubric.Hash, Kinds: kinds}
	if kinds == nil {
		now.Kinds = []Waiver{}
	}
	switch {
	case g.ComparedScore != nil:
		now.Score = *g.ComparedScore
	case g.Score != nil:
		now.Score = *g.Score
	}
	if dc := g.DropCheck; dc != nil && dc.Blocks {
		// The drop the check blocked on (over the items in common when the
		// item sets differ), as a relative change.
		d := -dc.Drop
		now.Drop = &d
	} else if dr := g.DriftCheck; dr != nil && dr.Blocks {
		// The cumulative drop below the anchor the drift rule blocked on.
		d := dr.Cumulative
		now.Drop = &d
	}
	for _, k := range kinds {
		if k == WaiveRemovedItems && in.Paired != nil {
			now.Items = in.Paired.RemovedDigest
		}
	}
	return now
}

// acceptance is the accept label's step (Step) at this run: the state and
// event read from the input, the run's figures (now), and what came of it,
// as the decision's typed outcome. A label that takes effect with this run
// accepts only what the gate's comment showed, and records what this run
// waives, whatever else blocks it: it never covers more later.
func acceptance(in DecideInput, now AcceptRecord) *AcceptOutcome {
	from, ev := labelReading(in)
	out := &AcceptOutcome{Now: now, Reason: in.AcceptReason}
	run := AcceptRun{Now: now, MaxDrop: in.MaxDrop}
	if ev != EventReason {
		a := in.Acceptance
		out.Why, out.Actor, out.ActorWhy, out.By = a.Why, a.Actor, a.ActorWhy, a.By
		if out.By == "" {
			out.By = AcceptByOthers
		}
		run.By, run.Actor = out.By, out.Actor
	}
	tr := Step(from, ev, run)
	out.State, out.Record, out.Shown, out.Adds, out.Refused = tr.State, tr.Record, tr.Shown, tr.Adds, tr.Refused
	out.Effect, out.Next = tr.Effect, tr.Next.Phase
	switch {
	case tr.Refused != "":
		// The state as read: accept-by refused the label before any.
		out.State = in.Acceptance.State
	case tr.Effect == EffectUnreadable:
		out.Why = tr.Next.Why
	}
	return out
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

func compactWaivers(ks []Waiver) []Waiver {
	var out []Waiver
	for i, k := range ks {
		if i == 0 || ks[i-1] != k {
			out = append(out, k)
		}
	}
	return out
}

// finding is the reason of an acceptance whose effect blocks the run.
func (a *AcceptOutcome) finding(label string) finding.Finding {
	switch a.Effect {
	case EffectByAuthor, EffectByBot, EffectByUnknown, EffectRemoved:
		return a.refusalFinding(label)
	case EffectUnreadable:
		return finding.Finding{Kind: finding.AcceptanceUnreadable, Severity: finding.Error, Params: finding.Params{Detail: a.Why, AcceptParams: finding.AcceptParams{AcceptLabel: label}}}
	case EffectNotShown:
		p := finding.Params{AcceptParams: finding.AcceptParams{AcceptLabel: label, Adds: a.Adds}}
		if s := a.Shown; s != nil {
			p.Commit, p.Waived = s.SHA, waiverNames(s.Kinds)
		}
		return finding.Finding{Kind: finding.AcceptanceNotShown, Severity: finding.Error, Params: p}
	}
	return finding.Finding{Kind: finding.AcceptanceNotCovered, Severity: finding.Error,
		Params: finding.Params{AcceptParams: finding.AcceptParams{AcceptLabel: label, Commit: a.Record.SHA, Waived: waiverNames(a.Record.Kinds), Adds: a.Adds}, RubricParams: finding.RubricParams{From: a.Record.Rubric}}}
}

func waiverNames(ks []Waiver) []string {
	w := make([]string, len(ks))
	for i, k := range ks {
		w[i] = string(k)
	}
	return w
}
