package gaterun

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

const headSHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"

func TestParseAccepted(t *testing.T) {
	d := -0.0659
	h := "sha256:" + strings.Repeat("0f", 32)
	for _, a := range []gate.AcceptRecord{
		{SHA: headSHA, Score: 75.25, Legacy: true},
		{SHA: headSHA, Score: 75.25, Rubric: h, Kinds: []gate.Waiver{gate.WaiveDrop, gate.WaiveRubricChange}, Drop: &d},
		{SHA: headSHA, Score: 75.25, Rubric: h, Kinds: []gate.Waiver{}},
		{SHA: headSHA, Score: 75.25, Rubric: h, Kinds: []gate.Waiver{gate.WaiveRemovedItems}, Items: h},
	} {
		if got, ok := ParseAccepted(AcceptField(a) + "\n### report"); !ok || !reflect.DeepEqual(got, a) {
			t.Errorf("round trip: %+v %v, want %+v", got, ok, a)
		}
	}
	for _, bad := range []string{"", "### report\n" + AcceptField(gate.AcceptRecord{SHA: headSHA}), acceptedPrefix + "sha=xyz score=1 -->", acceptedPrefix + "sha=" + headSHA + " score=abc -->",
		acceptedPrefix + "sha=" + headSHA + " score=1 rubric=x kinds=drop -->",
		acceptedPrefix + "sha=" + headSHA + " score=1 rubric=" + h + " kinds=drop items=x -->",
		lostField,
		acceptedPrefix + "sha=" + headSHA + " score=1 rubric=sha256:" + strings.Repeat("0f", 32) + " kinds=everything -->"} {
		if _, ok := ParseAccepted(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
