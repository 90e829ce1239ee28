package gaterun

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// acceptedPrefix starts the hidden line the gate keeps in its own sticky
// comment while the accept label is on: the record of what the label was
// applied for (gate.AcceptRecord: the head commit at which it took effect,
// the score, the rubric's hash, the kinds of reasons it waived, the
// relative drop and the digest of the removed items), or "lost" when the
// record could not be read. It is read back only from a comment whose
// author is the token's identity (comment-author), so nobody can plant
// one; everything else in the body is escaped text.
const acceptedPrefix = "<!-- rubricgate:accepted "

// lostField is the hidden line of a run that had the label on but could not
// read its record: later runs accept nothing new until the label is
// removed (which drops the line) and added again.
const lostField = acceptedPrefix + "lost -->"

// shownPrefix starts the hidden line every change request run keeps in its
// sticky comment: what the comment shows (gate.GateReport.Waivable: the
// head commit, the score, the rubric's hash, the kinds of reasons the run
// waives or would waive, the relative drop and the digest of the removed
// items), and whether the accept label was on. A label that takes effect
// later accepts nothing beyond it. It is read back as the accepted line
// is, only from the gate's own comment.
const shownPrefix = "<!-- rubricgate:shown "

// AcceptField is the hidden line recording r.
func AcceptField(r gate.AcceptRecord) string {
	return recordLine(acceptedPrefix, r) + " -->"
}

// ShownField is the hidden line saying the comment shows r, with the accept
// label on or off.
func ShownField(r gate.AcceptRecord, labelOn bool) string {
	r.Legacy = false
	l := "off"
	if labelOn {
		l = "on"
	}
	return recordLine(shownPrefix, r) + " label=" + l + " -->"
}

func recordLine(prefix string, r gate.AcceptRecord) string {
	f := prefix + "sha=" + r.SHA + " score=" + strconv.FormatFloat(r.Score, 'f', -1, 64)
	if !r.Legacy {
		ks := make([]string, len(r.Kinds))
		for i, k := range r.Kinds {
			ks[i] = string(k)
		}
		f += " rubric=" + r.Rubric + " kinds=" + strings.Join(ks, ",")
		if r.Drop != nil {
			f += " drop=" + strconv.FormatFloat(*r.Drop, 'g', -1, 64)
		}
		if r.Items != "" {
			f += " items=" + r.Items
		}
	}
	return f
}

// recordState is what the first line of a comment body says of the accept
// label's record.
type recordState int

const (
	recordNone recordState = iota
	recordFound
	recordLost
	recordBad
)

// ParseAccepted reads the record from the first line of a comment body: ok
// is false when there is none, or the line is not a well-formed record (a
// "lost" line included).
func ParseAccepted(body string) (gate.AcceptRecord, bool) {
	r, st := parseRecord(body)
	return r, st == recordFound
}

func parseRecord(body string) (gate.AcceptRecord, recordState) {
	first, _, _ := strings.Cut(body, "\n")
	return parseLine(strings.TrimSuffix(first, "\r"), acceptedPrefix)
}

// parseShown reads the shown line from the hidden lines that start a
// comment body: what the comment shows and whether the label was on; nil
// when there is none, or it is not well formed (or from an older
// version).
func parseShown(body string) (*gate.AcceptRecord, bool) {
	for i := 0; i < 2; i++ {
		line, rest, _ := strings.Cut(body, "\n")
		line = strings.TrimSuffix(line, "\r")
		if !strings.HasPrefix(line, "<!-- rubricgate:") {
			return nil, false
		}
		if r, st := parseLine(line, shownPrefix); st == recordFound && !r.Legacy {
			on := strings.HasSuffix(line, " label=on -->")
			if !on && !strings.HasSuffix(line, " label=off -->") {
				return nil, false
			}
			return &r, on
		} else if st != recordNone {
			return nil, false
		}
		body = rest
	}
	return nil, false
}

// parseLine reads one hidden record line starting with prefix.
func parseLine(line, prefix string) (gate.AcceptRecord, recordState) {
	rest, ok := strings.CutPrefix(line, prefix)
	if !ok {
		return gate.AcceptRecord{}, recordNone
	}
	rest, ok = strings.CutSuffix(rest, " -->")
	if !ok {
		return gate.AcceptRecord{}, recordBad
	}
	if rest == "lost" {
		return gate.AcceptRecord{}, recordLost
	}
	var a gate.AcceptRecord
	hasKinds := false
	for _, kv := range strings.Fields(rest) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "sha":
			a.SHA = v
		case "score", "drop":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return gate.AcceptRecord{}, recordBad
			}
			if k == "score" {
				a.Score = f
			} else {
				a.Drop = &f
			}
		case "rubric", "items":
			if !isRubricHash(v) {
				return gate.AcceptRecord{}, recordBad
			}
			if k == "rubric" {
				a.Rubric = v
			} else {
				a.Items = v
			}
		case "kinds":
			hasKinds = true
			a.Kinds = []gate.Waiver{}
			for _, kd := range strings.Split(v, ",") {
				if kd == "" {
					continue
				}
				if !gate.KnownWaiver(gate.Waiver(kd)) {
					return gate.AcceptRecord{}, recordBad
				}
				a.Kinds = append(a.Kinds, gate.Waiver(kd))
			}
		}
	}
	if !isHexSHA(a.SHA) {
		return gate.AcceptRecord{}, recordBad
	}
	a.Legacy = a.Rubric == "" || !hasKinds
	if a.Legacy {
		a.Rubric, a.Kinds, a.Drop, a.Items = "", nil, nil, ""
	}
	return a, recordFound
}

// isRubricHash accepts "sha256:" and 64 hex digits.
func isRubricHash(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	return isHexSHA(h)
}

func isHexSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// Why a record cannot be read (gate.Acceptance.Why).
const (
	whyNoReadBack = "the gate cannot read back its own comment: no token, comment never, comment-author any, or a fork's pull request"
	whyLost       = "an earlier run could not read it"
	whyMalformed  = "its line in the comment is malformed"
	whyNoHead     = "the change request's head commit is unknown"
)

// readAcceptance is what the run knows of the accept label's record, for a
// change request run with the label on: the comment's phase and the event
// that started the run, which the decision reads as a state and an event
// of gate.Step. Adding the label started the run (gate.EventApplied: the
// record is not read, applying anew is how a reviewer accepts again); the
// comment holds a record (gate.PhaseAccepted), the lost line or a malformed
// one (gate.PhaseLost), or none (gate.PhaseOff, or gate.PhaseShown when its
// shown line says the label was on). When the comment cannot be read the
// record is lost, but for the labeled event's run where no comment can be
// read back at all (a fork's pull request, comment: never):
// gate.EventAppliedUnbound.
func readAcceptance(ctx context.Context, b *host.Build, previous func(context.Context, string) (string, bool, error), label, key string, warn func(string)) gate.Acceptance {
	a := gate.Acceptance{HeadSHA: b.HeadSHA}
	if !isHexSHA(b.HeadSHA) {
		// A record is bound to a commit.
		a.State, a.Why = gate.AcceptUnreadable, whyNoHead
		return a
	}
	labeled := b.StartedByLabel(label)
	// A re-run replays the labeled event: the label was applied once, for
	// what the comment showed then, not for what it shows now.
	applied := labeled && !b.Replayed()
	if previous == nil {
		// No comment binds the label: a re-run of the labeled event's run
		// accepts its head as the first attempt did, once the host says
		// the label is still on and who applied it (labelActor asks on
		// every re-run).
		if labeled {
			a.State, a.Applied, a.Unbound = gate.AcceptFresh, true, true
			return a
		}
		a.State, a.Why = gate.AcceptUnreadable, whyNoReadBack
		return a
	}
	body, _, err := previous(ctx, key)
	if err != nil {
		warn("accept label: could not read the previous comment: " + err.Error())
		a.State, a.Why = gate.AcceptUnreadable, "the gate could not read back its own comment"
		return a
	}
	a.Shown, a.ShownLabeled = parseShown(body)
	if applied {
		// The label is being applied: a fresh acceptance of what the
		// comment showed, whatever an earlier record says (removing and
		// re-adding the label is how a reviewer accepts again).
		a.State, a.Applied = gate.AcceptFresh, true
		return a
	}
	switch r, st := parseRecord(body); st {
	case recordFound:
		a.State, a.Record = gate.AcceptRecorded, &r
	case recordLost:
		a.State, a.Why = gate.AcceptUnreadable, whyLost
	case recordBad:
		a.State, a.Why = gate.AcceptUnreadable, whyMalformed
	default:
		a.State = gate.AcceptFresh
	}
	return a
}

// labelActor is who applied the accept label and who wrote the change
// request: the labeled event's sender when adding the label started the
// run and the payload's author, else what the host answers (the latest
// labeled event for the label); why says why either stays unknown. A
// re-run of the labeled event's run (RunAttempt above 1) replays an old
// event: the label may have been removed, or applied again by someone
// else, since, so only the host's answer counts.
func labelActor(ctx context.Context, b *host.Build, ask func(context.Context, string) (gate.Actor, error), label string) (who gate.Actor, why string) {
	who.Author = b.Author
	labeled := b.StartedByLabel(label)
	replayed := labeled && b.Replayed()
	if labeled && !replayed {
		who.AppliedBy, who.AppliedByBot = b.LabelAddedBy, b.LabelAddedByBot
	}
	if who.AppliedBy != "" && who.Author != "" {
		return who, ""
	}
	if ask == nil {
		if replayed {
			return who, fmt.Sprintf("this run is attempt %d of the labeled event's run, and with no token the gate cannot ask the host whether the label is still on and who applied it", b.RunAttempt)
		}
		return who, "no token to ask the host"
	}
	got, err := ask(ctx, label)
	if err != nil {
		return who, "asking the host failed: " + err.Error()
	}
	if got.Removed {
		who.Removed = true
		return who, "the host's latest event for the label removes it: it is off now, though this run started with it on (a re-run keeps the labels of the run it repeats)"
	}
	if who.AppliedBy == "" {
		who.AppliedBy, who.AppliedByBot = got.AppliedBy, got.AppliedByBot
	}
	if who.Author == "" {
		who.Author = got.Author
	}
	if who.AppliedBy == "" || who.Author == "" {
		return who, "the host names no labeled event for it, or no author"
	}
	return who, ""
}

// shortSHA shortens a commit for the note.
func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// acceptanceNote returns the hidden line to keep in the sticky comment
// while the accept label is on and the note for the report, both from the
// decision's typed acceptance (g.Acceptance): the line of the label's next
// phase (acceptedLine), and a note saying what the label accepted, or why
// it does not cover this run and how to accept it.
func acceptanceNote(label string, g *gate.GateReport) (field, note string) {
	a := g.Acceptance
	if a == nil {
		return "", ""
	}
	field = acceptedLine(a)
	if a.Reason != "" {
		// Given with this run (--accept): nothing to keep in a comment.
		if g.Accepted {
			note = fmt.Sprintf("> [!NOTE]\n> The regression was accepted with `--accept`: %s\n\n", safe.Inline(a.Reason, 300))
		}
		return field, note
	}
	lbl := safe.Code(label, 60)
	first := finding.Kind("")
	if len(g.Findings) > 0 {
		first = g.Findings[0].Kind
	}
	switch a.Effect {
	case gate.EffectByAuthor:
		// Nothing kept: a later run asks again who applied the label.
		return field, fmt.Sprintf("> [!CAUTION]\n> The %s label was applied by %s, the pull request's author: it accepts nothing (accept-by: others). Another reviewer must remove and re-add it.\n\n", lbl, safe.Code(a.AppliedBy, 60))
	case gate.EffectByBot:
		return field, fmt.Sprintf("> [!CAUTION]\n> The %s label was applied by %s, a bot account: it accepts nothing (accept-by: others). A reviewer must remove and re-add it.\n\n", lbl, safe.Code(a.AppliedBy, 60))
	case gate.EffectRemoved:
		return field, fmt.Sprintf("> [!CAUTION]\n> The %s label was removed after this run started (%s): it accepts nothing.\n\n", lbl, safe.Inline(a.ActorWhy, 300))
	case gate.EffectByUnknown:
		return field, fmt.Sprintf("> [!CAUTION]\n> The %s label is on, but who applied it, or who wrote the pull request, cannot be told (%s): it accepts nothing (accept-by: others).\n\n", lbl, safe.Inline(a.ActorWhy, 300))
	case gate.EffectNotShown:
		// Beyond what the comment showed: no record; the shown line this
		// run writes is what re-applying the label accepts.
		if first == finding.AcceptanceNotShown {
			note = fmt.Sprintf("> [!CAUTION]\n> The %s label accepts only what this comment showed when it was applied: this run brings %s. Check the figures below, then remove and re-add the label to accept them.\n\n",
				lbl, safe.Code(strings.Join(a.Adds, "; "), 300))
		}
		return field, note
	case gate.EffectUnreadable:
		if first == finding.AcceptanceUnreadable {
			note = fmt.Sprintf("> [!CAUTION]\n> The %s label is on, but the record of what it was applied for cannot be read (%s): it accepts nothing new. Remove and re-add the label to accept this run.\n\n", lbl, a.Why)
		}
		return field, note
	}
	by := ""
	if a.AppliedBy != "" {
		by = "applied by " + safe.Code(a.AppliedBy, 60) + " "
	}
	was := *a.Record
	at := fmt.Sprintf("at commit %s (score %s)", safe.Code(shortSHA(was.SHA), 12), strconv.FormatFloat(was.Score, 'f', 1, 64))
	switch {
	case first == finding.AcceptanceNotCovered:
		what := make([]string, len(was.Kinds))
		for i, k := range was.Kinds {
			what[i] = string(k)
		}
		w := strings.Join(what, ", ")
		if w == "" {
			w = "nothing"
		}
		note = fmt.Sprintf("> [!CAUTION]\n> The %s label was applied %s for %s. This push adds %s: the label does not cover it. Remove and re-add the label to accept it.\n\n",
			lbl, at, safe.Code(w, 100), safe.Code(strings.Join(a.Adds, "; "), 300))
	case !g.Accepted:
		// Nothing waived (or a hard gate blocks): the record is kept.
	case strings.EqualFold(was.SHA, a.Now.SHA):
		note = fmt.Sprintf("> [!NOTE]\n> The regression was accepted by the %s label %s%s. The label covers later pushes only for the same kinds of reasons, the same rubric, the same removed items and a drop no larger by more than max-drop; this comment will say when a later commit changes the score.\n\n", lbl, by, at)
	case fmt.Sprintf("%.1f", was.Score) == fmt.Sprintf("%.1f", a.Now.Score):
		note = fmt.Sprintf("> [!NOTE]\n> The regression was accepted by the %s label %s%s; the score is unchanged at %s.\n\n", lbl, by, at, safe.Code(shortSHA(a.Now.SHA), 12))
	default:
		note = fmt.Sprintf("> [!WARNING]\n> The regression was accepted by the %s label %s%s. **Later commits changed the score**: %s at %s. The label still accepts it; remove and re-apply the label to accept the new score explicitly.\n\n",
			lbl, by, at, strconv.FormatFloat(a.Now.Score, 'f', 1, 64), safe.Code(shortSHA(a.Now.SHA), 12))
	}
	return field, note
}

// acceptedLine is the hidden line of the accept label's next phase: the
// record while accepted, the lost line while lost, none otherwise (off,
// shown, or --accept, which keeps nothing).
func acceptedLine(a *gate.AcceptOutcome) string {
	switch a.Next {
	case gate.PhaseAccepted:
		return AcceptField(*a.Record)
	case gate.PhaseLost:
		return lostField
	}
	return ""
}

// withAcceptance puts the hidden lines (field) first and the note after
// the headline of the markdown report.
func withAcceptance(md, field, note string) string {
	if field == "" && note == "" {
		return md
	}
	head, rest, ok := strings.Cut(md, "\n\n")
	if !ok {
		return field + "\n" + md + "\n\n" + note
	}
	return field + "\n" + head + "\n\n" + note + rest
}

// joinLines joins the non-empty hidden lines.
func joinLines(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
