package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// The hand-written column encoders write what encoding/json writes.
func TestColumnEncodersMatchEncodingJSON(t *testing.T) {
	strs := []string{"", "q-1", `a"b`, `back\slash`, "tab\tnl\n", "\x01", "<&>", "ünï", "\xff\xfe", "\u2028x\u2029", "🙂", "\x7f"}
	floats := []float64{0, 100, 1e-7, 1.5e-7, 1e-6, 5e-324, 99.99999999999999, 83.33333333333333, 1e21, 12345678.125, math.Copysign(0, -1)}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		floats = append(floats, 100*rng.Float64(), math.Ldexp(rng.Float64(), -rng.IntN(60)))
		b := make([]byte, rng.IntN(8))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		strs = append(strs, string(b))
	}
	for _, s := range strs {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if got := string(appendJSONString(nil, s)); got != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("string %q: got %s, want %s", s, got, want.String())
		}
	}
	for _, f := range floats {
		want, _ := json.Marshal(f)
		if got := string(appendJSONFloat(nil, f)); got != string(want) {
			t.Errorf("float %v: got %s, want %s", f, got, want)
		}
	}
}

// The hand-written column decoders read what encoding/json reads: escapes,
// any whitespace, exponents; ids are exact (invalid UTF-8 becomes U+FFFD as
// encoding/json makes it).
func TestColumnDecoders(t *testing.T) {
	raw := []byte(" [ \"a\" ,\n\"b\\\"c\",\"\\u00e9\", \"ü\",\"x\xffy\" ] ")
	var ids idColumn
	if err := json.Unmarshal(raw, &ids); err != nil || ids.err != nil {
		t.Fatal(err, ids.err)
	}
	var want []string
	json.Unmarshal(raw, &want)
	var got []string
	for i := range ids.cols.Len() {
		got = append(got, ids.cols.ID(i))
	}
	if strings.Join(got, "|") != strings.Join(want, "|") || len(got) != 5 {
		t.Errorf("ids %q, want %q", got, want)
	}
	var sc scoreColumn
	if err := json.Unmarshal([]byte("[1, 2.5e1 ,\n0.000001,-0, 1E2]"), &sc); err != nil || sc.err != nil {
		t.Fatal(err, sc.err)
	}
	if len(sc.scores) != 5 || sc.scores[1] != 25 || sc.scores[2] != 1e-6 || sc.scores[4] != 100 {
		t.Errorf("scores %v", sc.scores)
	}
	for _, bad := range []string{`[1, null]`, `[1, "2"]`, `{"a":1}`, `[1e400]`, `[[1]]`} {
		var sc scoreColumn
		if err := json.Unmarshal([]byte(bad), &sc); err != nil || sc.err == nil {
			t.Errorf("scores %s: no error (%v)", bad, sc.scores)
		}
	}
	for _, bad := range []string{`["a", null]`, `["a", 1]`, `"a"`, `[["a"]]`} {
		var ids idColumn
		if err := json.Unmarshal([]byte(bad), &ids); err != nil || ids.err == nil {
			t.Errorf("ids %s: no error (%v)", bad, ids.cols)
		}
	}
}

// A bad element of a column is reported with the file's line and column.
func TestReadColumnErrorPosition(t *testing.T) {
	data := strings.Replace(string(encode(t, testFile(t, "r"))), `"scores": [`, `"scores": [null,`, 1)
	line := strings.Count(data[:strings.Index(data, "[null")], "\n") + 1
	_, err := Read(strings.NewReader(data), "b.json", 0)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("b.json:%d:", line)) || !strings.Contains(err.Error(), `"items.scores[0]": expected a number, found JSON null`) {
		t.Errorf("error %v (line %d)", err, line)
	}
}

// The score cache writes what appendJSONFloat writes, for repeated values,
// values that share a slot, both zeros and long forms.
func TestFloatCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	vals := []float64{0, math.Copysign(0, -1), 1e-7, 1.2345678901234567e-7, 99.99999999999999, 1e21}
	for range 3000 {
		vals = append(vals, float64(rng.IntN(300))/3, 100*rng.Float64())
	}
	var fc floatCache
	var got, want []byte
	for range 3 {
		for _, v := range vals {
			got = fc.append(got, v)
			got = append(got, ',')
			want = appendJSONFloat(want, v)
			want = append(want, ',')
		}
	}
	if !bytes.Equal(got, want) {
		t.Error("the cache wrote other text than appendJSONFloat")
	}
}
