package baseline

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// sameDecode checks what readFast does with data against encoding/json:
// when it accepts, encoding/json decodes the file without an error and to
// the same values. It returns whether readFast accepted.
func sameDecode(t testing.TB, data []byte) bool {
	t.Helper()
	var fast wire
	if !readFast(data, &fast) {
		return false
	}
	var slow wire
	if err := json.Unmarshal(data, &slow); err != nil {
		t.Fatalf("readFast accepted what encoding/json refuses (%v):\n%.300s", err, data)
	}
	fi, si := fast.Items, slow.Items
	if si == nil || !reflect.DeepEqual(fi.Count, si.Count) || (fi.IDs == nil) != (si.IDs == nil) || (fi.Scores == nil) != (si.Scores == nil) {
		t.Fatalf("items differ: %+v / %+v\n%.300s", fi, si, data)
	}
	if fi.IDs != nil && (si.IDs.err != nil || !reflect.DeepEqual(columnIDs(fi.IDs.cols), columnIDs(si.IDs.cols))) {
		t.Fatalf("ids differ: %v / %v (%v)", columnIDs(fi.IDs.cols), columnIDs(si.IDs.cols), si.IDs.err)
	}
	if fi.Scores != nil {
		if si.Scores.err != nil || len(fi.Scores.scores) != len(si.Scores.scores) {
			t.Fatalf("scores differ: %v / %v (%v)", fi.Scores.scores, si.Scores.scores, si.Scores.err)
		}
		for i, v := range fi.Scores.scores {
			if math.Float64bits(v) != math.Float64bits(si.Scores.scores[i]) {
				t.Fatalf("score %d: %v (fast) / %v", i, v, si.Scores.scores[i])
			}
		}
	}
	if (fi.InputHashes == nil) != (si.InputHashes == nil) || fi.InputHashes != nil && (si.InputHashes.err != nil || !bytes.Equal(fi.InputHashes.data, si.InputHashes.data)) {
		t.Fatalf("input hashes differ: %+v / %+v", fi.InputHashes, si.InputHashes)
	}
	fast.Items, slow.Items = nil, nil
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("header differs:\n%+v\n%+v", fast, slow)
	}
	return true
}

// readFast takes the files Write makes, also reformatted or with the
// members in another order, and decodes them as encoding/json does; it
// leaves to encoding/json every file it could read differently or that
// has an error, and Read still names the problem with its line.
func TestReadFast(t *testing.T) {
	base := encode(t, testFile(t, "rag-review"))
	var compact, indented bytes.Buffer
	json.Compact(&compact, base)
	json.Indent(&indented, base, "", "\t")
	var m map[string]json.RawMessage
	if err := json.Unmarshal(base, &m); err != nil {
		t.Fatal(err)
	}
	sorted, _ := json.Marshal(m) // keys sorted: items in the middle
	itemsOnly := func(items string) []byte {
		m2 := map[string]json.RawMessage{}
		for k, v := range m {
			m2[k] = v
		}
		m2["items"] = json.RawMessage(items)
		b, _ := json.Marshal(m2)
		return b
	}
	first := []byte(`{"items":` + string(m["items"]) + "," + strings.TrimPrefix(compact.String(), "{"))
	first = bytes.Replace(first, []byte(`,"items":`+string(mustCompact(t, m["items"]))), nil, 1)
	if !bytes.HasPrefix(first, []byte(`{"items":`)) || bytes.Count(first, []byte(`"items"`)) != 1 {
		t.Fatalf("items first: %.200s", first)
	}
	for name, data := range map[string][]byte{
		"as written": base, "compact": compact.Bytes(), "indented": indented.Bytes(), "sorted keys": sorted, "items first": first,
		"count last":       itemsOnly(`{"ids":["a","b","c"],"scores":[70,80,75],"count":3}`),
		"no count":         itemsOnly(`{"ids":["a","b","c"],"scores":[70,80,75]}`),
		"escaped ids":      itemsOnly(`{"count":3,"ids":["a\"q","\u00e9","ü"],"scores":[70,80,75]}`),
		"number forms":     itemsOnly(`{"count":3,"ids":["a","b","c"],"scores":[7e1,80.0000,75E0]}`),
		"wrong count":      itemsOnly(`{"count":99999999,"ids":["a","b","c"],"scores":[70,80,75]}`),
		"negative count":   itemsOnly(`{"count":-1,"ids":["a","b","c"],"scores":[70,80,75]}`),
		"empty item lists": itemsOnly(`{"count":0,"ids":[],"scores":[]}`),
	} {
		if !sameDecode(t, data) {
			t.Errorf("%s: not read by the fast path", name)
		}
	}
	if _, err := Read(bytes.NewReader(sorted), "b.json", 0); err != nil {
		t.Errorf("sorted keys: %v", err)
	}

	// Left to encoding/json: it reads them, or names the problem.
	for name, data := range map[string][]byte{
		"unknown item member": itemsOnly(`{"count":3,"ids":["a","b","c"],"scores":[70,80,75],"x":1}`),
		"folded item key":     itemsOnly(`{"count":3,"IDs":["a","b","c"],"scores":[70,80,75]}`),
		"repeated item key":   itemsOnly(`{"count":3,"ids":["a","b","c"],"ids":["a","b","c"],"scores":[70,80,75]}`),
		"null ids":            itemsOnly(`{"count":3,"ids":null,"scores":[70,80,75]}`),
		"null items":          itemsOnly(`null`),
		"items not an object": itemsOnly(`[1]`),
		"leading zero":        itemsOnly(`{"count":3,"ids":["a","b","c"],"scores":[70,080,75]}`),
		"bare point":          itemsOnly(`{"count":3,"ids":["a","b","c"],"scores":[70,80.,75]}`),
		"plus sign":           itemsOnly(`{"count":3,"ids":["a","b","c"],"scores":[+70,80,75]}`),
		"control character":   itemsOnly(`{"count":3,"ids":["a","b` + "\x01" + `","c"],"scores":[70,80,75]}`),
		"string score":        itemsOnly(`{"count":3,"ids":["a","b","c"],"scores":[70,"80",75]}`),
		"huge score":          itemsOnly(`{"count":3,"ids":["a","b","c"],"scores":[70,1e999,75]}`),
		"folded items key":    bytes.Replace(base, []byte(`"items"`), []byte(`"Items"`), 1),
		"long-s items key":    bytes.Replace(base, []byte(`"items"`), []byte(`"itemſ"`), 1),
		"escaped items key":   bytes.Replace(base, []byte(`"items"`), []byte(`"\u0069tems"`), 1),
		"repeated items":      bytes.Replace(base, []byte(`"schema"`), []byte(`"items": {"count": 0, "ids": [], "scores": []}, "schema"`), 1),
		"trailing data":       append(append([]byte{}, base...), []byte(" {}")...),
		"truncated":           base[:len(base)-3],
		"no items":            bytes.Replace(compact.Bytes(), []byte(`"items"`), []byte(`"other"`), 1),
		"bad header":          bytes.Replace(base, []byte(`"schema": 1`), []byte(`"schema": "1"`), 1),
		"header syntax":       bytes.Replace(base, []byte(`"schema": 1,`), []byte(`"schema": 1,,`), 1),
		"array":               []byte(`[1]`),
	} {
		if sameDecode(t, data) {
			t.Errorf("%s: read by the fast path", name)
		}
	}
	// The errors are encoding/json's, with the file's line.
	bad := bytes.Replace(base, []byte(`"scores": [`), []byte(`"scores": [080,`), 1)
	line := bytes.Count(bad[:bytes.Index(bad, []byte("[080"))], []byte("\n")) + 1
	if _, err := Read(bytes.NewReader(bad), "b.json", 0); err == nil || !strings.Contains(err.Error(), "b.json:"+strconv.Itoa(line)+":") {
		t.Errorf("leading zero: %v (line %d)", err, line)
	}
}

func mustCompact(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// parseNumber gives strconv.ParseFloat's value, bit for bit, wherever it
// answers, and declines what is not a plain decimal.
func TestParseNumber(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var cases []string
	for range 200_000 {
		f := 100 * rng.Float64()
		switch rng.IntN(4) {
		case 0:
			f = math.Round(f*3) / 3
		case 1:
			f = float64(rng.IntN(101))
		case 2:
			f = math.Ldexp(rng.Float64(), -rng.IntN(40))
		}
		cases = append(cases, string(appendJSONFloat(nil, f)), strconv.FormatFloat(f, 'f', rng.IntN(20), 64))
	}
	cases = append(cases, "0", "-0", "100", "99.99999999999999", "9007199254740993", "900719925474099.3", "0.1", "1.0000000000000000000001", "123456789012345678")
	taken := 0
	for _, s := range cases {
		got, ok := parseNumber([]byte(s))
		want, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if ok {
			taken++
			if math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("parseNumber(%s) = %v, strconv says %v", s, got, want)
			}
		}
	}
	if taken < len(cases)/2 {
		t.Errorf("the fast path took only %d of %d", taken, len(cases))
	}
	for _, s := range []string{"", "-", "01", "-01", "1.", ".5", "+1", "1e5", "1E5", "0x10", "1_0", "Inf", "NaN", "1.2.3", "--1"} {
		if _, ok := parseNumber([]byte(s)); ok {
			t.Errorf("parseNumber(%q) answered", s)
		}
	}
}

// FuzzReadFast: whatever readFast accepts, encoding/json reads the same.
func FuzzReadFast(f *testing.F) {
	f.Add(encode(f, testFile(f, "rag-review")))
	f.Add([]byte(`{"schema":1,"items":{"count":1,"ids":["a"],"scores":[1]}}`))
	f.Add([]byte(`{"schema":1,"items":{"count":1,"ids":["a"],"scores":[1],"input_hashes":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="}}`))
	f.Add([]byte(`{"items":{"count":2,"ids":["a","\u00e9"],"scores":[1.5,-0]},"x":[{"y":"}"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameDecode(t, data)
	})
}

// A score column reads every number as strconv.ParseFloat does, bit for
// bit, through the exact fast path, the cache of repeated values (whose
// slots are shared) and strconv.
func TestScoreColumnValues(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var nums []string
	for range 50_000 {
		f := 90 + 10*rng.Float64() // sixteen digits from 90.07: past the fast path
		if rng.IntN(2) == 0 {
			f = float64(rng.IntN(3000)) / 30
		}
		s := string(appendJSONFloat(nil, f))
		if rng.IntN(5) == 0 {
			s = strconv.FormatFloat(f, 'e', -1, 64)
		}
		nums = append(nums, s)
	}
	raw := []byte("[" + strings.Join(nums, ",") + "]")
	var c scoreColumn
	if c.UnmarshalJSON(raw); c.err != nil {
		t.Fatal(c.err.msg)
	}
	for i, s := range nums {
		want, _ := strconv.ParseFloat(s, 64)
		if math.Float64bits(c.scores[i]) != math.Float64bits(want) {
			t.Fatalf("%s read as %v, want %v", s, c.scores[i], want)
		}
	}
	var nc numCache
	nc.put([]byte("93.33333333333333"), 93.33333333333333)
	if v, ok := nc.get([]byte("93.33333333333333")); !ok || v != 93.33333333333333 {
		t.Error("cached value not found")
	}
	if _, ok := nc.get([]byte("93.33333333333334")); ok {
		t.Error("another number found in the cache")
	}
}

// A large file's scores column is parsed on a second core while the ids
// are: the result is the same, also when another "scores" key follows the
// items or the columns come in another order (then they are parsed one
// after the other).
func TestReadFastScoresAhead(t *testing.T) {
	rb := testRubric("big")
	items := genItems(parallelItems + 1000)
	f, err := New(rb, reportOf(rb, items), items, testMeta)
	if err != nil {
		t.Fatal(err)
	}
	data := encode(t, f)
	decoy := append(bytes.Clone(bytes.TrimSuffix(bytes.TrimRight(data, "\n"), []byte("}"))), []byte(`, "extra": {"scores": [1, 2]}}`)...)
	ids := bytes.Index(data, []byte(`"ids": `)) + len(`"ids": `)
	idsEnd, ok := skipValue(data, ids)
	if !ok {
		t.Fatal("no ids column")
	}
	scores := bytes.Index(data, []byte(`"scores": `))
	scoresEnd, ok := skipValue(data, scores+len(`"scores": `))
	if !ok || scores < idsEnd {
		t.Fatal("no scores column after the ids")
	}
	// count, scores, ids: the scores column comes first.
	head, sep := data[:ids-len(`"ids": `)], []byte(",\n    ")
	swapped := slices.Concat(head, data[scores:scoresEnd], sep, data[len(head):idsEnd], data[scoresEnd:])
	swappedIDsEnd := len(head) + scoresEnd - scores + len(sep) + idsEnd - len(head)
	for name, d := range map[string][]byte{"as written": data, "another scores key after": decoy, "scores before ids": swapped} {
		if !sameDecode(t, d) {
			t.Fatalf("%s: not read by the fast path", name)
		}
		got, err := Read(bytes.NewReader(d), "big.json", 0)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(got.Items.Items(), items) {
			t.Errorf("%s: items differ", name)
		}
	}
	if spec := parseScoresAhead(data, idsEnd, 10); spec == nil {
		t.Error("the scores column was not found ahead")
	} else if <-spec.done; spec.end < 0 {
		t.Error("the scores column ahead did not parse")
	}
	if parseScoresAhead(data, 0, 10) != nil || parseScoresAhead(swapped, swappedIDsEnd, 10) != nil {
		t.Error("a scores column looked for where it does not follow the ids")
	}
}

// A column sized below the file's count (maxPresize) grows as it is read:
// the fast path still reads what encoding/json reads.
func TestReadFastPastPresize(t *testing.T) {
	defer func(n int) { maxPresize = n }(maxPresize)
	maxPresize = 1
	if !sameDecode(t, encode(t, testFile(t, "rag-review"))) {
		t.Error("a count above maxPresize: not read by the fast path as encoding/json reads it")
	}
}

// columnIDs returns the ids of an id column (its scores are not set yet).
func columnIDs(c *gate.ItemColumns) []string {
	ids := make([]string, c.Len())
	for i := range ids {
		ids[i] = c.ID(i)
	}
	return ids
}
