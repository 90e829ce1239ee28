package gate

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/finding"
)

// The accept label's rules are inputs of the one decision: each case is
// decided from a typed Acceptance, and the record to keep comes out typed.
func TestDecideAcceptance(t *testing.T) {
	const head = "h2"
	labelOn := func(a Acceptance) func(*DecideInput) {
		return func(in *DecideInput) { in.Accepted = true; in.Acceptance = a; in.Acceptance.HeadSHA = head }
	}

	// Fresh: the label takes effect with this run, which it accepts within
	// what the comment showed (this very run, with the label off); the
	// record is what this run waives, at its head.
	shown := decide(runReport(66), base(70), func(in *DecideInput) { in.Acceptance.HeadSHA = head }).Waivable
	g := decide(runReport(66), base(70), labelOn(Acceptance{State: AcceptFresh, Shown: shown}))
	if g.Decision != Pass || !g.Accepted || g.Acceptance == nil || g.Acceptance.Record == nil {
		t.Fatalf("fresh: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	rec := *g.Acceptance.Record
	if rec.SHA != head || rec.Score != 66 || rec.Rubric != "sha256:aaaa" || !reflect.DeepEqual(rec.Kinds, []Waiver{WaiveDrop}) || rec.Drop == nil || *rec.Drop > -0.05 {
		t.Fatalf("fresh record %+v", rec)
	}

	// Recorded: the same drop at a later commit is covered, and the earlier
	// record is the one kept.
	earlier := rec
	earlier.SHA = "h1"
	g = decide(runReport(65), base(70), labelOn(Acceptance{State: AcceptRecorded, Record: &earlier}))
	if g.Decision != Pass || !g.Accepted || g.Acceptance.Record.SHA != "h1" {
		t.Fatalf("recorded, same drop: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}

	// A clean run keeps the record while the label is on...
	g = decide(runReport(70), base(70), labelOn(Acceptance{State: AcceptRecorded, Record: &earlier}))
	if g.Decision != Pass || g.Accepted || g.Acceptance == nil || g.Acceptance.Record == nil || g.Acceptance.Record.SHA != "h1" {
		t.Fatalf("clean run: the record is not kept: %s %+v", g.Decision, g.Acceptance)
	}
	// ...so a much larger drop after it is not covered: blocked, the first
	// reason saying why, every other reason an error.
	g = decide(runReport(40), base(70), labelOn(Acceptance{State: AcceptRecorded, Record: &earlier}))
	if g.Decision != Block || g.Accepted || g.Findings[0].Kind != finding.AcceptanceNotCovered || len(g.Acceptance.Adds) != 1 ||
		!strings.HasPrefix(g.Acceptance.Adds[0], "a larger drop") {
		t.Fatalf("larger drop: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	for _, f := range g.Findings {
		if f.Severity == finding.Notice || f.Label != "" {
			t.Errorf("finding %+v left accepted", f)
		}
	}
	if g.Acceptance.Record.SHA != "h1" {
		t.Errorf("the record is not kept when blocked again: %+v", g.Acceptance.Record)
	}

	// Unreadable: the label accepts nothing new; the reason says how to
	// accept; nothing to keep.
	g = decide(runReport(66), base(70), labelOn(Acceptance{State: AcceptUnreadable, Why: "the read failed"}))
	if g.Decision != Block || g.Accepted || g.Findings[0].Kind != finding.AcceptanceUnreadable || g.Acceptance.Record != nil ||
		!strings.Contains(g.Reasons[0], "remove and re-add the label") || !strings.Contains(g.Reasons[0], "the read failed") {
		t.Fatalf("unreadable: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	// ... and a run with nothing to waive passes.
	if g = decide(runReport(70), base(70), labelOn(Acceptance{State: AcceptUnreadable})); g.Decision != Pass {
		t.Fatalf("unreadable, clean: %s %q", g.Decision, g.Reasons)
	}

	// A legacy record (commit and score only) is bound from now on.
	legacy := AcceptRecord{SHA: "h0", Score: 50, Legacy: true}
	g = decide(runReport(66), base(70), labelOn(Acceptance{State: AcceptRecorded, Record: &legacy}))
	if g.Decision != Pass || g.Acceptance.Record.SHA != "h0" || g.Acceptance.Record.Legacy || !reflect.DeepEqual(g.Acceptance.Record.Kinds, []Waiver{WaiveDrop}) {
		t.Fatalf("legacy: %s %+v", g.Decision, g.Acceptance.Record)
	}
	// ... but not to a lower score than the one it accepted.
	g = decide(runReport(40), base(70), labelOn(Acceptance{State: AcceptRecorded, Record: &legacy}))
	if g.Decision != Block || len(g.Acceptance.Adds) != 1 || !strings.HasPrefix(g.Acceptance.Adds[0], "a lower score than an older version's record accepted (40.0, accepted 50.0)") {
		t.Fatalf("legacy, lower score: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
}

// The record binds the set of removed items: a later push that removes
// other items (more, or different ones) is not covered.
func TestDecideAcceptanceBindsRemovedItems(t *testing.T) {
	baseItems := items(0, 10, func(int) float64 { return 80 })
	labelOn := func(a Acceptance) func(*DecideInput) {
		return func(in *DecideInput) { in.Accepted = true; in.Acceptance = a }
	}
	cur, b, p := pairedRun(baseItems, items(2, 10, func(int) float64 { return 80 }))
	g := decide(cur, b, func(in *DecideInput) { in.Paired = p; acceptShown(in) })
	if g.Decision != Pass || g.Acceptance.Record == nil || g.Acceptance.Record.Items == "" || g.Acceptance.Record.Items != RemovedDigest([]string{"i01", "i00"}) {
		t.Fatalf("fresh removal: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	was := *g.Acceptance.Record
	// The same two removed again: covered.
	g = decide(cur, b, func(in *DecideInput) { in.Paired = p; labelOn(Acceptance{State: AcceptRecorded, Record: &was})(in) })
	if g.Decision != Pass || !g.Accepted {
		t.Fatalf("same removal: %s %q", g.Decision, g.Reasons)
	}
	// A record for a drop only does not cover removed items.
	dropOnly := AcceptRecord{SHA: "h1", Rubric: cur.Rubric.Hash, Kinds: []Waiver{WaiveDrop}}
	g = decide(cur, b, func(in *DecideInput) {
		in.Paired = p
		labelOn(Acceptance{State: AcceptRecorded, Record: &dropOnly})(in)
	})
	if g.Decision != Block || !reflect.DeepEqual(g.Acceptance.Adds, []string{"a new kind of waived reason: removed-items"}) {
		t.Fatalf("new kind: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	// Three removed: not covered.
	cur, b, p = pairedRun(baseItems, items(3, 10, func(int) float64 { return 80 }))
	g = decide(cur, b, func(in *DecideInput) { in.Paired = p; labelOn(Acceptance{State: AcceptRecorded, Record: &was})(in) })
	if g.Decision != Block || g.Findings[0].Kind != finding.AcceptanceNotCovered || !reflect.DeepEqual(g.Acceptance.Adds, []string{"another set of removed items"}) {
		t.Fatalf("more removed: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
}

func TestRemovedDigest(t *testing.T) {
	if RemovedDigest(nil) != "" || RemovedDigest([]string{"a", "b"}) != RemovedDigest([]string{"b", "a"}) ||
		RemovedDigest([]string{"a", "b"}) == RemovedDigest([]string{"a", "b", "c"}) || RemovedDigest([]string{"ab"}) == RemovedDigest([]string{"a", "b"}) {
		t.Error("digest is not a function of the set")
	}
}

// --accept is the same typed acceptance: given with the run, it accepts the
// run's waivable blocks (never a hard gate), each recorded with the reason.
func TestDecideAcceptReason(t *testing.T) {
	g := decide(runReport(60), base(70), func(in *DecideInput) { in.Accepted = true; in.AcceptReason = "known judge outage" })
	if g.Decision != Pass || !g.Accepted || g.Acceptance == nil || g.Acceptance.Reason != "known judge outage" {
		t.Fatalf("--accept: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	f := g.Findings[0]
	if f.Kind != finding.AggregateDrop || f.AcceptReason != "known judge outage" || f.Label != "" || !strings.HasPrefix(g.Reasons[0], "accepted with --accept (known judge outage): aggregate score dropped") {
		t.Errorf("finding %+v, reason %q", f, g.Reasons[0])
	}
	// Even with an unreadable label record: the reason given now is the acceptance.
	g = decide(runReport(60), base(70), func(in *DecideInput) {
		in.Accepted, in.AcceptReason, in.Acceptance = true, "r", Acceptance{State: AcceptUnreadable}
	})
	if g.Decision != Pass {
		t.Errorf("--accept with an unreadable record: %s %q", g.Decision, g.Reasons)
	}
	// A hard gate still blocks.
	g = decide(runReport(60, BlockingFailure{Item: "x", Criterion: "safety"}), base(70), func(in *DecideInput) { in.Accepted = true; in.AcceptReason = "r" })
	if g.Decision != Block || g.Accepted {
		t.Errorf("--accept waived a hard gate: %s %q", g.Decision, g.Reasons)
	}
}

// acceptShown is the accept label applied after the gate's comment showed
// this very run with the label off: a fresh acceptance bound to what it
// showed. Call it last, once the input is complete.
func acceptShown(in *DecideInput) {
	off := *in
	off.Accepted = false
	shown := Decide(off).Waivable
	in.Accepted = true
	in.Acceptance = Acceptance{State: AcceptFresh, HeadSHA: in.Acceptance.HeadSHA, Shown: shown, Actor: reviewer}
}

// A fresh acceptance (the label applied, or on with no record in the
// comment) accepts only what the gate's comment showed: the same head, no
// new kind of reason, the same removed items, a drop no larger, and, when
// the label was already on as the comment showed the figures, only when
// the label is applied again. Unbound (no comment can show anything) and
// --accept take what the run brings.
func TestDecideFreshAcceptanceBoundToShown(t *testing.T) {
	const head = "a1"
	show := func(score float64, mod func(*DecideInput)) *AcceptRecord {
		return decide(runReport(score), base(70), func(in *DecideInput) {
			in.Acceptance.HeadSHA = head
			if mod != nil {
				mod(in)
			}
		}).Waivable
	}
	fresh := func(a Acceptance) func(*DecideInput) {
		return func(in *DecideInput) { a.State, a.HeadSHA = AcceptFresh, head; in.Accepted, in.Acceptance = true, a }
	}
	shown := show(66, nil) // blocked on a 5.71% drop
	if shown == nil || shown.SHA != head || !reflect.DeepEqual(shown.Kinds, []Waiver{WaiveDrop}) || shown.Drop == nil {
		t.Fatalf("waivable %+v", shown)
	}
	// What was shown, or less: accepted, recorded.
	for _, score := range []float64{66, 67} {
		g := decide(runReport(score), base(70), fresh(Acceptance{Shown: shown}))
		if g.Decision != Pass || !g.Accepted || g.Acceptance.Record == nil || g.Acceptance.Record.Score != score {
			t.Fatalf("score %v within the shown drop: %s %q %+v", score, g.Decision, g.Reasons, g.Acceptance)
		}
	}
	notShown := func(name string, g *GateReport, adds string) {
		t.Helper()
		if g.Decision != Block || g.Accepted || g.Acceptance.Record != nil || len(g.Findings) == 0 || g.Findings[0].Kind != finding.AcceptanceNotShown ||
			len(g.Acceptance.Adds) != 1 || !strings.HasPrefix(g.Acceptance.Adds[0], adds) || !strings.Contains(g.Reasons[0], "remove and re-add the label once this comment shows") {
			t.Errorf("%s: %s %q %+v", name, g.Decision, g.Reasons, g.Acceptance)
		}
	}
	// The same drop in its last bits (pooled over another number of
	// attempts) is the same drop.
	last := *shown
	d := *shown.Drop + 2e-17 // drops are negative: this one a hair smaller
	last.Drop = &d
	if g := decide(runReport(66), base(70), fresh(Acceptance{Shown: &last})); g.Decision != Pass || !g.Accepted {
		t.Errorf("the shown drop in its last bits: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	// Any larger drop (no max-drop margin, unlike a recorded acceptance).
	notShown("larger drop", decide(runReport(65.9), base(70), fresh(Acceptance{Shown: shown})), "a larger drop (5.86%, shown 5.71%)")
	notShown("much larger drop", decide(runReport(10), base(70), fresh(Acceptance{Shown: shown})), "a larger drop")
	// Nothing shown: a comment without the line, or none yet.
	notShown("nothing shown", decide(runReport(66), base(70), fresh(Acceptance{})), "figures the gate's comment has not shown yet")
	// Another head: the label may have landed before the new comment.
	moved := *shown
	moved.SHA = "b2"
	notShown("moved head", decide(runReport(66), base(70), fresh(Acceptance{Shown: &moved, Applied: true})), "a new head commit (a1; the comment showed b2)")
	// Shown while the label was on: only applying it again accepts.
	notShown("shown labeled", decide(runReport(66), base(70), fresh(Acceptance{Shown: shown, ShownLabeled: true})), "figures the comment showed while the label was already on")
	if g := decide(runReport(66), base(70), fresh(Acceptance{Shown: shown, ShownLabeled: true, Applied: true})); g.Decision != Pass || !g.Accepted {
		t.Errorf("re-applied: %s %q", g.Decision, g.Reasons)
	}
	// A new kind of reason: removed items beside the drop.
	baseItems := items(0, 10, func(int) float64 { return 80 })
	cur, b, p := pairedRun(baseItems, items(0, 10, func(int) float64 { return 70 }))
	dropShown := decide(cur, b, func(in *DecideInput) { in.Paired, in.Acceptance.HeadSHA = p, head }).Waivable
	cur2, b2, p2 := pairedRun(baseItems, items(2, 10, func(int) float64 { return 70 }))
	g := decide(cur2, b2, func(in *DecideInput) { in.Paired = p2; fresh(Acceptance{Shown: dropShown})(in) })
	if g.Decision != Block || !reflect.DeepEqual(g.Acceptance.Adds, []string{"a new kind of waived reason: removed-items"}) {
		t.Errorf("new kind: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	// Another set of removed items.
	twoShown := decide(cur2, b2, func(in *DecideInput) { in.Paired, in.Acceptance.HeadSHA = p2, head }).Waivable
	cur3, b3, p3 := pairedRun(baseItems, items(3, 10, func(int) float64 { return 70 }))
	g = decide(cur3, b3, func(in *DecideInput) { in.Paired = p3; fresh(Acceptance{Shown: twoShown})(in) })
	if g.Decision != Block || !reflect.DeepEqual(g.Acceptance.Adds, []string{"another set of removed items"}) {
		t.Errorf("other removed items: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	// Unbound and --accept: what the run brings.
	if g := decide(runReport(10), base(70), fresh(Acceptance{Unbound: true})); g.Decision != Pass || !g.Accepted {
		t.Errorf("unbound: %s %q", g.Decision, g.Reasons)
	}
	if g := decide(runReport(10), base(70), func(in *DecideInput) { in.Accepted, in.AcceptReason = true, "r" }); g.Decision != Pass || !g.Accepted {
		t.Errorf("--accept: %s %q", g.Decision, g.Reasons)
	}
	// A run with nothing to waive passes, and records nothing beyond it.
	if g := decide(runReport(70), base(70), fresh(Acceptance{})); g.Decision != Pass || g.Acceptance.Record == nil || len(g.Acceptance.Record.Kinds) != 0 {
		t.Errorf("clean: %s %q %+v", g.Decision, g.Reasons, g.Acceptance)
	}
	// The baseline branch's own run shows nothing to accept.
	if g := decide(runReport(66), base(70), func(in *DecideInput) { in.BaselineBranchRun = true }); g.Waivable != nil {
		t.Errorf("baseline branch: waivable %+v", g.Waivable)
	}
}

// reviewer applied the accept label to another's change request.
var reviewer = Actor{AppliedBy: "reviewer", Author: "author"}

// byReviewer gives a label that tests of other rules turn on the actor
// the accept-by rule lets through, unless the test set one.
func byReviewer(in *DecideInput) {
	if in.Accepted && in.AcceptReason == "" && in.Acceptance.Actor == (Actor{}) && in.Acceptance.ActorWhy == "" {
		in.Acceptance.Actor = reviewer
	}
}

// The accept-by rule: under accept-by others (the default, and the zero
// value) a label the change request's author applied accepts nothing, and
// says so; nor does one whose applier or author is unknown. Under anyone
// it accepts; --accept is not a label and the rule leaves it alone.
func TestDecideAcceptBy(t *testing.T) {
	const head = "0123456789abcdef0123456789abcdef01234567"
	drop := func(who Actor, why string, by AcceptByPolicy) *GateReport {
		return decide(runReport(60), base(70), func(in *DecideInput) {
			in.Acceptance.HeadSHA = head
			acceptShown(in)
			in.Acceptance.Actor, in.Acceptance.ActorWhy, in.Acceptance.By = who, why, by
		})
	}
	for _, by := range []AcceptByPolicy{"", AcceptByOthers} {
		g := drop(Actor{AppliedBy: "Mallory", Author: "mallory"}, "", by)
		if g.Decision != Block || g.Accepted || g.Acceptance == nil || g.Acceptance.Refused != RefusedByAuthor || g.Acceptance.Record != nil {
			t.Fatalf("accept-by %q, the author's label: %s %+v", by, g.Decision, g.Acceptance)
		}
		if f := g.Findings[0]; f.Kind != finding.AcceptanceByAuthor || f.AppliedBy != "Mallory" || !strings.Contains(g.Reasons[0], "the pull request's author") {
			t.Errorf("first finding %+v %q", f, g.Reasons[0])
		}
		if g.Acceptance.AppliedBy != "Mallory" || g.Acceptance.Author != "mallory" || g.Acceptance.By != AcceptByOthers {
			t.Errorf("the JSON's record of who: %+v", g.Acceptance)
		}
		for _, who := range []Actor{{Author: "mallory"}, {AppliedBy: "alice"}} {
			g := drop(who, "the token may not read the pull request's events", by)
			if g.Decision != Block || g.Acceptance.Refused != RefusedByUnknown || g.Findings[0].Kind != finding.AcceptanceByUnknown ||
				!strings.Contains(g.Reasons[0], "may not read") {
				t.Errorf("unknown %+v: %s %q", who, g.Decision, g.Reasons)
			}
		}
	}
	if g := drop(Actor{AppliedBy: "alice", Author: "mallory"}, "", ""); g.Decision != Pass || !g.Accepted || g.Acceptance.AppliedBy != "alice" {
		t.Errorf("a reviewer's label: %s %q", g.Decision, g.Reasons)
	}
	if g := drop(Actor{AppliedBy: "mallory", Author: "mallory"}, "", AcceptByAnyone); g.Decision != Pass || !g.Accepted || g.Acceptance.Refused != "" {
		t.Errorf("accept-by anyone: %s %q", g.Decision, g.Reasons)
	}
	g := decide(runReport(60), base(70), func(in *DecideInput) {
		in.Accepted, in.AcceptReason = true, "judge outage"
		in.Acceptance.Actor = Actor{AppliedBy: "mallory", Author: "mallory"}
	})
	if g.Decision != Pass || g.Acceptance.Refused != "" {
		t.Errorf("--accept: %s %q", g.Decision, g.Reasons)
	}
	if _, err := ParseAcceptBy("maintainers"); err == nil || !strings.Contains(err.Error(), "expected others or anyone") {
		t.Errorf("parse: %v", err)
	}
}
