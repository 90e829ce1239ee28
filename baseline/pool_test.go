package baseline

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// answersOf is one item as a baseline keeps it: the mean of its answers'
// scores, their count and their sample variance.
func answersOf(id string, scores ...float64) gate.ItemScore {
	mean, v := meanVar(scores)
	return gate.ItemScore{ID: id, Score: mean, Answers: len(scores), AnswerVar: v}
}

func meanVar(xs []float64) (float64, float64) {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	m := sum / float64(len(xs))
	if len(xs) < 2 {
		return m, 0
	}
	var ss float64
	for _, x := range xs {
		ss += (x - m) * (x - m)
	}
	return m, ss / float64(len(xs)-1)
}

func fileOf(t *testing.T, items []gate.ItemScore, sha string) *File {
	t.Helper()
	rb := testRubric("pool")
	m := testMeta
	m.SHA = sha
	f, err := New(rb, reportOf(rb, items), items, m)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// within is a paired comparison within noise: no item set change, an
// interval that includes 0 and has width.
func within() PoolCheck {
	b, c := 80.0, 80.5
	return PoolCheck{Paired: &gate.Paired{Common: 3, Method: gate.MethodPaired, CI95: &[2]float64{-0.02, 0.03}, CommonBaseline: &b, CommonCurrent: &c}}
}

// The pooled item is exactly what one run holding all the answers would
// keep: their mean, their count, their sample variance (the spread
// between the runs' means included); the aggregate is the pooled items'
// mean, and the trend point stays this run's own.
func TestPoolIsTheUnionOfAnswers(t *testing.T) {
	runA := [][]float64{{80, 60}, {100, 90}, {40, 50}}
	runB := [][]float64{{70, 90, 50}, {95, 85, 100}, {45, 60, 30}}
	var ia, ib []gate.ItemScore
	for i, id := range []string{"q-001", "q-002", "q-003"} {
		ia = append(ia, answersOf(id, runA[i]...))
		ib = append(ib, answersOf(id, runB[i]...))
	}
	prev := fileOf(t, ia, "1111111111111111111111111111111111111111")
	f := fileOf(t, ib, "2222222222222222222222222222222222222222")
	f.Continue(prev)
	own := f.Score
	why, err := f.Pool(prev, within(), 4)
	if err != nil || why != "" {
		t.Fatalf("Pool = %q, %v; want pooled", why, err)
	}
	if f.PooledRuns != 2 || f.RunScore != own {
		t.Errorf("PooledRuns %d RunScore %v; want 2 and this run's %v", f.PooledRuns, f.RunScore, own)
	}
	var sum float64
	for i := range 3 {
		all := append(append([]float64(nil), runA[i]...), runB[i]...)
		m, v := meanVar(all)
		sum += m
		if got := f.Items.Score(i); math.Abs(got-m) > 1e-9 {
			t.Errorf("item %d score %v, want the mean of all %d answers %v", i, got, len(all), m)
		}
		if got := f.Items.Answers(i); got != len(all) {
			t.Errorf("item %d answers %d, want %d", i, got, len(all))
		}
		if got := f.Items.AnswerVar(i); math.Abs(got-v) > 1e-9 {
			t.Errorf("item %d variance %v, want that of all the answers %v", i, got, v)
		}
	}
	if math.Abs(f.Score-sum/3) > 1e-9 {
		t.Errorf("Score %v, want the pooled items' mean %v", f.Score, sum/3)
	}
	if tr := f.Trend(); len(tr) != 2 || tr[1].Score != own {
		t.Errorf("trend %+v: want 2 points, the last this run's own score %v", tr, own)
	}
	// Written and read back: the same pool, the chain still verifying.
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := Read(bytes.NewReader(buf.Bytes()), "pooled.json", 0)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if g.PooledRuns != 2 || g.RunScore != own || g.Score != f.Score || g.Items.Answers(0) != 5 {
		t.Errorf("read back: runs %d run score %v score %v answers %d", g.PooledRuns, g.RunScore, g.Score, g.Items.Answers(0))
	}
	gb, err := g.Gate(gate.BaselineSource{})
	if err != nil || gb.PooledRuns != 2 {
		t.Errorf("Gate: pooled runs %v, %v", gb, err)
	}
	// The same answers gated again against the pooled baseline are not
	// pooled again (a cached generation step, a re-run job).
	again := fileOf(t, ib, "3333333333333333333333333333333333333333")
	again.Continue(g)
	if why, err := again.Pool(g, within(), 4); err != nil || why != PoolSameAnswers {
		t.Errorf("the same answers again: Pool = %q, %v; want %q", why, err, PoolSameAnswers)
	}
}

// A pooled file's pooled figures are bound to its history's head like a
// single run's score: the items and the score edited together, or a
// single-run file relabelled as pooled, are refused.
func TestPooledFiguresBound(t *testing.T) {
	items := func(d float64) []gate.ItemScore {
		return []gate.ItemScore{answersOf("q-001", 70+d, 80), answersOf("q-002", 90, 100-d), answersOf("q-003", 40+d, 50)}
	}
	prev := fileOf(t, items(0), "")
	f := fileOf(t, items(4), "")
	f.Continue(prev)
	if why, err := f.Pool(prev, within(), 4); err != nil || why != "" {
		t.Fatalf("Pool = %q, %v", why, err)
	}
	// Every item 10 points lower, the score recomputed to match.
	g := *f
	g.Items = gate.NewItemColumns(3, 0)
	var sum float64
	for i := range 3 {
		s := f.Items.Score(i) - 10
		sum += s
		g.Items.AppendAnswers(f.Items.ID(i), s, f.Items.Answers(i), f.Items.AnswerVar(i))
	}
	g.Score, g.PassRate = sum/3, 0
	if err := g.validate(); err == nil || !strings.Contains(err.Error(), `"history.head"`) {
		t.Errorf("pooled items and score edited together: %v; want a history.head error", err)
	}
	// A single-run file relabelled as pooled.
	one := fileOf(t, items(4), "")
	one.Continue(prev)
	one.PooledRuns, one.RunScore, one.RunDigest = 2, one.Score, ItemsDigest(one.Items)
	if err := one.validate(); err == nil || !strings.Contains(err.Error(), `"history.head"`) {
		t.Errorf("a single run relabelled as pooled: %v; want a history.head error", err)
	}
	// A pooled file without its history.
	bare := *f
	bare.History = History{}
	if err := bare.validate(); err == nil || !strings.Contains(err.Error(), "a pooled baseline carries its history") {
		t.Errorf("a pooled file without history: %v", err)
	}
}

// The pool holds at most maxRuns runs: prev's answers are scaled to
// maxRuns-1 runs' worth, so the newest run keeps its weight.
func TestPoolCapsTheRuns(t *testing.T) {
	items := func(shift float64) []gate.ItemScore {
		return []gate.ItemScore{answersOf("q-001", 70+shift, 80), answersOf("q-002 \"quoted\" <tag> & é", 90, 100-shift), answersOf("q-003", 40+shift, 50)}
	}
	prev := fileOf(t, items(0), "")
	for run := 2; run <= 6; run++ {
		f := fileOf(t, items(float64(run)), "")
		f.Continue(prev)
		if why, err := f.Pool(prev, within(), 3); err != nil || why != "" {
			t.Fatalf("run %d: Pool = %q, %v", run, why, err)
		}
		wantRuns := min(run, 3)
		if f.PooledRuns != wantRuns || f.Items.Answers(0) != 2*wantRuns {
			t.Errorf("run %d: pooled %d runs, %d answers; want %d and %d", run, f.PooledRuns, f.Items.Answers(0), wantRuns, 2*wantRuns)
		}
		prev = f
	}
}

// What does not measure the same thing is not pooled, and the new
// baseline is left as this run alone.
func TestPoolRefusals(t *testing.T) {
	base := []gate.ItemScore{answersOf("q-001", 70, 80), answersOf("q-002", 90, 100), answersOf("q-003", 40, 50)}
	next := []gate.ItemScore{answersOf("q-001", 75, 80), answersOf("q-002", 90, 95), answersOf("q-003", 40, 55)}
	for _, tc := range []struct {
		name string
		edit func(prev, f **File, c *PoolCheck, maxRuns *int)
		want PoolRefusal
	}{
		{"off", func(_, _ **File, _ *PoolCheck, n *int) { *n = 1 }, PoolOff},
		{"no previous", func(p, _ **File, _ *PoolCheck, _ *int) { *p = nil }, PoolNoPrevious},
		{"rubric", func(p, _ **File, _ *PoolCheck, _ *int) { (*p).Rubric.Hash = "sha256:other" }, PoolRubric},
		{"accepted", func(_, _ **File, c *PoolCheck, _ *int) { c.Accepted = true }, PoolAccepted},
		{"not compared", func(_, _ **File, c *PoolCheck, _ *int) { c.Paired = nil }, PoolNotFromCheck},
		{"unpaired", func(_, _ **File, c *PoolCheck, _ *int) { c.Paired.Method = gate.MethodUnpaired }, PoolNotPaired},
		{"added", func(_, _ **File, c *PoolCheck, _ *int) { c.Paired.Added = 1 }, PoolItems},
		{"unscored", func(_, _ **File, c *PoolCheck, _ *int) { c.Paired.Unscored = 1 }, PoolItems},
		{"task changed", func(_, _ **File, c *PoolCheck, _ *int) { c.Paired.TaskChanged = 1 }, PoolItems},
		{"real drop", func(_, _ **File, c *PoolCheck, _ *int) { c.Paired.CI95 = &[2]float64{-0.09, -0.01} }, PoolRealChange},
		{"real gain", func(_, _ **File, c *PoolCheck, _ *int) { c.Paired.CI95 = &[2]float64{0.01, 0.09} }, PoolRealChange},
		// With max-drop set (as the gate sets it), a change the interval
		// resolves but does not put wholly beyond max-drop is pooled: a
		// lucky run does not become the baseline alone.
		{"resolved gain within max-drop", func(_, _ **File, c *PoolCheck, _ *int) {
			c.MaxDrop, c.Paired.CI95 = 0.02, &[2]float64{0.01, 0.09}
		}, ""},
		{"resolved drop within max-drop", func(_, _ **File, c *PoolCheck, _ *int) {
			c.MaxDrop, c.Paired.CI95 = 0.02, &[2]float64{-0.09, -0.01}
		}, ""},
		{"gain surely beyond max-drop", func(_, _ **File, c *PoolCheck, _ *int) {
			c.MaxDrop, c.Paired.CI95 = 0.02, &[2]float64{0.025, 0.09}
		}, PoolRealChange},
		{"drop surely beyond max-drop", func(_, _ **File, c *PoolCheck, _ *int) {
			c.MaxDrop, c.Paired.CI95 = 0.02, &[2]float64{-0.09, -0.025}
		}, PoolRealChange},
		{"every item moved alike", func(_, _ **File, c *PoolCheck, _ *int) { c.Paired.CI95 = &[2]float64{0, 0} }, PoolSameAnswers},
		{"the previous run's answers again", func(_, f **File, _ *PoolCheck, _ *int) { *f = fileOf(t, base, "") }, PoolSameAnswers},
		{"another branch", func(p, _ **File, _ *PoolCheck, _ *int) { (*p).Branch = "release" }, PoolBranch},
		{"rose within noise", func(_, _ **File, c *PoolCheck, _ *int) { v := 82.0; c.Paired.CommonCurrent = &v }, ""},
		{"other ids", func(_, f **File, _ *PoolCheck, _ *int) {
			*f = fileOf(t, []gate.ItemScore{answersOf("q-001", 70, 80), answersOf("q-002", 90, 100), answersOf("q-004", 40, 50)}, "")
		}, PoolItems},
		{"input hash", func(_, f **File, _ *PoolCheck, _ *int) { (*f).Items.SetInputHash(0, gate.HashTask("q", "c", "r")) }, PoolInputHashes},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prev, f := fileOf(t, base, ""), fileOf(t, next, "")
			c, n := within(), 4
			tc.edit(&prev, &f, &c, &n)
			score, items := f.Score, f.Items
			why, err := f.Pool(prev, c, n)
			if err != nil || why != tc.want {
				t.Fatalf("Pool = %q, %v; want %q", why, err, tc.want)
			}
			if tc.want == "" {
				if f.PooledRuns != 2 {
					t.Errorf("pooled %d runs, want 2", f.PooledRuns)
				}
				return
			}
			if f.PooledRuns != 0 || f.Score != score || f.Items != items {
				t.Errorf("a refused pool changed the baseline: runs %d score %v", f.PooledRuns, f.Score)
			}
		})
	}
}

// A pooled file's own fields are checked like its figures.
func TestPooledFileRefused(t *testing.T) {
	prev := fileOf(t, []gate.ItemScore{answersOf("q-001", 70), answersOf("q-002", 90), answersOf("q-003", 40)}, "")
	f := fileOf(t, []gate.ItemScore{answersOf("q-001", 75), answersOf("q-002", 85), answersOf("q-003", 45)}, "")
	f.Continue(prev)
	if why, err := f.Pool(prev, within(), 4); err != nil || why != "" {
		t.Fatalf("Pool = %q, %v", why, err)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for _, tc := range []struct{ name, from, to, want string }{
		{"runs without own score", `"run_score": `, `"run_scor": `, `"pooled_runs" without "run_score"`},
		{"own score without runs", `"pooled_runs": 2`, `"pooled_run": 2`, `"run_score" without "pooled_runs"`},
		{"one run", `"pooled_runs": 2`, `"pooled_runs": 1`, `"pooled_runs": 1 is not a number of runs from 2 to 32`},
		{"too many", `"pooled_runs": 2`, `"pooled_runs": 33`, `"pooled_runs": 33 is not a number of runs from 2 to 32`},
		{"more runs than answers", `"pooled_runs": 2`, `"pooled_runs": 3`, `"items.answers[0]": 2 answers but the baseline pools 3 runs`},
		{"no run digest", `"run_digest": "sha256:`, `"run_digst": "sha256:`, `"run_digest": expected "sha256:<hex>"`},
		{"own score out of range", `"run_score": `, `"run_score": 1000, "x": `, `"run_score"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(good, tc.from) {
				t.Fatalf("file has no %q", tc.from)
			}
			_, err := Read(strings.NewReader(strings.Replace(good, tc.from, tc.to, 1)), "pooled.json", 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read = %v; want an error with %q", err, tc.want)
			}
		})
	}
}

// BenchmarkPool pools a 100,000-item baseline of K answers per item with
// the next run's: one pass over the items with an id lookup each, so its
// cost grows with the items, not with K.
func BenchmarkPool(b *testing.B) {
	const n = 100_000
	rb := testRubric("bench")
	for _, k := range []int{1, 4, 16} {
		mk := func(shift float64) []gate.ItemScore {
			items := make([]gate.ItemScore, n)
			for i := range items {
				items[i] = gate.ItemScore{ID: fmt.Sprintf("item-%06d", i), Score: 1 + float64((i+int(shift))%98), Answers: k}
				if k > 1 {
					items[i].AnswerVar = float64(i%37) + 0.25
				}
			}
			return items
		}
		prevItems, curItems := mk(0), mk(1)
		prev, err := New(rb, reportOf(rb, prevItems), prevItems, testMeta)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("K=%d", k), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				f, err := New(rb, reportOf(rb, curItems), curItems, testMeta)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				if why, err := f.Pool(prev, within(), 4); err != nil || why != "" {
					b.Fatalf("Pool = %q, %v", why, err)
				}
			}
		})
	}
}
