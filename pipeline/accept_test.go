package pipeline

import "testing"

const headSHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"

func TestParseAccepted(t *testing.T) {
	a := Acceptance{SHA: headSHA, Score: 75.25}
	if got, ok := ParseAccepted(a.Field() + "\n### report"); !ok || got != a {
		t.Errorf("round trip: %+v %v", got, ok)
	}
	for _, bad := range []string{"", "### report\n" + a.Field(), acceptedPrefix + "sha=xyz score=1 -->", acceptedPrefix + "sha=" + headSHA + " score=abc -->"} {
		if _, ok := ParseAccepted(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}
