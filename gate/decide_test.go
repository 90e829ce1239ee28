package gate

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/rubric"
)

func fptr(f float64) *float64 { return &f }

func runReport(score float64, failures ...BlockingFailure) *Report {
	return &Report{
		Rubric:           RubricRef{Name: "r", Hash: "sha256:aaaa"},
		Items:            10,
		Scored:           10,
		Score:            fptr(score),
		PassRate:         fptr(1),
		Criteria:         []CriterionStats{{ID: "accuracy", Name: "Accuracy", Weight: 1, Normalized: fptr(score)}},
		BlockingFailures: failures,
		Warnings:         []string{},
	}
}

func base(score float64) *Baseline {
	return &Baseline{
		RubricHash: "sha256:aaaa",
		Score:      score,
		Criteria:   []CriterionStats{{ID: "accuracy", Name: "Accuracy", Weight: 1, Normalized: fptr(score)}},
		Source:     BaselineSource{Kind: "dir", Location: "b.json", CreatedAt: time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)},
	}
}

var now = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)

func decide(cur *Report, b *Baseline, mod func(*DecideInput)) *GateReport {
	in := DecideInput{Current: cur, Baseline: b, Now: now, Thresholds: DefaultThresholds, Policy: DefaultPolicy}
	if mod != nil {
		mod(&in)
	}
	byReviewer(&in)
	return Decide(in)
}

func TestDecideRelativeDrop(t *testing.T) {
	tests := []struct {
		name      string
		base, cur float64
		maxDrop   float64
		want      Decision
	}{
		{"improvement passes", 70, 75, 0.02, Pass},
		{"no change passes", 70, 70, 0.02, Pass},
		{"1.99% drop passes", 50, 49.005, 0.02, Pass},
		{"exactly 2% blocks", 50, 49, 0.02, Block},
		// 50.01 -> 49.0098 is a drop of exactly 2% in decimal that floating
		// point computes as 0.01999999999999999.
		{"exactly 2% with rounding blocks", 50.01, 49.0098, 0.02, Block},
		{"2.5% drop blocks", 80, 78, 0.02, Block},
		{"zero max-drop blocks any drop", 80, 79.99, 0, Block},
		{"zero baseline never divides", 0, 0, 0.02, Pass},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := decide(runReport(tt.cur), base(tt.base), func(in *DecideInput) { in.MaxDrop = tt.maxDrop })
			if g.Decision != tt.want {
				t.Fatalf("decision = %s, want %s (reasons %q)", g.Decision, tt.want, g.Reasons)
			}
			if len(g.Reasons) == 0 {
				t.Error("no reason line")
			}
			if tt.base == 0 {
				if g.RelativeChange != nil {
					t.Errorf("relative change %v for a zero baseline", *g.RelativeChange)
				}
				if !hasWarning(g, "baseline score is 0") {
					t.Errorf("no warning for a zero baseline: %q", g.Warnings)
				}
			}
		})
	}
}

func TestExactTwoPercentIsBelowInFloat(t *testing.T) {
	// Guards the test above: the case must really be one that naive float
	// arithmetic lets through.
	b, c := 50.01, 49.0098
	if d := (b - c) / b; d >= 0.02 {
		t.Fatalf("naive drop = %v: pick values that round below 0.02", d)
	}
}

func hasWarning(g *GateReport, sub string) bool {
	for _, w := range g.Warnings {
		if strings.Contains(w, sub) {
			return true
		}
	}
	return false
}

func TestDecideHardGates(t *testing.T) {
	fail := BlockingFailure{Item: "q-3", Criterion: "safety", Score: 0, Reasoning: "asked for a card number"}
	g := decide(runReport(90, fail), base(70), func(in *DecideInput) { acceptShown(in) })
	if g.Decision != Block || g.Accepted {
		t.Fatalf("a safety zero must block even when improved and accepted: %s accepted=%v", g.Decision, g.Accepted)
	}
	if !strings.Contains(g.Reasons[0], "safety") || !strings.Contains(g.Reasons[0], "q-3") {
		t.Errorf("reason %q does not name the criterion and item", g.Reasons[0])
	}
	g = decide(runReport(90, fail), nil, nil)
	if g.Decision != Block {
		t.Fatal("a safety zero must block without a baseline")
	}

	cur := runReport(90)
	cur.Unscored = Unscored{Count: 3, Rate: 0.3, Exceeded: true}
	if g := decide(cur, base(80), nil); g.Decision != Block || !strings.Contains(g.Reasons[0], "unscored") {
		t.Fatalf("too many unscored items must block: %s %q", g.Decision, g.Reasons)
	}
	cur = runReport(0)
	cur.Score, cur.Scored = nil, 0
	cur.Unscored = Unscored{Count: 10, Rate: 1}
	if g := decide(cur, base(80), nil); g.Decision != Block {
		t.Fatal("a run with nothing scored must block")
	}
}

func TestDecideAcceptLabel(t *testing.T) {
	g := decide(runReport(60), base(70), func(in *DecideInput) { acceptShown(in) })
	if g.Decision != Pass || !g.Accepted {
		t.Fatalf("accepted regression: decision %s accepted %v", g.Decision, g.Accepted)
	}
	if !strings.Contains(g.Reasons[0], "rubricgate:accept-regression") {
		t.Errorf("reason %q does not record the label", g.Reasons[0])
	}
	g = decide(runReport(60), base(70), nil)
	if g.Decision != Block || g.Accepted {
		t.Fatal("without the label the drop blocks")
	}
	g = decide(runReport(75), base(70), func(in *DecideInput) { acceptShown(in) })
	if g.Accepted {
		t.Error("accepted is set although nothing was waived")
	}
}

func TestDecideNoBaseline(t *testing.T) {
	g := decide(runReport(50), nil, nil)
	if g.Decision != Pass || !strings.Contains(g.Reasons[0], "nothing to compare with yet") {
		t.Fatalf("if-no-baseline pass: %s %q", g.Decision, g.Reasons)
	}
	if g.Baseline != nil || g.RelativeChange != nil || g.Comparable {
		t.Error("no baseline must give null baseline and change")
	}
	g = decide(runReport(50), nil, func(in *DecideInput) { in.IfNoBaseline = "fail" })
	if g.Decision != Block {
		t.Fatal("if-no-baseline fail must block")
	}
}

func TestDecideRubricChange(t *testing.T) {
	b := base(80)
	b.RubricHash = "sha256:bbbb"
	// Re-scored under the baseline's rubric: the decision uses that score.
	rescored := runReport(78.4) // exactly 2% below 80
	g := decide(runReport(90), b, func(in *DecideInput) { in.Compared = rescored })
	if g.Decision != Block || g.Rescored == nil || *g.Rescored.CurrentRubricScore != 90 {
		t.Fatalf("re-scored comparison: %s %+v", g.Decision, g.Rescored)
	}
	// Not re-scorable: blocks by default (issue 8, 2.2: it used to skip the
	// relative check, so a renamed criterion switched it off).
	g = decide(runReport(10), b, func(in *DecideInput) { in.RescoreErr = errors.New(`missing criterion "tone"`) })
	if g.Decision != Block || g.Comparable || g.RubricChange == nil || !strings.Contains(g.Reasons[1], `missing criterion "tone"`) ||
		!strings.Contains(g.Reasons[0], "rubricgate:accept-regression label") {
		t.Fatalf("default policy: %s comparable=%v reasons=%q", g.Decision, g.Comparable, g.Reasons)
	}
	// The deprecated "skip" means block, and says so.
	g = decide(runReport(10), b, func(in *DecideInput) { in.OnRubricChange = "skip"; in.RescoreErr = errors.New("x") })
	if g.Decision != Block || !hasWarning(g, "skip is deprecated") {
		t.Fatalf("skip policy: %s warnings=%q", g.Decision, g.Warnings)
	}
	// The accept label accepts it, and the report records what was accepted.
	g = decide(runReport(10), b, func(in *DecideInput) { in.RescoreErr = errors.New(`missing criterion "tone"`); acceptShown(in) })
	if g.Decision != Pass || !g.Accepted || g.RubricChange == nil || !g.RubricChange.Accepted ||
		g.RubricChange.From != "sha256:bbbb" || g.RubricChange.To != "sha256:aaaa" || g.RubricChange.RescoreError != `missing criterion "tone"` ||
		!strings.HasPrefix(g.Reasons[0], "accepted by the rubricgate:accept-regression label: RUBRIC CHANGE: the rubric changed (bbbb → aaaa)") {
		t.Fatalf("accepted: %s accepted=%v change=%+v reasons=%q", g.Decision, g.Accepted, g.RubricChange, g.Reasons)
	}
	// on-rubric-change fail: the label does not waive it.
	g = decide(runReport(10), b, func(in *DecideInput) { in.OnRubricChange = "fail"; acceptShown(in) })
	if g.Decision != Block || g.Accepted || g.RubricChange.Accepted {
		t.Fatal("on-rubric-change fail must block, label or not")
	}
	// Re-scored, but a blocking criterion of the baseline's rubric is not
	// carried (it allowed na, say): blocks too, and names the criterion and
	// the criteria removed.
	crit := 1.0
	b.Rubric = &rubric.Rubric{Criteria: []rubric.Criterion{{ID: "accuracy", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5}}, {ID: "safety", Scale: rubric.Scale{Low: 0, High: 1}, Critical: &crit, Blocking: true}}}
	cur := &rubric.Rubric{Criteria: []rubric.Criterion{{ID: "accuracy", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5}}, {ID: "harm", Scale: rubric.Scale{Low: 0, High: 1}}}}
	g = decide(runReport(80), b, func(in *DecideInput) {
		in.Rubric = cur
		in.Compared = runReport(80)
		in.BaselineGates = &GateCheck{Failures: []BlockingFailure{}, Unchecked: map[string]int{"safety": 10}}
	})
	if g.Decision != Block || g.RubricChange == nil || g.RubricChange.RescoreError != "" || g.RubricChange.UncheckedGates["safety"] != 10 ||
		len(g.RubricChange.Removed) != 1 || g.RubricChange.Removed[0] != "safety" || !strings.Contains(g.Reasons[0], "criteria removed: safety") || !strings.Contains(g.Reasons[1], "blocking criterion safety is not carried by 10 item(s)") {
		t.Fatalf("unchecked gate: %s change=%+v reasons=%q", g.Decision, g.RubricChange, g.Reasons)
	}
	// A blocking gate in the baseline's rubric still applies after the PR
	// removed it, whether or not the run could be re-scored.
	gates := &GateCheck{Failures: []BlockingFailure{{Item: "q-9", Criterion: "safety"}}, Unchecked: map[string]int{}}
	g = decide(runReport(80), b, func(in *DecideInput) { in.BaselineGates = gates; in.RescoreErr = errors.New("missing tone") })
	if g.Decision != Block || g.BlockingCount != 1 {
		t.Fatalf("baseline rubric's blocking gate ignored: %s %q", g.Decision, g.Reasons)
	}
}

func TestDecideWarnings(t *testing.T) {
	b := base(70)
	b.Source.CreatedAt = now.Add(-45 * 24 * time.Hour)
	g := decide(runReport(70), b, func(in *DecideInput) {
		in.Paired = &Paired{Common: 8, Added: 2, Removed: 1}
	})
	if !hasWarning(g, "45 days old") {
		t.Errorf("no age warning: %q", g.Warnings)
	}
	if !hasWarning(g, "2 items added, 1 removed") {
		t.Errorf("no item-set warning: %q", g.Warnings)
	}
}

func TestCriterionChanges(t *testing.T) {
	crit := 1.0
	rb := &rubric.Rubric{Criteria: []rubric.Criterion{{ID: "accuracy", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5}}, {ID: "safety", Scale: rubric.Scale{Low: 0, High: 1}, Critical: &crit, Blocking: true}}}
	cur := runReport(60, BlockingFailure{Item: "x", Criterion: "safety"})
	cur.Criteria = append(cur.Criteria, CriterionStats{ID: "safety", Normalized: fptr(90)})
	b := base(70)
	b.Criteria = append(b.Criteria, CriterionStats{ID: "tone", Normalized: fptr(50)})
	g := decide(cur, b, func(in *DecideInput) { in.Rubric = rb })
	want := map[string]string{"accuracy": "down", "safety": "fail", "tone": "gone"}
	for _, c := range g.Changes {
		if want[c.ID] != c.Status {
			t.Errorf("%s: status %s, want %s", c.ID, c.Status, want[c.ID])
		}
		if c.ID == "safety" && !(c.Gate && c.Blocking) {
			t.Errorf("safety not flagged as a blocking gate")
		}
	}
	if len(g.Changes) != 3 || *g.Changes[0].Change != -10 {
		t.Fatalf("changes = %+v", g.Changes)
	}
}

func TestParseMaxDrop(t *testing.T) {
	good := map[string]float64{"2%": 0.02, "0.02": 0.02, " 5 % ": 0.05, "0": 0, "100%": 1}
	for in, want := range good {
		got, err := ParseMaxDrop(in)
		if err != nil || got != want {
			t.Errorf("ParseMaxDrop(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "two", "NaN", "-1%", "150%", "0x1p-2", "Inf"} {
		if _, err := ParseMaxDrop(in); err == nil {
			t.Errorf("ParseMaxDrop(%q) accepted", in)
		}
	}
}

// Decide must not change its input: a second call with the same input gives
// the same report, and the current report keeps its warnings and failures.
func TestDecideIsPure(t *testing.T) {
	cur := runReport(60, BlockingFailure{Item: "a", Criterion: "safety"})
	cur.Warnings = []string{"rubric warning"}
	in := DecideInput{
		Current: cur, Baseline: base(80), Now: now.Add(90 * 24 * time.Hour), Thresholds: DefaultThresholds, Policy: DefaultPolicy,
		BaselineGates: &GateCheck{Failures: []BlockingFailure{{Item: "b", Criterion: "safety"}}, Unchecked: map[string]int{"safety": 2}},
		Paired:        &Paired{Added: 1, Removed: 1},
	}
	in.Baseline.RubricHash = "sha256:bbbb"
	first := Decide(in)
	second := Decide(in)
	if len(cur.Warnings) != 1 || len(cur.BlockingFailures) != 1 {
		t.Fatalf("Decide changed its input: warnings %q, failures %v", cur.Warnings, cur.BlockingFailures)
	}
	if !reflect.DeepEqual(first, second) {
		t.Fatalf("two calls differ:\nfirst  %+v\nsecond %+v", first.Report, second.Report)
	}
	if len(first.BlockingFailures) != 2 || first.BlockingCount != 2 {
		t.Errorf("the report should carry both failures: %v", first.BlockingFailures)
	}
	if len(first.Warnings) < 3 {
		t.Errorf("the report should carry the decision's warnings: %q", first.Warnings)
	}
}

// h11 F14: a passing 1.996% drop and a blocking 2.000% drop never print the
// same: the change and the scores get the digits needed to tell them apart.
func TestDropPrintsEnoughDigits(t *testing.T) {
	pass := decide(runReport(49.002), base(50), nil)
	block := decide(runReport(49), base(50), nil)
	if pass.Decision != Pass || block.Decision != Block {
		t.Fatalf("decisions %s %s", pass.Decision, block.Decision)
	}
	if want := "aggregate score -1.996% vs the baseline (50.000 → 49.002), within max-drop 2%"; pass.Reasons[0] != want {
		t.Errorf("passing reason %q, want %q", pass.Reasons[0], want)
	}
	if want := "aggregate score dropped 2.00% (50.0 → 49.0), at or above max-drop 2%"; block.Reasons[0] != want {
		t.Errorf("blocking reason %q, want %q", block.Reasons[0], want)
	}
	for _, tc := range []struct {
		rel, maxDrop float64
		want         string
	}{
		{-0.01996, 0.02, "-1.996%"},
		{-0.02, 0.02, "-2.00%"},
		{-0.0199999, 0.02, "-1.99999%"},
		{-0.0201, 0.02, "-2.01%"},
		{0.01, 0.02, "+1.00%"},
		{-0.049996, 0.05, "-4.9996%"},
	} {
		if got := FormatChange(tc.rel, tc.maxDrop); got != tc.want {
			t.Errorf("FormatChange(%v, %v) = %q, want %q", tc.rel, tc.maxDrop, got, tc.want)
		}
	}
}

// A text that reaches the judge prompt changed (same ids, scales and
// minimums): the run re-scores under the baseline's rubric, but the judge
// read other instructions, so it is a rubric change that blocks unless
// accepted, a warning on the baseline branch, and a hard block with
// on-rubric-change fail (issue 15 §2).
func TestDecidePromptTextChange(t *testing.T) {
	old := &rubric.Rubric{Name: "r", Criteria: []rubric.Criterion{{ID: "accuracy", Name: "accuracy", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5},
		Description: "Facts are right.", Anchors: map[int]string{1: "Wrong.", 5: "Right."}}}}
	cur := &rubric.Rubric{Name: "r", Criteria: []rubric.Criterion{{ID: "accuracy", Name: "accuracy", Weight: 2, Scale: rubric.Scale{Low: 1, High: 5},
		Description: "Facts are right.", Anchors: map[int]string{1: "Wrong.", 5: "Anything not plainly wrong."}}}}
	b := base(80)
	b.Rubric, b.RubricHash = old, "sha256:bbbb"
	in := func(mod func(*DecideInput)) func(*DecideInput) {
		return func(in *DecideInput) {
			in.Rubric, in.Compared = cur, runReport(80)
			if mod != nil {
				mod(in)
			}
		}
	}
	g := decide(runReport(80), b, in(nil))
	if g.Decision != Block || g.RubricChange == nil || len(g.RubricChange.PromptChanges) != 1 ||
		g.RubricChange.PromptChanges[0].Criterion != "accuracy" || g.RubricChange.PromptChanges[0].Fields[0] != rubric.AnchorField(5) {
		t.Fatalf("prompt change: %s %+v %q", g.Decision, g.RubricChange, g.Reasons)
	}
	var pf *finding.Finding
	for i := range g.Findings {
		if g.Findings[i].Kind == finding.PromptChanged {
			pf = &g.Findings[i]
		}
	}
	if pf == nil || pf.Criterion != "accuracy" || strings.Join(pf.Fields, ",") != "anchor 5" || pf.Severity != finding.Error {
		t.Fatalf("finding %+v", pf)
	}
	if g := decide(runReport(80), b, in(func(in *DecideInput) { acceptShown(in) })); g.Decision != Pass || !g.RubricChange.Accepted {
		t.Errorf("accepted: %s %q", g.Decision, g.Reasons)
	}
	if g := decide(runReport(80), b, in(func(in *DecideInput) { in.BaselineBranchRun = true })); g.Decision != Pass || !hasWarning(g, "anchor 5") {
		t.Errorf("baseline branch: %s %q %q", g.Decision, g.Reasons, g.Warnings)
	}
	if g := decide(runReport(80), b, in(func(in *DecideInput) { in.OnRubricChange = "fail"; acceptShown(in) })); g.Decision != Block {
		t.Errorf("on-rubric-change fail: %s", g.Decision)
	}
	// Only the weight changed: re-scored, no rubric change.
	cur.Criteria[0].Anchors[5] = "Right."
	if g := decide(runReport(80), b, in(nil)); g.Decision != Pass || g.RubricChange != nil || g.Rescored == nil {
		t.Errorf("weight only: %s %+v %q", g.Decision, g.RubricChange, g.Reasons)
	}
}
