package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// acceptedPrefix starts the hidden line the gate keeps in its own sticky
// comment while a regression is accepted: the head commit at which the
// accept label first took effect and the score it accepted. It is read back
// only from a comment whose author is the token's identity (comment-author),
// so nobody can plant one; everything else in the body is escaped text.
const acceptedPrefix = "<!-- rubricgate:accepted "

// Acceptance is a regression accepted by the label at a head commit.
type Acceptance struct {
	SHA   string
	Score float64
}

// Field is the hidden line recording the acceptance.
func (a Acceptance) Field() string {
	return acceptedPrefix + "sha=" + a.SHA + " score=" + strconv.FormatFloat(a.Score, 'f', -1, 64) + " -->"
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
	for _, kv := range strings.Fields(rest) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "sha":
			a.SHA = v
		case "score":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return Acceptance{}, false
			}
			a.Score = f
		}
	}
	if !isHexSHA(a.SHA) {
		return Acceptance{}, false
	}
	return a, true
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
// note for the report: the head commit at which the label first took effect
// and its score, and whether later commits changed the score. The
// acceptance is read back from the gate's own sticky comment (previous);
// when that cannot be read (previous is nil: no token, comments off,
// comment-author "*"; or an API error) this run's commit is taken as the one
// at which it was applied.
func acceptanceNote(ctx context.Context, b *host.Build, previous func(context.Context, string) (string, bool, error), label, key string, g *gate.GateReport, warn func(string)) (field, note string) {
	score := shownScore(g)
	if !g.Accepted || b == nil || b.ChangeRequest == 0 || score == nil || !isHexSHA(b.HeadSHA) {
		return "", ""
	}
	now := Acceptance{SHA: b.HeadSHA, Score: *score}
	was := now
	if previous != nil {
		if body, ok, err := previous(ctx, key); err != nil {
			warn("accept label: could not read the previous comment: " + err.Error())
		} else if ok {
			if prev, ok := ParseAccepted(body); ok {
				was = prev
			}
		}
	}
	lbl := safe.Code(label, 60)
	at := fmt.Sprintf("at commit %s (score %s)", safe.Code(shortSHA(was.SHA), 12), strconv.FormatFloat(was.Score, 'f', 1, 64))
	switch {
	case strings.EqualFold(was.SHA, now.SHA):
		note = fmt.Sprintf("> [!NOTE]\n> The regression was accepted by the %s label %s. The label stays in force for later pushes; this comment will say when a later commit changes the score.\n\n", lbl, at)
	case fmt.Sprintf("%.1f", was.Score) == fmt.Sprintf("%.1f", now.Score):
		note = fmt.Sprintf("> [!NOTE]\n> The regression was accepted by the %s label %s; the score is unchanged at %s.\n\n", lbl, at, safe.Code(shortSHA(now.SHA), 12))
	default:
		note = fmt.Sprintf("> [!WARNING]\n> The regression was accepted by the %s label %s. **Later commits changed the score**: %s at %s. The label still accepts it; remove and re-apply the label to accept the new score explicitly.\n\n",
			lbl, at, strconv.FormatFloat(now.Score, 'f', 1, 64), safe.Code(shortSHA(now.SHA), 12))
	}
	return was.Field(), note
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
