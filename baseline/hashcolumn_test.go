package baseline

import (
	"bytes"
	"encoding/base64"
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
	var raw []byte
	for _, h := range hs {
		raw = append(raw, h[:]...)
	}
	if !bytes.Contains(data, []byte(`"input_hashes": "`+base64.StdEncoding.EncodeToString(raw)+`"`)) {
		t.Fatalf("written:\n%s", data)
	}
	// A JSON tool that escapes '/' still reads.
	escaped := bytes.ReplaceAll(data, []byte("/"), []byte(`\/`))
	var indented bytes.Buffer
	if err := json.Indent(&indented, data, "", "\t"); err != nil {
		t.Fatal(err)
	}
	// A key in another case is read by encoding/json alone (not the fast path).
	slow := bytes.Replace(indented.Bytes(), []byte(`"count"`), []byte(`"Count"`), 1)
	for name, b := range map[string][]byte{"as written": data, "indented": indented.Bytes(), "slow path": slow, "escaped": escaped} {
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
	f, _ := hashedFile(t)
	data := string(encode(t, f))
	i := strings.Index(data, `"input_hashes": "`)
	j := strings.Index(data[i+len(`"input_hashes": "`):], `"`) + i + len(`"input_hashes": "`) + 1
	col := data[i:j]
	two := base64.StdEncoding.EncodeToString(make([]byte, 64))
	for name, c := range map[string]struct{ col, want string }{
		"short":   {`"input_hashes": "` + two + `"`, `field "items.input_hashes": 2 hashes but 3 items`},
		"ragged":  {`"input_hashes": "` + base64.StdEncoding.EncodeToString(make([]byte, 95)) + `"`, `field "items.input_hashes": 95 bytes, not 32 an item`},
		"not b64": {`"input_hashes": "sha256:12"`, `field "items.input_hashes": not standard base64`},
		"array":   {`"input_hashes": ["", "", ""]`, `field "items.input_hashes": expected a base64 string`},
		"number":  {`"input_hashes": 1`, `field "items.input_hashes": expected a base64 string`},
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

// The fast path decodes the hash column as encoding/json does, and refuses
// what it refuses (a raw newline in the string, which base64 would skip).
func TestInputHashesFastSameAsSlow(t *testing.T) {
	f, _ := hashedFile(t)
	data := encode(t, f)
	if !sameDecode(t, data) {
		t.Fatal("the fast path declined a file Write made")
	}
	i := bytes.Index(data, []byte(`"input_hashes": "`)) + len(`"input_hashes": "`) + 8
	broken := append(append(append([]byte{}, data[:i]...), '\n'), data[i:]...)
	var w wire
	if readFast(broken, &w) && w.Items.InputHashes.err == nil {
		t.Error("the fast path accepted a raw newline in the hash column")
	}
	if _, err := Read(bytes.NewReader(broken), "baseline.json", 0); err == nil {
		t.Error("a raw newline in the hash column was read")
	}
}

// encodeHashed is a valid baseline with an input hash column.
func encodeHashed(t testing.TB) []byte {
	f := testFile(t, "support")
	f.Items.SetInputHash(1, gate.HashTask("q", "", ""))
	return encode(t, f)
}
