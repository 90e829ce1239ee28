package judge

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/results/native"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/internal/crlf"
	"github.com/rubricgate/rubricgate/internal/usage"
)

// Item is one answer to judge: one line of the input. Lines that share
// an id are answers of one item (see [Group]).
type Item struct {
	// ID identifies the item; the lines sharing it are its answers.
	ID string
	// Query is the question or input the model answered.
	Query string
	// Context is the retrieved context exactly as the model saw it; a list of
	// passages is joined with blank lines.
	Context string
	// Output is the model's answer, the text being judged.
	Output string
	// Reference is an optional reference answer.
	Reference string
	// Line is the line the item starts on in its input.
	Line int
	// Meta holds the input's other fields, passed through to the results
	// line under "meta" (JSON lines: the raw values; CSV: the cells as
	// strings), in input order.
	Meta []MetaField
}

// MetaField is one passed-through input field.
type MetaField struct {
	Key   string
	Value json.RawMessage
}

// Answers is a parsed answers input.
type Answers struct {
	// Items are the input's answers, one a line, in input order.
	Items []Item
	// Groups are the input's items, one an id, in the order of their
	// first line.
	Groups []Group
	// Hash is "sha256:<hex>" of the input's bytes; File is the name the
	// input was read under.
	Hash, File string
	// Repeated counts the ids with two answers of byte-identical output
	// text (see [Repeated]); its IDs is 0 when there are none.
	Repeated Repeated
}

// Repeated is the ids of an input with two answers of the same output
// text, byte for byte: still judged as K answers each, but more likely a
// mistake (an answers file appended twice doubles K with no spread
// between the copies) than K regenerated answers that came out the same.
type Repeated struct {
	// IDs is the number of such ids; ID is the first (in the order of
	// the items), whose answers on lines First and Line have one output.
	IDs         int
	ID          string
	First, Line int
}

// Warning is the run's one warning about the repeated answers of file,
// naming how many ids and the first; "" when there are none.
func (r Repeated) Warning(file string) string {
	if r.IDs == 0 {
		return ""
	}
	ids := "1 id has"
	if r.IDs > 1 {
		ids = fmt.Sprintf("%d ids have", r.IDs)
	}
	return fmt.Sprintf("%s: %s answers with byte-identical output text, the first id %s on lines %d and %d: each copy is judged and counts as one of the id's K answers (with no spread between the copies); if the file was appended twice by mistake, give each answer once", file, ids, quote(r.ID), r.First, r.Line)
}

// repeatedOutputs finds the ids with two answers of one output text.
func repeatedOutputs(items []Item, groups []Group) Repeated {
	var r Repeated
	var seen map[string]int
	for _, g := range groups {
		if len(g.Answers) < 2 {
			continue
		}
		if seen == nil {
			seen = make(map[string]int)
		}
		clear(seen)
		for _, i := range g.Answers {
			it := &items[i]
			first, dup := seen[it.Output]
			if !dup {
				seen[it.Output] = it.Line
				continue
			}
			if r.IDs == 0 {
				r.ID, r.First, r.Line = g.ID, first, it.Line
			}
			r.IDs++
			break
		}
	}
	return r
}

// Group is one item of an input: the answers (lines) sharing its id, K
// regenerated answers of one question, in input order. They agree on the
// question, context and reference (the task input_hash covers) and on the
// passed-through fields.
type Group struct {
	ID string
	// Answers index Answers.Items, in input order.
	Answers []int
}

// MultiAnswer returns the first item (in input order) with more than one
// answer, and false when every id has one line.
func (a *Answers) MultiAnswer() (Group, bool) {
	for _, g := range a.Groups {
		if len(g.Answers) > 1 {
			return g, true
		}
	}
	return Group{}, false
}

// InputError is bad answers input at a line: the one input error type of
// every reader (results/native.InputError), under judge's name.
type InputError = native.InputError

// maxAnswerLine is the longest answers line accepted.
const maxAnswerLine = 8 << 20

var (
	queryKeys  = []string{"input", "query", "question"}
	outputKeys = []string{"output", "answer", "response"}
)

// ReadAnswers reads an answers file: JSON lines, or CSV when name ends in
// .csv. Every line needs a non-empty id and an answer
// (output/answer/response); the question (input/query/question), context (a
// string or a list of strings) and reference are optional; other fields are
// passed through to the results under "meta". Lines sharing an id, adjacent
// or not, are answers of one item (regenerated answers), grouped in the
// order of the id's first line: they must agree on the question, context,
// reference and passed-through fields, and number at most
// native.MaxSamples. Errors are *InputError naming the file and line (and,
// for lines that disagree, the id's first line).
func ReadAnswers(name string, r io.Reader) (*Answers, error) {
	h := sha256.New()
	tr := io.TeeReader(r, h)
	var items []Item
	var err error
	if strings.HasSuffix(strings.ToLower(name), ".csv") {
		items, err = readAnswersCSV(name, tr)
	} else {
		items, err = readAnswersJSONL(name, tr)
	}
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(io.Discard, tr); err != nil {
		return nil, &InputError{File: name, Msg: fmt.Sprintf("read error: %v", err)}
	}
	if len(items) == 0 {
		return nil, &InputError{File: name, Msg: "no items: expected one answer per line"}
	}
	groups, err := groupAnswers(name, items)
	if err != nil {
		return nil, err
	}
	return &Answers{Items: items, Groups: groups, Hash: "sha256:" + hex.EncodeToString(h.Sum(nil)), File: name, Repeated: repeatedOutputs(items, groups)}, nil
}

// CheckAnswerSamples refuses judging an input with several answers for
// one id (see [Answers.MultiAnswer]) more than once per answer: a results
// line holds the judgings of one answer ("samples") or one judging of
// each of several answers ("answers"), never both, so --samples must be 1
// and --safety-confirm (which re-judges into "samples") 0. The error is a
// *usage.Error naming the flag and the first such id.
func CheckAnswerSamples(samples, safetyConfirm int, ans *Answers) error {
	g, multi := ans.MultiAnswer()
	if !multi || samples <= 1 && safetyConfirm <= 0 {
		return nil
	}
	where := fmt.Sprintf("%s: id %s has %d answers, first on line %d", ans.File, quote(g.ID), len(g.Answers), ans.Items[g.Answers[0]].Line)
	if samples > 1 {
		return usage.Errorf(`--samples %d with several answers per id (%s): a results line holds the judgings of one answer ("samples") or one judging of each of its answers ("answers"), not both; give --samples 1 (the answers already average the judge's noise with the answers'), or one answer per id`, samples, where)
	}
	return usage.Errorf(`--safety-confirm %d with several answers per id (%s): it re-judges one answer into "samples", which a line of several answers cannot hold; give --safety-confirm 0 (with several answers a blocking criterion fails when any answer fails it)`, safetyConfirm, where)
}

// groupAnswers groups the lines by id, in the order of each id's first
// line. A line whose id was seen must describe the same item as the id's
// first line: the same question, context and reference, and the same
// passed-through fields (one "meta" is written for the item). An id with
// another question is a mistake or an attack (answers of two tasks scored
// as one), so it is refused rather than merged.
//
// Ids are grouped by their exact text, and two spellings of one id are
// refused: ids that differ in bytes but are one id to the gate (the same
// [native.IDKey]: white space or invisible characters at their ends, or
// another Unicode normalisation of the same text) would be judged (and
// paid for) as two items, and the gate would then refuse the results as a
// duplicate id.
func groupAnswers(name string, items []Item) ([]Group, error) {
	at := make(map[string]int, len(items))
	byKey := make(map[string]int, len(items))
	var groups []Group
	for i := range items {
		it := &items[i]
		gi, seen := at[it.ID]
		if !seen {
			key := native.IDKey(it.ID)
			if key == "" {
				return nil, &InputError{File: name, Line: it.Line, Msg: fmt.Sprintf(`empty "id" %s (only white space and invisible characters, which the gate trims): every item needs a non-empty id`, quoteASCII(it.ID))}
			}
			if r, bad := native.InvisibleInID(it.ID); bad {
				return nil, &InputError{File: name, Line: it.Line, Msg: fmt.Sprintf(`"id" %s contains the invisible character U+%04X (a control or format character: zero width, bidi override, ...), which the gate refuses: an id must show what it is`, quoteASCII(it.ID), r)}
			}
			if gk, dup := byKey[key]; dup {
				first := &items[groups[gk].Answers[0]]
				return nil, &InputError{File: name, Line: it.Line, Msg: fmt.Sprintf("id %s and the id %s of line %d differ only in white space or invisible characters at their ends or in Unicode normalisation (NFC): the gate reads them as one id, so the judged results would be refused as a duplicate id; spell one id one way on every line of its answers, or give another item another id", quoteASCII(it.ID), quoteASCII(first.ID), first.Line)}
			}
			byKey[key] = len(groups)
			at[it.ID] = len(groups)
			groups = append(groups, Group{ID: it.ID, Answers: []int{i}})
			continue
		}
		g := &groups[gi]
		first := &items[g.Answers[0]]
		if what := differs(first, it); what != "" {
			return nil, &InputError{File: name, Line: it.Line, Msg: fmt.Sprintf("id %s %s (the id's first line): the lines of one id are answers to one item and must agree on its question, context and reference (the task input_hash covers) and on its other fields; give another item another id", quote(it.ID), what)}
		}
		if len(g.Answers) == native.MaxSamples {
			return nil, &InputError{File: name, Line: it.Line, Msg: fmt.Sprintf("id %s (first on line %d) has more than %d answers", quote(it.ID), first.Line, native.MaxSamples)}
		}
		g.Answers = append(g.Answers, i)
	}
	return groups, nil
}

// differs says how b, a later answer of a's id, differs from a, naming a's
// line ("" when they describe the same item).
func differs(a, b *Item) string {
	switch {
	case a.Query != b.Query:
		return fmt.Sprintf("has another question than on line %d", a.Line)
	case a.Context != b.Context:
		return fmt.Sprintf("has another context than on line %d", a.Line)
	case a.Reference != b.Reference:
		return fmt.Sprintf("has another reference than on line %d", a.Line)
	}
	for _, m := range b.Meta {
		v, ok := metaValue(a.Meta, m.Key)
		if !ok {
			return fmt.Sprintf("has a field %s that line %d lacks", quote(m.Key), a.Line)
		}
		if !bytes.Equal(v, m.Value) {
			return fmt.Sprintf("has another %s than on line %d", quote(m.Key), a.Line)
		}
	}
	for _, m := range a.Meta {
		if _, ok := metaValue(b.Meta, m.Key); !ok {
			return fmt.Sprintf("lacks the field %s of line %d", quote(m.Key), a.Line)
		}
	}
	return ""
}

func metaValue(meta []MetaField, key string) (json.RawMessage, bool) {
	for _, m := range meta {
		if m.Key == key {
			return m.Value, true
		}
	}
	return nil, false
}

func readAnswersJSONL(name string, r io.Reader) ([]Item, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxAnswerLine)
	var items []Item
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
		}
		if len(b) == 0 {
			continue
		}
		it, err := parseAnswerJSON(b)
		if err != nil {
			return nil, &InputError{File: name, Line: line, Msg: err.Error()}
		}
		it.Line = line
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, &InputError{File: name, Line: line + 1, Msg: fmt.Sprintf("line is longer than %d bytes: expected one answer per line", maxAnswerLine)}
		}
		return nil, &InputError{File: name, Line: line + 1, Msg: fmt.Sprintf("read error: %v", err)}
	}
	return items, nil
}

// parseAnswerJSON decodes one answers line, refusing duplicate keys (a
// hostile input could show the judge one answer and a reader another).
func parseAnswerJSON(b []byte) (Item, error) {
	var it Item
	obj, err := decodeObject(b)
	if err != nil {
		return it, err
	}
	if it.ID, err = obj.id(); err != nil {
		return it, err
	}
	if _, it.Query, err = obj.one(queryKeys); err != nil {
		return it, err
	}
	var key string
	if key, it.Output, err = obj.one(outputKeys); err != nil {
		return it, err
	}
	if key == "" {
		return it, errors.New(`missing the answer: expected a string in "output", "answer" or "response"`)
	}
	if it.Reference, _, err = obj.str("reference"); err != nil {
		return it, err
	}
	if it.Context, err = obj.context(); err != nil {
		return it, err
	}
	it.Meta, err = obj.meta()
	return it, err
}

// answerObject is an answers line's JSON object: its members by key, and
// the keys in order.
type answerObject struct {
	fields map[string]json.RawMessage
	order  []string
}

// decodeObject decodes b as one JSON object of unique keys, with nothing
// after it. A valid object is cut by hand (objectMembers): json.Decoder's
// token stream makes a syntax error value at the end of every member's
// value, and drops it. Anything else goes through the decoder.
func decodeObject(b []byte) (*answerObject, error) {
	if !utf8.Valid(b) {
		return nil, errors.New("line is not valid UTF-8")
	}
	if b[0] != '{' {
		return nil, errors.New("expected a JSON object (JSON lines: one object a line)")
	}
	if json.Valid(b) {
		return objectMembers(b)
	}
	return decodeMembers(b)
}

// decodeMembers reads the members of the object b with json.Decoder,
// whose errors say what is wrong with b.
func decodeMembers(b []byte) (*answerObject, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	obj := &answerObject{fields: map[string]json.RawMessage{}}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		if _, dup := obj.fields[k]; dup {
			return nil, fmt.Errorf("key %s given twice", quote(k))
		}
		obj.fields[k] = v
		obj.order = append(obj.order, k)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("invalid JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("unexpected text after the JSON object (one object a line)")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected text after the JSON object (one object a line)")
	}
	return obj, nil
}

// objectMembers reads the members of b, a valid JSON object, as
// decodeMembers does: keys unescaped, values as their bytes (copied), a key
// given twice refused.
func objectMembers(b []byte) (*answerObject, error) {
	obj := &answerObject{fields: map[string]json.RawMessage{}}
	i := skipSpace(b, 1)
	for i < len(b) && b[i] == '"' {
		end := stringEnd(b, i)
		var k string
		if bytes.IndexByte(b[i:end], '\\') < 0 {
			k = string(b[i+1 : end-1])
		} else if err := json.Unmarshal(b[i:end], &k); err != nil {
			return nil, fmt.Errorf("invalid JSON: %v", err)
		}
		i = skipSpace(b, skipSpace(b, end)+1) // past the colon
		ve := valueEnd(b, i)
		if _, dup := obj.fields[k]; dup {
			return nil, fmt.Errorf("key %s given twice", quote(k))
		}
		obj.fields[k] = append(json.RawMessage(nil), b[i:ve]...)
		obj.order = append(obj.order, k)
		i = skipSpace(b, ve)
		if i < len(b) && b[i] == ',' {
			i = skipSpace(b, i+1)
		}
	}
	return obj, nil
}

// skipSpace returns the offset of the first byte from b[i] that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the offset after the JSON string that starts at b[i].
func stringEnd(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// valueEnd returns the offset after the JSON value that starts at b[i] (b
// is valid JSON).
func valueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = stringEnd(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[i])) {
		i++
	}
	return i
}

// id is the object's non-empty "id", a string or a number as written.
func (o *answerObject) id() (string, error) {
	raw, ok := o.fields["id"]
	if !ok {
		return "", errors.New(`missing "id": every item needs a non-empty id`)
	}
	var id string
	switch {
	case len(raw) > 0 && raw[0] == '"':
		_ = json.Unmarshal(raw, &id)
	case len(raw) > 0 && (raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9'):
		id = string(raw)
	default:
		return "", fmt.Errorf(`"id" must be a string or a number, got %s`, clip(string(raw)))
	}
	if strings.TrimSpace(id) == "" {
		return "", errors.New(`empty "id": every item needs a non-empty id`)
	}
	return id, nil
}

// str is the string member key; ok is false when it is missing or null.
func (o *answerObject) str(key string) (s string, ok bool, err error) {
	v, ok := o.fields[key]
	if !ok || string(v) == "null" {
		return "", false, nil
	}
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false, fmt.Errorf("%q must be a string, got %s", key, clip(string(v)))
	}
	return s, true, nil
}

// one is the string member of one of keys, and its key ("" when none is
// given); two of them given is an error.
func (o *answerObject) one(keys []string) (string, string, error) {
	var got, val string
	for _, k := range keys {
		s, ok, err := o.str(k)
		if err != nil {
			return "", "", err
		}
		if ok {
			if got != "" {
				return "", "", fmt.Errorf("both %q and %q given: expected one of %s", got, k, strings.Join(keys, "/"))
			}
			got, val = k, s
		}
	}
	return got, val, nil
}

// context is the "context" member: a string, or a list of strings joined
// by blank lines.
func (o *answerObject) context() (string, error) {
	v, ok := o.fields["context"]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s, nil
	}
	var list []string
	if err := json.Unmarshal(v, &list); err != nil {
		return "", fmt.Errorf(`"context" must be a string or a list of strings, got %s`, clip(string(v)))
	}
	return strings.Join(list, "\n\n"), nil
}

// meta are the members that are not answer fields, compacted, in order.
func (o *answerObject) meta() ([]MetaField, error) {
	var meta []MetaField
	for _, k := range o.order {
		if !knownAnswerKey(k) {
			var c bytes.Buffer
			if err := json.Compact(&c, o.fields[k]); err != nil {
				return nil, fmt.Errorf("invalid JSON in %s: %v", quote(k), err)
			}
			meta = append(meta, MetaField{Key: k, Value: c.Bytes()})
		}
	}
	return meta, nil
}

func readAnswersCSV(name string, r io.Reader) ([]Item, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	// Peek returns (and clears) a read error, so it is checked here.
	peek, perr := br.Peek(br.Size())
	if crlf.BareCR(peek) {
		return nil, &InputError{File: name, Line: 1, Msg: crlf.Message}
	}
	if perr != nil && perr != io.EOF && perr != bufio.ErrBufferFull {
		return nil, csvErr(name, perr)
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err == io.EOF {
		return nil, &InputError{File: name, Msg: "empty file: expected a header row"}
	}
	if err != nil {
		return nil, csvErr(name, err)
	}
	cols, err := answerColumns(name, head)
	if err != nil {
		return nil, err
	}
	var items []Item
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return items, nil
		}
		if err != nil {
			return nil, csvErr(name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		it, err := cols.item(rec, line)
		if err != nil {
			return nil, err
		}
		items = append(items, it)
	}
}

// csvColumns is where an answers sheet's fields are: a column index, -1
// for a column the sheet lacks.
type csvColumns struct {
	name               string
	head               []string
	id, query, output  int
	context, reference int
}

// answerColumns reads an answers sheet's header: an id and an answer
// column, each field in one column at most, no column named twice.
func answerColumns(name string, head []string) (*csvColumns, error) {
	col := map[string]int{}
	for i, h := range head {
		h = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\xef\xbb\xbf")))
		if _, dup := col[h]; dup && h != "" {
			return nil, &InputError{File: name, Line: 1, Msg: fmt.Sprintf("column %s given twice", quote(h))}
		}
		col[h] = i
	}
	pick := func(keys []string) (int, error) {
		at := -1
		for _, k := range keys {
			if i, ok := col[k]; ok {
				if at >= 0 {
					return 0, &InputError{File: name, Line: 1, Msg: fmt.Sprintf("two columns for one field: expected one of %s", strings.Join(keys, "/"))}
				}
				at = i
			}
		}
		return at, nil
	}
	c := &csvColumns{name: name, head: head, context: -1, reference: -1}
	var ok bool
	if c.id, ok = col["id"]; !ok {
		return nil, &InputError{File: name, Line: 1, Msg: `missing the "id" column`}
	}
	var err error
	if c.query, err = pick(queryKeys); err != nil {
		return nil, err
	}
	if c.output, err = pick(outputKeys); err != nil {
		return nil, err
	}
	if c.output < 0 {
		return nil, &InputError{File: name, Line: 1, Msg: `missing the answer column: expected "output", "answer" or "response"`}
	}
	if i, ok := col["context"]; ok {
		c.context = i
	}
	if i, ok := col["reference"]; ok {
		c.reference = i
	}
	return c, nil
}

// item is the answer of the row rec, on line line: its fields, and the
// other columns as meta.
func (c *csvColumns) item(rec []string, line int) (Item, error) {
	fail := func(msg string) (Item, error) { return Item{}, &InputError{File: c.name, Line: line, Msg: msg} }
	if len(rec) > len(c.head) {
		return fail(fmt.Sprintf("row has %d cells, the header %d", len(rec), len(c.head)))
	}
	get := func(i int) string {
		if i < 0 || i >= len(rec) {
			return ""
		}
		return rec[i]
	}
	it := Item{ID: strings.TrimSpace(get(c.id)), Query: get(c.query), Output: get(c.output), Line: line,
		Context: get(c.context), Reference: get(c.reference)}
	for i, h := range c.head {
		k := strings.TrimSpace(strings.TrimPrefix(h, "\xef\xbb\xbf"))
		if k == "" || knownAnswerKey(strings.ToLower(k)) || i >= len(rec) {
			continue
		}
		if !utf8.ValidString(rec[i]) {
			return fail("row is not valid UTF-8")
		}
		v, _ := json.Marshal(rec[i])
		it.Meta = append(it.Meta, MetaField{Key: k, Value: v})
	}
	if it.ID == "" {
		return fail(`empty "id": every item needs a non-empty id`)
	}
	for _, s := range []string{it.ID, it.Query, it.Output, it.Context, it.Reference} {
		if !utf8.ValidString(s) {
			return fail("row is not valid UTF-8")
		}
	}
	return it, nil
}

func csvErr(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &InputError{File: name, Line: pe.Line, Msg: pe.Err.Error()}
	}
	return &InputError{File: name, Msg: fmt.Sprintf("read error: %v", err)}
}

func clip(s string) string {
	if len(s) > 40 {
		cut := 40
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return s[:cut] + "..."
	}
	return s
}

func quote(s string) string { return strconv.Quote(clip(s)) }

// quoteASCII is quote with every non-ASCII rune escaped: for ids that look
// the same and differ only in their code points.
func quoteASCII(s string) string { return strconv.QuoteToASCII(clip(s)) }

// knownAnswerKey reports whether k is a field the judge reads itself; any
// other field is passed through as metadata.
func knownAnswerKey(k string) bool {
	switch k {
	case "id", "context", "reference":
		return true
	}
	for _, keys := range [][]string{queryKeys, outputKeys} {
		for _, q := range keys {
			if k == q {
				return true
			}
		}
	}
	return false
}
