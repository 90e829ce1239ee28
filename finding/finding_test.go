package finding_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
)

func fp(v float64) *float64 { return &v }

func report(score float64, fails ...gate.BlockingFailure) *gate.Report {
	return &gate.Report{
		Rubric: gate.RubricRef{Name: "r", Hash: "sha256:aaaaaaaaaaaaaaaa"}, Items: 10, Scored: 10,
		Score: fp(score), PassRate: fp(1),
		Criteria:         []gate.CriterionStats{{ID: "accuracy", Weight: 1, Normalized: fp(score)}},
		BlockingFailures: fails, Warnings: []string{},
	}
}

var now = time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)

func baseline(score float64, hash string) *gate.Baseline {
	return &gate.Baseline{
		RubricHash: hash, Score: score,
		Criteria: []gate.CriterionStats{{ID: "accuracy", Weight: 1, Normalized: fp(score)}},
		Source:   gate.BaselineSource{Kind: "dir", Location: "b.json", CreatedAt: now.Add(-45 * 24 * time.Hour)},
	}
}

// reviewer applied the accept label to another's pull request.
var reviewer = gate.Actor{AppliedBy: "reviewer", Author: "author"}

func decide(cur *gate.Report, b *gate.Baseline, mod func(*gate.DecideInput)) *gate.GateReport {
	in := gate.DecideInput{Current: cur, Baseline: b, Now: now, Thresholds: gate.DefaultThresholds, Policy: gate.DefaultPolicy}
	if mod != nil {
		mod(&in)
	}
	if in.Accepted {
		// The label applied after the comment showed this very run.
		off := in
		off.Accepted = false
		in.Acceptance = gate.Acceptance{State: gate.AcceptFresh, Shown: gate.Decide(off).Waivable, Actor: reviewer}
	}
	return gate.Decide(in)
}

// TestTextMatchesDecide pins every kind's English to what gate.Decide
// writes today, so converting Decide to findings keeps the reports (and
// their golden files) byte for byte.
func TestTextMatchesDecide(t *testing.T) {
	var fails []gate.BlockingFailure
	for _, id := range []string{"a", "b", "c", "d", "e", "f"} {
		fails = append(fails, gate.BlockingFailure{Item: id, Criterion: "safety"})
	}
	fails = append(fails, gate.BlockingFailure{Item: "x", Criterion: "pii"})

	tests := []struct {
		name string
		g    *gate.GateReport
		// reasons and warnings the findings must reproduce, in order.
		reasons, warnings []string
	}{
		{
			name: "blocking and no baseline",
			g:    decide(report(80, fails...), nil, nil),
			reasons: []string{
				finding.JoinBlocking([]finding.Finding{
					{Kind: finding.BlockingFailure, Criterion: "safety", Params: finding.Params{Items: []string{"a", "b", "c", "d", "e", "f"}}},
					{Kind: finding.BlockingFailure, Criterion: "pii", Params: finding.Params{Items: []string{"x"}}},
				}),
				finding.Finding{Kind: finding.NoBaseline}.Text(),
			},
		},
		{
			name: "no baseline, policy fail, with a note",
			g: decide(report(80), nil, func(in *gate.DecideInput) {
				in.IfNoBaseline = "fail"
				in.NoBaselineNote = "no baseline found for rubric \"r\" on branch \"main\" (directory d)"
			}),
			reasons: []string{finding.Finding{Kind: finding.NoBaseline, Params: finding.Params{Detail: "no baseline found for rubric \"r\" on branch \"main\" (directory d)", PolicyFail: true}}.Text()},
		},
		{
			name:     "drop blocks; old baseline",
			g:        decide(report(78), baseline(80, "sha256:aaaaaaaaaaaaaaaa"), nil),
			reasons:  []string{finding.Finding{Kind: finding.AggregateDrop, Params: finding.Params{DropParams: finding.DropParams{Change: (78.0 - 80) / 80, Baseline: 80, Current: 78, MaxDrop: 0.02}}}.Text()},
			warnings: []string{finding.Finding{Kind: finding.BaselineOld, Params: finding.Params{AgeParams: finding.AgeParams{Days: 45, MaxDays: 30}}}.Text()},
		},
		{
			name: "drop accepted",
			g: decide(report(78), baseline(80, "sha256:aaaaaaaaaaaaaaaa"), func(in *gate.DecideInput) {
				in.Accepted = true
				in.MaxBaselineAge = 0
			}),
			reasons: []string{finding.Finding{Kind: finding.AggregateDrop, Params: finding.Params{DropParams: finding.DropParams{Change: (78.0 - 80) / 80, Baseline: 80, Current: 78, MaxDrop: 0.02}, AcceptParams: finding.AcceptParams{Label: "rubricgate:accept-regression"}}}.Text()},
		},
		{
			name: "within max-drop; item sets differ",
			g: decide(report(79.5), baseline(80, "sha256:aaaaaaaaaaaaaaaa"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
				in.Paired = &gate.Paired{Added: 2, Common: 9}
			}),
			reasons:  []string{finding.Finding{Kind: finding.WithinMaxDrop, Params: finding.Params{DropParams: finding.DropParams{Change: (79.5 - 80) / 80, Baseline: 80, Current: 79.5, MaxDrop: 0.02}}}.Text()},
			warnings: []string{finding.Finding{Kind: finding.ItemSetsDiffer, Params: finding.Params{ItemSetParams: finding.ItemSetParams{Added: 2, Removed: 0, Common: 9}}}.Text()},
		},
		{
			name: "within max-drop with more digits (h11 F14)",
			g: decide(report(49.002), baseline(50, "sha256:aaaaaaaaaaaaaaaa"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
			}),
			reasons: []string{finding.Finding{Kind: finding.WithinMaxDrop, Params: finding.Params{DropParams: finding.DropParams{Change: (49.002 - 50) / 50, Baseline: 50, Current: 49.002, MaxDrop: 0.02}}}.Text()},
		},
		{
			name: "common items compared, drop (h11 F3)",
			g: decide(report(87), baseline(80, "sha256:aaaaaaaaaaaaaaaa"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
				in.Paired = &gate.Paired{Added: 10, Common: 10, CommonBaseline: fp(80), CommonCurrent: fp(74)}
			}),
			reasons:  []string{finding.Finding{Kind: finding.AggregateDrop, Params: finding.Params{DropParams: finding.DropParams{Change: (74.0 - 80) / 80, Baseline: 80, Current: 74, MaxDrop: 0.02, FullBaseline: 80, FullCurrent: 87}, ItemSetParams: finding.ItemSetParams{Common: 10, Added: 10}}}.Text()},
			warnings: []string{finding.Finding{Kind: finding.ItemSetsDiffer, Params: finding.Params{ItemSetParams: finding.ItemSetParams{Added: 10, Common: 10}}}.Text()},
		},
		{
			name: "items removed; common items within (h11 F3)",
			g: decide(report(80), baseline(68, "sha256:aaaaaaaaaaaaaaaa"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
				in.Paired = &gate.Paired{Removed: 2, RemovedIDs: []string{"i00", "i01"}, Common: 8, CommonBaseline: fp(80), CommonCurrent: fp(80)}
			}),
			reasons: []string{
				finding.Finding{Kind: finding.ItemsRemoved, Params: finding.Params{Count: 2, Items: []string{"i00", "i01"}, AcceptParams: finding.AcceptParams{AcceptLabel: "rubricgate:accept-regression"}}}.Text(),
			},
			warnings: []string{finding.Finding{Kind: finding.ItemSetsDiffer, Params: finding.Params{ItemSetParams: finding.ItemSetParams{Removed: 2, Common: 8}}}.Text()},
		},
		{
			name: "items removed, accepted",
			g: decide(report(80), baseline(80, "sha256:aaaaaaaaaaaaaaaa"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
				in.Accepted = true
				in.Paired = &gate.Paired{Removed: 7, RemovedIDs: []string{"a", "b", "c", "d", "e", "f", "g"}, Common: 3, CommonBaseline: fp(80), CommonCurrent: fp(80)}
			}),
			reasons: []string{
				finding.Finding{Kind: finding.ItemsRemoved, Params: finding.Params{Count: 7, Items: []string{"a", "b", "c", "d", "e", "f", "g"}, AcceptParams: finding.AcceptParams{Label: "rubricgate:accept-regression"}}}.Text(),
			},
			warnings: []string{finding.Finding{Kind: finding.ItemSetsDiffer, Params: finding.Params{ItemSetParams: finding.ItemSetParams{Removed: 7, Common: 3}}}.Text()},
		},
		{
			name: "baseline branch: rubric change and removed items warn (h11 F6)",
			g: decide(report(80), baseline(80, "sha256:bbbbbbbbbbbbbbbbbb"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
				in.BaselineBranchRun = true
				in.RescoreErr = errors.New("results.jsonl:3: no score for tone")
				in.Paired = &gate.Paired{Removed: 1, RemovedIDs: []string{"a"}}
			}),
			reasons: []string{finding.Finding{Kind: finding.NoBlockingFailed}.Text()},
			warnings: []string{
				finding.Finding{Kind: finding.RubricChange, Params: finding.Params{NewBaseline: true, RubricParams: finding.RubricParams{From: "sha256:bbbbbbbbbbbbbbbbbb", To: "sha256:aaaaaaaaaaaaaaaa"}}}.Text(),
				finding.Finding{Kind: finding.NotComparable, Params: finding.Params{Detail: "results.jsonl:3: no score for tone"}}.Text(),
				finding.Finding{Kind: finding.ItemSetsDiffer, Params: finding.Params{ItemSetParams: finding.ItemSetParams{Removed: 1}}}.Text(),
				finding.Finding{Kind: finding.ItemsRemoved, Params: finding.Params{Count: 1, Items: []string{"a"}, NewBaseline: true}}.Text(),
			},
		},
		{
			name: "no common items",
			g: decide(report(80), baseline(80, "sha256:aaaaaaaaaaaaaaaa"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
				in.Accepted = true
				in.Paired = &gate.Paired{Added: 5}
			}),
			reasons: []string{finding.Finding{Kind: finding.WithinMaxDrop, Params: finding.Params{DropParams: finding.DropParams{Baseline: 80, Current: 80, MaxDrop: 0.02}}}.Text()},
			warnings: []string{
				finding.Finding{Kind: finding.NoCommonItems}.Text(),
				finding.Finding{Kind: finding.ItemSetsDiffer, Params: finding.Params{ItemSetParams: finding.ItemSetParams{Added: 5}}}.Text(),
			},
		},
		{
			name: "baseline score zero",
			g: decide(report(50), baseline(0, "sha256:aaaaaaaaaaaaaaaa"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
			}),
			reasons:  []string{finding.Finding{Kind: finding.NoBlockingFailed}.Text()},
			warnings: []string{finding.Finding{Kind: finding.BaselineScoreZero}.Text()},
		},
		{
			name: "rubric changed, not comparable, policy fail",
			g: decide(report(80), baseline(80, "sha256:bbbbbbbbbbbbbbbbbb"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
				in.OnRubricChange = "fail"
				in.RescoreErr = errors.New("results.jsonl:3: no score for tone")
			}),
			reasons: []string{
				finding.Finding{Kind: finding.RubricChange, Params: finding.Params{PolicyFail: true, RubricParams: finding.RubricParams{From: "sha256:bbbbbbbbbbbbbbbbbb", To: "sha256:aaaaaaaaaaaaaaaa"}}}.Text(),
				finding.Finding{Kind: finding.NotComparable, Params: finding.Params{Detail: "results.jsonl:3: no score for tone"}}.Text(),
			},
		},
		{
			name: "rubric changed, not comparable, blocked (default)",
			g: decide(report(80), baseline(80, "sha256:bbbbbbbbbbbbbbbbbb"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
			}),
			reasons: []string{
				finding.Finding{Kind: finding.RubricChange, Params: finding.Params{RubricParams: finding.RubricParams{From: "sha256:bbbbbbbbbbbbbbbbbb", To: "sha256:aaaaaaaaaaaaaaaa"}, AcceptParams: finding.AcceptParams{AcceptLabel: "rubricgate:accept-regression"}}}.Text(),
				finding.Finding{Kind: finding.NotComparable}.Text(),
			},
		},
		{
			name: "rubric changed, a baseline gate unchecked, accepted; skip deprecated",
			g: decide(report(80), baseline(80, "sha256:bbbbbbbbbbbbbbbbbb"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
				in.OnRubricChange = "skip"
				in.Accepted = true
				in.Compared = report(80)
				in.BaselineGates = &gate.GateCheck{Unchecked: map[string]int{"safety": 4}}
			}),
			reasons: []string{
				finding.Finding{Kind: finding.RubricChange, Params: finding.Params{RubricParams: finding.RubricParams{From: "sha256:bbbbbbbbbbbbbbbbbb", To: "sha256:aaaaaaaaaaaaaaaa"}, AcceptParams: finding.AcceptParams{Label: "rubricgate:accept-regression"}}}.Text(),
				finding.Finding{Kind: finding.UncheckedGate, Criterion: "safety", Params: finding.Params{Count: 4, AcceptParams: finding.AcceptParams{Label: "rubricgate:accept-regression"}}}.Text(),
			},
			warnings: []string{
				finding.Finding{Kind: finding.SkipDeprecated}.Text(),
				finding.Finding{Kind: finding.RubricRescored, Params: finding.Params{RubricParams: finding.RubricParams{From: "sha256:bbbbbbbbbbbbbbbbbb", To: "sha256:aaaaaaaaaaaaaaaa"}}}.Text(),
			},
		},
		{
			name: "rubric changed, re-scored",
			g: decide(report(80), baseline(80, "sha256:bbbbbbbbbbbbbbbbbb"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
				in.Compared = report(80)
			}),
			reasons:  []string{finding.Finding{Kind: finding.WithinMaxDrop, Params: finding.Params{DropParams: finding.DropParams{Baseline: 80, Current: 80, MaxDrop: 0.02}}}.Text()},
			warnings: []string{finding.Finding{Kind: finding.RubricRescored, Params: finding.Params{RubricParams: finding.RubricParams{From: "sha256:bbbbbbbbbbbbbbbbbb", To: "sha256:aaaaaaaaaaaaaaaa"}}}.Text()},
		},
		{
			name: "too many unscored",
			g: decide(func() *gate.Report {
				r := report(80)
				r.Items, r.Scored = 10, 7
				r.Unscored = gate.Unscored{Count: 3, Rate: 0.3, Exceeded: true}
				return r
			}(), nil, nil),
			reasons: []string{
				finding.Finding{Kind: finding.TooManyUnscored, Params: finding.Params{Count: 3, Total: 10, Rate: 0.3}}.Text(),
				finding.Finding{Kind: finding.NoBaseline}.Text(),
			},
		},
		{
			// The interval's clause rides in AggregateDrop's Detail; the
			// noisy-drop warning is DropWithinNoise (its text pinned here).
			name: "drop within noise, noisy-drop warn",
			g: decide(report(78), baseline(80, "sha256:aaaaaaaaaaaaaaaa"), func(in *gate.DecideInput) {
				in.MaxBaselineAge = 0
				in.NoisyDrop = gate.NoisyWarn
				in.Paired = &gate.Paired{Method: "paired", Common: 10, CI95: &[2]float64{-0.05, 0.01}}
			}),
			reasons: []string{finding.Finding{Kind: finding.AggregateDrop, Params: finding.Params{DropParams: finding.DropParams{Change: (78.0 - 80) / 80, Baseline: 80, Current: 78, MaxDrop: 0.02},
				Detail: ", but its 95% CI -5.00% … +1.00% includes 0, so it passes (noisy-drop warn); it would block if the interval lay below 0 or the drop reached hard-drop 5%"}}.Text()},
			warnings: []string{"the drop of 2.50% is within noise: its 95% interval includes 0 (noisy-drop warn); more answers per item or more items would tell"},
		},
		{
			name: "nothing scored",
			g: decide(func() *gate.Report {
				r := report(80)
				r.Scored, r.Score = 0, nil
				r.Unscored = gate.Unscored{Count: 10, Rate: 1, Exceeded: true}
				return r
			}(), nil, nil),
			reasons: []string{
				finding.Finding{Kind: finding.NoItemScored, Params: finding.Params{Count: 10, Total: 10}}.Text(),
				finding.Finding{Kind: finding.NoBaseline}.Text(),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Join(tt.g.Reasons, "\n") != strings.Join(tt.reasons, "\n") {
				t.Errorf("reasons:\n got %q\nwant %q", tt.g.Reasons, tt.reasons)
			}
			if strings.Join(tt.g.Warnings, "\n") != strings.Join(tt.warnings, "\n") {
				t.Errorf("warnings:\n got %q\nwant %q", tt.g.Warnings, tt.warnings)
			}
		})
	}
}

func TestBlockingUnderBaselineRubric(t *testing.T) {
	f := finding.Finding{Kind: finding.BlockingFailure, Criterion: "safety", Params: finding.Params{Items: []string{"a"}, BaselineRubric: true}}
	want := "blocking criterion failed: safety on 1 item(s): a (under the baseline's rubric)"
	if got := f.Text(); got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
	if got := finding.JoinBlocking([]finding.Finding{f}); got != want {
		t.Errorf("JoinBlocking = %q, want %q", got, want)
	}
}

const hostile = "x`](https://evil)<!-- @team\n::error::pwned\x1b[31m\u202e"

func TestRenderersEscapeUntrusted(t *testing.T) {
	fs := []finding.Finding{
		{Kind: finding.BlockingFailure, Severity: finding.Error, Criterion: hostile, Params: finding.Params{Items: []string{hostile, "ok"}}},
		{Kind: finding.NoBaseline, Severity: finding.Notice, Params: finding.Params{Detail: hostile}},
		{Kind: finding.NotComparable, Severity: finding.Warning, Params: finding.Params{Detail: hostile}},
		{Kind: finding.RubricWarning, Severity: finding.Warning, File: hostile, Line: 3, Params: finding.Params{Detail: hostile}},
		{Kind: finding.Message, Severity: finding.Warning, Params: finding.Params{Detail: hostile}},
		{Kind: finding.AggregateDrop, Severity: finding.Notice, Params: finding.Params{AcceptParams: finding.AcceptParams{Label: hostile}}},
	}
	for _, f := range fs {
		if !strings.Contains(f.Text(), hostile) {
			t.Errorf("%s: Text dropped the raw parameter: %q", f.Kind, f.Text())
		}
		log := f.Log()
		if strings.ContainsAny(log, "\n\r\x1b\u202e") || strings.HasPrefix(strings.TrimSpace(log), "::") || strings.Contains(log, "\n::") {
			t.Errorf("%s: Log is not one safe line: %q", f.Kind, log)
		}
		md := f.Markdown()
		// ids become code spans (where links and mentions are inert), free
		// text is escaped: neither may open a comment or break the line.
		for _, bad := range []string{"<!--", "\n", "\x1b", "\u202e"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s: Markdown contains %q: %q", f.Kind, bad, md)
			}
		}
		a := f.Annotation()
		if a.Level != f.Severity || strings.ContainsAny(a.Message, "\n\r\x1b") {
			t.Errorf("%s: annotation %+v", f.Kind, a)
		}
	}
}

func TestAnnotation(t *testing.T) {
	a := finding.Finding{Kind: finding.RubricWarning, Severity: finding.Warning, File: "rubric.yaml", Line: 7, Col: 3, Params: finding.Params{Detail: "weight 0"}}.Annotation()
	want := finding.Annotation{Level: finding.Warning, File: "rubric.yaml", Line: 7, Title: "rubricgate", Message: "rubric.yaml:7:3: weight 0"}
	if a != want {
		t.Errorf("annotation = %+v, want %+v", a, want)
	}
	b := finding.Finding{Kind: finding.NoItemScored, Severity: finding.Error, Line: 4, Params: finding.Params{Count: 1, Total: 1}}.Annotation()
	if b.Title != "rubricgate blocked" || b.Line != 0 || b.Level != finding.Error {
		t.Errorf("error annotation = %+v (a line without a file must be dropped)", b)
	}
	if c := (finding.Finding{Kind: finding.Message, Params: finding.Params{Detail: "m"}}).Annotation(); c.Level != finding.Warning {
		t.Errorf("no severity should annotate as a warning, got %q", c.Level)
	}
}

func TestMarkdownEscapesText(t *testing.T) {
	f := finding.Finding{Kind: finding.Message, Params: finding.Params{Detail: "see [x](https://evil) @team"}}
	want := "see \\[x\\](https:\u200d//evil) @\u200dteam" // no link, no mention, no auto-link
	if got := f.Markdown(); got != want {
		t.Errorf("Markdown = %q, want %q", got, want)
	}
}

func TestMarkdownIDsAsCode(t *testing.T) {
	f := finding.Finding{Kind: finding.BlockingFailure, Criterion: "safety", Params: finding.Params{Items: []string{"a|b", "c"}}}
	want := "blocking criterion failed: `safety` on 2 item(s): `a|b`, `c`"
	if got := f.Markdown(); got != want {
		t.Errorf("Markdown = %q, want %q", got, want)
	}
}

// The kinds of the run report's, the judge checks' and the pipeline's
// warnings escape every untrusted parameter in the comment and the log.
func TestNewKindsEscapeUntrusted(t *testing.T) {
	fs := []finding.Finding{
		{Kind: finding.PassColumnDisagrees, File: hostile, Line: 2, Item: hostile, Params: finding.Params{RowParams: finding.RowParams{ColumnPass: true, Below: []finding.Below{{Criterion: hostile, Score: 1, Min: 2}}}}},
		{Kind: finding.MorePassDisagreements, Params: finding.Params{Count: 3}},
		{Kind: finding.OutvotedFailures, Criterion: hostile, Params: finding.Params{Count: 9, Items: []string{hostile}}},
		{Kind: finding.ToolWeightsVary, File: hostile, Params: finding.Params{ToolParams: finding.ToolParams{Format: "promptfoo", Metrics: []string{hostile}}}},
		{Kind: finding.ToolWeightsDiffer, File: hostile, Params: finding.Params{ToolParams: finding.ToolParams{Format: "promptfoo", Weights: []finding.Weight{{Criterion: hostile, Rubric: 1, Metric: hostile, Tool: 2}}}}},
		{Kind: finding.JudgeModelMissing, Params: finding.Params{JudgeParams: finding.JudgeParams{Role: "judge"}}},
		{Kind: finding.JudgeFamilyUnknown, Params: finding.Params{JudgeParams: finding.JudgeParams{Role: "judge", Model: hostile}}},
		{Kind: finding.JudgeSameFamily, Params: finding.Params{JudgeParams: finding.JudgeParams{Model: hostile, Production: hostile, Family: hostile}}},
		{Kind: finding.JudgesUnknownPast, Params: finding.Params{Count: 4, JudgeParams: finding.JudgeParams{Limit: 100}}},
		{Kind: finding.LengthBias, Criterion: hostile, Params: finding.Params{Count: 40, JudgeParams: finding.JudgeParams{Rho: 0.7, MaxRho: 0.5}}},
		{Kind: finding.DefaultBranchNotBaseline, Params: finding.Params{BranchParams: finding.BranchParams{Branch: hostile, BaselineBranch: hostile, Source: hostile}}},
		{Kind: finding.RenamedRubric, Params: finding.Params{RenamedParams: finding.RenamedParams{Rubric: hostile, Rubrics: []string{hostile}}, BranchParams: finding.BranchParams{Branch: hostile}, AcceptParams: finding.AcceptParams{AcceptLabel: hostile}}},
		{Kind: finding.RenamedRubric, Params: finding.Params{RenamedParams: finding.RenamedParams{Rubric: hostile, Rubrics: []string{hostile}}, BranchParams: finding.BranchParams{Branch: hostile}, AcceptParams: finding.AcceptParams{Label: hostile}}},
		{Kind: finding.RenamedRubric, Params: finding.Params{RenamedParams: finding.RenamedParams{Rubric: hostile, Rubrics: []string{hostile}, Renamed: true}, BranchParams: finding.BranchParams{Branch: hostile}}},
		{Kind: finding.AcceptanceNotCovered, Params: finding.Params{AcceptParams: finding.AcceptParams{AcceptLabel: hostile, Commit: hostile, Waived: []string{hostile}, Adds: []string{hostile}}, RubricParams: finding.RubricParams{From: hostile}}},
		{Kind: finding.PromptChanged, Criterion: hostile, Params: finding.Params{RubricParams: finding.RubricParams{Fields: []string{hostile, "anchor 3"}}, AcceptParams: finding.AcceptParams{Label: hostile}}},
		{Kind: finding.PromptChanged, Criterion: hostile, Params: finding.Params{RubricParams: finding.RubricParams{Fields: []string{"added"}}}},
		{Kind: finding.UnscoredGate, Criterion: hostile, Params: finding.Params{Items: []string{hostile, "b", "c", "d", "e", "f"}, BaselineRubric: true}},
		{Kind: finding.AcceptanceUnreadable, Params: finding.Params{Detail: hostile, AcceptParams: finding.AcceptParams{AcceptLabel: hostile}}},
		{Kind: finding.AcceptanceNotShown, Params: finding.Params{AcceptParams: finding.AcceptParams{AcceptLabel: hostile, Commit: hostile, Waived: []string{hostile}, Adds: []string{hostile}}}},
		{Kind: finding.AcceptanceNotShown, Params: finding.Params{AcceptParams: finding.AcceptParams{AcceptLabel: hostile, Adds: []string{hostile}}}},
	}
	for _, f := range fs {
		f.Severity = finding.Warning
		if f.Text() == "" || f.Text() == f.Detail {
			t.Errorf("%s: no text of its own: %q", f.Kind, f.Text())
		}
		log := f.Log()
		if strings.ContainsAny(log, "\n\r\x1b\u202e") || strings.HasPrefix(strings.TrimSpace(log), "::") || strings.Contains(log, "\n::") {
			t.Errorf("%s: Log is not one safe line: %q", f.Kind, log)
		}
		md := f.Markdown()
		for _, bad := range []string{"<!--", "\n", "\x1b", "\u202e"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s: Markdown contains %q: %q", f.Kind, bad, md)
			}
		}
	}
	// The plain text quotes names as it always did; markdown shows them as code.
	f := finding.Finding{Kind: finding.JudgeFamilyUnknown, Params: finding.Params{JudgeParams: finding.JudgeParams{Role: "production", Model: "my-model"}}}
	if got := f.Text(); got != `production model "my-model" is of an unknown family: the judge family check could not be made (add it under model_families in the rubric)` {
		t.Errorf("Text = %q", got)
	}
	if got := f.Markdown(); !strings.HasPrefix(got, "production model `my-model` is of") {
		t.Errorf("Markdown = %q", got)
	}
	// An item id of a row is quoted and cut at 64 bytes in the text.
	long := strings.Repeat("é", 40)
	p := finding.Finding{Kind: finding.PassColumnDisagrees, File: "s.csv", Line: 2, Item: long, Params: finding.Params{RowParams: finding.RowParams{Score: 50, Threshold: 70}}}
	if want := `s.csv:2: item "` + strings.Repeat("é", 32) + `"...: the pass column says fail but the rubric gives pass (score 50.0, threshold 70)`; p.Text() != want {
		t.Errorf("Text = %q, want %q", p.Text(), want)
	}
}

// Texts and Markdowns give one line per reason, blocking failures of
// consecutive criteria joined.
func TestTextsAndMarkdowns(t *testing.T) {
	fs := []finding.Finding{
		{Kind: finding.BlockingFailure, Criterion: "safety", Params: finding.Params{Items: []string{"a"}}},
		{Kind: finding.BlockingFailure, Criterion: "pii", Params: finding.Params{Items: []string{"b|c"}}},
		{Kind: finding.NoBlockingFailed},
	}
	if got := finding.Texts(fs); len(got) != 2 || got[0] != "blocking criterion failed: pii on 1 item(s): b|c; safety on 1 item(s): a" {
		t.Errorf("Texts = %q", got)
	}
	if got := finding.Markdowns(fs); len(got) != 2 || got[0] != "blocking criterion failed: `pii` on 1 item(s): `b|c`; `safety` on 1 item(s): `a`" || got[1] != "no blocking criterion failed" {
		t.Errorf("Markdowns = %q", got)
	}
}

// A drop within noise that passes under noisy-drop warn is a typed warning.
func TestDropWithinNoiseKind(t *testing.T) {
	g := decide(report(78), baseline(80, "sha256:aaaaaaaaaaaaaaaa"), func(in *gate.DecideInput) {
		in.MaxBaselineAge = 0
		in.NoisyDrop = gate.NoisyWarn
		in.Paired = &gate.Paired{Method: "paired", Common: 10, CI95: &[2]float64{-0.05, 0.01}}
	})
	var got []finding.Finding
	for _, f := range g.Findings {
		if f.Severity == finding.Warning {
			got = append(got, f)
		}
	}
	if len(got) != 1 || got[0].Kind != finding.DropWithinNoise || got[0].Change != (78.0-80)/80 || got[0].MaxDrop != 0.02 {
		t.Fatalf("warnings %+v", got)
	}
}

// Lists a report controls are cut at five in the comment, whole in the text.
func TestMarkdownCutsLists(t *testing.T) {
	var ws []finding.Weight
	var adds []string
	for i := range 8 {
		ws = append(ws, finding.Weight{Criterion: "c" + strings.Repeat("x", i), Rubric: 1, Metric: "m", Tool: 2})
		adds = append(adds, "a new kind of waived reason: k"+strings.Repeat("x", i))
	}
	f := finding.Finding{Kind: finding.ToolWeightsDiffer, File: "r.json", Params: finding.Params{ToolParams: finding.ToolParams{Format: "promptfoo", Weights: ws}}}
	if md := f.Markdown(); !strings.HasSuffix(md, " and 3 more") || strings.Count(md, "(`m`") != 5 {
		t.Errorf("Markdown = %q", md)
	}
	if strings.Count(f.Text(), `("m" 2)`) != 8 {
		t.Errorf("Text = %q", f.Text())
	}
	a := finding.Finding{Kind: finding.AcceptanceNotCovered, Params: finding.Params{AcceptParams: finding.AcceptParams{AcceptLabel: "l", Commit: "0123456789", Adds: adds}}}
	if md := a.Markdown(); !strings.Contains(md, "; 3 more, which the label") || strings.Count(md, "waived reason") != 5 {
		t.Errorf("Markdown = %q", md)
	}
	if txt := a.Text(); strings.Count(txt, "waived reason") != 8 || !strings.Contains(txt, "at commit 0123456 for nothing") {
		t.Errorf("Text = %q", txt)
	}
	n := finding.Finding{Kind: finding.AcceptanceNotShown, Params: finding.Params{AcceptParams: finding.AcceptParams{AcceptLabel: "l", Commit: "0123456789", Waived: []string{"drop"}, Adds: adds}}}
	if md := n.Markdown(); !strings.Contains(md, "; 3 more, which it does not cover") || strings.Count(md, "waived reason") != 5 {
		t.Errorf("Markdown = %q", md)
	}
	if txt := n.Text(); strings.Count(txt, "waived reason") != 8 || !strings.Contains(txt, "(commit 0123456, for drop)") {
		t.Errorf("Text = %q", txt)
	}
}

// The grouped parameters are one flat object in the JSON report, as the
// single bag was, and read back into their groups.
func TestParamsJSONFlat(t *testing.T) {
	f := finding.Finding{Kind: finding.AggregateDrop, Params: finding.Params{Count: 2,
		DropParams:    finding.DropParams{Change: -0.05, MaxDrop: 0.02},
		ItemSetParams: finding.ItemSetParams{Common: 7},
		AcceptParams:  finding.AcceptParams{Label: "ok"}}}
	data, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(data), `{"kind":"aggregate-drop","severity":"","count":2,"change":-0.05,"max_drop":0.02,"common":7,"label":"ok"}`; got != want {
		t.Errorf("json %s, want %s", got, want)
	}
	var back finding.Finding
	if err := json.Unmarshal(data, &back); err != nil || back.Change != -0.05 || back.Common != 7 || back.Label != "ok" || back.Count != 2 {
		t.Errorf("read back %+v, %v", back, err)
	}
}
