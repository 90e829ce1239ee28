package finding

import "testing"

// Each kind is declared in one group (kind_*.go) with its renderer: a kind
// listed in two groups would have one renderer silently replace the other.
func TestKindTablesDisjoint(t *testing.T) {
	groups := map[string]map[Kind]renderer{
		"gate": gateKinds, "baseline": baselineKinds, "rubric": rubricKinds, "drop": dropKinds,
		"item": itemKinds, "result": resultKinds, "judge": judgeKinds, "accept": acceptKinds, "drift": driftKinds,
	}
	seen := map[Kind]string{}
	n := 0
	for name, g := range groups {
		for k, r := range g {
			if r == nil {
				t.Errorf("%s: kind %s has no renderer", name, k)
			}
			if other, ok := seen[k]; ok {
				t.Errorf("kind %s is in the %s and %s groups", k, other, name)
			}
			seen[k] = name
			n++
		}
	}
	if len(renderers) != n || n != len(seen) {
		t.Errorf("renderers holds %d kinds, the groups %d (%d distinct): every group must be in renderers", len(renderers), n, len(seen))
	}
	if _, ok := renderers[Message]; ok {
		t.Error("Message has a renderer: it is the default (its Detail as it is)")
	}
}
