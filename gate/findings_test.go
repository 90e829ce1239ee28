package gate

import (
	"reflect"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/finding"
)

// TestDecideFindings checks the typed findings Decide records: kind,
// severity (Error blocks, Notice for pass reasons and accepted blocks,
// Warning), parameters, and that reasons and warnings are their texts.
func TestDecideFindings(t *testing.T) {
	type kv struct {
		Kind     finding.Kind
		Severity finding.Severity
	}
	kinds := func(fs []finding.Finding) []kv {
		out := []kv{}
		for _, f := range fs {
			out = append(out, kv{f.Kind, f.Severity})
		}
		return out
	}
	t.Run("blocking failures, one finding per criterion", func(t *testing.T) {
		g := decide(runReport(80,
			BlockingFailure{Item: "b", Criterion: "safety"}, BlockingFailure{Item: "x", Criterion: "pii"}, BlockingFailure{Item: "a", Criterion: "safety"}),
			base(80), nil)
		want := []kv{{finding.BlockingFailure, finding.Error}, {finding.BlockingFailure, finding.Error}}
		if got := kinds(g.Findings); !reflect.DeepEqual(got, want) {
			t.Fatalf("findings %v, want %v", got, want)
		}
		if f := g.Findings[0]; f.Criterion != "safety" || !reflect.DeepEqual(f.Items, []string{"b", "a"}) {
			t.Errorf("first finding %+v: want safety on b, a", f)
		}
		if len(g.Reasons) != 1 || g.Reasons[0] != "blocking criterion failed: pii on 1 item(s): x; safety on 2 item(s): b, a" {
			t.Errorf("reasons %q", g.Reasons)
		}
	})
	t.Run("drop accepted, old baseline", func(t *testing.T) {
		g := decide(runReport(70), base(80), func(in *DecideInput) {
			in.MaxBaselineAge = 24 * time.Hour
			acceptShown(in)
		})
		want := []kv{{finding.AggregateDrop, finding.Notice}, {finding.BaselineOld, finding.Warning}}
		if got := kinds(g.Findings); !reflect.DeepEqual(got, want) {
			t.Fatalf("findings %v, want %v", got, want)
		}
		f := g.Findings[0]
		if f.Label != DefaultPolicy.AcceptLabel || f.Baseline != 80 || f.Current != 70 || f.Change != -0.125 {
			t.Errorf("drop finding %+v", f)
		}
		if g.Reasons[0] != f.Text() || g.Warnings[len(g.Warnings)-1] != g.Findings[1].Text() {
			t.Errorf("reasons %q, warnings %q are not the findings' texts", g.Reasons, g.Warnings)
		}
	})
	t.Run("pass within max-drop", func(t *testing.T) {
		g := decide(runReport(80), base(80), func(in *DecideInput) { in.MaxBaselineAge = 0 })
		want := []kv{{finding.WithinMaxDrop, finding.Notice}}
		if got := kinds(g.Findings); !reflect.DeepEqual(got, want) {
			t.Fatalf("findings %v, want %v", got, want)
		}
	})
	t.Run("items removed block", func(t *testing.T) {
		g := decide(runReport(80), base(80), func(in *DecideInput) {
			in.MaxBaselineAge = 0
			in.Paired = &Paired{Removed: 1, RemovedIDs: []string{"q1"}, Common: 9, CommonBaseline: fptr(80), CommonCurrent: fptr(80)}
		})
		want := []kv{{finding.ItemsRemoved, finding.Error}, {finding.ItemSetsDiffer, finding.Warning}}
		if got := kinds(g.Findings); !reflect.DeepEqual(got, want) {
			t.Fatalf("findings %v, want %v", got, want)
		}
		if f := g.Findings[0]; !reflect.DeepEqual(f.Items, []string{"q1"}) || f.AcceptLabel != DefaultPolicy.AcceptLabel {
			t.Errorf("items-removed finding %+v", f)
		}
	})
}
