package formats

import (
	"encoding/csv"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/record"
)

// promptfoo's `promptfoo eval -o results.csv`: one row per testIdx (a test
// and one combination of its vars, once per repeat), then per prompt and
// provider a group of columns: the output (headed "[provider] prompt
// label", or the label alone), Status (PASS, FAIL or ERROR), Score, Named
// Scores (a JSON object), one "Metric: <name>" column per named metric,
// Grader Reason and Comment. Before the groups: Description (when any test
// has one) and one column per var. Source: promptfoo 0.121.20 on npm,
// dist/src/util-*.js (buildCsvHeaders, tableRowToCsvValues,
// formatNamedScores, escapeCsvFormula; src/util/exportToFile in the
// repository).
//
// The CSV is a lossy view of the run, and ids follow from what it keeps:
// the id is the description, else "vars:" and the vars as canonical JSON
// (every var is a string here); then, as in the JSON, the vars where
// tests share a description, " @ provider" and " # prompt". The CSV has no
// metadata.id, no testIdx and no provider id beside its label, so its ids
// match the JSON's only where tests have no metadata.id and vars are
// strings: keep the baseline and the runs in one output format. Scores are
// rounded to two decimals by promptfoo (formatNamedScores). Rows with the
// same id are repeats (--repeat), samples of one item. A cell promptfoo
// guarded against spreadsheet formulas (a leading ' before =, +, - or @)
// is read without the '. A var written as "[object Object]" (promptfoo
// writes object vars so) is refused: it cannot tell tests apart. ERROR rows
// are unscored, with the Grader Reason.
var promptfooCSV = &Format{
	Name: "promptfoo",
	Detect: func(name string, head []byte) bool {
		if ext(name) != ".csv" {
			return false
		}
		h, err := csv.NewReader(strings.NewReader(string(firstLine(head)))).Read()
		return err == nil && len(pfCSVGroups(h)) > 0
	},
	Read: readPromptfooCSV,
}

// pfCSVGroup is one prompt x provider's columns.
type pfCSVGroup struct {
	output                      int // the output column; Status follows
	provider, prompt            string
	named, reason, end, metrics int
}

// pfCSVGroups finds the column groups of a promptfoo CSV header.
func pfCSVGroups(h []string) []pfCSVGroup {
	var gs []pfCSVGroup
	for i := 0; i+3 < len(h); i++ {
		if h[i+1] != "Status" || h[i+2] != "Score" || h[i+3] != "Named Scores" {
			continue
		}
		g := pfCSVGroup{output: i, named: i + 3}
		j := i + 4
		for j < len(h) && strings.HasPrefix(h[j], "Metric: ") {
			j++
		}
		if j+1 >= len(h) || h[j] != "Grader Reason" || h[j+1] != "Comment" {
			continue
		}
		g.reason, g.end, g.metrics = j, j+1, j-(i+4)
		label := h[i]
		if strings.HasPrefix(label, "[") {
			if k := strings.Index(label, "] "); k > 0 {
				g.provider, label = label[1:k], label[k+2:]
			}
		}
		g.prompt = label
		gs = append(gs, g)
		i = j + 1
	}
	return gs
}

// pfUnescape undoes escapeCsvFormula: a ' before (spaces and) =, +, - or @.
func pfUnescape(s string) string {
	if !strings.HasPrefix(s, "'") {
		return s
	}
	t := strings.TrimLeft(s[1:], " \t\r\n\u200b\u200c\u200d")
	if t != "" && strings.ContainsRune("=+-@", rune(t[0])) {
		return s[1:]
	}
	return s
}

func readPromptfooCSV(name string, r io.Reader, fn func(*Record) error) error {
	cf, err := openCSV(name, r, "promptfoo's CSV header")
	if err != nil {
		return err
	}
	cr, head, csvErr := cf.r, cf.head, cf.err
	groups := pfCSVGroups(head)
	if len(groups) == 0 {
		return &record.InputError{File: name, Line: 1, Msg: "no output columns (a column followed by Status, Score, Named Scores ... Grader Reason, Comment); expected promptfoo's CSV (promptfoo eval -o results.csv)"}
	}
	descCol, firstVar := -1, 0
	if head[0] == "Description" && groups[0].output > 0 {
		descCol, firstVar = 0, 1
	}
	varNames := head[firstVar:groups[0].output]
	rows := &pfRows{file: name}
	for n := 0; ; n++ {
		cells, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return csvErr(err)
		}
		line, _ := cr.FieldPos(0)
		fail := func(format string, a ...any) error {
			return &record.InputError{File: name, Line: line, Msg: fmt.Sprintf(format, a...)}
		}
		base := ""
		if descCol >= 0 {
			base = strings.TrimSpace(pfUnescape(cells[descCol]))
		}
		var vb strings.Builder
		vars := map[string]string{}
		for i, v := range varNames {
			cell := pfUnescape(cells[firstVar+i])
			if cell == "[object Object]" {
				return fail("var %q is \"[object Object]\" (promptfoo writes object vars so in its CSV, which cannot tell tests apart); use promptfoo eval -o results.json or .jsonl", v)
			}
			vars[v] = cell
		}
		canonicalStrings(vars, &vb)
		canon := vb.String()
		if base == "" {
			if len(vars) == 0 {
				return fail("the row has no description or vars to identify it")
			}
			base = pfVarsKey(canon)
		}
		for _, g := range groups {
			status := cells[g.output+1]
			rec := &Record{Loc: Location{File: name, Line: line}, Meta: map[string]string{"prompt": g.prompt, "status": status}}
			if g.provider != "" {
				rec.Meta["provider"] = g.provider
			}
			if s := cells[g.output+2]; s != "" {
				rec.Meta["score"] = s
			}
			switch status {
			case "":
				continue // this test did not run on this provider
			case "ERROR":
				rec.Error = "promptfoo reported an error (its CSV does not carry the message; its JSON does)"
				if why := strings.TrimSpace(pfUnescape(cells[g.reason])); why != "" {
					rec.Error += ": " + why
				}
			case "PASS", "FAIL":
				rec.Meta["pass"] = strconv.FormatBool(status == "PASS")
				if err := pfCSVScores(cells[g.named], rec); err != nil {
					return fail("column %q: %v", head[g.named], err)
				}
			default:
				return fail("column %q: %q; expected PASS, FAIL or ERROR", head[g.output+1], status)
			}
			rows.rows = append(rows.rows, pfRow{rec: rec, base: base, provider: g.provider, prompt: g.prompt, vars: canon, testIdx: n})
		}
	}
	return rows.emit(fn, func(Note) {})
}

// pfCSVScores reads the Named Scores cell: a JSON object of numbers.
func pfCSVScores(cell string, rec *Record) error {
	if strings.TrimSpace(cell) == "" {
		return nil
	}
	v, err := decodeAt("", strings.NewReader(cell), 0, 1)
	if err != nil || v.kind != kObject {
		return fmt.Errorf("%q is not a JSON object of named scores", cell)
	}
	n := node{v: v, path: "$"}
	for _, k := range v.keys {
		f, err := n.at(k).num()
		if err != nil {
			return fmt.Errorf("named score %q is not a number", k)
		}
		rec.Metrics = append(rec.Metrics, Metric{Name: k, Value: f})
	}
	return nil
}

// canonicalStrings writes m as canonical JSON (sorted keys, string values),
// as canonical writes the JSON rows' vars.
func canonicalStrings(m map[string]string, b *strings.Builder) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	b.Reset()
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(k))
		b.WriteByte(':')
		b.WriteString(strconv.Quote(m[k]))
	}
	b.WriteByte('}')
}

func pfUnread(name string, head []byte) error { return Unread(name, head) }
