package native

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/rubricgate/rubricgate/gate"
	"math"
	"strconv"
	"strings"
	"testing"
)

// checkItem asserts the invariants of an accepted item.
func checkItem(t *testing.T, it *Item, n int) {
	t.Helper()
	if strings.TrimSpace(it.ID) == "" {
		t.Fatalf("accepted an empty id at line %d", it.Line)
	}
	if it.Line < 1 {
		t.Fatalf("bad line %d", it.Line)
	}
	if len(it.Values) != n {
		t.Fatalf("%d values, want %d", len(it.Values), n)
	}
	if it.Error != "" && IsBlank([]byte(it.Error)) {
		t.Fatalf("a blank error %q made the item unscored", it.Error)
	}
}

// checkUnscored checks that an unscored item keeps only integer values of
// blocking criteria (for the gates).
func checkUnscored(t *testing.T, it *Item, sc *schema) {
	t.Helper()
	for i, v := range it.Values {
		if v.State != gate.Missing && (v.State != gate.Scored || !sc.blocking[i]) {
			t.Fatalf("unscored item keeps value %v of criterion %s", v, sc.ids[i])
		}
	}
}

func checkValues(t *testing.T, it *Item, sc *schema) {
	t.Helper()
	if it.Error != "" {
		checkUnscored(t, it, sc)
		return
	}
	var w float64
	for i, v := range it.Values {
		switch v.State {
		case gate.Scored:
			if !(v.Score >= sc.low[i] && v.Score <= sc.high[i]) {
				t.Fatalf("criterion %s: accepted %v outside %v..%v", sc.ids[i], v.Score, sc.low[i], sc.high[i])
			}
			if !(v.Min >= sc.low[i] && v.Max <= sc.high[i] && v.Min <= v.Score && v.Score <= v.Max) || v.N == 0 {
				t.Fatalf("criterion %s: bad summary %+v", sc.ids[i], v)
			}
			if !sc.cont[i] && v.N == 1 && v.Score != math.Trunc(v.Score) {
				t.Fatalf("criterion %s: accepted the non-integer %v", sc.ids[i], v.Score)
			}
			if int(v.N)+int(v.NAs) != it.Samples || 2*int(v.NAs) > it.Samples {
				t.Fatalf("criterion %s: %d scored and %d na of %d samples", sc.ids[i], v.N, v.NAs, it.Samples)
			}
			if v.Below != (sc.critical[i] && v.N == 1 && v.Score < sc.min[i]) && v.N == 1 {
				t.Fatalf("criterion %s: Below %v for %v", sc.ids[i], v.Below, v.Score)
			}
			w += sc.weight[i]
		case gate.NA:
			if !sc.na[i] {
				t.Fatalf("criterion %s: accepted na", sc.ids[i])
			}
		}
	}
	if it.Error == "" && w <= 0 {
		t.Fatalf("accepted an item with no weighted score")
	}
}

func FuzzReadJSONL(f *testing.F) {
	for _, s := range []string{
		`{"id": "q-17", "scores": {"accuracy": 4, "resolution": 3, "tone": 4, "safety": 1}, "reasoning": "...", "judge_model": "m"}`,
		`{"id":"q1","accuracy":4,"resolution":"5","tone":3.0,"safety":1,"reasoning":"r"}`,
		`{"id": 12, "error": "timeout"}`,
		`{"id": "a\u00e9\ud83d\ude00", "scores": {"Policy_Accuracy": 4, "resolution": 3, "tone": 4, "safety": 1}, "x": [1, {"y": null}]}`,
		"{\"id\": \"a\"}\n\n{\"id\": \"b\", \"error\": \"x\"}\r\n",
	} {
		f.Add(s)
	}
	rb := supportRubric()
	sc, _ := newSchema(rb, ReadOptions{})
	f.Fuzz(func(t *testing.T, text string) {
		for _, opts := range []ReadOptions{{}, {AllowMissing: true, IgnoreUnknown: true, KeepMeta: true, MaxLine: 300}} {
			err := ReadItems(rb, Input{Name: "f.jsonl", R: strings.NewReader(text)}, opts, func(it *Item) error {
				checkItem(t, it, len(sc.ids))
				checkValues(t, it, sc)
				return nil
			})
			var ie *InputError
			if err != nil && !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
			if ie != nil && ie.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
		}
	})
}

// FuzzReadJSONLContinuous reads lines under a rubric with a continuous
// criterion next to integer ones, with samples: every accepted single value
// of the continuous criterion equals encoding/json's float64 of it.
func FuzzReadJSONLContinuous(f *testing.F) {
	for _, s := range []string{
		`{"id":"a","helpfulness":0.35,"accuracy":4,"citation":2}`,
		`{"id":"b","helpfulness":"1e-1","accuracy":4.0,"citation":"na"}`,
		`{"id":"c","samples":[{"scores":{"helpfulness":0.2,"accuracy":3,"citation":"na"},"reasoning":"r"},{"scores":{"helpfulness":0.9,"accuracy":4,"citation":2}}]}`,
		`{"id":"d","samples":[{"scores":{"helpfulness":1,"accuracy":3,"citation":"na"}},{"scores":{"helpfulness":0.99999999999999999,"accuracy":4,"citation":"na"}},{"scores":{"helpfulness":-0.0,"accuracy":5,"citation":1}}],"notes":"n"}`,
		`{"id":"e","helpfulness":4.9999999999999999e-1,"accuracy":4.9999999999999999,"citation":2}`,
	} {
		f.Add(s)
	}
	rb := contRubric()
	sc, _ := newSchema(rb, ReadOptions{})
	f.Fuzz(func(t *testing.T, text string) {
		err := ReadItems(rb, Input{Name: "f.jsonl", R: strings.NewReader(text)}, ReadOptions{}, func(it *Item) error {
			checkItem(t, it, len(sc.ids))
			checkValues(t, it, sc)
			return nil
		})
		var ie *InputError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("error %v is not an *InputError", err)
		}
		if err != nil || strings.Count(text, "\n") > 0 {
			return
		}
		// One accepted line: a plain number for helpfulness decodes like
		// encoding/json.
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(text), &m) != nil {
			return
		}
		var want float64
		if json.Unmarshal(m["helpfulness"], &want) != nil {
			return
		}
		_ = ReadItems(rb, Input{Name: "f.jsonl", R: strings.NewReader(text)}, ReadOptions{}, func(it *Item) error {
			if it.Error == "" && it.Values[0].Score != want && !(want == 0 && it.Values[0].Score == 0) {
				t.Fatalf("helpfulness %s read as %v, encoding/json says %v", m["helpfulness"], it.Values[0].Score, want)
			}
			return nil
		})
	})
}

func FuzzReadCSV(f *testing.F) {
	for _, s := range []string{
		"id,G,C,A,U,notes,pass,retrieval_miss\nq1,2,na,2,1,,yes,no\nq2,0,2,2,2,\"bad, very\",no,yes\n",
		"\ufeffID,grounding,citation,answer_handling,usefulness\r\nq1,2,NA,2,2\r\n\"q\n2\",2,2,2,1\r\n",
		"id,G,G\n",
		"id,G,C,A,U,error\nq1,,,,,timeout\n",
	} {
		f.Add(s)
	}
	rb := ragRubric()
	sc, _ := newSchema(rb, ReadOptions{})
	f.Fuzz(func(t *testing.T, text string) {
		for _, opts := range []ReadOptions{{}, {AllowMissing: true, KeepMeta: true}} {
			err := ReadItems(rb, Input{Name: "f.csv", R: strings.NewReader(text)}, opts, func(it *Item) error {
				checkItem(t, it, len(sc.ids))
				checkValues(t, it, sc)
				if it.Error == "" && strings.TrimSpace(it.Notes) == "" {
					for _, v := range it.Values {
						if v.State == gate.Scored && v.Score == 0 {
							t.Fatalf("accepted a 0 without a note")
						}
					}
				}
				return nil
			})
			var ie *InputError
			if err != nil && !errors.As(err, &ie) {
				t.Fatalf("error %v is not an *InputError", err)
			}
		}
	})
}

// hasDupKey reports whether any object in a valid JSON text repeats a key,
// as encoding/json decodes keys.
func hasDupKey(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var walk func() bool
	walk = func() bool {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, _ := dec.Token()
				ks := k.(string)
				if seen[ks] {
					return true
				}
				seen[ks] = true
				if walk() {
					return true
				}
			}
			_, _ = dec.Token()
		case json.Delim('['):
			for dec.More() {
				if walk() {
					return true
				}
			}
			_, _ = dec.Token()
		}
		return false
	}
	return walk()
}

func depth(data []byte) int {
	d, m := 0, 0
	inStr, esc := false, false
	for _, c := range data {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '{' || c == '['):
			d++
			m = max(m, d)
		case !inStr && (c == '}' || c == ']'):
			d--
		}
	}
	return m
}

// FuzzScanner checks the hand-written scanner against encoding/json: it
// accepts a text exactly when json.Valid does and no object repeats a key
// (deeper nesting than maxDepth aside), and decodes strings the same way.
func FuzzScanner(f *testing.F) {
	for _, s := range []string{
		`{"a": "b\u00e9\ud83d\ude00\ud800x\"\\\/\b\f\n\r\t", "n": -0.5e+3, "x": [true, false, null, {}], "y": {"a": 1, "A": 2}}`,
		`{"a": 1, "\u0061": 2}`, `{"a": 0.35, "b": -1.5e-7, "c": 4.9999999999999999, "d": 1e400, "e": [0.1, {"f": 2E+2}]}`, `{"a": "\xff\xfe"}`, `{"a": 01}`, `{"a": 1.}`, `{"a": [1,]}`, `{"a" 1}`, `{} `, ` {"k":"\ud83d\u0041"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if bytes.IndexByte(data, '\n') >= 0 {
			return // one line only
		}
		var s scanner
		s.reset(data)
		s.ws()
		var got error
		if s.i < len(s.b) && s.b[s.i] == '{' {
			got = s.skipObject(1)
			if got == nil {
				s.ws()
				if s.i < len(s.b) {
					got = s.errf("trailing")
				}
			}
		} else {
			return
		}
		valid := json.Valid(data) && !hasDupKey(data)
		if got == nil && !valid {
			t.Fatalf("scanner accepted %q, encoding/json refuses it", data)
		}
		if got != nil && valid && depth(data) <= maxDepth {
			t.Fatalf("scanner refused %q (%v), encoding/json accepts it", data, got)
		}
		if got != nil || !valid {
			return
		}
		// Strings: every top-level string member decodes like encoding/json.
		var m map[string]json.RawMessage
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		s.reset(data)
		s.ws()
		err := s.objectMembers(func(key []byte, _ int) error {
			kind, raw, str, err := s.value(0)
			if err != nil {
				return err
			}
			want, ok := m[string(key)]
			if !ok {
				t.Fatalf("key %q decoded differently", key)
			}
			if kind == kindNumber {
				// Numbers: the text parses to the float64 encoding/json
				// gives (or both refuse it: out of float64's range).
				var wf float64
				werr := json.Unmarshal(want, &wf)
				gf, gerr := strconv.ParseFloat(string(raw), 64)
				if (werr == nil) != (gerr == nil) || (werr == nil && wf != gf) {
					t.Fatalf("number %s: ParseFloat %v (%v), encoding/json %v (%v)", raw, gf, gerr, wf, werr)
				}
			}
			if kind == kindString {
				var ws string
				if err := json.Unmarshal(want, &ws); err != nil {
					t.Fatal(err)
				}
				if ws != string(str) {
					t.Fatalf("string %q decoded as %q, encoding/json says %q", raw, str, ws)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}

// TestScannerStrings checks string decoding against encoding/json around
// the 8-byte fast path's word boundaries.
func TestScannerStrings(t *testing.T) {
	var cases []string
	for n := 0; n < 20; n++ {
		p := strings.Repeat("a", n)
		cases = append(cases, p, p+`\"`, p+"é", p+`\u00e9x`, p+"\xff", p+`\ud83d\ude00`, p+`\ud800`, p+`\\`, p+"\x7f", p+"~")
	}
	for _, c := range cases {
		line := []byte(`{"k": "` + c + `", "n": 1}`)
		var want map[string]any
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		var s scanner
		s.reset(line)
		var got string
		err := s.objectMembers(func(key []byte, _ int) error {
			_, _, str, err := s.value(0)
			if string(key) == "k" {
				got = string(str)
			}
			return err
		})
		if err != nil || got != want["k"] {
			t.Errorf("%q: got %q (%v), want %q", line, got, err, want["k"])
		}
	}
	// Control bytes are refused wherever they fall.
	for n := 0; n < 20; n++ {
		line := []byte(`{"k": "` + strings.Repeat("a", n) + "\x1f" + `"}`)
		var s scanner
		s.reset(line)
		if err := s.objectMembers(func([]byte, int) error { _, _, _, err := s.value(0); return err }); err == nil {
			t.Errorf("%q accepted", line)
		}
	}
}
