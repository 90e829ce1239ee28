package baseline

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/gate"
)

// maxAnchorReason caps the recorded reason of an accepted anchor.
const maxAnchorReason = 1000

// wireAnchor is the JSON form of an anchor.
type wireAnchor struct {
	Score  *float64         `json:"score"`
	SE     *float64         `json:"se"`
	SHA    string           `json:"sha"`
	Date   *string          `json:"date"`
	Runs   *int             `json:"runs"`
	Cause  gate.AnchorCause `json:"cause"`
	Reason string           `json:"reason,omitempty"`
}

func (f *File) anchorWire() *wireAnchor {
	a := f.Anchor
	if a == nil {
		return nil
	}
	score, se, runs, date := a.Score, a.SE, a.Runs, a.Date.UTC().Format(time.RFC3339)
	return &wireAnchor{Score: &score, SE: &se, SHA: a.SHA, Date: &date, Runs: &runs, Cause: a.Cause, Reason: a.Reason}
}

// readAnchor decodes the anchor member (nil: a file without one).
func readAnchor(w *wireAnchor) (*gate.Anchor, error) {
	if w == nil {
		return nil, nil
	}
	missing := func(name string) error { return fmt.Errorf("field %q: missing", "anchor."+name) }
	switch {
	case w.Score == nil:
		return nil, missing("score")
	case w.SE == nil:
		return nil, missing("se")
	case w.Date == nil:
		return nil, missing("date")
	case w.Runs == nil:
		return nil, missing("runs")
	}
	date, err := time.Parse(time.RFC3339, *w.Date)
	if err != nil {
		return nil, fmt.Errorf("field \"anchor.date\": expected an RFC 3339 time, found %q", *w.Date)
	}
	return &gate.Anchor{Score: *w.Score, SE: *w.SE, SHA: w.SHA, Date: date.UTC(), Runs: *w.Runs, Cause: w.Cause, Reason: w.Reason}, nil
}

// checkAnchor checks the anchor's values; errors name the field. An anchor
// needs a history, whose head binds it.
func (f *File) checkAnchor() error {
	a := f.Anchor
	if a == nil {
		return nil
	}
	if f.History.Head == "" {
		return errors.New("field \"anchor\": an anchor is carried with the history (its head binds it); the file was edited or is corrupt")
	}
	if err := inRange("anchor.score", a.Score, 0, 100); err != nil {
		return err
	}
	if math.IsNaN(a.SE) || a.SE < 0 || a.SE > 100 {
		return fmt.Errorf("field \"anchor.se\": expected a standard error from 0 to 100 points, found %v", a.SE)
	}
	if a.SHA != "" && !isCommit(a.SHA) {
		return fmt.Errorf("field \"anchor.sha\": expected a commit (7-64 hex digits), found %q", a.SHA)
	}
	if a.Date.IsZero() {
		return errors.New("field \"anchor.date\": missing")
	}
	if a.Runs < 1 || a.Runs > MaxPoolRuns {
		return fmt.Errorf("field \"anchor.runs\": %d is not a number of runs from 1 to %d", a.Runs, MaxPoolRuns)
	}
	switch a.Cause {
	case gate.AnchorStart, gate.AnchorAccepted, gate.AnchorImprovement:
	default:
		return fmt.Errorf("field \"anchor.cause\": expected %q, %q or %q, found %q", gate.AnchorStart, gate.AnchorAccepted, gate.AnchorImprovement, a.Cause)
	}
	if len(a.Reason) > maxAnchorReason || !utf8.ValidString(a.Reason) {
		return fmt.Errorf("field \"anchor.reason\": expected at most %d bytes of UTF-8", maxAnchorReason)
	}
	return nil
}

// anchorHead binds the anchor to head, the hash of the file's own point
// (and pooled figures): what history.head holds for a file with an
// anchor. Editing the anchor (its score, noise, commit, date, runs, cause
// or reason) breaks the head as editing the score does.
func (f *File) anchorHead(head string) string {
	a := f.Anchor
	if a == nil {
		return head
	}
	b, err := json.Marshal(struct {
		V      string `json:"v"`
		Head   string `json:"head"`
		Score  string `json:"score"`
		SE     string `json:"se"`
		SHA    string `json:"sha"`
		Date   string `json:"date"`
		Runs   int    `json:"runs"`
		Cause  string `json:"cause"`
		Reason string `json:"reason"`
	}{"anchor-1", head, fixed6(a.Score), fixed6(a.SE), a.SHA, a.Date.UTC().Format(time.RFC3339), a.Runs, string(a.Cause), a.Reason})
	if err != nil {
		return "" // cannot happen: strings and an int
	}
	return hashOf(b)
}

// OwnSE is the standard error, in points, of the file's score as a
// measure of the branch's level: from its items' answer variances when
// they carry some (a pooled baseline, or answer samples), else runSE (this
// run's, measured by the gate from its comparison; 0 when unknown).
func (f *File) OwnSE(runSE float64) float64 {
	n := f.Items.Len()
	if n == 0 || !f.Items.HasAnswers() {
		return runSE
	}
	var s float64
	measured := false
	for i := range n {
		k := f.Items.Answers(i)
		if k > 1 {
			measured = true
			s += f.Items.AnswerVar(i) / float64(k)
		}
	}
	if !measured {
		return runSE
	}
	return math.Sqrt(s) / float64(n)
}

// AnchorUpdate is what the gate measured of the run a new baseline is made
// from, which moves (or keeps) the branch's anchor (see [File.SetAnchor]).
type AnchorUpdate struct {
	// Pooled is true when the new baseline pooled the previous one.
	Pooled bool
	// Accepted is true when a regression of the run was accepted; Reason
	// is the acceptance's reason (the --accept reason, or the label).
	Accepted bool
	Reason   string
	// Change is the run's relative change from the previous baseline on
	// the items compared, under its rubric (nil when it was not compared
	// with it: no previous baseline, or a rubric change the gate could not
	// follow).
	Change *float64
	// RunSE is the run's standard error in points (0: not measured), and
	// BaseSE the previous baseline's, as the comparison measured it.
	RunSE, BaseSE float64
}

// SetAnchor sets f's anchor, the level the branch is held to, from prev's
// (the baseline this run was compared with) and what the gate measured:
//
//   - no previous anchor, or a run not compared with prev: the anchor
//     starts at f;
//   - an accepted regression: the anchor moves to f (recorded with the
//     acceptance's reason, and bound by the history's head like the rest);
//   - otherwise it stays where it was, carried over onto f's items and
//     rubric (when they differ from prev's, the cumulative change the run
//     showed is kept: the anchor never moves by drift);
//   - it stays at the run that set it (a start or an acceptance) while
//     that run's pool fills: the pool's mean would follow a slide within
//     noise; an anchor set by a run of one answer per item takes its noise
//     from the first comparison that measures it;
//   - a baseline resolved above it raises it to the lower one-sided 95%
//     bound of the gain (f's score less 1.645 standard errors of the
//     difference), so a gain cannot be given back unseen and a lucky run
//     does not lift it by its luck.
func (f *File) SetAnchor(prev *File, u AnchorUpdate) {
	se := f.OwnSE(u.RunSE)
	here := func(cause gate.AnchorCause, reason string) *gate.Anchor {
		return &gate.Anchor{Score: f.Score, SE: se, SHA: commitOrEmpty(f.SHA), Date: f.CreatedAt.UTC(), Runs: max(f.PooledRuns, 1), Cause: cause, Reason: reason}
	}
	defer func() { f.History.Head = f.headHash() }()
	switch {
	case prev == nil || prev.Anchor == nil || u.Change == nil || !(prev.Score > 0) || !(*u.Change > -1) || math.IsInf(*u.Change, 0):
		f.Anchor = here(gate.AnchorStart, "")
		return
	case u.Accepted:
		reason := u.Reason
		if len(reason) > maxAnchorReason {
			reason = reason[:maxAnchorReason]
		}
		if !utf8.ValidString(reason) {
			reason = ""
		}
		f.Anchor = here(gate.AnchorAccepted, reason)
		return
	}
	pa := *prev.Anchor
	// The run measured (1 + change) · prev's score on prev's items and
	// rubric; the anchor keeps its ratio to that on f's own items and
	// rubric (the same figure when they are prev's).
	ratio := f.ownScore() / ((1 + *u.Change) * prev.Score)
	a := pa
	a.Score, a.SE = pa.Score*ratio, pa.SE*ratio
	prevRuns := max(prev.PooledRuns, 1)
	warm := (pa.Cause == gate.AnchorStart || pa.Cause == gate.AnchorAccepted) && pa.Runs == prevRuns
	if warm && a.SE == 0 {
		// Set by a run of one answer per item, whose noise nothing
		// measured then: this comparison measured it.
		a.SE = u.BaseSE * ratio
	}
	// The anchor stays at the run that set it while its pool fills: a
	// pool's mean would follow a slide within noise.
	if low := f.Score - z95*math.Sqrt(a.SE*a.SE+se*se); low > a.Score {
		a = gate.Anchor{Score: low, SE: se, SHA: commitOrEmpty(f.SHA), Date: f.CreatedAt.UTC(), Runs: max(f.PooledRuns, 1), Cause: gate.AnchorImprovement}
	}
	a.Score = clamp100(a.Score)
	a.SE = math.Min(math.Max(a.SE, 0), 100)
	f.Anchor = &a
}

// z95 is the 95th percentile of the standard normal distribution.
const z95 = 1.6448536269514722

// anchorCopy is a copy of f's anchor (nil without one).
func (f *File) anchorCopy() *gate.Anchor {
	if f.Anchor == nil {
		return nil
	}
	a := *f.Anchor
	return &a
}
