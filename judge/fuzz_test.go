package judge

import (
	"reflect"
	"testing"
)

// FuzzParse: any judge answer is either refused with a *ValidationError or
// accepted, and an accepted answer survives the cache's round trip.
func FuzzParse(f *testing.F) {
	for _, s := range []string{validJSON, "```json\n" + validJSON + "\n```", `{"accuracy":4.0,"resolution":3,"tone":4,"safety":1,"reasoning":"x"}`, `{}`, `[1]`, "", `{"accuracy":1e400}`} {
		f.Add(s)
	}
	rb := supportRubric(f)
	f.Fuzz(func(t *testing.T, s string) {
		j, err := Parse(rb, s)
		if err != nil {
			if _, ok := err.(*ValidationError); !ok {
				t.Fatalf("error %T %v", err, err)
			}
			return
		}
		back, err := Parse(rb, canonicalText(rb, j))
		if err != nil || !reflect.DeepEqual(back, j) {
			t.Fatalf("round trip of %q: %v %+v vs %+v", s, err, back, j)
		}
	})
}
