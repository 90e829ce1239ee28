package formats

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/rubricgate/rubricgate/results/native"
	"io"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestDecodeNonFiniteOnlyInValuePosition(t *testing.T) {
	ok := map[string]kind{
		`NaN`:                          kNonFinite,
		` [NaN, Infinity, -Infinity] `: kArray,
		`{"v": NaN}`:                   kObject,
		`{"v": [1, NaN]}`:              kObject,
		`{"a":"NaN"}`:                  kObject,
	}
	for in, want := range ok {
		v, err := decodeAll("t.json", strings.NewReader(in), 0)
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if v.kind != want {
			t.Errorf("%s: kind %v, want %v", in, v.kind, want)
		}
	}
	v, _ := decodeAll("t.json", strings.NewReader(`[NaN, Infinity, -Infinity]`), 0)
	if !math.IsNaN(v.arr[0].f) || !math.IsInf(v.arr[1].f, 1) || !math.IsInf(v.arr[2].f, -1) {
		t.Errorf("non-finite values decoded as %v %v %v", v.arr[0].f, v.arr[1].f, v.arr[2].f)
	}
	bad := map[string]string{
		`{NaN: 1}`:      "expected a string key",
		`{"a": NaNa}`:   "expected NaN",
		`{"a": nan}`:    "expected null",
		`{"a": -NaN}`:   "expected a digit after '-'",
		`{"a": +1}`:     "expected a value",
		`{"a": Inf}`:    "expected Infinity",
		`{"a": 1e400}`:  "out of range",
		`{"a": 01}`:     "leading zero",
		`{"a": 1.}`:     "digit after the decimal point",
		`{"a":1,"a":2}`: `duplicate key "a"`,
		`{"a":1}x`:      "end of the input",
		"\"\xff\"":      "not valid UTF-8",
		`"\ud800"`:      "surrogate",
		"\"a\nb\"":      "control character",
		`[1,]`:          "expected a value",
		`{"a" 1}`:       "expected ':'",
		`[1 2]`:         "expected ',' or ']'",
		``:              "expected a value",
		`{"a":[`:        "expected a value, found the end of the input",
		`{"a":1.5e}`:    "digit in the exponent",
		`truex`:         "expected true",
	}
	for in, want := range bad {
		_, err := decodeAll("t.json", strings.NewReader(in), 0)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one containing %q", in, err, want)
		}
	}
}

func TestDecodeErrorNamesFileLineAndPath(t *testing.T) {
	in := "{\n  \"a\": [\n    1,\n    {\"b\": tru}\n  ]\n}"
	_, err := decodeAll("x.json", strings.NewReader(in), 0)
	var ie *native.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v is not an *native.InputError", err)
	}
	if ie.File != "x.json" || ie.Line != 4 || ie.Path != "$.a[1].b" {
		t.Errorf("error at %s:%d %s, want x.json:4 $.a[1].b (%v)", ie.File, ie.Line, ie.Path, err)
	}
	// A number ending a line must not count the newline twice.
	_, err = decodeAll("x.json", strings.NewReader("[1\n,2\n,x]"), 0)
	if !errors.As(err, &ie) || ie.Line != 3 {
		t.Errorf("error %v, want line 3", err)
	}
}

func TestDecodeLimitsAndDepth(t *testing.T) {
	_, err := decodeAll("x.json", strings.NewReader(`["`+strings.Repeat("a", 100)+`"]`), 50)
	if !errors.Is(err, errLimit) {
		t.Errorf("over the limit: %v, want errLimit", err)
	}
	if _, err := decodeAll("x.json", strings.NewReader(`[1]`), 3); err != nil {
		t.Errorf("exactly at the limit: %v", err)
	}
	deep := strings.Repeat("[", maxDepth+2) + strings.Repeat("]", maxDepth+2)
	if _, err := decodeAll("x.json", strings.NewReader(deep), 0); err == nil || !strings.Contains(err.Error(), "nesting") {
		t.Errorf("deep nesting: %v", err)
	}
}

// toAny converts a decoded value to what encoding/json yields with UseNumber.
func toAny(v *value) any {
	switch v.kind {
	case kNull:
		return nil
	case kBool:
		return v.b
	case kNumber:
		return json.Number(v.s)
	case kString:
		return v.s
	case kArray:
		out := []any{}
		for _, e := range v.arr {
			out = append(out, toAny(e))
		}
		return out
	case kObject:
		out := map[string]any{}
		for i, k := range v.keys {
			out[k] = toAny(v.vals[i])
		}
		return out
	}
	return "nonfinite"
}

// FuzzDecode checks the NaN-tolerant decoder against encoding/json: on
// input without NaN/Infinity tokens, duplicate keys, invalid UTF-8, lone
// surrogates or out-of-range numbers, both accept the same documents and
// agree on their values; it never panics, and NaN tokens it accepts stand
// only where a value does.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5e3,-0,"x\u00e9",true,null]}`, `NaN`, `{"v":NaN}`, `[Infinity,-Infinity]`,
		`{"a":"NaN"}`, `{"a":1,"a":2}`, `"\ud83d\ude00"`, `{"x":{"y":[[]]}}`, `1e400`, `-`, `[1,]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeAll("f.json", bytes.NewReader(data), 0)
		var std any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		stdErr := dec.Decode(&std)
		if stdErr == nil {
			if _, e := dec.Token(); e != io.EOF {
				stdErr = errors.New("trailing data")
			}
		}
		if err == nil && hasNonFinite(v) {
			// encoding/json refuses these; nothing more to compare.
			return
		}
		special := !utf8.Valid(data) || bytes.Contains(data, []byte(`\u`)) || bytes.ContainsAny(data, "eE")
		if stdErr == nil && err != nil {
			// Refused on purpose: duplicate keys, and numbers beyond
			// float64 (encoding/json keeps them as text with UseNumber).
			if strings.Contains(err.Error(), "duplicate key") || strings.Contains(err.Error(), "out of range") || special {
				return
			}
			t.Fatalf("encoding/json accepts %q, the decoder refuses it: %v", data, err)
		}
		if stdErr != nil && err == nil {
			t.Fatalf("the decoder accepts %q, encoding/json refuses it: %v", data, stdErr)
		}
		if err == nil && !reflect.DeepEqual(toAny(v), std) {
			t.Fatalf("%q: decoded %#v, encoding/json %#v", data, toAny(v), std)
		}
	})
}

func hasNonFinite(v *value) bool {
	switch v.kind {
	case kNonFinite:
		return true
	case kArray:
		for _, e := range v.arr {
			if hasNonFinite(e) {
				return true
			}
		}
	case kObject:
		for _, e := range v.vals {
			if hasNonFinite(e) {
				return true
			}
		}
	}
	return false
}

// FuzzReaders feeds arbitrary bytes to every reader: none panics, every
// failure is an *native.InputError naming the file, and every record has an id.
func FuzzReaders(f *testing.F) {
	for _, p := range []string{"promptfoo/results.jsonl", "inspect/epochs.json", "deepeval/test_run_20261201_000000.json",
		"openai-evals/modelgraded.jsonl", "ragas/results.csv"} {
		data, err := os.ReadFile("testdata/" + p)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 4096 {
			data = data[:4096]
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range All() {
			err := format.Read("in.x", bytes.NewReader(data), func(r *Record) error {
				if r.ID == "" {
					t.Fatalf("%s: a record without an id from %q", format.Name, data)
				}
				return nil
			})
			var ie *native.InputError
			if err != nil && (!errors.As(err, &ie) || ie.File == "" || !strings.HasPrefix(err.Error(), "in.x")) {
				t.Fatalf("%s: error %v is not an *native.InputError naming the file", format.Name, err)
			}
		}
	})
}
