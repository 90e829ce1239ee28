package gate

import (
	"reflect"
	"strings"
	"testing"
)

// Every row of the accept label's transition function: a state, an event
// and the run's figures go in; the next state, the effect on the run's
// waivable reasons, what bound the label, the record kept and what the run
// adds come out. The hostile rows are the label applied before the
// figures were shown, a push after acceptance whose drop is larger by more
// than max-drop, an unreadable record, a label the author or a bot account
// applied under accept-by others, and a label removed after the run started
// (a re-run keeps the labels its run started with).
func TestStep(t *testing.T) {
	const head, other = "a1", "b2"
	rub := "sha256:" + strings.Repeat("ab", 32)
	fl := func(f float64) *float64 { return &f }
	rec := func(sha string, score float64, drop *float64, kinds ...Waiver) AcceptRecord {
		if kinds == nil {
			kinds = []Waiver{}
		}
		return AcceptRecord{SHA: sha, Score: score, Rubric: rub, Kinds: kinds, Drop: drop}
	}
	shown := rec(head, 66, fl(-0.0571), WaiveDrop)     // what the comment showed
	accepted := rec(other, 66, fl(-0.0571), WaiveDrop) // accepted at an earlier commit
	same := rec(head, 66, fl(-0.0571), WaiveDrop)
	larger := rec(head, 65.9, fl(-0.0586), WaiveDrop)  // any larger drop
	beyond := rec(head, 60, fl(-0.1429), WaiveDrop)    // larger by more than max-drop
	withinMax := rec(head, 64, fl(-0.0857), WaiveDrop) // larger by less than max-drop
	removed := rec(head, 66, fl(-0.0571), WaiveDrop, WaiveRemovedItems)
	removed.Items = RemovedDigest([]string{"i00"})
	clean := rec(head, 70, nil)
	moved := shown
	moved.SHA = other
	legacy := AcceptRecord{SHA: other, Score: 70, Legacy: true}

	reviewer := Actor{AppliedBy: "alice", Author: "mallory"}
	author := Actor{AppliedBy: "Mallory", Author: "mallory"}
	bot := Actor{AppliedBy: "github-actions[bot]", Author: "mallory", AppliedByBot: true}
	gone := Actor{AppliedBy: "alice", Author: "mallory", Removed: true}
	off := func(s *AcceptRecord) LabelState { return LabelState{Phase: PhaseOff, Shown: s} }
	on := func(s *AcceptRecord) LabelState { return LabelState{Phase: PhaseShown, Shown: s} }
	acc := func(r AcceptRecord) LabelState { return LabelState{Phase: PhaseAccepted, Shown: &shown, Record: &r} }
	lostSt := LabelState{Phase: PhaseLost, Shown: &shown, Why: "its line in the comment is malformed"}

	for _, tt := range []struct {
		name   string
		from   LabelState
		ev     LabelEvent
		now    AcceptRecord
		who    Actor
		by     AcceptByPolicy
		next   LabelPhase
		effect AcceptEffect
		state  AcceptState
		record string // the SHA of the record accepted at or kept ("" for none)
		adds   string // the first addition's start ("" for none)
	}{
		// Off: the label plays no part, whatever the comment held.
		{"off, from accepted", acc(accepted), EventOff, beyond, reviewer, "", PhaseOff, EffectNone, AcceptFresh, "", ""},
		// --accept: this run only, whatever the state; nothing kept.
		{"reason, from lost", lostSt, EventReason, beyond, author, "", PhaseOff, EffectAccept, AcceptFresh, head, ""},
		// Fresh: within what the comment showed, with the label off.
		{"off, on, as shown", off(&shown), EventOn, same, reviewer, "", PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		{"off, applied, as shown", off(&shown), EventApplied, same, reviewer, "", PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		{"off, applied, a smaller drop", off(&shown), EventApplied, rec(head, 67, fl(-0.0429), WaiveDrop), reviewer, "", PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		{"off, on, nothing shown", off(nil), EventOn, same, reviewer, "", PhaseShown, EffectNotShown, AcceptFresh, "", "figures the gate's comment has not shown yet"},
		{"off, applied, any larger drop", off(&shown), EventApplied, larger, reviewer, "", PhaseShown, EffectNotShown, AcceptFresh, "", "a larger drop (5.86%, shown 5.71%)"},
		{"off, applied, a new head", off(&moved), EventApplied, same, reviewer, "", PhaseShown, EffectNotShown, AcceptFresh, "", "a new head commit (a1; the comment showed b2)"},
		{"off, applied, a new kind", off(&shown), EventApplied, removed, reviewer, "", PhaseShown, EffectNotShown, AcceptFresh, "", "a new kind of waived reason: removed-items"},
		{"off, on, nothing to waive", off(nil), EventOn, clean, reviewer, "", PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		// Shown with the label on: the label was applied before the figures.
		{"shown, on: applied before the figures", on(&shown), EventOn, same, reviewer, "", PhaseShown, EffectNotShown, AcceptFresh, "", "figures the comment showed while the label was already on"},
		{"shown, on, nothing to waive", on(&shown), EventOn, clean, reviewer, "", PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		{"shown, applied again", on(&shown), EventApplied, same, reviewer, "", PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		{"shown, applied, beyond", on(&shown), EventApplied, beyond, reviewer, "", PhaseShown, EffectNotShown, AcceptFresh, "", "a larger drop"},
		// Accepted at X: later pushes within the record, the record kept.
		{"accepted, on, the same drop", acc(accepted), EventOn, same, reviewer, "", PhaseAccepted, EffectAccept, AcceptRecorded, other, ""},
		{"accepted, on, within max-drop", acc(accepted), EventOn, withinMax, reviewer, "", PhaseAccepted, EffectAccept, AcceptRecorded, other, ""},
		{"accepted, on, a drop beyond max-drop", acc(accepted), EventOn, beyond, reviewer, "", PhaseAccepted, EffectNotCovered, AcceptRecorded, other, "a larger drop (14.29%, accepted 5.71%)"},
		{"accepted, on, a new kind", acc(accepted), EventOn, removed, reviewer, "", PhaseAccepted, EffectNotCovered, AcceptRecorded, other, "a new kind of waived reason: removed-items"},
		{"accepted, on, another rubric", acc(accepted), EventOn, AcceptRecord{SHA: head, Score: 66, Rubric: "sha256:" + strings.Repeat("cd", 32), Kinds: []Waiver{WaiveDrop}, Drop: fl(-0.0571)}, reviewer, "", PhaseAccepted, EffectNotCovered, AcceptRecorded, other, "another rubric"},
		{"accepted, on, nothing to waive", acc(accepted), EventOn, clean, reviewer, "", PhaseAccepted, EffectAccept, AcceptRecorded, other, ""},
		{"accepted, on, a legacy record", acc(legacy), EventOn, same, reviewer, "", PhaseAccepted, EffectNotCovered, AcceptRecorded, other, "a lower score than an older version's record accepted (66.0, accepted 70.0)"},
		{"accepted, applied again", acc(accepted), EventApplied, same, reviewer, "", PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		{"accepted, no record given", LabelState{Phase: PhaseAccepted}, EventOn, same, reviewer, "", PhaseLost, EffectUnreadable, AcceptUnreadable, "", ""},
		// Lost: nothing new accepted until the label is applied again.
		{"lost, on: an unreadable record", lostSt, EventOn, same, reviewer, "", PhaseLost, EffectUnreadable, AcceptUnreadable, "", ""},
		{"lost, on, nothing to waive", lostSt, EventOn, clean, reviewer, "", PhaseLost, EffectUnreadable, AcceptUnreadable, "", ""},
		{"lost, applied again", lostSt, EventApplied, same, reviewer, "", PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		// No comment can be read back: the labeled event's run, unbound.
		{"applied, unbound", off(nil), EventAppliedUnbound, beyond, reviewer, "", PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		// accept-by: the author's label, or nobody's, accepts nothing.
		{"the author applies it, accept-by others", off(&shown), EventApplied, same, author, "", PhaseShown, EffectByAuthor, AcceptFresh, "", ""},
		{"the author's label on an accepted record", acc(accepted), EventOn, same, author, AcceptByOthers, PhaseShown, EffectByAuthor, AcceptRecorded, "", ""},
		{"the author applies it, accept-by anyone", off(&shown), EventApplied, same, author, AcceptByAnyone, PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		{"nobody known applied it", off(&shown), EventApplied, same, Actor{Author: "mallory"}, "", PhaseShown, EffectByUnknown, AcceptFresh, "", ""},
		{"unbound, by the author", off(nil), EventAppliedUnbound, same, author, "", PhaseShown, EffectByAuthor, AcceptFresh, "", ""},
		// A bot's label: it acts for whoever triggered it, the author too.
		{"a bot applies it, accept-by others", off(&shown), EventApplied, same, bot, "", PhaseShown, EffectByBot, AcceptFresh, "", ""},
		{"a bot's label on an accepted record", acc(accepted), EventOn, same, bot, AcceptByOthers, PhaseShown, EffectByBot, AcceptRecorded, "", ""},
		{"a bot applies it, unbound", off(nil), EventAppliedUnbound, same, bot, "", PhaseShown, EffectByBot, AcceptFresh, "", ""},
		{"a bot applies it, accept-by anyone", off(&shown), EventApplied, same, bot, AcceptByAnyone, PhaseAccepted, EffectAccept, AcceptFresh, head, ""},
		{"the author's bot account", off(&shown), EventApplied, same, Actor{AppliedBy: "mallory", Author: "mallory", AppliedByBot: true}, "", PhaseShown, EffectByAuthor, AcceptFresh, "", ""},
		// Removed since the run started: off now, under any accept-by, the
		// record dropped.
		{"removed, from accepted", acc(accepted), EventRemoved, same, gone, "", PhaseOff, EffectRemoved, AcceptRecorded, "", ""},
		{"removed, from accepted, accept-by anyone", acc(accepted), EventRemoved, same, gone, AcceptByAnyone, PhaseOff, EffectRemoved, AcceptRecorded, "", ""},
		{"removed, from off", off(&shown), EventRemoved, same, gone, AcceptByAnyone, PhaseOff, EffectRemoved, AcceptFresh, "", ""},
		{"removed, from lost", lostSt, EventRemoved, same, gone, "", PhaseOff, EffectRemoved, AcceptUnreadable, "", ""},
	} {
		tr := Step(tt.from, tt.ev, AcceptRun{Now: tt.now, MaxDrop: 0.05, By: tt.by, Actor: tt.who})
		if tr.Next.Phase != tt.next || tr.Effect != tt.effect || tr.State != tt.state {
			t.Errorf("%s: next %s, effect %s, state %s; want %s, %s, %s", tt.name, tr.Next.Phase, tr.Effect, tr.State, tt.next, tt.effect, tt.state)
		}
		// The JSON report's refusal: the accept-by rule's, and by-unknown
		// for a removed label.
		if want := map[AcceptEffect]AcceptRefusal{EffectByAuthor: RefusedByAuthor, EffectByBot: RefusedByBot, EffectByUnknown: RefusedByUnknown, EffectRemoved: RefusedByUnknown}[tt.effect]; tr.Refused != want {
			t.Errorf("%s: refused %q, want %q", tt.name, tr.Refused, want)
		}
		if got := ""; tr.Record != nil || tt.record != "" {
			if tr.Record != nil {
				got = tr.Record.SHA
			}
			if got != tt.record {
				t.Errorf("%s: record %+v, want one at %q", tt.name, tr.Record, tt.record)
			}
		}
		switch {
		case tt.adds == "" && len(tr.Adds) > 0, tt.adds != "" && (len(tr.Adds) == 0 || !strings.HasPrefix(tr.Adds[0], tt.adds)):
			t.Errorf("%s: adds %q, want %q", tt.name, tr.Adds, tt.adds)
		}
		// The comment always shows this run; it keeps a record only while
		// accepted, and the reason only while lost.
		if tr.Next.Shown == nil || !reflect.DeepEqual(*tr.Next.Shown, tt.now) {
			t.Errorf("%s: next shows %+v", tt.name, tr.Next.Shown)
		}
		if (tr.Next.Record != nil) != (tt.next == PhaseAccepted) || (tr.Next.Why != "") != (tt.next == PhaseLost) {
			t.Errorf("%s: next %+v", tt.name, tr.Next)
		}
		if tr.Next.Phase == PhaseAccepted && tt.ev != EventReason && tr.Next.Record != tr.Record {
			t.Errorf("%s: keeps %+v, accepted at %+v", tt.name, tr.Next.Record, tr.Record)
		}
	}
}

// A legacy record is bound from the run that reads it on: its commit and
// score, with what the run waives.
func TestStepLegacyBound(t *testing.T) {
	now := AcceptRecord{SHA: "a1", Score: 72, Rubric: "sha256:x", Kinds: []Waiver{WaiveRubricChange}}
	tr := Step(LabelState{Phase: PhaseAccepted, Record: &AcceptRecord{SHA: "b2", Score: 70, Legacy: true}}, EventOn, AcceptRun{Now: now, Actor: Actor{AppliedBy: "a", Author: "b"}})
	want := AcceptRecord{SHA: "b2", Score: 70, Rubric: "sha256:x", Kinds: []Waiver{WaiveRubricChange}}
	if tr.Effect != EffectAccept || tr.Record == nil || !reflect.DeepEqual(*tr.Record, want) {
		t.Errorf("legacy: %s %+v", tr.Effect, tr.Record)
	}
}

// What the decision's input says of the label reads as one state and one
// event of Step.
func TestLabelReading(t *testing.T) {
	s := &AcceptRecord{SHA: "a1"}
	r := &AcceptRecord{SHA: "b2"}
	for _, tt := range []struct {
		name   string
		a      Acceptance
		reason string
		phase  LabelPhase
		ev     LabelEvent
	}{
		{"zero", Acceptance{}, "", PhaseOff, EventOn},
		{"fresh, shown off", Acceptance{State: AcceptFresh, Shown: s}, "", PhaseOff, EventOn},
		{"fresh, shown on", Acceptance{State: AcceptFresh, Shown: s, ShownLabeled: true}, "", PhaseShown, EventOn},
		{"fresh, applied", Acceptance{State: AcceptFresh, Shown: s, ShownLabeled: true, Applied: true}, "", PhaseShown, EventApplied},
		{"fresh, unbound", Acceptance{State: AcceptFresh, Applied: true, Unbound: true}, "", PhaseOff, EventAppliedUnbound},
		{"recorded", Acceptance{State: AcceptRecorded, Record: r, Shown: s}, "", PhaseAccepted, EventOn},
		{"unreadable", Acceptance{State: AcceptUnreadable, Why: "w"}, "", PhaseLost, EventOn},
		{"--accept", Acceptance{State: AcceptUnreadable}, "outage", PhaseOff, EventReason},
		{"removed since, recorded", Acceptance{State: AcceptRecorded, Record: r, Shown: s, Actor: Actor{AppliedBy: "a", Author: "b", Removed: true}}, "", PhaseAccepted, EventRemoved},
		{"removed since, applied", Acceptance{State: AcceptFresh, Shown: s, Applied: true, Actor: Actor{Removed: true}}, "", PhaseOff, EventRemoved},
		{"removed since, --accept", Acceptance{State: AcceptFresh, Actor: Actor{Removed: true}}, "outage", PhaseOff, EventReason},
	} {
		st, ev := labelReading(DecideInput{Acceptance: tt.a, Policy: Policy{AcceptReason: tt.reason}})
		if st.Phase != tt.phase || ev != tt.ev {
			t.Errorf("%s: %s, %s; want %s, %s", tt.name, st.Phase, ev, tt.phase, tt.ev)
		}
		if tt.phase == PhaseAccepted && st.Record != r || tt.phase == PhaseLost && st.Why != "w" || tt.ev != EventReason && st.Shown != tt.a.Shown {
			t.Errorf("%s: %+v", tt.name, st)
		}
	}
}
