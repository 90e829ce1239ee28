package native

import (
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// input_hash is read from results lines and review sheets, and a value that
// is not the judge's form is refused (never read as no hash).
func TestReadInputHash(t *testing.T) {
	rb := supportRubric()
	h := gate.HashTask("Where is my order?", "", "")
	lines := `{"id":"a","scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1},"input_hash":"` + h.String() + `"}` + "\n" +
		`{"id":"b","scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1},"input_hash":null}` + "\n" +
		`{"id":"c","scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1}}` + "\n"
	items, err := readAll(t, rb, "run.jsonl", lines, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if items[0].InputHash != h || !items[1].InputHash.IsZero() || !items[2].InputHash.IsZero() {
		t.Errorf("hashes %s / %s / %s", items[0].InputHash, items[1].InputHash, items[2].InputHash)
	}
	sheet := "id,accuracy,resolution,tone,safety,input_hash\na,4,3,4,1," + h.String() + "\nb,4,3,4,1,\n"
	items, err = readAll(t, rb, "sheet.csv", sheet, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if items[0].InputHash != h || !items[1].InputHash.IsZero() {
		t.Errorf("sheet hashes %s / %s", items[0].InputHash, items[1].InputHash)
	}

	// Scoring hands the hash to the comparison.
	var got []gate.InputHash
	_, err = Score(rb, []Input{{Name: "run.jsonl", R: strings.NewReader(lines)}}, ScoreOptions{OnItem: func(it *gate.ItemResult) error {
		got = append(got, it.InputHash)
		return nil
	}})
	if err != nil || len(got) != 3 || got[0] != h || !got[2].IsZero() {
		t.Fatalf("scored hashes %v: %v", got, err)
	}

	for _, bad := range []string{`"sha256:abc"`, `"` + strings.ToUpper(h.String()) + `"`, `""`, `12`} {
		line := `{"id":"a","scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1},"input_hash":` + bad + "}\n"
		_, err := readAll(t, rb, "run.jsonl", "\n"+line, ReadOptions{})
		if bad == `12` {
			wantInputError(t, err, "run.jsonl", 2, `"input_hash" must be a string`)
			continue
		}
		wantInputError(t, err, "run.jsonl", 2, `"input_hash" must be "sha256:" and 64 lowercase hex digits`)
	}
	_, err = readAll(t, rb, "sheet.csv", "id,accuracy,resolution,tone,safety,input_hash\na,4,3,4,1,md5:00\n", ReadOptions{})
	wantInputError(t, err, "sheet.csv", 2, `"input_hash" must be`)
}
