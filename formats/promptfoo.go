package formats

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/rubricgate/rubricgate/record"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// promptfoo's results, as `promptfoo eval -o results.json` (an object whose
// results.results array holds one EvaluateResult per test case x prompt x
// provider) and `-o results.jsonl` (one EvaluateResult per line) write them.
// Source: promptfoo's EvaluateResult and GradingResult types (src/types,
// dist/src/index.d.ts of promptfoo 0.121.20 on npm), and its evaluator
// (dist/src/evaluator-*.js: appendRunEvalOptionsForTestCase, the repeat
// and vars loops). promptfoo's -o results.csv is promptfooCSV; its .yaml,
// .html and .xml outputs are refused by name (Unread).
//
// The id of a row is, in order: testCase.metadata.id, testCase.description,
// or "vars:" and the test's vars as canonical JSON (sorted keys; over 120
// bytes, "vars:sha256:" and 16 hex digits of its hash). Where one such base
// is shared by rows whose vars differ (tests expanded from a vars list
// share their description and metadata), " " and the vars in that form
// follow. Then always " @ " and the provider (label, else id) and " # " and
// the prompt (label up to 80 bytes, else "sha256:" and 16 hex digits of the
// label's hash; promptId's first 12 digits in a row without a label), so
// that adding or removing a provider or prompt renames no other item.
// Rows of one id with different testIdx and one testCase are repeats
// (--repeat N; promptfoo marks them no other way, see emit): answers of
// one item; rows of one id whose testCase differs are refused. The row's own
// "id" is a random UUID per run and is never used. Rows arrive in
// completion order; records keep that order, and only ids identify them.
//
// Metrics are the row's namedScores (promptfoo's named metrics, in their
// order), weighted by gradingResult.namedScoreWeights, each with the reasons
// of the assertions that fed it; a metric whose weights sum to 0 is read
// from its assertions' scores (pfNamedScores). A row with failureReason 2 (ERROR), or with
// no gradingResult, is unscored (Error). The llm-rubric reasons are the
// judge's reasoning; the judge is the grading provider named on the
// assertion or the test's options. Meta: provider, provider_label, prompt,
// test_idx, prompt_idx, pass, score (promptfoo's overall score of the row).
//
// A results.json whose config has a prompt without a label of its own is
// noted (pfUnlabelled): that prompt's text is in its ids.
//
// One name covers all three files: the content says which one it is (a
// first line holding a row's keys is JSON Lines; a CSV header with
// promptfoo's Status, Score, Named Scores columns is its CSV).
var promptfoo = &Format{
	Name: "promptfoo",
	Detect: func(name string, head []byte) bool {
		return promptfooJSON.Detect(name, head) || promptfooJSONL.Detect(name, head) || promptfooCSV.Detect(name, head)
	},
	Read: func(name string, r io.Reader, fn func(*Record) error) error {
		return readPromptfoo(name, r, fn, func(Note) {})
	},
	ReadNoted: readPromptfoo,
}

func readPromptfoo(name string, r io.Reader, fn func(*Record) error, note func(Note)) error {
	br, head := peekHead(r)
	if err := pfUnread(name, head); err != nil {
		return err
	}
	if promptfooCSV.Detect(name, head) || ext(name) == ".csv" {
		return promptfooCSV.Read(name, br, fn)
	}
	if pfRowKeys(firstLine(head)) {
		return readPromptfooJSONLNoted(name, br, fn, note)
	}
	return readPromptfooJSONNoted(name, br, fn, note)
}

// pfUnlabelled notes each prompt of a results.json config without a label
// of its own: promptfoo labels it with its text (a string prompt, or
// {raw} without label) or its path and text (file://), and the label is in
// every id, so editing the prompt renames its items.
func pfUnlabelled(cfg node) []Note {
	if cfg.v == nil || cfg.v.kind != kObject {
		return nil
	}
	ps := cfg.at("prompts")
	if ps.v == nil || ps.v.kind != kArray {
		return nil
	}
	var out []Note
	for i := range ps.v.arr {
		p := ps.index(i)
		text := ""
		switch p.v.kind {
		case kString:
			text = p.v.s
		case kObject:
			if l := p.at("label"); l.v != nil && l.v.kind == kString && l.v.s != "" {
				continue
			}
			for _, k := range []string{"raw", "id"} {
				if r := p.at(k); r.v != nil && r.v.kind == kString {
					text = r.v.s
					break
				}
			}
		default:
			continue
		}
		if len(text) > 60 {
			cut := 60
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut] + "..."
		}
		out = append(out, Note{Line: p.v.line, Msg: fmt.Sprintf("prompt %d (%q) has no label: promptfoo labels it with its text, which is part of every item id (\" # ...\"), so editing the prompt renames its items and the gate sees the baseline's as removed; give it a label (prompts: [{raw: ..., label: ...}], see docs/results.md, promptfoo ids)", i+1, text)})
	}
	return out
}

// pfRowKeys reports whether line starts a promptfoo row (JSON Lines).
func pfRowKeys(line []byte) bool {
	return hasKey(topKeys(line), "gradingResult", "testCase", "testIdx", "promptIdx", "namedScores", "failureReason")
}

var promptfooJSON = &Format{
	Name: "promptfoo",
	Detect: func(name string, head []byte) bool {
		if ext(name) != ".json" {
			return false
		}
		k := topKeys(head)
		return hasKey(k, "evalId") || hasKey(k, "results") && hasKey(k, "config") && !hasKey(k, "eval", "testCases")
	},
	Read: readPromptfooJSON,
}

var promptfooJSONL = &Format{
	Name: "promptfoo",
	Detect: func(name string, head []byte) bool {
		return ext(name) == ".jsonl" && pfRowKeys(firstLine(head))
	},
	Read: readPromptfooJSONL,
}

// pfRows collects the records of one file: their ids are only complete
// once every provider and prompt has been seen.
type pfRows struct {
	file string
	rows []pfRow
	// zero names the metrics whose weights summed to 0 on some row, with
	// the line of the first such row (zeroAt), in order.
	zero   map[string]bool
	zeroAt []Note
}

func newPfRows(file string) *pfRows { return &pfRows{file: file, zero: map[string]bool{}} }

type pfRow struct {
	rec       *Record
	base      string
	provider  string
	promptIdx int
	prompt    string
	// vars is the row's vars as canonical JSON; testIdx its testIdx (-1
	// when absent).
	vars    string
	testIdx int
	// test is the digest of the row's testCase as canonical JSON, and
	// testKeys of each of its members: the repeats of one test carry one
	// testCase (see emit).
	test     [sha256.Size]byte
	testKeys []pfMember
}

// pfMember is the digest of one member of a testCase.
type pfMember struct {
	key string
	sum [sha256.Size]byte
}

func readPromptfooJSON(name string, r io.Reader, fn func(*Record) error) error {
	return readPromptfooJSONNoted(name, r, fn, func(Note) {})
}

// readPromptfooJSON reads results.json; its config says which prompts have
// no label of their own (a note for each: their text is in the ids).
func readPromptfooJSONNoted(name string, r io.Reader, fn func(*Record) error, note func(Note)) error {
	d := newJSONDecoder(name, r, maxFile)
	rows := newPfRows(name)
	found := false
	var notes []Note
	err := d.eachMember(func(key string, line int) error {
		if key == "config" {
			v, err := d.value()
			if err == nil {
				notes = pfUnlabelled(node{v: v, file: name, path: "$.config"})
			}
			return err
		}
		if key != "results" {
			_, err := d.value()
			return err
		}
		if d.peek() != '{' {
			return d.errorf("expected an object holding version and results (promptfoo 0.x's results.json), found %s", describe(d.peek()))
		}
		return d.eachMember(func(key string, line int) error {
			if key != "results" {
				_, err := d.value()
				return err
			}
			found = true
			return d.eachElement(func(i int) error {
				path := d.pathString()
				v, err := d.value()
				if err != nil {
					return err
				}
				return rows.add(node{v: v, file: name, path: path}, Location{File: name, Line: v.line, Path: path})
			})
		})
	})
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return err
	}
	if !found {
		return &record.InputError{File: name, Line: 1, Msg: "no results.results array; expected promptfoo's results.json (promptfoo eval -o results.json)"}
	}
	for _, n := range notes {
		note(n)
	}
	return rows.emit(fn, note)
}

func readPromptfooJSONL(name string, r io.Reader, fn func(*Record) error) error {
	return readPromptfooJSONLNoted(name, r, fn, func(Note) {})
}

func readPromptfooJSONLNoted(name string, r io.Reader, fn func(*Record) error, note func(Note)) error {
	rows := newPfRows(name)
	err := eachLine(name, r, func(line int, text []byte) error {
		v, err := decodeAt(name, bytes.NewReader(text), 0, line)
		if err != nil {
			return err
		}
		return rows.add(node{v: v, file: name, path: "$"}, Location{File: name, Line: line})
	})
	if err != nil {
		return err
	}
	return rows.emit(fn, note)
}

// eachLine calls fn with each non-blank line of r (1-based numbers), each at
// most MaxRecordBytes, the whole at most MaxFileBytes.
func eachLine(name string, r io.Reader, fn func(line int, text []byte) error) error {
	br := bufio.NewReaderSize(limitedReader(r, maxFile), 64<<10)
	for line := 1; ; line++ {
		var buf []byte
		for {
			chunk, err := br.ReadSlice('\n')
			buf = append(buf, chunk...)
			if int64(len(buf)) > maxRecord {
				return &record.InputError{File: name, Line: line, Msg: fmt.Sprintf("line is longer than %d bytes", maxRecord)}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				if len(bytes.TrimSpace(buf)) > 0 {
					if err := fn(line, buf); err != nil {
						return err
					}
				}
				return nil
			}
			if err != nil {
				return &record.InputError{File: name, Line: line, Msg: fmt.Sprintf("read: %v", err), Err: err}
			}
			break
		}
		if len(bytes.TrimSpace(buf)) == 0 {
			continue
		}
		if err := fn(line, buf); err != nil {
			return err
		}
	}
}

func (p *pfRows) add(n node, loc Location) error {
	if err := n.object(); err != nil {
		return err
	}
	tc := n.at("testCase")
	if err := tc.object(); err != nil {
		return err
	}
	base, err := pfBaseID(n, tc)
	if err != nil {
		return err
	}
	provID, provLabel, err := pfProvider(n.at("provider"))
	if err != nil {
		return err
	}
	pi, err := n.at("promptIdx").num()
	if err != nil {
		return err
	}
	prompt, err := pfPrompt(n, pi)
	if err != nil {
		return err
	}
	rec := &Record{Loc: loc, Meta: map[string]string{"provider": provID}, InputHash: promptfooTask(n, tc)}
	if provLabel != "" {
		rec.Meta["provider_label"] = provLabel
	}
	rec.Meta["prompt"] = prompt
	for _, k := range []string{"testIdx", "promptIdx"} {
		if s, ok := n.at(k).scalar(); ok {
			rec.Meta[map[string]string{"testIdx": "test_idx", "promptIdx": "prompt_idx"}[k]] = s
		}
	}
	if s, err := n.at("success").optBool(); err != nil {
		return err
	} else if s != "" {
		rec.Meta["pass"] = s
	}
	if s, ok := n.at("score").scalar(); ok {
		rec.Meta["score"] = s
	}
	zero := map[string]bool{}
	if err := pfScores(n, tc, rec, zero); err != nil {
		return err
	}
	p.noteZero(zero, loc.Line)
	name := provLabel
	if name == "" {
		name = provID
	}
	vk, err := pfVars(n, tc)
	if err != nil {
		return err
	}
	ti := -1
	if t := n.at("testIdx"); !t.null() {
		f, err := t.num()
		if err != nil {
			return err
		}
		ti = int(f)
	}
	row := pfRow{rec: rec, base: base, provider: name, promptIdx: int(pi), prompt: prompt, vars: vk, testIdx: ti}
	row.test, row.testKeys = pfTestDigest(tc)
	p.rows = append(p.rows, row)
	return nil
}

// noteZero keeps the metrics of a row (at line) whose weights summed to 0.
func (p *pfRows) noteZero(zero map[string]bool, line int) {
	for _, k := range sortedKeys(zero) {
		if p.zero[k] {
			continue
		}
		p.zero[k] = true
		p.zeroAt = append(p.zeroAt, Note{Line: line, Msg: fmt.Sprintf("named metric %q has weight 0 in every assertion that feeds it, so promptfoo wrote 0 for it, which is not a score (it divides by the weights' sum only when that is above 0): it is read as the mean of its assertions' scores (unscored where no assertion result names it); give the assertion a weight above 0, or make it metric-only, to have promptfoo score it", k)})
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// pfTestDigest digests a testCase as canonical JSON, whole and member by
// member.
func pfTestDigest(tc node) ([sha256.Size]byte, []pfMember) {
	var b strings.Builder
	canonical(tc.v, &b)
	whole := sha256.Sum256([]byte(b.String()))
	members := make([]pfMember, 0, len(tc.v.keys))
	for i, k := range tc.v.keys {
		b.Reset()
		canonical(tc.v.vals[i], &b)
		members = append(members, pfMember{key: k, sum: sha256.Sum256([]byte(b.String()))})
	}
	return whole, members
}

// pfTestDiff names the first testCase member a and b differ in.
func pfTestDiff(a, b []pfMember) string {
	bm := map[string][sha256.Size]byte{}
	for _, m := range b {
		bm[m.key] = m.sum
	}
	for _, m := range a {
		if s, ok := bm[m.key]; !ok || s != m.sum {
			return m.key
		}
		delete(bm, m.key)
	}
	keys := make([]string, 0, len(bm))
	for k := range bm {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if len(keys) > 0 {
		return keys[0]
	}
	return ""
}

// pfProvider is a row's provider: its id and label (an older file's
// provider is its id alone).
func pfProvider(prov node) (id, label string, err error) {
	if prov.v != nil && prov.v.kind == kString {
		id = prov.v.s
	} else {
		if err := prov.object(); err != nil {
			return "", "", err
		}
		if id, err = prov.at("id").str(); err != nil {
			return "", "", err
		}
		if label, err = prov.at("label").optStr(); err != nil {
			return "", "", err
		}
	}
	if id == "" {
		return "", "", prov.at("id").errf("empty provider id")
	}
	return id, label, nil
}

// pfPrompt is how a row's prompt qualifies its id: its label
// (pfPromptName), else promptId's first 12 digits, else "prompt <idx>".
func pfPrompt(n node, idx float64) (string, error) {
	prompt := ""
	if pr := n.at("prompt"); !pr.null() {
		if err := pr.object(); err != nil {
			return "", err
		}
		label, err := pr.at("label").optStr()
		if err != nil {
			return "", err
		}
		prompt = pfPromptName(label)
	}
	if prompt == "" {
		pid, err := n.at("promptId").optStr()
		if err != nil {
			return "", err
		}
		if len(pid) > 12 {
			pid = pid[:12]
		}
		prompt = pid
	}
	if prompt == "" {
		prompt = "prompt " + strconv.Itoa(int(idx))
	}
	return prompt, nil
}

// pfBaseID is the id of a test case, before any provider or prompt suffix.
func pfBaseID(row, tc node) (string, error) {
	if md := tc.at("metadata"); !md.null() {
		if err := md.object(); err != nil {
			return "", err
		}
		if id := md.at("id"); !id.null() {
			s, ok := id.scalar()
			if !ok || id.v.kind == kBool {
				return "", id.want("a string or number id")
			}
			if s == "" {
				return "", id.errf("empty id")
			}
			return s, nil
		}
	}
	desc, err := tc.at("description").optStr()
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(desc) != "" {
		return desc, nil
	}
	canon, err := pfVars(row, tc)
	if err != nil {
		return "", err
	}
	if canon == "" {
		return "", tc.errf("the test case has no metadata.id, description or vars to identify it")
	}
	return pfVarsKey(canon), nil
}

// pfVars is the test's vars (testCase.vars, else the row's) as canonical
// JSON, "" when it has none.
func pfVars(row, tc node) (string, error) {
	vars := tc.at("vars")
	if vars.null() {
		vars = row.at("vars")
	}
	if vars.null() {
		return "", nil
	}
	if err := vars.object(); err != nil {
		return "", err
	}
	var b strings.Builder
	canonical(vars.v, &b)
	return b.String(), nil
}

// emit completes the ids, refuses duplicates, gives the notes and calls fn
// in source order.
//
// A base id shared by rows whose vars differ (tests expanded from a vars
// list share their description and metadata) is qualified by the vars
// (pfVarsKey). Every id is then qualified by its provider and prompt, so
// that adding or removing one renames nothing. Rows left with one id and
// different testIdx are repeats (promptfoo eval --repeat N runs every test
// N times, each with its own testIdx, and marks them no other way): they
// are samples of one item, numbered in testIdx order. A repeat runs one
// test again, so its testCase is the same: rows of one id whose testCase
// differs are two tests that share a description and vars, refused as
// duplicates (pfRepeats). Rows with one id and one testIdx are duplicates.
func (p *pfRows) emit(fn func(*Record) error, note func(Note)) error {
	vars := map[string]map[string]bool{}
	for _, r := range p.rows {
		if vars[r.base] == nil {
			vars[r.base] = map[string]bool{}
		}
		vars[r.base][r.vars] = true
	}
	seen := newIDs(p.file)
	repeats := map[string][]pfRow{}
	var order []string
	for _, r := range p.rows {
		id := r.base
		if len(vars[r.base]) > 1 && !strings.HasPrefix(r.base, "vars:") {
			id += " " + pfVarsKey(r.vars)
		}
		if r.provider != "" {
			id += " @ " + r.provider
		}
		if r.prompt != "" {
			id += " # " + r.prompt
		}
		r.rec.ID = id
		if err := seen.add(id+"\x00"+strconv.Itoa(r.testIdx), id, r.rec.Loc, "; give each test a unique metadata.id or description"); err != nil {
			return err
		}
		if _, ok := repeats[id]; !ok {
			order = append(order, id)
		}
		repeats[id] = append(repeats[id], r)
	}
	for _, id := range order {
		if err := p.repeatsOf(repeats[id]); err != nil {
			return err
		}
	}
	for _, n := range p.zeroAt {
		note(n)
	}
	for _, r := range p.rows {
		if err := fn(r.rec); err != nil {
			return err
		}
	}
	return nil
}

// repeatsOf numbers the rows of one id in testIdx order, after checking
// that they are repeats of one test: the same testCase.
func (p *pfRows) repeatsOf(g []pfRow) error {
	if len(g) < 2 {
		return nil
	}
	for _, r := range g[1:] {
		if r.test == g[0].test {
			continue
		}
		return &record.InputError{File: p.file, Line: r.rec.Loc.Line, Path: r.rec.Loc.Path,
			Msg: fmt.Sprintf("duplicate id %q (first at %s): the two rows' testCase differs (in %q), so they are two tests that share a description and vars, not repeats of one test (a --repeat run writes one testCase for every repeat); give each test a unique metadata.id or description", r.rec.ID, where(g[0].rec.Loc), pfTestDiff(g[0].testKeys, r.testKeys))}
	}
	sorted := append([]pfRow(nil), g...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].testIdx < sorted[j].testIdx })
	for i, r := range sorted {
		r.rec.Meta["repeat"] = strconv.Itoa(i + 1)
		r.rec.Meta["epoch"] = strconv.Itoa(i + 1)
	}
	return nil
}

// pfPromptName is how a prompt's label qualifies an id: the label, or over
// 80 bytes "sha256:" and 16 hex digits of its hash ("" for no label). The
// JSON rows and the CSV header both carry the label, so both give one id.
func pfPromptName(label string) string {
	if label == "" || len(label) <= 80 {
		return label
	}
	sum := sha256.Sum256([]byte(label))
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// pfVarsKey is how vars (canonical JSON) qualify an id: "vars:" and the
// JSON, or over 120 bytes "vars:sha256:" and 16 hex digits of its hash.
func pfVarsKey(canon string) string {
	if len(canon) <= 120 {
		return "vars:" + canon
	}
	sum := sha256.Sum256([]byte(canon))
	return "vars:sha256:" + hex.EncodeToString(sum[:8])
}
