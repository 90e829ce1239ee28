package formats

import (
	"bytes"
	"fmt"
	"github.com/rubricgate/rubricgate/record"
	"io"
	"strings"
)

// openai/evals record files (oaieval --record_path, JSON Lines): a
// {"spec": RunSpec} line, then events {run_id, event_id, sample_id, type,
// data, created_by, created_at}, then {"final_report": ..., "run_id"}.
// Source: openai/evals evals/record.py (Event, RecorderBase.record_match,
// record_metrics, record_error, LocalRecorder) and evals/base.py (RunSpec),
// at commit 4bfc1f58a821.
//
// One record per sample_id, in order of first appearance. A "match" event
// gives the metric "match" (correct: 1, else 0); a "metrics" event gives one
// metric per key (a number as is, a bool 1 or 0, null Unscored (a
// model grader whose answer matched no choice records score null); a string such as
// a model-graded "choice" goes to Meta as metrics:<key>). An "error" event
// makes the sample unscored, as does a sample with no match or metrics
// event. Other event types (sampling, ...) are skipped. Every event must
// carry the spec's run_id; the file must hold one final_report (a run that
// stopped early is refused), with the spec's run_id or, as files written
// before evals commit cf002f29 are, none. Events may follow the final
// report: the recorder writes the report at once and flushes its buffered
// events at exit (atexit flush_events), so they are read like the others.
// A metric recorded twice for a sample is refused. Meta: eval,
// completion_fns.
var openaiEvals = &Format{
	Name: "openai-evals",
	Detect: func(name string, head []byte) bool {
		if e := ext(name); e != ".jsonl" && e != ".log" {
			return false
		}
		return hasKey(topKeys(firstLine(head)), "spec")
	},
	Read: func(name string, r io.Reader, fn func(*Record) error) error {
		return readOpenAIEvalsNoted(name, r, fn, func(Note) {})
	},
	ReadNoted: readOpenAIEvalsNoted,
}

type evalsSample struct {
	rec   *Record
	lines map[string]int // metric name -> line that recorded it
	any   bool           // a match or metrics event was seen
	run   *evalsRun
}

// evalsRun is one record file as it is read: the spec, the samples in
// order of first appearance, and whether the final report was seen.
type evalsRun struct {
	file                 string
	runID, evalName, fns string
	specSeen, final      bool
	order                []string
	samples              map[string]*evalsSample
	// unscoredAt and scoredAt are the first lines of a model-graded
	// metrics event (one with a choice) whose score is null, and one whose
	// score is a number (0 for none).
	unscoredAt, scoredAt int
}

func readOpenAIEvalsNoted(name string, r io.Reader, fn func(*Record) error, note func(Note)) error {
	run := &evalsRun{file: name, samples: map[string]*evalsSample{}}
	err := eachLine(name, r, func(line int, text []byte) error {
		v, err := decodeAt(name, bytes.NewReader(text), 0, line)
		if err != nil {
			return err
		}
		n := node{v: v, file: name, path: "$"}
		if err := n.object(); err != nil {
			return err
		}
		switch {
		case !run.specSeen:
			return run.spec(n)
		case !n.at("spec").missing():
			return n.errf("a second spec line; expected one run per record file")
		case !n.at("final_report").missing():
			return run.finalReport(n)
		}
		return run.event(n, line)
	})
	if err != nil {
		return err
	}
	return run.finish(fn, note)
}

// spec reads the first line, {"spec": RunSpec}.
func (run *evalsRun) spec(n node) error {
	spec := n.at("spec")
	if err := spec.object(); err != nil {
		return n.errf("expected the {\"spec\": ...} line of an openai/evals record file first")
	}
	var err error
	if run.runID, err = spec.at("run_id").str(); err != nil {
		return err
	}
	if run.evalName, err = spec.at("eval_name").str(); err != nil {
		return err
	}
	cf := spec.at("completion_fns")
	k, err := cf.array()
	if err != nil {
		return err
	}
	var names []string
	for i := 0; i < k; i++ {
		s, err := cf.index(i).str()
		if err != nil {
			return err
		}
		names = append(names, s)
	}
	run.fns = strings.Join(names, ",")
	run.specSeen = true
	return nil
}

// finalReport reads the {"final_report": ..., "run_id"} line.
func (run *evalsRun) finalReport(n node) error {
	// LocalRecorder wrote the final report without run_id before evals
	// commit cf002f29 (January 2024); with one, it must match.
	if ridn := n.at("run_id"); !ridn.missing() {
		rid, err := ridn.str()
		if err != nil {
			return err
		}
		if rid != run.runID {
			return ridn.errf("run_id %q; expected the spec's %q (one run per record file)", rid, run.runID)
		}
	}
	if run.final {
		return n.at("final_report").errf("a second final_report; expected one run per record file")
	}
	run.final = true
	return nil
}

// event reads one event line into its sample.
func (run *evalsRun) event(n node, line int) error {
	rid, err := n.at("run_id").str()
	if err != nil {
		return err
	}
	if rid != run.runID {
		return n.at("run_id").errf("run_id %q; expected the spec's %q (one run per record file)", rid, run.runID)
	}
	typ, err := n.at("type").str()
	if err != nil {
		return err
	}
	sidn := n.at("sample_id")
	sid, err := sidn.str()
	if err != nil {
		return err
	}
	if sid == "" {
		return sidn.errf("empty sample_id")
	}
	s := run.samples[sid]
	if s == nil {
		s = &evalsSample{rec: &Record{ID: sid, Loc: Location{File: run.file, Line: line},
			Meta: map[string]string{"eval": run.evalName, "completion_fns": run.fns}}, lines: map[string]int{}, run: run}
		run.samples[sid] = s
		run.order = append(run.order, sid)
	}
	data := n.at("data")
	switch typ {
	case "match":
		return s.match(data, line)
	case "metrics":
		return s.metrics(data, line)
	case "error":
		return s.errorEvent(data)
	}
	return nil
}

// add keeps metric m of the sample, recorded at line (at is its value).
func (s *evalsSample) add(m Metric, at node, line int) error {
	if prev, dup := s.lines[m.Name]; dup {
		return at.errf("metric %q of sample %q recorded twice (first on line %d)", m.Name, s.rec.ID, prev)
	}
	s.lines[m.Name] = line
	s.rec.Metrics = append(s.rec.Metrics, m)
	s.any = true
	return nil
}

// match reads a match event: {correct: bool, ...} is the metric "match".
func (s *evalsSample) match(data node, line int) error {
	if err := data.object(); err != nil {
		return err
	}
	c := data.at("correct")
	if c.v == nil || c.v.kind != kBool {
		return c.want("a boolean")
	}
	m := Metric{Name: "match"}
	if c.v.b {
		m.Value = 1
	}
	return s.add(m, c, line)
}

// metrics reads a metrics event: one metric per numeric or boolean key.
//
// A model-graded eval (classify: an event with a string "choice") records
// score from its spec's choice_scores (classify_utils.get_choice_score),
// the lowest of them where the grader's answer matched no choice
// ("__invalid__"), and null on every sample where the spec defines none
// (fact's choices A to E are labels, not scores): that null is no failure
// and no score, so it is not read as a metric (the run's notes say so).
func (s *evalsSample) metrics(data node, line int) error {
	if err := data.object(); err != nil {
		return err
	}
	graded := false
	if c := data.at("choice"); c.v != nil && c.v.kind == kString {
		graded = true
	}
	for _, k := range data.v.keys {
		e := data.at(k)
		if k == "" {
			return e.errf("a metric with an empty name")
		}
		switch e.v.kind {
		case kBool:
			m := Metric{Name: k}
			if e.v.b {
				m.Value = 1
			}
			if err := s.add(m, e, line); err != nil {
				return err
			}
		case kNull:
			if graded && k == "score" {
				if s.run.unscoredAt == 0 {
					s.run.unscoredAt = line
				}
				s.any = true // graded, with no score to give
				continue
			}
			if err := s.add(Metric{Name: k, Unscored: true}, e, line); err != nil {
				return err
			}
		case kNumber, kNonFinite:
			if graded && k == "score" && s.run.scoredAt == 0 {
				s.run.scoredAt = line
			}
			f, na, err := e.score()
			if err != nil {
				return err
			}
			if err := s.add(Metric{Name: k, Value: f, Unscored: na}, e, line); err != nil {
				return err
			}
		case kString:
			s.rec.Meta["metrics:"+k] = e.v.s
		default:
			return e.want("a number, a boolean, a string or null")
		}
	}
	return nil
}

// errorEvent reads an error event: the sample is unscored.
func (s *evalsSample) errorEvent(data node) error {
	if err := data.object(); err != nil {
		return err
	}
	msg, err := data.at("message").optStr()
	if err != nil {
		return err
	}
	et, err := data.at("type").optStr()
	if err != nil {
		return err
	}
	if et != "" {
		msg = et + ": " + msg
	}
	if strings.TrimSpace(msg) == "" {
		msg = "the eval recorded an error without a message"
	}
	if s.rec.Error != "" {
		s.rec.Error += "\n"
	}
	s.rec.Error += msg
	return nil
}

// anyMetric reports whether some sample carries a metric.
func (run *evalsRun) anyMetric() bool {
	for _, s := range run.samples {
		if len(s.rec.Metrics) > 0 {
			return true
		}
	}
	return false
}

// finish checks the file was a finished run and calls fn with each sample.
func (run *evalsRun) finish(fn func(*Record) error, note func(Note)) error {
	if !run.specSeen {
		return &record.InputError{File: run.file, Line: 1, Msg: "empty; expected an openai/evals record file starting with a spec line"}
	}
	if !run.final {
		return &record.InputError{File: run.file, Msg: "no final_report line; the run did not finish (expected the last line to hold final_report)"}
	}
	switch {
	case run.unscoredAt > 0 && run.scoredAt > 0:
		return &record.InputError{File: run.file, Line: run.unscoredAt, Msg: fmt.Sprintf("a model-graded score is null here and a number on line %d; openai/evals writes null on every sample of an eval whose spec has no choice_scores, and a number on every sample of one that has them (the lowest for a grade that matched no choice)", run.scoredAt)}
	case run.unscoredAt > 0 && !run.anyMetric():
		return &record.InputError{File: run.file, Line: run.unscoredAt, Msg: fmt.Sprintf("model-graded eval %q records score null on every sample: its spec defines no choice_scores, so openai/evals scores no grade (its choices are labels, counted in the final report), and the file holds no score to gate; give the spec choice_scores (or record metascore with metaeval)", run.evalName)}
	case run.unscoredAt > 0:
		note(Note{Line: run.unscoredAt, Msg: fmt.Sprintf("model-graded eval %q records score null: its spec defines no choice_scores, so openai/evals scores no grade (its choices are labels, counted in the final report); only the other metrics its events carry (metascore with metaeval) can be gated, and a criterion mapped to score is na where it allows na, else refused; give the spec choice_scores to have a score", run.evalName)})
	}
	for _, sid := range run.order {
		s := run.samples[sid]
		if !s.any && s.rec.Error == "" {
			s.rec.Error = "no match or metrics event for this sample"
		}
		if err := fn(s.rec); err != nil {
			return err
		}
	}
	return nil
}
