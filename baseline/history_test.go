package baseline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chain saves n baselines of branch main into a Dir store as the gate does
// (the previous one read back with Latest, the new one continuing it, then
// Save), the k-th scoring 40+k and made at hour k on commit k+1. It
// returns the store and the scores saved, oldest first.
func chain(t *testing.T, n int) (Dir, Query, []float64) {
	t.Helper()
	d := Dir{Root: t.TempDir()}
	q := Query{Rubric: "rag-review", Branch: "main"}
	rb := testRubric(q.Rubric)
	var scores []float64
	for k := range n {
		prev, _, err := d.Latest(context.Background(), q)
		if k == 0 && !errors.Is(err, ErrNotFound) || k > 0 && err != nil {
			t.Fatalf("baseline %d: Latest: %v", k, err)
		}
		items := flatItems(40 + float64(k))
		m := testMeta
		m.CreatedAt, m.SHA = testCreated.Add(time.Duration(k)*time.Hour), fmt.Sprintf("%040x", k+1)
		f, err := New(rb, reportOf(rb, items), items, m)
		if err != nil {
			t.Fatalf("baseline %d: New: %v", k, err)
		}
		f.Continue(prev)
		if err := d.Save(q, f); err != nil {
			t.Fatalf("baseline %d: Save: %v", k, err)
		}
		scores = append(scores, 40+float64(k))
	}
	return d, q, scores
}

// Each saved baseline's history is the previous one's plus the previous
// one's own point, up to 30 entries: 35 baselines saved in turn keep the
// last 30 before the newest, in order, chained, and the trend ends with the
// newest.
func TestHistoryGrowsAndCapsAcrossSavedBaselines(t *testing.T) {
	for _, n := range []int{1, 2, 5, MaxHistory, MaxHistory + 1, MaxHistory + 5} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			d, q, scores := chain(t, n)
			f, _, err := d.Latest(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			want := min(n-1, MaxHistory)
			if got := len(f.History.Entries); got != want {
				t.Fatalf("%d entries after %d baselines, want %d", got, n, want)
			}
			earlier := scores[:n-1][n-1-want:]
			for i, e := range f.History.Entries {
				k := n - 1 - want + i // the baseline this entry is
				if e.Score != earlier[i] || e.Seq != k || e.SHA != fmt.Sprintf("%040x", k+1) || !e.Date.Equal(testCreated.Add(time.Duration(k)*time.Hour)) {
					t.Errorf("entry %d = seq %d score %v sha %s date %v, want baseline %d (score %v)", i, e.Seq, e.Score, e.SHA, e.Date, k, earlier[i])
				}
				if len(e.Criteria) != 2 || e.Criteria[0].ID != "faithfulness" || *e.Criteria[0].Normalized != 75 {
					t.Errorf("entry %d criteria %+v", i, e.Criteria)
				}
			}
			tr := f.Trend()
			if len(tr) != want+1 || tr[len(tr)-1].Score != scores[n-1] || tr[len(tr)-1].SHA != fmt.Sprintf("%040x", n) {
				t.Errorf("trend %+v: want %d points ending with the newest baseline", tr, want+1)
			}
		})
	}
}

// A re-run on the commit of the previous baseline replaces it: the history
// does not gain a second point for the same commit.
func TestHistoryRerunOnSameCommitReplaces(t *testing.T) {
	d, q, _ := chain(t, 3)
	prev, _, err := d.Latest(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	rb := testRubric(q.Rubric)
	items := flatItems(50)
	m := testMeta
	m.CreatedAt, m.SHA = testCreated.Add(10*time.Hour), prev.SHA
	f, err := New(rb, reportOf(rb, items), items, m)
	if err != nil {
		t.Fatal(err)
	}
	f.Continue(prev)
	if err := d.Save(q, f); err != nil {
		t.Fatal(err)
	}
	got, _, err := d.Latest(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.History.Entries); n != 2 {
		t.Fatalf("%d entries, want the 2 of the replaced baseline", n)
	}
	if tr := got.Trend(); tr[len(tr)-1].Score != 50 {
		t.Errorf("trend ends with %v, want the re-run's 50", tr[len(tr)-1].Score)
	}
}

// A baseline written before baselines had a history reads, with an empty
// history and no trend, and the next baseline's history starts with it.
func TestHistoryOldBaselineReads(t *testing.T) {
	old, err := readPath(filepath.Join("testdata", "no-history.json"))
	if err != nil {
		t.Fatalf("a baseline without history: %v", err)
	}
	if len(old.History.Entries) != 0 || old.History.Head != "" || old.Trend() != nil {
		t.Fatalf("history %+v, trend %v: want none", old.History, old.Trend())
	}
	rb := testRubric("rag-review")
	items := flatItems(80)
	m := testMeta
	m.SHA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	m.CreatedAt = old.CreatedAt.Add(time.Hour)
	f, err := New(rb, reportOf(rb, items), items, m)
	if err != nil {
		t.Fatal(err)
	}
	f.Continue(old)
	g, err := Read(bytes.NewReader(encode(t, f)), "new.json", 0)
	if err != nil {
		t.Fatal(err)
	}
	if e := g.History.Entries; len(e) != 1 || e[0].Seq != 0 || e[0].Prev != "" || e[0].Score != old.Score || e[0].SHA != old.SHA {
		t.Errorf("entries %+v: want the old baseline's point, seq 0", e)
	}
}

// A doctored history is refused, naming the file and the field: an entry's
// score edited (with or without its hash recomputed), an entry removed
// (first, middle, last), inserted or moved, the file's own figures edited
// under a history, a hostile sha.
func TestHistoryDoctoredIsRefused(t *testing.T) {
	d, q, _ := chain(t, 6) // 5 entries
	path, err := d.Path(q)
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Read(bytes.NewReader(good), "b.json", 0); err != nil {
		t.Fatal(err)
	}
	type doc = map[string]any
	entries := func(m doc) []any { return m["history"].(doc)["entries"].([]any) }
	setEntries := func(m doc, es []any) { m["history"].(doc)["entries"] = es }
	for _, tc := range []struct {
		name string
		edit func(m doc)
		want string
	}{
		{"score edited", func(m doc) { entries(m)[2].(doc)["score"] = 99.0 },
			`field "history.entries[2]": the entry (seq 2, score 99`},
		{"criterion mean edited", func(m doc) { entries(m)[1].(doc)["criteria"].([]any)[0].(doc)["normalized"] = 10.0 },
			`field "history.entries[1]": the entry (seq 1`},
		{"date edited", func(m doc) { entries(m)[0].(doc)["date"] = "2020-01-01T00:00:00Z" },
			`field "history.entries[0]": the entry (seq 0`},
		{"score edited and its hash recomputed", func(m doc) {
			e := entries(m)[2].(doc)
			e["score"] = 99.0
			he := HistoryEntry{Seq: 2, Score: 99, SHA: e["sha"].(string), Prev: e["prev"].(string)}
			he.Date, _ = time.Parse(time.RFC3339, e["date"].(string))
			b, _ := json.Marshal(e["criteria"])
			_ = json.Unmarshal(b, &he.Criteria)
			e["hash"] = hashEntry(&he)
		}, `field "history.entries[3].prev": is not the hash of history.entries[2]`},
		{"middle entry removed", func(m doc) { es := entries(m); setEntries(m, append(es[:2:2], es[3:]...)) },
			`field "history.entries[2].seq": 3 follows seq 1: an entry was removed or inserted`},
		{"first entry removed", func(m doc) { setEntries(m, entries(m)[1:]) },
			`field "history.entries[0].seq": the history holds 4 entries, fewer than 30`},
		{"last entry removed", func(m doc) { es := entries(m); setEntries(m, es[:len(es)-1]) },
			`field "history.head": the file's own point`},
		{"entry inserted", func(m doc) {
			es := entries(m)
			dup := map[string]any{}
			for k, v := range es[1].(doc) {
				dup[k] = v
			}
			dup["score"] = 12.0
			setEntries(m, append(es[:2:2], append([]any{dup}, es[2:]...)...))
		}, `field "history.entries[2].seq": 1 follows seq 1: an entry was removed or inserted`},
		{"entries swapped", func(m doc) { es := entries(m); es[1], es[2] = es[2], es[1] },
			`field "history.entries[1].seq": 2 follows seq 0`},
		{"file's sha edited", func(m doc) { m["sha"] = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb" }, `field "history.head"`},
		{"head edited", func(m doc) { m["history"].(doc)["head"] = "sha256:" + strings.Repeat("0", 64) }, `field "history.head"`},
		{"head removed", func(m doc) { delete(m["history"].(doc), "head") }, `field "history.head": missing`},
		{"entry hash removed", func(m doc) { delete(entries(m)[3].(doc), "hash") }, `field "history.entries[3].hash": missing`},
		{"hostile sha", func(m doc) { entries(m)[4].(doc)["sha"] = "abc\"]\n```\n<img src=x>" },
			`field "history.entries[4].sha": expected a commit (7-64 hex digits)`},
		{"score out of range", func(m doc) { entries(m)[4].(doc)["score"] = 1e9 }, `field "history.entries[4].score"`},
		{"31 entries", func(m doc) {
			es := entries(m)
			for len(es) <= MaxHistory {
				es = append(es, es[0])
			}
			setEntries(m, es)
		}, `field "history.entries": 31 entries, at most 30`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m doc
			if err := json.Unmarshal(good, &m); err != nil {
				t.Fatal(err)
			}
			tc.edit(m)
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Read(bytes.NewReader(data), "store/b.json", 0)
			if err == nil || !strings.HasPrefix(err.Error(), "store/b.json: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v\nwant one naming store/b.json and saying %q", err, tc.want)
			}
		})
	}
	// Re-encoded by a JSON tool, untouched otherwise: still reads.
	var m doc
	if err := json.Unmarshal(good, &m); err != nil {
		t.Fatal(err)
	}
	data, _ := json.MarshalIndent(m, "", "\t")
	if _, err := Read(bytes.NewReader(data), "b.json", 0); err != nil {
		t.Errorf("a re-encoded baseline was refused: %v", err)
	}
}

// BenchmarkFullHistory writes and reads a small baseline carrying a full
// history (30 entries) and reports the bytes the history adds: the cost of
// the trend on every read is its chain's 31 hashes.
func BenchmarkFullHistory(b *testing.B) {
	rb := testRubric("rag-review")
	var f *File
	for k := range MaxHistory + 1 {
		items := flatItems(40 + float64(k))
		m := testMeta
		m.CreatedAt, m.SHA = testCreated.Add(time.Duration(k)*time.Hour), fmt.Sprintf("%040x", k+1)
		g, err := New(rb, reportOf(rb, items), items, m)
		if err != nil {
			b.Fatal(err)
		}
		g.Continue(f)
		f = g
	}
	full := encode(b, f)
	bare := *f
	bare.History = History{}
	without := encode(b, &bare)
	b.Run("write", func(b *testing.B) {
		var buf bytes.Buffer
		for b.Loop() {
			buf.Reset()
			if err := f.Write(&buf); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(full)-len(without)), "history-bytes")
	})
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := Read(bytes.NewReader(full), "b.json", 0); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read-without-history", func(b *testing.B) {
		for b.Loop() {
			if _, err := Read(bytes.NewReader(without), "b.json", 0); err != nil {
				b.Fatal(err)
			}
		}
	})
}
