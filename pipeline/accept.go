package pipeline

import (
	"context"
	"fmt"
	"github.com/rubricgate/rubricgate/finding"
	"sort"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// acceptedPrefix starts the hidden line the gate keeps in its own sticky
// comment while a regression is accepted: the head commit at which the
// accept label first took effect, the score it accepted, the rubric's hash,
// the kinds of reasons it waived and the relative drop. It is read back
// only from a comment whose author is the token's identity (comment-author),
// so nobody can plant one; everything else in the body is escaped text.
const acceptedPrefix = "<!-- rubricgate:accepted "

// The kinds of reasons the accept label waives.
const (
	// KindDrop is a relative drop at or above max-drop.
	KindDrop = "drop"
	// KindRubricChange is a rubric change the gate cannot follow.
	KindRubricChange = "rubric-change"
	// KindUncheckedGates is a baseline blocking criterion the run lacks.
	KindUncheckedGates = "unchecked-gates"
	// KindRemovedCriteria is a baseline criterion the rubric removed.
	KindRemovedCriteria = "removed-criteria"
	// KindRemovedItems is baseline items the run no longer carries.
	KindRemovedItems = "removed-items"
	// KindRenamedRubric is a rubric name with no baseline where the
	// branch has baselines under other names.
	KindRenamedRubric = "renamed-rubric"
)

var knownKinds = map[string]bool{KindDrop: true, KindRubricChange: true, KindUncheckedGates: true, KindRemovedCriteria: true, KindRemovedItems: true, KindRenamedRubric: true}

// Acceptance is a regression accepted by the label at a head commit.
type Acceptance struct {
	SHA   string
	Score float64
	// Rubric is the rubric's hash, Kinds the waived reasons' kinds
	// (sorted), Drop the relative change accepted (nil without one).
	// Bound is false for a record of an older version, which holds only
	// the commit and the score.
	Rubric string
	Kinds  []string
	Drop   *float64
	Bound  bool
}

// Field is the hidden line recording the acceptance.
func (a Acceptance) Field() string {
	f := acceptedPrefix + "sha=" + a.SHA + " score=" + strconv.FormatFloat(a.Score, 'f', -1, 64)
	if a.Bound {
		f += " rubric=" + a.Rubric + " kinds=" + strings.Join(a.Kinds, ",")
		if a.Drop != nil {
			f += " drop=" + strconv.FormatFloat(*a.Drop, 'g', -1, 64)
		}
	}
	return f + " -->"
}

// ParseAccepted reads the hidden line from the first line of a comment body.
func ParseAccepted(body string) (Acceptance, bool) {
	first, _, _ := strings.Cut(body, "\n")
	rest, ok := strings.CutPrefix(strings.TrimSuffix(first, "\r"), acceptedPrefix)
	if !ok {
		return Acceptance{}, false
	}
	rest, ok = strings.CutSuffix(rest, " -->")
	if !ok {
		return Acceptance{}, false
	}
	var a Acceptance
	hasKinds := false
	for _, kv := range strings.Fields(rest) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "sha":
			a.SHA = v
		case "score", "drop":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return Acceptance{}, false
			}
			if k == "score" {
				a.Score = f
			} else {
				a.Drop = &f
			}
		case "rubric":
			if !isRubricHash(v) {
				return Acceptance{}, false
			}
			a.Rubric = v
		case "kinds":
			hasKinds = true
			for _, kd := range strings.Split(v, ",") {
				if kd == "" {
					continue
				}
				if !knownKinds[kd] {
					return Acceptance{}, false
				}
				a.Kinds = append(a.Kinds, kd)
			}
		}
	}
	if !isHexSHA(a.SHA) {
		return Acceptance{}, false
	}
	a.Bound = a.Rubric != "" && hasKinds
	return a, true
}

// isRubricHash accepts "sha256:" and hex digits.
func isRubricHash(s string) bool {
	h, ok := strings.CutPrefix(s, "sha256:")
	if !ok || len(h) != 64 {
		return false
	}
	return isHexSHA(h)
}

// waivedKinds are the kinds of reasons the label waived in g (sorted).
func waivedKinds(g *gate.GateReport) []string {
	var ks []string
	if dc := g.DropCheck; dc != nil && dc.Blocks {
		ks = append(ks, KindDrop)
	}
	if rc := g.RubricChange; rc != nil {
		ks = append(ks, KindRubricChange)
		if len(rc.Removed) > 0 {
			ks = append(ks, KindRemovedCriteria)
		}
		if len(rc.UncheckedGates) > 0 {
			ks = append(ks, KindUncheckedGates)
		}
	}
	if ri := g.RemovedItems; ri != nil && ri.Accepted {
		ks = append(ks, KindRemovedItems)
	}
	sort.Strings(ks)
	return ks
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

// shownScore is the score the headline shows: under the baseline's rubric
// when the run was re-scored to compare.
func shownScore(g *gate.GateReport) *float64 {
	if g.ComparedScore != nil {
		return g.ComparedScore
	}
	return g.Score
}

// acceptanceNote returns, for a pull request run whose regression the
// accept label waived, the hidden line to keep in the sticky comment and a
// note for the report: the head commit at which the label first took
// effect, its score, rubric and the kinds of reasons it waived, and whether
// later commits changed the score. The acceptance is read back from the
// gate's own sticky comment (previous). It covers only what was accepted:
// a later push that brings a new kind of waived reason, another rubric, or
// a drop larger than the accepted one by more than max-drop is not
// covered, and the run is blocked again (g is changed) with the record
// kept, so removing and re-adding the label is the way to accept it. When
// the comment cannot be read (previous is nil: no token, comments off,
// comment-author "*"; or an API error) this run's commit is taken as the
// one at which it was applied, and the note says the acceptance is not
// bound to a commit.
//
// extra are kinds the label waived outside the report's decision (a
// renamed rubric accepted with a warning).
func acceptanceNote(ctx context.Context, b *host.Build, previous func(context.Context, string) (string, bool, error), label, key, rubricHash string, maxDrop float64, g *gate.GateReport, extra []string, warn func(string)) (field, note string) {
	score := shownScore(g)
	if !(g.Accepted || len(extra) > 0 && g.Decision == gate.Pass) || b == nil || b.ChangeRequest == 0 || score == nil || !isHexSHA(b.HeadSHA) {
		return "", ""
	}
	kinds := append(waivedKinds(g), extra...)
	sort.Strings(kinds)
	now := Acceptance{SHA: b.HeadSHA, Score: *score, Rubric: rubricHash, Kinds: kinds, Bound: true}
	if dc := g.DropCheck; dc != nil && dc.Blocks {
		// The drop the check blocked on (over the items in common when
		// the item sets differ), as a relative change.
		d := -dc.Drop
		now.Drop = &d
	}
	was := now
	bound := false
	unbound := "the gate cannot read back its own comment (no token, comments off or comment-author *)"
	if previous != nil {
		if body, _, err := previous(ctx, key); err != nil {
			warn("accept label: could not read the previous comment: " + err.Error())
			unbound = "the gate could not read back its own comment"
		} else {
			bound = true
			if prev, ok := ParseAccepted(body); ok && prev.Bound {
				was = prev
			} else if ok {
				// A record of an older version: its commit and score, bound
				// from now on to what this run waives.
				was.SHA, was.Score = prev.SHA, prev.Score
			}
		}
	}
	lbl := safe.Code(label, 60)
	at := fmt.Sprintf("at commit %s (score %s)", safe.Code(shortSHA(was.SHA), 12), strconv.FormatFloat(was.Score, 'f', 1, 64))
	if adds := notCovered(was, now, maxDrop); len(adds) > 0 {
		// Not covered: block again, keeping the record.
		what := strings.Join(was.Kinds, ", ")
		if what == "" {
			what = "nothing"
		}
		revoked := finding.Finding{Kind: finding.AcceptanceNotCovered, Severity: finding.Error,
			Params: finding.Params{AcceptLabel: label, Commit: was.SHA, Waived: was.Kinds, From: was.Rubric, Adds: adds}}
		reason := revoked.Text()
		g.Accepted = false
		g.Decision = gate.Block
		if g.RubricChange != nil {
			g.RubricChange.Accepted = false
		}
		reasons := []string{reason}
		for _, r := range g.Reasons {
			reasons = append(reasons, strings.TrimPrefix(r, "accepted by the "+label+" label: "))
		}
		g.Reasons = reasons
		// The findings follow: what was accepted blocks again.
		fs := []finding.Finding{revoked}
		for _, f := range g.Findings {
			if f.Severity == finding.Notice && f.Label == label {
				f.Label, f.Severity = "", finding.Error
			}
			fs = append(fs, f)
		}
		g.Findings = fs
		note = fmt.Sprintf("> [!CAUTION]\n> The %s label was applied %s for %s. This push adds %s: the label does not cover it. Remove and re-add the label to accept it.\n\n",
			lbl, at, safe.Code(what, 100), safe.Code(strings.Join(adds, "; "), 300))
		return was.Field(), note
	}
	switch {
	case !bound:
		note = fmt.Sprintf("> [!WARNING]\n> The regression was accepted by the %s label. **The acceptance is not bound to a commit**: %s, so the label accepts whatever later pushes bring while it stays on.\n\n", lbl, unbound)
	case strings.EqualFold(was.SHA, now.SHA):
		note = fmt.Sprintf("> [!NOTE]\n> The regression was accepted by the %s label %s. The label covers later pushes only for the same kinds of reasons, the same rubric and a drop no larger by more than max-drop; this comment will say when a later commit changes the score.\n\n", lbl, at)
	case fmt.Sprintf("%.1f", was.Score) == fmt.Sprintf("%.1f", now.Score):
		note = fmt.Sprintf("> [!NOTE]\n> The regression was accepted by the %s label %s; the score is unchanged at %s.\n\n", lbl, at, safe.Code(shortSHA(now.SHA), 12))
	default:
		note = fmt.Sprintf("> [!WARNING]\n> The regression was accepted by the %s label %s. **Later commits changed the score**: %s at %s. The label still accepts it; remove and re-apply the label to accept the new score explicitly.\n\n",
			lbl, at, strconv.FormatFloat(now.Score, 'f', 1, 64), safe.Code(shortSHA(now.SHA), 12))
	}
	return was.Field(), note
}

// notCovered lists what the run now brings that the acceptance was does
// not cover: a new kind of waived reason, another rubric, a drop larger
// than the accepted one by more than maxDrop.
func notCovered(was, now Acceptance, maxDrop float64) []string {
	var adds []string
	had := map[string]bool{}
	for _, k := range was.Kinds {
		had[k] = true
	}
	for _, k := range now.Kinds {
		if !had[k] {
			adds = append(adds, "a new kind of waived reason: "+k)
		}
	}
	if was.Rubric != now.Rubric {
		adds = append(adds, fmt.Sprintf("another rubric (%s, accepted %s)", shortRubric(now.Rubric), shortRubric(was.Rubric)))
	}
	if was.Drop != nil && now.Drop != nil && *now.Drop < *was.Drop-maxDrop {
		adds = append(adds, fmt.Sprintf("a larger drop (%.2f%%, accepted %.2f%%)", 100**now.Drop, 100**was.Drop))
	}
	return adds
}

func shortRubric(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

func shortSHA(s string) string {
	if len(s) > 7 {
		return s[:7]
	}
	return s
}

// withAcceptance puts the hidden line first and the note after the
// headline of the markdown report.
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
