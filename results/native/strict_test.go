package native

import (
	"strings"
	"testing"
)

// CheckJSON is the reader's rule on one document: a key twice (after
// unescaping, at any depth) is refused; a strict document passes.
func TestCheckJSON(t *testing.T) {
	for doc, want := range map[string]string{
		`{"a":1,"b":{"c":[1,{"d":2}]}}`: "",
		`{"a":0,"a":1}`:                 "duplicate key",
		`{"a":0,"\u0061":1}`:            "duplicate key",
		`{"x":{"a":0,"a":1}}`:           "duplicate key",
		`{"a":1} x`:                     "unexpected text",
	} {
		err := CheckJSON([]byte(doc))
		if want == "" && err != nil || want != "" && (err == nil || !strings.Contains(err.Error(), want)) {
			t.Errorf("%s: %v, want %q", doc, err, want)
		}
	}
}
