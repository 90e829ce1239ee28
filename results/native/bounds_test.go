package native

import (
	"strings"
	"testing"
)

// A score within a few ulps of a scale's end (floating-point noise of the
// tool that computed it) is read as that end; a real out-of-scale value is
// still refused. 1.0000000000000002 used to refuse the whole file.
func TestScoreAtBoundWithFloatNoise(t *testing.T) {
	rb := contRubric()
	read := func(h string) (*Item, error) {
		var got *Item
		line := `{"id":"x","helpfulness":` + h + `,"accuracy":4,"citation":2}`
		err := ReadItems(rb, Input{Name: "r.jsonl", R: strings.NewReader(line)}, ReadOptions{}, func(it *Item) error { got = it; return nil })
		return got, err
	}
	for h, want := range map[string]float64{"1.0000000000000002": 1, "1.0000000000000007": 1, "-5.551115123125783e-17": 0, "1": 1, "0.5": 0.5} {
		it, err := read(h)
		if err != nil {
			t.Errorf("%s: %v", h, err)
			continue
		}
		if it.Values[0].Score != want {
			t.Errorf("%s read as %v, want %v", h, it.Values[0].Score, want)
		}
	}
	for _, h := range []string{"1.000000000000002", "1.0000001", "-1e-15"} {
		if _, err := read(h); err == nil || !strings.Contains(err.Error(), "is outside its scale 0..1") {
			t.Errorf("%s: %v, want refused as outside the scale", h, err)
		}
	}
}
