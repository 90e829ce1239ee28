package baseline

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/rubricgate/rubricgate/gate"
)

// Write writes the file as JSON: an indented header, then the items as two
// single-line columns. The embedded rubric keeps its meaning (whitespace
// aside); Read hashes its compacted form.
func (f *File) Write(w io.Writer) error {
	if err := f.validate(); err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	head, err := f.header()
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	bw.Write(head)
	writeItems(bw, f.Items)
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("baseline: write: %w", err)
	}
	return nil
}

// header encodes everything but the items, indented, without the closing
// brace (the items and the closing follow).
func (f *File) header() ([]byte, error) {
	schema := f.Schema
	created := f.CreatedAt.UTC().Format(time.RFC3339)
	crit := f.Criteria
	if crit == nil {
		crit = []gate.CriterionStats{}
	}
	score, pass := f.Score, f.PassRate
	hdr := wire{
		Schema:          &schema,
		Rubric:          &f.Rubric,
		CreatedAt:       &created,
		SHA:             f.SHA,
		Ref:             f.Ref,
		Branch:          f.Branch,
		Repository:      f.Repository,
		RunID:           f.RunID,
		RunURL:          f.RunURL,
		Score:           &score,
		PassRate:        &pass,
		Criteria:        &crit,
		RubricCanonical: f.RubricCanonical,
		History:         f.historyWire(),
		Anchor:          f.anchorWire(),
	}
	if f.PooledRuns > 1 {
		runs, own := f.PooledRuns, f.RunScore
		hdr.PooledRuns, hdr.RunScore, hdr.RunDigest = &runs, &own, f.RunDigest
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&hdr); err != nil {
		return nil, fmt.Errorf("baseline: encode: %w", err)
	}
	// Replace the closing "\n}\n" with the items and our own closing.
	head := bytes.TrimRight(buf.Bytes(), "\n")
	head = bytes.TrimSuffix(head, []byte("}"))
	return bytes.TrimRight(head, "\n"), nil
}

// writeItems writes the items' columns, each on one line, and the file's
// closing, through bw in blocks of about 32 KiB.
func writeItems(bw *bufio.Writer, items *gate.ItemColumns) {
	n := items.Len()
	fmt.Fprintf(bw, ",\n  \"items\": {\n    \"count\": %d,\n    \"ids\": ", n)
	var b []byte
	flush := func(last bool) {
		if len(b) >= 1<<15 || last {
			bw.Write(b)
			b = b[:0]
		}
	}
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, items.ID(i))
		flush(false)
	}
	b = append(b, "],\n    \"scores\": ["...)
	var fc floatCache
	for i, v := range items.Scores() {
		if i > 0 {
			b = append(b, ',')
		}
		b = fc.append(b, v)
		flush(false)
	}
	b = append(b, ']')
	if items.HasAnswers() {
		b = append(b, ",\n    \"answers\": ["...)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(items.Answers(i)), 10)
			flush(false)
		}
		b = append(b, "],\n    \"answer_vars\": ["...)
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			b = fc.append(b, items.AnswerVar(i))
			flush(false)
		}
		b = append(b, ']')
	}
	if items.HasInputHashes() {
		b = append(b, ",\n    \"input_hashes\": \""...)
		for i := 0; i < n; i += hashBlock {
			b = appendHashBlock(b, items, i)
			flush(false)
		}
		b = append(b, '"')
	}
	b = append(b, "\n  }\n}\n"...)
	flush(true)
}

// MarshalJSON encodes the file as Write does (columnar items).
func (f File) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
