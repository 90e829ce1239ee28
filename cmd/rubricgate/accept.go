package main

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// acceptedPrefix starts the hidden line the gate keeps in its own sticky
// comment while a regression is accepted: the head commit at which the
// accept label first took effect and the score it accepted. It is read back
// only from a comment whose author is the token's identity (comment-author),
// so nobody can plant one; everything else in the body is escaped text.
const acceptedPrefix = "<!-- rubricgate:accepted "

// acceptance is a regression accepted by the label at a head commit.
type acceptance struct {
	sha   string
	score float64
}

func (a acceptance) field() string {
	return acceptedPrefix + "sha=" + a.sha + " score=" + strconv.FormatFloat(a.score, 'f', -1, 64) + " -->"
}

// parseAccepted reads the hidden line from the first line of a comment body.
func parseAccepted(body string) (acceptance, bool) {
	first, _, _ := strings.Cut(body, "\n")
	rest, ok := strings.CutPrefix(strings.TrimSuffix(first, "\r"), acceptedPrefix)
	if !ok {
		return acceptance{}, false
	}
	rest, ok = strings.CutSuffix(rest, " -->")
	if !ok {
		return acceptance{}, false
	}
	var a acceptance
	for _, kv := range strings.Fields(rest) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "sha":
			a.sha = v
		case "score":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return acceptance{}, false
			}
			a.score = f
		}
	}
	if !isHexSHA(a.sha) {
		return acceptance{}, false
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

// acceptance returns, for a pull request run whose regression the accept
// label waived, the hidden line to keep in the sticky comment and a note for
// the report: the head commit at which the label first took effect and its
// score, and whether later commits changed the score. The acceptance is read
// back from the gate's own sticky comment; when that cannot be read (no
// token, comments off, comment-author "*", an API error) this run's commit
// is taken as the one at which it was applied.
func (c *gateConfig) acceptance(ctx context.Context, e *env, gh *ghContext, key string, g *gate.GateReport) (field, note string) {
	score := shownScore(g)
	if !g.Accepted || gh == nil || gh.pr == 0 || score == nil || !isHexSHA(gh.headSHA) {
		return "", ""
	}
	now := acceptance{sha: gh.headSHA, score: *score}
	was := now
	if c.comment != "never" && c.githubToken != "" && c.commentAuthor != "*" && c.commentAuthor != "" {
		if prev, ok, err := c.previousAcceptance(ctx, e, gh, key); err != nil {
			warn(e, "", 0, "accept label: could not read the previous comment: "+err.Error())
		} else if ok {
			was = prev
		}
	}
	label := safe.Code(c.acceptLabel, 60)
	at := fmt.Sprintf("at commit %s (score %s)", safe.Code(shortSHA(was.sha), 12), strconv.FormatFloat(was.score, 'f', 1, 64))
	switch {
	case strings.EqualFold(was.sha, now.sha):
		note = fmt.Sprintf("> [!NOTE]\n> The regression was accepted by the %s label %s. The label stays in force for later pushes; this comment will say when a later commit changes the score.\n\n", label, at)
	case fmt.Sprintf("%.1f", was.score) == fmt.Sprintf("%.1f", now.score):
		note = fmt.Sprintf("> [!NOTE]\n> The regression was accepted by the %s label %s; the score is unchanged at %s.\n\n", label, at, safe.Code(shortSHA(now.sha), 12))
	default:
		note = fmt.Sprintf("> [!WARNING]\n> The regression was accepted by the %s label %s. **Later commits changed the score**: %s at %s. The label still accepts it; remove and re-apply the label to accept the new score explicitly.\n\n",
			label, at, strconv.FormatFloat(now.score, 'f', 1, 64), safe.Code(shortSHA(now.sha), 12))
	}
	return was.field(), note
}

func (c *gateConfig) previousAcceptance(ctx context.Context, e *env, gh *ghContext, key string) (acceptance, bool, error) {
	api, err := baseline.NewGitHubClient(gh.apiURL, c.githubToken, &http.Client{Timeout: 30 * time.Second})
	if err != nil {
		return acceptance{}, false, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	svc := &comment.Service{Client: api, Owner: gh.owner, Repo: gh.repo, Author: c.commentAuthor, Logf: commentLog(e)}
	body, ok, err := svc.Existing(ctx, gh.pr, key)
	if err != nil || !ok {
		return acceptance{}, false, err
	}
	a, ok := parseAccepted(body)
	return a, ok, nil
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
