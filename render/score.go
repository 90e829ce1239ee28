package render

import (
	"bufio"
	"encoding/json"
	"io"

	"github.com/rubricgate/rubricgate/gate"
)

// ScoreFunc writes a score report (a run without a baseline) in one format.
type ScoreFunc func(w io.Writer, rep *gate.Report) error

// ScoreTable returns the renderers of a score report by format name:
// "json" (the report), "markdown", "junit" (the report as a gate report
// without a baseline, see gate.ScoreDecision) and "text" (with o.Rubric's
// scales and minimums).
func ScoreTable(o Options) map[Format]ScoreFunc {
	return map[Format]ScoreFunc{
		FormatJSON: func(w io.Writer, rep *gate.Report) error { return JSON(w, rep) },
		FormatMarkdown: func(w io.Writer, rep *gate.Report) error {
			_, err := io.WriteString(w, ScoreMarkdown(rep))
			return err
		},
		FormatJUnit: func(w io.Writer, rep *gate.Report) error {
			g := gate.ScoreDecision(rep)
			return JUnit(w, g, JUnitOptions{Name: o.title(g), Now: o.Now})
		},
		FormatText: func(w io.Writer, rep *gate.Report) error { return ScoreText(w, rep, o.Rubric) },
	}
}

// ItemLine is one line of the per-item JSON lines file (score --items).
type ItemLine struct {
	ID string `json:"id"`
	// Score is null for an unscored item.
	Score *float64 `json:"score"`
	Pass  bool     `json:"pass"`
	// Failed and NA list criterion ids (never null).
	Failed []string `json:"failed"`
	NA     []string `json:"na"`
	// Answers is the number of answers (regenerated answers) the score is
	// the mean of, and AnswerVar the variance of their scores (points²,
	// n - 1 in the denominator); both omitted for an item of one answer.
	Answers   int     `json:"answers,omitempty"`
	AnswerVar float64 `json:"answer_var,omitempty"`
}

// NewItemLine is the line of one scored item.
func NewItemLine(it *gate.ItemResult) ItemLine {
	l := ItemLine{ID: it.ID, Pass: it.Pass, Failed: nonNil(it.Failed), NA: nonNil(it.NA), Answers: it.Answers, AnswerVar: it.AnswerVar}
	if !it.Unscored {
		s := it.Score
		l.Score = &s
	}
	return l
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ItemWriter writes one JSON line per item, buffered: Write is a
// native.ScoreOptions.OnItem; call Flush at the end.
type ItemWriter struct {
	bw  *bufio.Writer
	enc *json.Encoder
}

// NewItemWriter writes item lines to w.
func NewItemWriter(w io.Writer) *ItemWriter {
	bw := bufio.NewWriterSize(w, 1<<16)
	return &ItemWriter{bw: bw, enc: json.NewEncoder(bw)}
}

// Write writes the line of one item.
func (iw *ItemWriter) Write(it *gate.ItemResult) error { return iw.enc.Encode(NewItemLine(it)) }

// Flush writes what is buffered.
func (iw *ItemWriter) Flush() error { return iw.bw.Flush() }
