package gate

import (
	"fmt"
	"reflect"
	"testing"
)

// A blocked run says what can be done: a drop alone is accepted by the
// label; a blocking-criterion failure by nothing, naming the items to fix
// (each once, the first MaxNextItems); a passing run has no next step.
func TestNextStep(t *testing.T) {
	g := decide(runReport(60), base(70), nil)
	if g.Decision != Block || g.Next == nil || !g.Next.Acceptable || g.Next.AcceptLabel != DefaultPolicy.AcceptLabel || g.Next.AcceptBy != AcceptByOthers || len(g.Next.Fix) != 0 {
		t.Fatalf("a drop alone: %s %+v", g.Decision, g.Next)
	}
	fail := func(id string) BlockingFailure { return BlockingFailure{Item: id, Criterion: "safety"} }
	g = decide(runReport(60, fail("q-1"), fail("q-1"), fail("q-2")), base(70), func(in *DecideInput) { acceptShown(in) })
	if g.Decision != Block || g.Next == nil || g.Next.Acceptable || g.Next.AcceptLabel != "" || !reflect.DeepEqual(g.Next.Fix, []string{"q-1", "q-2"}) {
		t.Fatalf("a safety failure with a drop, label on: %s %+v", g.Decision, g.Next)
	}
	var many []BlockingFailure
	for i := range MaxNextItems + 3 {
		many = append(many, fail(fmt.Sprintf("q-%d", i)))
	}
	if n := decide(runReport(90, many...), nil, nil).Next; n == nil || len(n.Fix) != MaxNextItems || n.FixMore != 3 {
		t.Fatalf("many failures: %+v", n)
	}
	cur := runReport(90)
	cur.Unscored = Unscored{Count: 3, Rate: 0.3, Exceeded: true}
	if n := decide(cur, base(80), nil).Next; n == nil || n.Acceptable || len(n.Fix) != 0 {
		t.Fatalf("too many unscored: %+v", n)
	}
	if g := decide(runReport(70), base(70), nil); g.Decision != Pass || g.Next != nil {
		t.Fatalf("a pass has no next step: %+v", g.Next)
	}
	if g := decide(runReport(60), base(70), func(in *DecideInput) { acceptShown(in) }); g.Decision != Pass || g.Next != nil {
		t.Fatalf("an accepted drop has no next step: %+v", g.Next)
	}
}
