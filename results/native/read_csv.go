package native

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/internal/cliflag"
	"github.com/rubricgate/rubricgate/internal/crlf"
)

// column roles in a review sheet.
const (
	colMeta = iota
	colCriterion
	colID
	colError
	colReasoning
	colNotes
	colReviewer
	colJudgeModel
	colRetrievalMiss
	colPass
	colLength
	colAnswer
	colInputHash
	// colUnnamed is a column with no name in the header: its cells must
	// be empty (a value there has no meaning to read, and is refused
	// rather than dropped).
	colUnnamed
)

var reservedColumns = map[string]int{
	"id":             colID,
	"error":          colError,
	"reasoning":      colReasoning,
	"notes":          colNotes,
	"reviewer":       colReviewer,
	"judge_model":    colJudgeModel,
	"retrieval_miss": colRetrievalMiss,
	"pass":           colPass,
	"length":         colLength,
	"input_hash":     colInputHash,
	"answer":         colAnswer,
	"output":         colAnswer,
	"response":       colAnswer,
}

// textColumns are the review sheet's columns of the task's text (the
// exported sheet's "question", and the judge input's "context" and
// "reference"): kept as metadata, never scored. Any other column that is
// neither reserved nor a criterion is refused, as an unknown key in a JSON
// line's "scores" is: a misspelt criterion column must not pass unseen.
var textColumns = map[string]bool{"question": true, "context": true, "reference": true}

// sheetColumns lists the columns a review sheet may hold besides the
// criteria, for the error naming an unknown one.
const sheetColumns = "id, question, context, reference, answer (or output, response), notes, reviewer, pass, retrieval_miss, error, reasoning, judge_model, length, input_hash"

// csvHeader maps the columns of a review sheet.
type csvHeader struct {
	names []string
	role  []int
	crit  []int // criterion index for colCriterion
}

// names are the criteria's ids and aliases, lower-cased, sorted.
func (sc *schema) names() []string {
	names := make([]string, 0, len(sc.lookup))
	for n := range sc.lookup {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// csvReader reads the rows of a review sheet.
type csvReader struct {
	file string
	r    *csv.Reader
	head *csvHeader
}

// newCSVReader reads the header row. Reserved columns (id, notes, pass, ...)
// and the text columns are matched case-insensitively; criterion columns by
// id or alias. A column named twice is an error, and so is a column that is
// none of these (unless ReadOptions.IgnoreUnknown), named with the closest
// criterion when it looks like a misspelling of one. A column with no name
// may only hold empty cells (decodeCSV refuses a value in it).
func newCSVReader(sc *schema, in Input) (*csvReader, error) {
	br := bufio.NewReaderSize(&lineLimit{r: in.R, max: sc.maxLine, file: in.Name, line: 1}, 64<<10)
	if b, err := br.Peek(3); err == nil && bytes.Equal(b, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	// Peek returns (and clears) a read error: report it here.
	peek, perr := br.Peek(br.Size())
	if crlf.BareCR(peek) {
		return nil, &InputError{File: in.Name, Line: 1, Msg: crlf.Message}
	}
	if perr != nil && perr != io.EOF && perr != bufio.ErrBufferFull {
		return nil, (&csvReader{file: in.Name}).wrap(perr)
	}
	r := csv.NewReader(br)
	r.FieldsPerRecord = 0
	cr := &csvReader{file: in.Name, r: r}
	rec, err := r.Read()
	if err == io.EOF {
		return nil, &InputError{File: in.Name, Line: 1, Msg: `empty review sheet: expected a header row naming "id" and the criterion columns`}
	}
	if err != nil {
		return nil, cr.wrap(err)
	}
	h := &csvHeader{names: append([]string(nil), rec...), role: make([]int, len(rec)), crit: make([]int, len(rec))}
	seenCrit := make(map[int]string)
	seenRole := make(map[string]bool)
	hasID := false
	for j, name := range rec {
		h.crit[j] = -1
		key := strings.ToLower(strings.TrimSpace(name))
		if key == "" {
			if !sc.opts.IgnoreUnknown {
				h.role[j] = colUnnamed
			}
			continue
		}
		if role, ok := reservedColumns[key]; ok {
			if seenRole[key] {
				return nil, &InputError{File: in.Name, Line: 1, Msg: fmt.Sprintf("column %s appears twice in the header", quote(key))}
			}
			seenRole[key] = true
			h.role[j] = role
			hasID = hasID || role == colID
			continue
		}
		if i := sc.find([]byte(name)); i >= 0 {
			if prev, dup := seenCrit[i]; dup {
				return nil, &InputError{File: in.Name, Line: 1, Msg: fmt.Sprintf("criterion %q is named twice in the header (columns %s and %s)", sc.ids[i], quote(prev), quote(name))}
			}
			seenCrit[i] = name
			h.role[j], h.crit[j] = colCriterion, i
			continue
		}
		if !textColumns[key] && !sc.opts.IgnoreUnknown {
			msg := fmt.Sprintf("column %s names no criterion (expected one of: %s) and is none of a review sheet's columns (%s)", quote(name), sc.list, sheetColumns)
			if near := cliflag.Closest(key, sc.names()); near != "" {
				msg = fmt.Sprintf("column %s names no criterion (did you mean %s?); expected the criteria %s and the review sheet's columns (%s)", quote(name), quote(near), sc.list, sheetColumns)
			}
			return nil, &InputError{File: in.Name, Line: 1, Msg: msg}
		}
		if seenRole["meta:"+key] {
			return nil, &InputError{File: in.Name, Line: 1, Msg: fmt.Sprintf("column %s appears twice in the header", quote(name))}
		}
		seenRole["meta:"+key] = true
	}
	if !hasID {
		return nil, &InputError{File: in.Name, Line: 1, Msg: fmt.Sprintf(`the header has no "id" column (expected "id" and criterion columns: %s)`, sc.list)}
	}
	cr.head = h
	return cr, nil
}

// next returns the next record and the line it starts on; io.EOF at the end.
func (cr *csvReader) next() ([]string, int, error) {
	rec, err := cr.r.Read()
	if err != nil {
		if err == io.EOF {
			return nil, 0, err
		}
		return nil, 0, cr.wrap(err)
	}
	line, _ := cr.r.FieldPos(0)
	return rec, line, nil
}

func (cr *csvReader) wrap(err error) error {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if errors.Is(pe.Err, csv.ErrFieldCount) {
			msg = "this row does not have the same number of fields as the header"
		}
		return &InputError{File: cr.file, Line: pe.StartLine, Msg: "bad CSV: " + msg}
	}
	return &InputError{File: cr.file, Msg: fmt.Sprintf("read error: %v", err)}
}

// decodeCSV decodes one review-sheet row into d.raw and validates it.
func (d *decoder) decodeCSV(h *csvHeader, row []string, line int) error {
	d.raw.reset(len(d.sc.ids), line)
	r := &d.raw
	for j, cell := range row {
		if j >= len(h.role) {
			break
		}
		switch h.role[j] {
		case colID:
			r.id, r.hasID = []byte(strings.TrimSpace(cell)), true
		case colError:
			r.errMsg = []byte(cell)
		case colReasoning:
			r.reasoning = []byte(cell)
		case colNotes:
			r.notes = []byte(cell)
		case colReviewer:
			r.reviewer = []byte(cell)
		case colJudgeModel:
			r.judgeModel = []byte(cell)
		case colRetrievalMiss, colPass:
			v, ok := truthy([]byte(cell))
			if !ok {
				return d.errf(line, "column %s must be yes/no, true/false, 1/0 or empty, got %s", quote(h.names[j]), quote(cell))
			}
			if h.role[j] == colPass {
				r.pass = v
			} else {
				r.retrievalMiss = v == 1
			}
		case colLength:
			t := strings.TrimSpace(cell)
			if t == "" {
				continue
			}
			n, ok := jsonInt([]byte(t))
			if !ok || n < 0 || !isDigits(t) {
				return d.errf(line, "column %s must be a non-negative integer, got %s", quote(h.names[j]), quote(cell))
			}
			r.length = n
		case colInputHash:
			if t := strings.TrimSpace(cell); t != "" {
				if err := d.inputHash([]byte(t)); err != nil {
					return err
				}
			}
		case colUnnamed:
			if strings.TrimSpace(cell) != "" {
				return d.errf(line, "column %d has no name in the header, but this row has a value in it (%s): name the column or remove the value", j+1, quote(cell))
			}
		case colAnswer:
			if r.answerLen < 0 {
				r.answerLen = utf8.RuneCountInString(cell)
			}
		case colCriterion:
			if strings.TrimSpace(cell) == "" {
				continue // missing
			}
			if err := d.setVal(h.crit[j], rawVal{cell: true, raw: []byte(cell), key: []byte(h.names[j])}); err != nil {
				return err
			}
		default:
			if d.sc.opts.KeepMeta {
				v, _ := json.Marshal(cell)
				r.meta = append(r.meta, metaField{key: h.names[j], val: v})
			}
		}
	}
	return d.finish()
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// lineLimit fails a review sheet with a physical line longer than max bytes,
// so one runaway line (a missing closing quote, a binary file) cannot make
// the CSV reader buffer without bound.
type lineLimit struct {
	r    io.Reader
	max  int
	file string
	line int // physical line being read, 1-based
	cur  int // bytes of that line so far
}

func (l *lineLimit) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	for i, c := range p[:n] {
		if c == '\n' {
			l.line++
			l.cur = 0
			continue
		}
		l.cur++
		if l.cur > l.max {
			return i, &InputError{File: l.file, Line: l.line, Msg: fmt.Sprintf("line longer than %d bytes: expected one review row per line (is a closing quote missing?)", l.max)}
		}
	}
	return n, err
}
