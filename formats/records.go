package formats

import (
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/record"
	"github.com/rubricgate/rubricgate/rubric"
)

// Records is one result file of a tool, read as record.Records: set it as
// a native.Input's Records (package results/native). Its Format is the
// tool's name, the key of the rubric's `from`. Each reads the file again on every call (open must give
// the whole content afresh), so gate may read it twice.
//
// How records become gate records:
//   - records sharing an id (Inspect's epochs, promptfoo's --repeat runs)
//     are one item with one sample per record, ordered by Meta["epoch"];
//     the item sits where its first record does. gate sums the samples up
//     (mean, majority for gates);
//   - an item with an Error is unscored with that error; when one epoch of
//     several failed, the whole item is unscored and the error names the
//     epoch (or the repeat, Meta["repeat"]): a mean over the epochs that
//     happened to succeed would be another measurement. Its samples are
//     still handed over: gate checks the values they carry for blocking
//     criteria;
//   - metrics keep their names and values: gate maps them to criteria with
//     the rubric's `from` (and its source scale); a metric marked Unscored
//     (the tool failed to score it) makes the item unscored, even where the
//     criterion allows `na`;
//   - the tool's own metric weights (promptfoo's) are not used: Warnings
//     says where their proportions differ from the rubric's weights.
type Records struct {
	f    *Format
	name string
	open func() (io.Reader, error)

	weights map[string]*toolWeight // metric name -> the tool's weight, filled by Each
	order   []string
	notes   []Note // the reader's remarks, filled by Each
	// assumed are the metrics of a Directed format whose direction the
	// reader could not tell, in order of first appearance.
	assumed []string
	// byTask qualifies ids by their task (QualifyByTask).
	byTask bool
}

// QualifyByTask makes every id "<task>/<id>", task being the record's
// Meta["task"] (Inspect's eval.task): the ids of several tasks read in one
// run then stay apart. A record without a task keeps its id.
func (s *Records) QualifyByTask() { s.byTask = true }

// toolWeight is a metric's weight as the tool gave it.
type toolWeight struct {
	w      float64
	varies bool
}

// NewRecords returns the records of the file named name in format f; open
// returns its content from the start, each time it is called.
func NewRecords(f *Format, name string, open func() (io.Reader, error)) *Records {
	return &Records{f: f, name: name, open: open}
}

// Format returns the tool's name (one of rubric.Sources).
func (s *Records) Format() string { return s.f.Name }

var _ record.RecordsWarner = (*Records)(nil)

// Each reads the file and calls fn with every item, in the order of its
// first record. A read error is a *record.InputError naming the file and the
// line or JSON path (or zip member).
func (s *Records) Each(fn func(*record.Record) error) error {
	r, err := s.open()
	if err != nil {
		return &record.InputError{File: s.name, Msg: fmt.Sprintf("read: %v", err)}
	}
	var (
		groups [][]*Record
		at     = map[string]int{}
	)
	s.weights, s.order, s.notes, s.assumed = map[string]*toolWeight{}, nil, nil, nil
	assumed := map[string]bool{}
	add := func(rec *Record) error {
		if s.byTask && rec.Meta["task"] != "" {
			rec.ID = rec.Meta["task"] + "/" + rec.ID
		}
		s.noteWeights(rec)
		for _, m := range rec.Metrics {
			if s.f.Directed && m.Direction == record.DirectionAssumed && !assumed[m.Name] {
				assumed[m.Name] = true
				s.assumed = append(s.assumed, m.Name)
			}
		}
		if k, ok := at[rec.ID]; ok {
			groups[k] = append(groups[k], rec)
			return nil
		}
		at[rec.ID] = len(groups)
		groups = append(groups, []*Record{rec})
		return nil
	}
	r = skipBOM(r)
	if s.f.ReadNoted != nil {
		err = s.f.ReadNoted(s.name, r, add, func(n Note) { s.notes = append(s.notes, n) })
	} else {
		err = s.f.Read(s.name, r, add)
	}
	if err != nil {
		var ie *record.InputError
		if errors.As(err, &ie) {
			msg := ie.Msg
			if ie.Path != "" && ie.Path != "$" {
				msg = "at " + ie.Path + ": " + msg
			}
			return &record.InputError{File: ie.File, Line: ie.Line, Msg: msg}
		}
		return err
	}
	for _, g := range groups {
		if err := fn(toGate(g)); err != nil {
			return err
		}
	}
	return nil
}

// toGate makes one gate record of the records of one id.
func toGate(g []*Record) *record.Record {
	if len(g) > 1 {
		sort.SliceStable(g, func(i, j int) bool { return epochOf(g[i]) < epochOf(g[j]) })
	}
	first := g[0]
	out := &record.Record{ID: first.ID, Line: first.Loc.Line, InputHash: first.InputHash}
	if p := first.Loc.Path; p != "$" {
		out.Where = p
	}
	for _, rec := range g {
		if out.JudgeModel == "" {
			out.JudgeModel = rec.JudgeModel
		}
		if rec.Error != "" && out.Error == "" {
			out.Error = rec.Error
			if len(g) > 1 {
				if r := rec.Meta["repeat"]; r != "" {
					out.Error = "repeat " + r + " of " + strconv.Itoa(len(g)) + ": " + rec.Error
				} else {
					out.Error = "epoch " + rec.Meta["epoch"] + " of " + strconv.Itoa(len(g)) + ": " + rec.Error
				}
			}
			out.Reasoning = rec.Reasoning
		}
		ms := make([]record.Metric, len(rec.Metrics))
		for i, m := range rec.Metrics {
			ms[i] = record.Metric{Name: m.Name, Value: m.Value, Unscored: m.Unscored, Reason: unscoredReason(m), Direction: m.Direction}
		}
		out.Samples = append(out.Samples, record.Sample{Metrics: ms, Reasoning: rec.Reasoning})
	}
	if out.Error == "" && len(g) == 1 {
		out.Reasoning = first.Reasoning
	}
	// Records of one id told apart by epoch are regenerated answers
	// (Inspect epochs), not judgings of one answer.
	out.Answers = len(g) > 1 && first.Meta["epoch"] != ""
	return out
}

// unscoredReason is the tool's message for a metric it failed to score,
// cut short; "" for a scored metric.
func unscoredReason(m Metric) string {
	if !m.Unscored {
		return ""
	}
	return clip(strings.TrimSpace(m.Reason), 200)
}

// epochOf is a record's Inspect epoch, 0 when it has none.
func epochOf(r *Record) int {
	n, _ := strconv.Atoi(r.Meta["epoch"])
	return n
}

// noteWeights keeps the tool's weight of each metric of rec.
func (s *Records) noteWeights(rec *Record) {
	for _, m := range rec.Metrics {
		if m.Weight <= 0 || math.IsInf(m.Weight, 0) || math.IsNaN(m.Weight) {
			continue
		}
		w, ok := s.weights[m.Name]
		if !ok {
			s.weights[m.Name] = &toolWeight{w: m.Weight}
			s.order = append(s.order, m.Name)
			continue
		}
		if w.w != m.Weight {
			w.varies = true
		}
	}
}

// Warnings gives the reader's notes on the file (see Format.ReadNoted),
// then compares the tool's own metric weights, as the last Each read
// them, with rb's: over the criteria both weigh, the proportions must agree
// (a tool weight of 2 and 1 is the rubric's 4 and 2). The rubric's weights
// are used either way; a difference, or a metric the tool weighs differently
// from row to row, is one warning finding (ToolWeightsDiffer,
// ToolWeightsVary).
func (s *Records) Warnings(rb *rubric.Rubric) []finding.Finding {
	type pair struct {
		idx int
		w   finding.Weight
	}
	var (
		pairs    []pair
		varies   []string
		tSum, rS float64
	)
	for _, name := range s.order {
		i, ok := rb.CriterionFor(s.f.Name, name)
		if !ok {
			continue
		}
		w := s.weights[name]
		if w.varies {
			varies = append(varies, name)
			continue
		}
		c := &rb.Criteria[i]
		pairs = append(pairs, pair{i, finding.Weight{Criterion: c.ID, Rubric: c.Weight, Metric: name, Tool: w.w}})
		tSum += w.w
		rS += c.Weight
	}
	var out []finding.Finding
	for _, name := range s.assumed {
		i, ok := rb.CriterionFor(s.f.Name, name)
		if !ok {
			continue
		}
		c := &rb.Criteria[i]
		if src, ok := c.From[s.f.Name]; ok && src.Scale != nil {
			continue // the rubric says which way it goes
		}
		out = append(out, finding.Finding{Kind: finding.Message, Severity: finding.Warning, File: s.name, Criterion: c.ID,
			Params: finding.Params{Detail: fmt.Sprintf("%s: whether %s metric %q is better higher or lower is not known (not a %s built-in, and no test case passed or failed it away from its threshold): it is read as better higher; give criterion %s a source scale, from: {%s: {metric: ..., scale: [0, 1]}} to confirm or [1, 0] if lower is better",
				s.name, s.f.Name, name, s.f.Name, c.ID, s.f.Name)}})
	}
	for _, n := range s.notes {
		out = append(out, finding.Finding{Kind: finding.Message, Severity: finding.Warning, File: s.name, Line: n.Line,
			Params: finding.Params{Detail: s.name + ": " + n.Msg}})
	}
	if len(varies) > 0 {
		out = append(out, finding.Finding{Kind: finding.ToolWeightsVary, Severity: finding.Warning, File: s.name,
			Params: finding.Params{ToolParams: finding.ToolParams{Format: s.f.Name, Metrics: varies}}})
	}
	if len(pairs) < 2 || tSum <= 0 || rS <= 0 {
		return out
	}
	differ := false
	for _, p := range pairs {
		if math.Abs(p.w.Tool/tSum-p.w.Rubric/rS) > 1e-9 {
			differ = true
		}
	}
	if !differ {
		return out
	}
	// In the rubric's order: rows arrive in completion order.
	sort.Slice(pairs, func(a, b int) bool { return pairs[a].idx < pairs[b].idx })
	ws := make([]finding.Weight, len(pairs))
	for i, p := range pairs {
		ws[i] = p.w
	}
	return append(out, finding.Finding{Kind: finding.ToolWeightsDiffer, Severity: finding.Warning, File: s.name,
		Params: finding.Params{ToolParams: finding.ToolParams{Format: s.f.Name, Weights: ws}}})
}
