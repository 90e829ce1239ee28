package baseline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// hashedFile is testFile with input hashes on its first and last items.
func hashedFile(t *testing.T) (*File, []gate.InputHash) {
	t.Helper()
	f := testFile(t, "support")
	hs := []gate.InputHash{gate.HashTask("q1", "", ""), {}, gate.HashTask("q3", "ctx", "ref")}
	for i, h := range hs {
		f.Items.SetInputHash(i, h)
	}
	return f, hs
}

// The hashes survive a write and a read, on the fast path and through
// encoding/json (a file reformatted by a tool); a file without them reads
// as before, with no hash.
func TestInputHashesRoundTrip(t *testing.T) {
	f, hs := hashedFile(t)
	data := encode(t, f)
	if !bytes.Contains(data, []byte(`"input_hashes": ["`+hs[0].String()+`","","`+hs[2].String()+`"]`)) {
		t.Fatalf("written:\n%s", data)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, data, "", "\t"); err != nil {
		t.Fatal(err)
	}
	// A key in another case is read by encoding/json alone (not the fast path).
	slow := bytes.Replace(indented.Bytes(), []byte(`"count"`), []byte(`"Count"`), 1)
	for name, b := range map[string][]byte{"as written": data, "indented": indented.Bytes(), "slow path": slow} {
		g, err := Read(bytes.NewReader(b), "baseline.json", 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for i, h := range hs {
			if g.Items.InputHash(i) != h {
				t.Errorf("%s: item %d hash %s, want %s", name, i, g.Items.InputHash(i), h)
			}
		}
	}
	old := encode(t, testFile(t, "support"))
	if bytes.Contains(old, []byte("input_hashes")) {
		t.Fatal("a file without hashes writes the column")
	}
	g, err := Read(bytes.NewReader(old), "baseline.json", 0)
	if err != nil || g.Items.HasInputHashes() {
		t.Fatalf("old file: %v, hashes %v", err, g.Items.HasInputHashes())
	}
}

// A hash column that is not the writer's form, or not one an item, is
// refused with the field named: a hash misread as none would let a task
// change unseen.
func TestInputHashesRefused(t *testing.T) {
	f, hs := hashedFile(t)
	data := string(encode(t, f))
	col := `"input_hashes": ["` + hs[0].String() + `","","` + hs[2].String() + `"]`
	for name, c := range map[string]struct{ col, want string }{
		"short":     {`"input_hashes": ["` + hs[0].String() + `",""]`, `field "items.input_hashes": 2 hashes but 3 items`},
		"bad hash":  {`"input_hashes": ["sha256:12","",""]`, `field "items.input_hashes[0]": expected "sha256:<64 hex digits>" or ""`},
		"upper":     {`"input_hashes": ["","","` + strings.ToUpper(hs[2].String()) + `"]`, `field "items.input_hashes[2]"`},
		"not array": {`"input_hashes": "x"`, `field "items.input_hashes": expected an array of strings`},
		"number":    {`"input_hashes": ["",1,""]`, `field "items.input_hashes[1]": expected a string`},
		"escape":    {`"input_hashes": ["","\u0073ha256:00",""]`, `field "items.input_hashes[1]"`},
	} {
		b := strings.Replace(data, col, c.col, 1)
		if b == data {
			t.Fatalf("%s: column not found", name)
		}
		_, err := Read(strings.NewReader(b), "baseline.json", 0)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "baseline.json") {
			t.Errorf("%s: error %v, want %q", name, err, c.want)
		}
	}
}
