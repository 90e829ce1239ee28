package baseline

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// anchored is a baseline of items with an anchor at score (SE se, runs
// runs, cause), its head recomputed as SetAnchor leaves it.
func anchored(t *testing.T, items []gate.ItemScore, sha string, a gate.Anchor) *File {
	t.Helper()
	f := fileOf(t, items, sha)
	a.Date = f.CreatedAt
	f.Anchor = &a
	f.History.Head = f.headHash()
	if err := f.validate(); err != nil {
		t.Fatal(err)
	}
	return f
}

func items3(a, b, c float64) []gate.ItemScore {
	return []gate.ItemScore{{ID: "q-1", Score: a}, {ID: "q-2", Score: b}, {ID: "q-3", Score: c}}
}

func change(v float64) *float64 { return &v }

// The first baseline starts the anchor at its own score; the anchor is
// written, read back and handed to the gate.
func TestAnchorStartsAndRoundTrips(t *testing.T) {
	f := fileOf(t, items3(80, 70, 90), "1111111111111111111111111111111111111111")
	f.SetAnchor(nil, AnchorUpdate{RunSE: 1.5})
	a := f.Anchor
	if a == nil || a.Score != 80 || a.SE != 1.5 || a.Cause != gate.AnchorStart || a.Runs != 1 || a.SHA != f.SHA {
		t.Fatalf("anchor %+v; want a start at 80 (SE 1.5, 1 run, this commit)", a)
	}
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := Read(bytes.NewReader(buf.Bytes()), "b.json", 0)
	if err != nil {
		t.Fatal(err)
	}
	if *g.Anchor != *a {
		t.Errorf("read back %+v, wrote %+v", g.Anchor, a)
	}
	gb, err := g.Gate(gate.BaselineSource{})
	if err != nil {
		t.Fatal(err)
	}
	if gb.Anchor == nil || *gb.Anchor != *a {
		t.Errorf("the gate's baseline carries anchor %+v, want %+v", gb.Anchor, a)
	}
}

// A doctored anchor is refused like a doctored score: the history's head
// binds it, and its values are checked, naming the field.
func TestAnchorDoctoredIsRefused(t *testing.T) {
	f := fileOf(t, items3(80, 70, 90), "1111111111111111111111111111111111111111")
	f.SetAnchor(nil, AnchorUpdate{RunSE: 1.5})
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatal(err)
	}
	type doc = map[string]any
	for _, tc := range []struct {
		name string
		edit func(m doc)
		want string
	}{
		{"score lowered", func(m doc) { m["anchor"].(doc)["score"] = 60.0 }, `field "history.head"`},
		{"noise widened", func(m doc) { m["anchor"].(doc)["se"] = 20.0 }, `field "history.head"`},
		{"cause rewritten", func(m doc) { m["anchor"].(doc)["cause"] = "accepted" }, `field "history.head"`},
		{"reason added", func(m doc) { m["anchor"].(doc)["reason"] = "ok" }, `field "history.head"`},
		{"anchor removed", func(m doc) { delete(m, "anchor") }, `field "history.head"`},
		{"unknown cause", func(m doc) { m["anchor"].(doc)["cause"] = "drift" }, `field "anchor.cause"`},
		{"score out of range", func(m doc) { m["anchor"].(doc)["score"] = 120.0 }, `anchor.score`},
		{"runs missing", func(m doc) { delete(m["anchor"].(doc), "runs") }, `field "anchor.runs": missing`},
		{"without a history", func(m doc) { delete(m, "history") }, `field "anchor": an anchor is carried with the history`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m doc
			if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
				t.Fatal(err)
			}
			tc.edit(m)
			data, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Read(bytes.NewReader(data), "b.json", 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "b.json") {
				t.Errorf("Read = %v; want an error naming b.json and %s", err, tc.want)
			}
		})
	}
}

// The anchor never moves by drift: a run within noise of its baseline,
// 1.5% lower, leaves it where it was (its pool is full: no warm-up); so
// does a slide of such runs.
func TestAnchorNeverMovesByDrift(t *testing.T) {
	full := gate.Anchor{Score: 80, SE: 0.5, Runs: 4, Cause: gate.AnchorStart}
	prev := anchored(t, items3(80, 70, 90), "1111111111111111111111111111111111111111", full)
	for step := 1; step <= 5; step++ {
		s := 80 * math.Pow(0.985, float64(step))
		f := fileOf(t, items3(s, s-10, s+10), "2222222222222222222222222222222222222222")
		f.Continue(prev)
		f.SetAnchor(prev, AnchorUpdate{Pooled: true, Change: change(-0.015), RunSE: 0.5})
		if math.Abs(f.Anchor.Score-80) > 1e-9 || f.Anchor.Cause != gate.AnchorStart {
			t.Fatalf("step %d: anchor %+v; want it kept at 80", step, f.Anchor)
		}
		prev = f
	}
}

// An accepted regression moves the anchor to the run, recording the
// acceptance's reason; the record is bound like the rest.
func TestAnchorMovesOnAcceptance(t *testing.T) {
	prev := anchored(t, items3(80, 70, 90), "1111111111111111111111111111111111111111", gate.Anchor{Score: 80, SE: 0.5, Runs: 4, Cause: gate.AnchorStart})
	f := fileOf(t, items3(60, 50, 70), "2222222222222222222222222222222222222222")
	f.Continue(prev)
	f.SetAnchor(prev, AnchorUpdate{Accepted: true, Reason: "new model, slower but safer", Change: change(-0.25), RunSE: 0.7})
	a := f.Anchor
	if a.Score != 60 || a.Cause != gate.AnchorAccepted || a.Reason != "new model, slower but safer" || a.SHA != f.SHA || a.SE != 0.7 {
		t.Fatalf("anchor %+v; want the accepted run's 60, with its reason and commit", a)
	}
	if err := f.validate(); err != nil {
		t.Fatal(err)
	}
}

// An improvement raises the anchor only when it is resolved, and then to
// the gain's lower one-sided 95% bound, not to the (possibly lucky) run.
func TestAnchorRisesOnResolvedImprovement(t *testing.T) {
	prev := anchored(t, items3(80, 70, 90), "1111111111111111111111111111111111111111", gate.Anchor{Score: 80, SE: 1, Runs: 4, Cause: gate.AnchorStart})
	// 81 with SE 1 against 80 with SE 1: within noise, kept.
	f := fileOf(t, items3(81, 71, 91), "2222222222222222222222222222222222222222")
	f.Continue(prev)
	f.SetAnchor(prev, AnchorUpdate{Change: change(0.0125), RunSE: 1})
	if f.Anchor.Score != 80 {
		t.Errorf("a rise within noise moved the anchor to %v", f.Anchor.Score)
	}
	// 88: raised to 88 - 1.645·√2.
	f = fileOf(t, items3(88, 78, 98), "3333333333333333333333333333333333333333")
	f.Continue(prev)
	f.SetAnchor(prev, AnchorUpdate{Change: change(0.1), RunSE: 1})
	want := 88 - z95*math.Sqrt2
	if a := f.Anchor; math.Abs(a.Score-want) > 1e-9 || a.Cause != gate.AnchorImprovement || a.SHA != f.SHA {
		t.Errorf("anchor %+v; want raised to %.4f by this commit", a, want)
	}
}

// While the pool that set the anchor fills, the anchor stays at the run
// that set it, with that run's noise: a pool's mean would follow a slide.
func TestAnchorWarmUp(t *testing.T) {
	prev := anchored(t, items3(80, 70, 90), "1111111111111111111111111111111111111111", gate.Anchor{Score: 80, SE: 2, Runs: 1, Cause: gate.AnchorStart})
	f := fileOf(t, items3(79, 69, 89), "2222222222222222222222222222222222222222")
	f.Continue(prev)
	if why, err := f.Pool(prev, PoolCheck{Paired: &gate.Paired{Common: 3, Method: gate.MethodPaired, CI95: &[2]float64{-0.05, 0.03}}}, 4); err != nil || why != "" {
		t.Fatalf("Pool = %q, %v", why, err)
	}
	f.SetAnchor(prev, AnchorUpdate{Pooled: true, Change: change(-1.0 / 80), RunSE: 2})
	if a := f.Anchor; a.Score != 80 || a.Runs != 1 || a.Cause != gate.AnchorStart || a.SE != 2 {
		t.Errorf("anchor %+v; want it kept at the run that set it, 80, with its noise", a)
	}
	if err := f.validate(); err != nil {
		t.Fatal(err)
	}
}

// When the run's items (or rubric) differ from the baseline's, the anchor
// is carried over keeping the cumulative change the run showed on the
// items compared: adding easy items does not reset it.
func TestAnchorCarriedOverOtherItems(t *testing.T) {
	prev := anchored(t, items3(80, 70, 90), "1111111111111111111111111111111111111111", gate.Anchor{Score: 84, SE: 0.5, Runs: 4, Cause: gate.AnchorStart})
	// The run keeps the baseline's items at 80 (no change) and adds an
	// easy one: its own score is 85.
	f := fileOf(t, []gate.ItemScore{{ID: "q-1", Score: 80}, {ID: "q-2", Score: 70}, {ID: "q-3", Score: 90}, {ID: "q-4", Score: 100}}, "2222222222222222222222222222222222222222")
	f.Continue(prev)
	f.SetAnchor(prev, AnchorUpdate{Change: change(0), RunSE: 0.5})
	// Cumulative before: 80/84 - 1; after: 85/anchor - 1, the same.
	if got, want := f.Score/f.Anchor.Score, 80.0/84; math.Abs(got-want) > 1e-12 {
		t.Errorf("anchor %v: this run is %.6f of it, want %.6f as before", f.Anchor.Score, got, want)
	}
}

// An anchor set by a run of one answer per item carries no measured
// noise; the first comparison with that run measures it, and the anchor
// keeps it (so the drift rule does not take a noisy anchor for an exact
// one).
func TestAnchorNoiseMeasuredByFirstComparison(t *testing.T) {
	prev := anchored(t, items3(80, 70, 90), "1111111111111111111111111111111111111111", gate.Anchor{Score: 80, Runs: 1, Cause: gate.AnchorStart})
	f := fileOf(t, items3(79, 69, 89), "2222222222222222222222222222222222222222")
	f.Continue(prev)
	f.SetAnchor(prev, AnchorUpdate{Change: change(-1.0 / 80), RunSE: 0.9, BaseSE: 0.8})
	if a := f.Anchor; a.Score != 80 || a.SE != 0.8 {
		t.Errorf("anchor %+v; want 80 with the SE the comparison measured for its run, 0.8", a)
	}
}

// A slide during the pool's warm-up does not move the anchor: six runs,
// each 1.5% below the last and pooled, after an accepted run at 80 leave
// it at 80, so the rule blocks 5% below the accepted run (it followed the
// pool's mean down to 78.2 before, blocking only 7.1% below).
func TestAnchorWarmUpIgnoresASlide(t *testing.T) {
	prev := anchored(t, items3(80, 70, 90), "1111111111111111111111111111111111111111", gate.Anchor{Score: 80, SE: 1, Runs: 1, Cause: gate.AnchorAccepted})
	s := 80.0
	for step := 1; step <= 6; step++ {
		s *= 0.985
		f := fileOf(t, items3(s, s-10, s+10), "2222222222222222222222222222222222222222")
		f.Continue(prev)
		why, err := f.Pool(prev, PoolCheck{Paired: &gate.Paired{Common: 3, Method: gate.MethodPaired, CI95: &[2]float64{-0.04, 0.01}}, MaxDrop: 0.02}, 4)
		if err != nil || why != "" {
			t.Fatalf("step %d: Pool = %q, %v", step, why, err)
		}
		c := s/prev.Score - 1
		f.SetAnchor(prev, AnchorUpdate{Pooled: true, Change: &c, RunSE: 1})
		if a := f.Anchor; a.Score != 80 || a.Cause != gate.AnchorAccepted {
			t.Fatalf("step %d: anchor %+v; want it kept at the accepted run's 80", step, a)
		}
		prev = f
	}
}
