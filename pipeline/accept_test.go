package pipeline

import (
	"reflect"
	"strings"
	"testing"
)

const headSHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"

func TestParseAccepted(t *testing.T) {
	d := -0.0659
	for _, a := range []Acceptance{
		{SHA: headSHA, Score: 75.25},
		{SHA: headSHA, Score: 75.25, Rubric: "sha256:" + strings.Repeat("0f", 32), Kinds: []string{KindDrop, KindRubricChange}, Drop: &d, Bound: true},
		{SHA: headSHA, Score: 75.25, Rubric: "sha256:" + strings.Repeat("0f", 32), Bound: true},
	} {
		if got, ok := ParseAccepted(a.Field() + "\n### report"); !ok || !reflect.DeepEqual(got, a) {
			t.Errorf("round trip: %+v %v, want %+v", got, ok, a)
		}
	}
	for _, bad := range []string{"", "### report\n" + (Acceptance{SHA: headSHA}).Field(), acceptedPrefix + "sha=xyz score=1 -->", acceptedPrefix + "sha=" + headSHA + " score=abc -->",
		acceptedPrefix + "sha=" + headSHA + " score=1 rubric=x kinds=drop -->",
		acceptedPrefix + "sha=" + headSHA + " score=1 rubric=sha256:" + strings.Repeat("0f", 32) + " kinds=everything -->"} {
		if _, ok := ParseAccepted(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
