package baseline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/gate"
)

// MaxHistory is how many earlier baselines of its branch a baseline's
// history keeps, oldest dropped first.
const MaxHistory = 30

// History is the chain of the earlier baselines of a branch a baseline
// carries, for the trend the report shows. Nothing is fetched for it: each
// new baseline's history is the previous baseline's history plus the
// previous baseline's own point, the last [MaxHistory] of them.
//
// The entries are hash-chained: each entry's Hash covers its content and
// its Prev, the Hash of the entry before it, and Head chains the file's own
// point (its score, criteria, sha and created_at) to the last entry. An
// entry edited, removed or inserted, or a file whose own figures were
// edited, no longer verifies, and Read refuses it naming the field. The
// chain holds no secret: whoever recomputes every hash can write any
// history, as whoever rewrites every item score can write any aggregate.
// What makes a baseline trustworthy is where it comes from (an artifact of
// a push run on the baseline branch); the chain catches hand edits, tools
// that change one value, truncation and splicing.
type History struct {
	// Entries are the earlier baselines, oldest first.
	Entries []HistoryEntry
	// Head is the hash of the file's own point chained to the last entry
	// ("" for a file written before baselines carried a history).
	Head string
}

// HistoryEntry is one earlier baseline of the branch.
type HistoryEntry struct {
	// Seq numbers the baselines of the chain from 0, its first.
	Seq int
	// Score is that baseline's score (0-100), Criteria its per-criterion
	// normalised means.
	Score    float64
	Criteria []gate.CriterionMean
	// SHA is its commit (hex, "" when unknown); Date when it was made.
	SHA  string
	Date time.Time
	// Prev is the hash of the entry before it ("" for the chain's first);
	// Hash is its own ("sha256:<hex>", see [History]).
	Prev, Hash string
}

// wireHistory is the JSON form of a History.
type wireHistory struct {
	Entries *[]wireEntry `json:"entries"`
	Head    *string      `json:"head"`
}

type wireEntry struct {
	Seq      *int                  `json:"seq"`
	Score    *float64              `json:"score"`
	Criteria *[]gate.CriterionMean `json:"criteria"`
	SHA      string                `json:"sha"`
	Date     *string               `json:"date"`
	Prev     string                `json:"prev"`
	Hash     *string               `json:"hash"`
}

// hashedEntry is what an entry's hash covers, in this order: the version
// of the scheme, then the entry without its hash. The figures are written
// with 6 decimals, far finer than anything shown or decided on: a JSON tool
// that rewrites a number with fewer digits (within the tolerance Read
// allows the file's own figures) leaves the chain intact.
type hashedEntry struct {
	V        string       `json:"v"`
	Seq      int          `json:"seq"`
	Score    string       `json:"score"`
	Criteria []hashedMean `json:"criteria"`
	SHA      string       `json:"sha"`
	Date     string       `json:"date"`
	Prev     string       `json:"prev"`
}

type hashedMean struct {
	ID         string  `json:"id"`
	Normalized *string `json:"normalized"`
}

const historyHashVersion = "rubricgate baseline history 1"

// hashEntry is the hash of e's content and Prev.
func hashEntry(e *HistoryEntry) string {
	crit := make([]hashedMean, len(e.Criteria))
	for i, c := range e.Criteria {
		crit[i].ID = c.ID
		if c.Normalized != nil {
			v := fixed6(*c.Normalized)
			crit[i].Normalized = &v
		}
	}
	b, err := json.Marshal(hashedEntry{V: historyHashVersion, Seq: e.Seq, Score: fixed6(e.Score), Criteria: crit,
		SHA: e.SHA, Date: e.Date.UTC().Format(time.RFC3339), Prev: e.Prev})
	if err != nil {
		return "" // cannot happen: every member is a string, an int or a slice of them
	}
	return hashOf(b)
}

func fixed6(v float64) string { return strconv.FormatFloat(v, 'f', 6, 64) }

// ownPoint is the file's own point as the next baseline's history keeps
// it, chained to the file's last entry, with its hash.
func (f *File) ownPoint() HistoryEntry {
	e := HistoryEntry{Score: f.ownScore(), SHA: commitOrEmpty(f.SHA), Date: f.CreatedAt.UTC().Truncate(time.Second)}
	e.Criteria = make([]gate.CriterionMean, len(f.Criteria))
	for i, c := range f.Criteria {
		e.Criteria[i] = gate.CriterionMean{ID: c.ID, Normalized: c.Normalized}
	}
	if n := len(f.History.Entries); n > 0 {
		last := &f.History.Entries[n-1]
		e.Seq, e.Prev = last.Seq+1, last.Hash
	}
	e.Hash = hashEntry(&e)
	return e
}

// Continue makes f's history continue prev's: prev's entries followed by
// prev's own point, the last [MaxHistory] of them. A prev made on the
// same commit as f (a re-run) is replaced rather than kept: f's history is
// prev's. A nil prev leaves f starting a new chain.
func (f *File) Continue(prev *File) {
	var entries []HistoryEntry
	if prev != nil {
		entries = append(entries, prev.History.Entries...)
		if prev.SHA == "" || prev.SHA != f.SHA {
			entries = append(entries, prev.ownPoint())
		}
	}
	if len(entries) > MaxHistory {
		entries = entries[len(entries)-MaxHistory:]
	}
	f.History = History{Entries: entries}
	f.History.Head = f.headHash()
}

// headHash is what history.head holds: the file's own point's hash, and
// for a pooled baseline that hash bound to the pooled figures, and
// for a baseline with an anchor both bound to the anchor (its score,
// pass rate, runs and run digest), which the point (this run's own) does
// not carry: editing the pooled items and score together breaks the head
// as editing a single run's does.
func (f *File) headHash() string {
	own := f.ownPoint().Hash
	if f.PooledRuns <= 1 {
		return f.anchorHead(own)
	}
	b, err := json.Marshal(struct {
		V          string `json:"v"`
		Point      string `json:"point"`
		PooledRuns int    `json:"pooled_runs"`
		Score      string `json:"score"`
		PassRate   string `json:"pass_rate"`
		RunDigest  string `json:"run_digest"`
	}{"pooled-1", own, f.PooledRuns, fixed6(f.Score), fixed6(f.PassRate), f.RunDigest})
	if err != nil {
		return "" // cannot happen: strings and an int
	}
	return f.anchorHead(hashOf(b))
}

// Trend is the branch's baselines as the report shows them: the history's
// entries, then the file's own point.
func (f *File) Trend() []gate.TrendPoint {
	if f.History.Head == "" {
		return nil
	}
	pts := make([]gate.TrendPoint, 0, len(f.History.Entries)+1)
	for _, e := range append(append([]HistoryEntry(nil), f.History.Entries...), f.ownPoint()) {
		pts = append(pts, gate.TrendPoint{Score: e.Score, Criteria: e.Criteria, SHA: e.SHA, Date: e.Date})
	}
	return pts
}

// historyWire is the JSON form of f's history (nil for a file without one).
func (f *File) historyWire() *wireHistory {
	if f.History.Head == "" {
		return nil
	}
	entries := make([]wireEntry, len(f.History.Entries))
	for i := range f.History.Entries {
		e := &f.History.Entries[i]
		seq, score, date, hash := e.Seq, e.Score, e.Date.UTC().Format(time.RFC3339), e.Hash
		crit := e.Criteria
		if crit == nil {
			crit = []gate.CriterionMean{}
		}
		entries[i] = wireEntry{Seq: &seq, Score: &score, Criteria: &crit, SHA: e.SHA, Date: &date, Prev: e.Prev, Hash: &hash}
	}
	head := f.History.Head
	return &wireHistory{Entries: &entries, Head: &head}
}

// readHistory decodes the history member (nil: a file without one).
func readHistory(w *wireHistory) (History, error) {
	if w == nil {
		return History{}, nil
	}
	if w.Head == nil || *w.Head == "" {
		return History{}, errors.New("field \"history.head\": missing")
	}
	if w.Entries == nil {
		return History{}, errors.New("field \"history.entries\": missing")
	}
	h := History{Head: *w.Head, Entries: make([]HistoryEntry, len(*w.Entries))}
	for i, we := range *w.Entries {
		field := fmt.Sprintf("history.entries[%d]", i)
		missing := func(name string) error { return fmt.Errorf("field %q: missing", field+"."+name) }
		switch {
		case we.Seq == nil:
			return History{}, missing("seq")
		case we.Score == nil:
			return History{}, missing("score")
		case we.Criteria == nil:
			return History{}, missing("criteria")
		case we.Date == nil:
			return History{}, missing("date")
		case we.Hash == nil:
			return History{}, missing("hash")
		}
		date, err := time.Parse(time.RFC3339, *we.Date)
		if err != nil {
			return History{}, fmt.Errorf("field %q: expected an RFC 3339 time, found %q", field+".date", *we.Date)
		}
		h.Entries[i] = HistoryEntry{Seq: *we.Seq, Score: *we.Score, Criteria: *we.Criteria, SHA: we.SHA,
			Date: date.UTC(), Prev: we.Prev, Hash: *we.Hash}
	}
	return h, nil
}

// checkHistory checks the history's figures and its chain (see
// [History]); errors name the field.
func (f *File) checkHistory() error {
	h := &f.History
	if h.Head == "" {
		if len(h.Entries) > 0 {
			return errors.New("field \"history.head\": missing")
		}
		return nil
	}
	if n := len(h.Entries); n > MaxHistory {
		return fmt.Errorf("field \"history.entries\": %d entries, at most %d", n, MaxHistory)
	}
	edited := "; the history was edited or is corrupt"
	for i := range h.Entries {
		e := &h.Entries[i]
		field := fmt.Sprintf("history.entries[%d]", i)
		if err := checkEntry(field, e); err != nil {
			return err
		}
		if i == 0 {
			switch {
			case e.Seq < 0:
				return fmt.Errorf("field %q: %d is negative%s", field+".seq", e.Seq, edited)
			case e.Seq == 0 && e.Prev != "":
				return fmt.Errorf("field %q: the chain's first baseline (seq 0) has no previous one, found %q%s", field+".prev", e.Prev, edited)
			case e.Seq > 0 && len(h.Entries) < MaxHistory:
				return fmt.Errorf("field %q: the history holds %d entries, fewer than %d, so it starts at the chain's first baseline (seq 0), not %d: entries were removed from its start%s",
					field+".seq", len(h.Entries), MaxHistory, e.Seq, edited)
			case e.Seq > 0 && !isHash(e.Prev):
				return fmt.Errorf("field %q: expected \"sha256:<hex>\", found %q%s", field+".prev", e.Prev, edited)
			}
		} else {
			p := &h.Entries[i-1]
			if e.Seq != p.Seq+1 {
				return fmt.Errorf("field %q: %d follows seq %d: an entry was removed or inserted%s", field+".seq", e.Seq, p.Seq, edited)
			}
			if e.Prev != p.Hash {
				return fmt.Errorf("field %q: is not the hash of history.entries[%d]: an entry was removed, inserted or moved%s", field+".prev", i-1, edited)
			}
		}
		if got := hashEntry(e); got != e.Hash {
			return fmt.Errorf("field %q: the entry (seq %d, score %v, its criteria, sha and date) hashes to %s, not its hash %s: the entry was edited%s", field, e.Seq, e.Score, got, e.Hash, edited)
		}
	}
	if own := f.headHash(); own != h.Head {
		return fmt.Errorf("field \"history.head\": the file's own point (its score, criteria, sha and created_at; pooled: and its pooled figures) chained to the last entry hashes to %s, not %s: the last entry was removed, or the file's figures were edited%s", own, h.Head, edited)
	}
	return nil
}

// checkEntry checks one entry's values.
func checkEntry(field string, e *HistoryEntry) error {
	if err := inRange(field+".score", e.Score, 0, 100); err != nil {
		return err
	}
	if e.SHA != "" && !isCommit(e.SHA) {
		return fmt.Errorf("field %q: expected a commit (7-64 hex digits), found %q", field+".sha", e.SHA)
	}
	if e.Date.IsZero() {
		return fmt.Errorf("field %q: missing", field+".date")
	}
	if !isHash(e.Hash) {
		return fmt.Errorf("field %q: expected \"sha256:<hex>\", found %q", field+".hash", e.Hash)
	}
	seen := make(map[string]bool, len(e.Criteria))
	for j, c := range e.Criteria {
		cf := fmt.Sprintf("%s.criteria[%d]", field, j)
		switch {
		case c.ID == "" || len(c.ID) > 200 || !utf8.ValidString(c.ID):
			return fmt.Errorf("field %q: expected a criterion id (1-200 bytes of UTF-8), found %q", cf+".id", c.ID)
		case seen[c.ID]:
			return fmt.Errorf("field %q: duplicate criterion %q", cf+".id", c.ID)
		}
		seen[c.ID] = true
		if c.Normalized != nil {
			if err := inRange(cf+".normalized", *c.Normalized, 0, 100); err != nil {
				return err
			}
		}
	}
	return nil
}

// isCommit reports whether s is a commit id: 7 to 64 hex digits.
func isCommit(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isHexDigit(s[i]) {
			return false
		}
	}
	return true
}

func isHexDigit(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// commitOrEmpty is s when it is a commit id, else "": the file's sha is
// free text, a history entry's is a commit.
func commitOrEmpty(s string) string {
	if isCommit(s) {
		return s
	}
	return ""
}

// isHash reports whether s is "sha256:" and 64 hex digits.
func isHash(s string) bool {
	const p = "sha256:"
	if len(s) != len(p)+2*sha256.Size || s[:len(p)] != p {
		return false
	}
	_, err := hex.DecodeString(s[len(p):])
	return err == nil
}
