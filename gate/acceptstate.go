package gate

import (
	"fmt"
	"strings"
)

// The accept label as a state machine. Every rule of the label is a row of
// Step: a state (what the gate's own comment holds from the run before),
// an event (what this run finds the label doing), and the run's figures
// (what it waives, who applied the label) go in; the next state (what the
// comment holds for the run after) and the effect on this run's waivable
// reasons come out. docs/gate.md shows the same table to users.
//
//	state     event             guard                               next      effect
//	any       off               -                                   off       none
//	any       reason (--accept) -                                   off       accept
//	any       removed           -                                   off       removed
//	any       on, applied       accept-by refuses the applier       shown     by-author, by-bot, by-unknown
//	any       applied-unbound   -                                   accepted  accept (what the run brings)
//	off       on, applied       nothing to waive                    accepted  accept (for no kind)
//	off       on, applied       within what the comment showed      accepted  accept
//	off       on, applied       beyond it, or nothing shown         shown     not-shown
//	shown     applied           within what the comment showed      accepted  accept
//	shown     applied           beyond it                           shown     not-shown
//	shown     on                nothing to waive                    accepted  accept (for no kind)
//	shown     on                something to waive                  shown     not-shown
//	accepted  applied           as from off
//	accepted  on                within the record (max-drop margin) accepted  accept (record kept)
//	accepted  on                beyond the record                   accepted  not-covered (record kept)
//	lost      applied           as from off
//	lost      on                -                                   lost      unreadable

// LabelPhase is where the accept label stands between two runs of a change
// request, as the gate's own comment records it.
type LabelPhase string

// The phases of the accept label.
const (
	// PhaseOff: the label was off when the comment showed the figures
	// (LabelState.Shown, nil when it shows none yet): applying it accepts
	// them, and nothing beyond them.
	PhaseOff LabelPhase = "off"
	// PhaseShown: the label is on but accepts nothing: it was on when the
	// comment showed the figures (it was applied before them, they moved
	// beyond what it was applied for, or accept-by refused it). Only
	// applying it again accepts them.
	PhaseShown LabelPhase = "shown"
	// PhaseAccepted: the label is on and the comment records what it was
	// applied for (LabelState.Record: accepted at commit X); it covers
	// later runs within that.
	PhaseAccepted LabelPhase = "accepted"
	// PhaseLost: the label is on but what it was applied for cannot be read
	// (LabelState.Why): it accepts nothing new until it is applied again.
	PhaseLost LabelPhase = "lost"
)

// LabelState is a phase with what the comment holds for it.
type LabelState struct {
	Phase LabelPhase
	// Shown is what the comment shows (nil when nothing yet): the head
	// commit, score, rubric, waived kinds, drop and removed items.
	Shown *AcceptRecord
	// Record is what the label was applied for (PhaseAccepted).
	Record *AcceptRecord
	// Why says why the record cannot be read (PhaseLost).
	Why string
}

// LabelEvent is what a run finds the accept label doing.
type LabelEvent string

// The events of the accept label.
const (
	// EventOff: the label is off (removed, or never applied).
	EventOff LabelEvent = "off"
	// EventOn: the label is on and something else started the run (a
	// push, a re-run, a pipeline on a host where labeling starts none).
	EventOn LabelEvent = "on"
	// EventApplied: adding the label started the run.
	EventApplied LabelEvent = "applied"
	// EventAppliedUnbound: adding the label started the run where no
	// comment can be read back (a fork's pull request, comment: never), so
	// none can show what it is applied for.
	EventAppliedUnbound LabelEvent = "applied-unbound"
	// EventReason: --accept "reason" was given with the run; it is not the
	// label and accepts this run only.
	EventReason LabelEvent = "reason"
	// EventRemoved: the run started with the label on, but the host's
	// latest event for it removes it (Actor.Removed: a re-run, or a
	// retried job, keeps the labels its run started with). The label is
	// off now, under any accept-by.
	EventRemoved LabelEvent = "removed"
)

// AcceptEffect is what the accept label does to the waivable reasons of a
// run. Hard reasons block whatever it does; a run with no waivable reason
// is not blocked by any effect.
type AcceptEffect string

// The effects of the accept label.
const (
	// EffectNone: the label plays no part; waivable reasons block.
	EffectNone AcceptEffect = "none"
	// EffectAccept: the waivable reasons are accepted.
	EffectAccept AcceptEffect = "accept"
	// EffectNotShown: blocked: the run brings more than the comment showed
	// (finding acceptance-not-shown).
	EffectNotShown AcceptEffect = "not-shown"
	// EffectNotCovered: blocked: the run brings more than the record
	// (finding acceptance-not-covered).
	EffectNotCovered AcceptEffect = "not-covered"
	// EffectUnreadable: blocked: the record cannot be read (finding
	// acceptance-unreadable).
	EffectUnreadable AcceptEffect = "unreadable"
	// EffectByAuthor: blocked: accept-by others and the change request's
	// author applied the label (finding acceptance-by-author).
	EffectByAuthor AcceptEffect = "by-author"
	// EffectByUnknown: blocked: accept-by others and the applier or the
	// author is unknown (finding acceptance-by-unknown).
	EffectByUnknown AcceptEffect = "by-unknown"
	// EffectByBot: blocked: accept-by others and a bot account applied the
	// label (finding acceptance-by-bot).
	EffectByBot AcceptEffect = "by-bot"
	// EffectRemoved: blocked: the label was removed after the run started
	// (EventRemoved); the report's refusal is by-unknown with the actor's
	// label_removed set (finding acceptance-by-unknown).
	EffectRemoved AcceptEffect = "removed"
)

// AcceptRun is what a transition reads of the run.
type AcceptRun struct {
	// Now is what the run waives (or would with the label on), as a
	// record at its head commit.
	Now AcceptRecord
	// MaxDrop is how much larger than the recorded drop a later drop may
	// be and stay covered.
	MaxDrop float64
	// By is the accept-by policy ("" is AcceptByOthers); Actor says who
	// applied the label and who wrote the change request.
	By    AcceptByPolicy
	Actor Actor
}

// Transition is one step of the accept label.
type Transition struct {
	// Next is what the comment holds for the next run.
	Next LabelState
	// Effect is what the label does to this run's waivable reasons.
	Effect AcceptEffect
	// State is what bound the label at this run (the JSON report's
	// acceptance.state): what the comment showed or the run brings
	// (fresh), the record (recorded), or nothing readable (unreadable).
	State AcceptState
	// Record is the record accepted at or kept (nil when none).
	Record *AcceptRecord
	// Shown is what a fresh acceptance was checked against (nil when it
	// was not: nothing to waive, unbound, --accept).
	Shown *AcceptRecord
	// Adds lists what the run brings beyond Shown or Record.
	Adds []string
	// Refused says why accept-by refused the label (RefusedByUnknown too
	// for a label removed since the run started: EffectRemoved).
	Refused AcceptRefusal
}

// Step is the accept label's transition function: from the state the
// comment held, on event ev, with the run's figures. The table above (and
// in docs/gate.md) lists its rows.
func Step(from LabelState, ev LabelEvent, run AcceptRun) Transition {
	now := run.Now
	switch ev {
	case EventOff:
		return Transition{Next: LabelState{Phase: PhaseOff, Shown: &now}, Effect: EffectNone, State: AcceptFresh}
	case EventReason:
		// This run only: the comment keeps no record of it.
		return Transition{Next: LabelState{Phase: PhaseOff, Shown: &now}, Effect: EffectAccept, State: AcceptFresh, Record: &now}
	case EventRemoved:
		// Off now, under any accept-by: nothing accepted, the record
		// dropped as removing the label drops it; unlike off, the run
		// says why the label it started with accepts nothing.
		return Transition{Next: LabelState{Phase: PhaseOff, Shown: &now}, Effect: EffectRemoved, State: phaseState(from.Phase), Refused: RefusedByUnknown}
	}
	tr := labelStep(from, ev, run)
	if r := acceptByRule(run.By, run.Actor); r != "" {
		// Nothing accepted, nothing recorded: a later run asks again who
		// applied the label.
		tr = Transition{Next: LabelState{Phase: PhaseShown, Shown: &now}, Effect: refusalEffect[r], State: tr.State, Refused: r}
	}
	return tr
}

// refusalEffect is the effect of each refusal of the accept-by rule.
var refusalEffect = map[AcceptRefusal]AcceptEffect{
	RefusedByAuthor:  EffectByAuthor,
	RefusedByBot:     EffectByBot,
	RefusedByUnknown: EffectByUnknown,
}

// phaseState is what a label in phase p is bound by, as the JSON report's
// acceptance.state reads: the record (accepted), nothing readable (lost),
// or what the comment showed (off, shown).
func phaseState(p LabelPhase) AcceptState {
	switch p {
	case PhaseAccepted:
		return AcceptRecorded
	case PhaseLost:
		return AcceptUnreadable
	}
	return AcceptFresh
}

// labelStep is Step for a label that is on, before the accept-by rule.
func labelStep(from LabelState, ev LabelEvent, run AcceptRun) Transition {
	now := run.Now
	switch {
	case ev == EventAppliedUnbound:
		return accepted(AcceptFresh, &now, nil, nil, now)
	case ev == EventApplied:
		return freshStep(from.Shown, false, now)
	}
	switch from.Phase {
	case PhaseAccepted:
		if from.Record == nil {
			return lost("no record given", now)
		}
		return recordedStep(*from.Record, run)
	case PhaseLost:
		return lost(from.Why, now)
	}
	return freshStep(from.Shown, from.Phase == PhaseShown, now)
}

// freshStep: the label takes effect with this run; it accepts what the run
// waives only within what the comment showed (shown, with the label
// already on when shown labeled), and records it. A run with nothing to
// waive is accepted (recording no kind) without a look at shown.
func freshStep(shown *AcceptRecord, labeled bool, now AcceptRecord) Transition {
	if len(now.Kinds) == 0 {
		return accepted(AcceptFresh, &now, nil, nil, now)
	}
	adds := notShown(shown, labeled, now)
	if len(adds) == 0 {
		return accepted(AcceptFresh, &now, shown, nil, now)
	}
	return Transition{Next: LabelState{Phase: PhaseShown, Shown: &now}, Effect: EffectNotShown, State: AcceptFresh, Shown: shown, Adds: adds}
}

// recordedStep: the label covers the run within its record (a drop larger
// by at most max-drop); the record is kept either way. An older version's
// record (commit and score only) is bound from now on to what this run
// waives, with a score no lower than it accepted.
func recordedStep(was AcceptRecord, run AcceptRun) Transition {
	now := run.Now
	var lower []string
	if was.Legacy {
		sha, score := was.SHA, was.Score
		if now.Score < score {
			lower = []string{fmt.Sprintf("a lower score than an older version's record accepted (%.1f, accepted %.1f)", now.Score, score)}
		}
		was = now
		was.SHA, was.Score = sha, score
	}
	return accepted(AcceptRecorded, &was, nil, append(lower, notCovered(was, now, run.MaxDrop, "accepted")...), now)
}

// accepted is a transition to PhaseAccepted with record r: it accepts when
// nothing adds to it, else blocks keeping it.
func accepted(st AcceptState, r, shown *AcceptRecord, adds []string, now AcceptRecord) Transition {
	tr := Transition{Next: LabelState{Phase: PhaseAccepted, Shown: &now, Record: r}, Effect: EffectAccept, State: st, Record: r, Shown: shown, Adds: adds}
	if len(adds) > 0 {
		tr.Effect = EffectNotCovered
	}
	return tr
}

// lost is a transition to PhaseLost: nothing accepted, nothing kept.
func lost(why string, now AcceptRecord) Transition {
	return Transition{Next: LabelState{Phase: PhaseLost, Shown: &now, Why: why}, Effect: EffectUnreadable, State: AcceptUnreadable}
}

// notShown lists what a fresh acceptance of now does not cover in what the
// gate's comment showed: nothing shown, another head commit (the label may
// have been applied before the new figures appeared), figures shown while
// the label was already on (labeled: it was applied before them), or
// anything beyond the shown figures (another rubric, a new kind of reason,
// another set of removed items, any larger drop).
func notShown(shown *AcceptRecord, labeled bool, now AcceptRecord) []string {
	switch {
	case shown == nil:
		return []string{"figures the gate's comment has not shown yet"}
	case !strings.EqualFold(shown.SHA, now.SHA):
		return []string{fmt.Sprintf("a new head commit (%s; the comment showed %s)", shortSHA(now.SHA), shortSHA(shown.SHA))}
	case labeled:
		return []string{"figures the comment showed while the label was already on (the label was applied before them)"}
	}
	return notCovered(*shown, now, 0, "shown")
}

// labelReading is what the decision's input says of the label, as a state
// and an event of Step (the label is on, or --accept was given). A label
// the host says was removed since the run started (Actor.Removed) is the
// event EventRemoved, from the state the comment held.
func labelReading(in DecideInput) (LabelState, LabelEvent) {
	a := in.Acceptance
	if in.AcceptReason != "" {
		return LabelState{Phase: PhaseOff}, EventReason
	}
	st, ev := labelOnReading(a)
	if a.Actor.Removed {
		ev = EventRemoved
	}
	return st, ev
}

// labelOnReading is labelReading for a label the run finds on.
func labelOnReading(a Acceptance) (LabelState, LabelEvent) {
	switch a.State {
	case AcceptUnreadable:
		return LabelState{Phase: PhaseLost, Shown: a.Shown, Why: a.Why}, EventOn
	case AcceptRecorded:
		return LabelState{Phase: PhaseAccepted, Shown: a.Shown, Record: a.Record}, EventOn
	}
	st := LabelState{Phase: PhaseOff, Shown: a.Shown}
	if a.ShownLabeled {
		st.Phase = PhaseShown
	}
	switch {
	case a.Unbound:
		return st, EventAppliedUnbound
	case a.Applied:
		return st, EventApplied
	}
	return st, EventOn
}
