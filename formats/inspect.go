package formats

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/record"
	"io"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/internal/zipread"
)

// Inspect AI's eval logs: the JSON log (an EvalLog: version, status, eval,
// ..., samples) and the .eval zip (header.json, and one samples/<id>_epoch_
// <epoch>.json per sample). Source: inspect_ai src/inspect_ai/log/_log.py
// (EvalLog, EvalSample), log/_recorders/eval.py (the zip layout) and
// scorer/_metric.py (Score, value_to_float), at commit 499e6152e7b8.
//
// One record per sample and epoch: the id is samples[].id; epochs are
// answer samples of one item (regenerated answers; see toGate), so records of one id differ in Meta["epoch"], and
// only an id repeated within one epoch is refused. Metrics come from
// scores{scorer: {value, explanation}}, one per scorer (a dict value gives
// one per key, named scorer/key): a number as is; a bool 1 or 0; the
// letters C, P, I, N as 1, 0.5, 0, 0 and yes/true, no/false as 1, 0 (as
// value_to_float does); a numeric string; NaN (Inspect's "unscored": the
// scorer failed, as when a grader's reply has no parsable grade) or null is
// Unscored. Any other value is refused (value_to_float would quietly make
// it 0). The explanation is the metric's Reason and, labelled by scorer,
// the record's Reasoning. A sample with an error, or with no scores, is
// unscored. A log whose status is not "success" is refused: its samples are
// partial, and so is one whose eval.config.epochs_reducer does not include
// mean (see epochsReducer). Meta: epoch, task, model.
//
// A run that reads more than one log (an eval-set directory, see
// InspectEvalSet, or several logs named or globbed) qualifies every id by
// its task, "<eval.task>/<id>" (Records.QualifyByTask): each log is one
// task's, and tasks number their samples alike. An eval-set directory is
// always qualified, so a task added to the set renames nothing.
//
// One name covers both files: a zip's signature (or the name .eval) says
// it is the .eval.
var inspect = &Format{
	Name: "inspect",
	Detect: func(name string, head []byte) bool {
		return inspectJSON.Detect(name, head) || inspectEval.Detect(name, head)
	},
	Read: func(name string, r io.Reader, fn func(*Record) error) error {
		br, head := peekHead(r)
		if bytes.HasPrefix(head, zipMagic) || ext(name) == ".eval" {
			return inspectEval.Read(name, br, fn)
		}
		return inspectJSON.Read(name, br, fn)
	},
}

var zipMagic = []byte("PK\x03\x04")

var inspectJSON = &Format{
	Name: "inspect",
	Detect: func(name string, head []byte) bool {
		if ext(name) != ".json" {
			return false
		}
		k := topKeys(head)
		return hasKey(k, "eval") && hasKey(k, "status") && hasKey(k, "version")
	},
	Read: readInspectJSON,
}

var inspectEval = &Format{
	Name: "inspect",
	Detect: func(name string, head []byte) bool {
		return ext(name) == ".eval" && bytes.HasPrefix(head, zipMagic)
	},
	Read: readInspectEval,
}

// inspectRun holds what the log header says about all samples.
type inspectRun struct {
	task, model string
	seen        *ids
	// binary is set when the epochs were reduced with pass_at_1 alone:
	// every value must then be 0 or 1 (see epochsReducer).
	binary bool
}

// header checks the status and keeps task and model.
func (run *inspectRun) header(n node, what string) error {
	if err := n.object(); err != nil {
		return err
	}
	st, err := n.at("status").str()
	if err != nil {
		return err
	}
	if st != "success" {
		msg := ""
		if e := n.at("error"); !e.null() && e.v.kind == kObject {
			if m, _ := e.at("message").optStr(); m != "" {
				msg = ": " + m
			}
		}
		return n.at("status").errf("the eval's status is %q%s; expected \"success\" (%s holds a partial run)", st, msg, what)
	}
	ev := n.at("eval")
	if err := ev.object(); err != nil {
		return err
	}
	if run.task, err = ev.at("task").str(); err != nil {
		return err
	}
	if run.model, err = ev.at("model").str(); err != nil {
		return err
	}
	run.binary, err = epochsReducer(ev.at("config"))
	return err
}

// epochsReducer checks eval.config.epochs_reducer, the reducers Inspect
// combined each sample's epochs with (reducer_log_names: "mean", "median",
// "mode", "max", "at_least_2", "pass_at_2", ...; none means mean). Epochs
// are read as answers of one item and averaged, which is the mean reducer:
// a log that names reducers without mean is refused rather than averaged
// as if it were mean (a max or at_least_k run would score differently).
//
// pass_at_1 is the one other reducer read, and binary reports it: pass@1
// is the share of epochs whose value is at least 1 (inspect_ai
// scorer/_reducer/reducer.py, pass_at: 1 - C(n-c, 1)/C(n, 1) = c/n), which
// is the mean when every value is 0 or 1 (C and I, booleans, 0/1 numbers),
// over one epoch or many. A value in between (P, 0.5) counts as failed in
// pass@1 and as half in the mean, so with pass_at_1 it is refused (sample).
func epochsReducer(cfg node) (binary bool, err error) {
	if cfg.missing() || cfg.null() {
		return false, nil
	}
	if err := cfg.object(); err != nil {
		return false, err
	}
	er := cfg.at("epochs_reducer")
	if er.missing() || er.null() {
		return false, nil
	}
	n, err := er.array()
	if err != nil {
		return false, err
	}
	var names, other []string
	for i := 0; i < n; i++ {
		s, err := er.index(i).str()
		if err != nil {
			return false, err
		}
		if s == "mean" {
			return false, nil
		}
		names = append(names, s)
		if s != "pass_at_1" {
			other = append(other, s)
		}
	}
	if len(names) == 0 {
		return false, nil
	}
	if len(other) == 0 {
		return true, nil
	}
	return false, er.errf("the epochs were reduced with %s; rubricgate reads epochs as answers of one item and averages them (the mean reducer; pass_at_1 over values of 0 and 1 is that mean) and does not implement %s: re-run with --epochs-reducer mean (or add mean to the reducers)", strings.Join(names, ", "), strings.Join(other, ", "))
}

func readInspectJSON(name string, r io.Reader, fn func(*Record) error) error {
	d := newJSONDecoder(name, r, maxFile)
	run := &inspectRun{seen: newIDs(name)}
	hdr := &value{kind: kObject, line: 1}
	headerDone := false
	samples := false
	err := d.eachMember(func(key string, line int) error {
		if key != "samples" {
			v, err := d.value()
			if err != nil {
				return err
			}
			hdr.keys = append(hdr.keys, key)
			hdr.vals = append(hdr.vals, v)
			return nil
		}
		// pydantic writes the header fields before samples.
		if err := run.header(node{v: hdr, file: name, path: "$"}, "the log"); err != nil {
			return err
		}
		headerDone = true
		samples = true
		if d.peek() == 'n' {
			_, err := d.value()
			samples = false
			return err
		}
		return d.eachElement(func(i int) error {
			path := d.pathString()
			v, err := d.value()
			if err != nil {
				return err
			}
			rec, err := run.sample(node{v: v, file: name, path: path}, Location{File: name, Line: v.line, Path: path})
			if err != nil {
				return err
			}
			return fn(rec)
		})
	})
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return err
	}
	if !headerDone {
		if err := run.header(node{v: hdr, file: name, path: "$"}, "the log"); err != nil {
			return err
		}
	}
	if !samples {
		return &record.InputError{File: name, Line: 1, Msg: "the log has no samples (written with --no-log-samples?); expected a samples array"}
	}
	return nil
}

func readInspectEval(name string, r io.Reader, fn func(*Record) error) error {
	data, err := io.ReadAll(limitedReader(r, maxFile))
	if err != nil {
		return &record.InputError{File: name, Msg: fmt.Sprintf("read: %v", err), Err: err}
	}
	// The archive is read by internal/zipread, as the baseline store reads
	// its artifacts.
	zr, err := zipread.NewReader(data, MaxZipMembers)
	var ze *zipread.Error
	if errors.As(err, &ze) {
		switch ze.Kind {
		case zipread.Corrupt:
			return &record.InputError{File: name, Msg: fmt.Sprintf("not a zip archive (an Inspect .eval log is one): %v", ze.Err)}
		case zipread.UnsafeName:
			return &record.InputError{File: name, Path: ze.Member, Msg: "unsafe member name (absolute, with .. or a backslash); refusing the archive"}
		}
		return &record.InputError{File: name, Msg: ze.Error()}
	}
	if err != nil {
		return &record.InputError{File: name, Msg: err.Error()}
	}
	// A re-logged sample appends a second member of the same name; Inspect
	// reads the last one, and so does this reader.
	last := map[string]*zip.File{}
	var order []string
	for _, f := range zr.File {
		if _, ok := last[f.Name]; !ok {
			order = append(order, f.Name)
		}
		last[f.Name] = f
	}
	hf, ok := last["header.json"]
	if !ok {
		return &record.InputError{File: name, Msg: "archive has no header.json; expected an Inspect .eval log of a finished run"}
	}
	run := &inspectRun{seen: newIDs(name)}
	budget := maxUnzip
	hv, err := readMember(name, hf, &budget)
	if err != nil {
		return err
	}
	if err := run.header(node{v: hv, file: name + ":" + hf.Name, path: "$"}, "the archive"); err != nil {
		return err
	}
	n := 0
	for _, m := range order {
		if !strings.HasPrefix(m, "samples/") || !strings.HasSuffix(m, ".json") {
			continue
		}
		f := last[m]
		v, err := readMember(name, f, &budget)
		if err != nil {
			return err
		}
		member := name + ":" + m
		rec, err := run.sample(node{v: v, file: member, path: "$"}, Location{File: name, Line: 0, Path: m})
		if err != nil {
			return err
		}
		n++
		if err := fn(rec); err != nil {
			return err
		}
	}
	if n == 0 {
		return &record.InputError{File: name, Msg: "archive has no samples/*.json members; expected the samples of the run"}
	}
	return nil
}

// readMember decodes one zip member, reading at most MaxRecordBytes and at
// most *budget, which it lowers by what it read (the declared sizes are not
// trusted).
func readMember(name string, f *zip.File, budget *int64) (*value, error) {
	member := name + ":" + f.Name
	rc, err := zipread.Open(f, maxRecord)
	var ze *zipread.Error
	switch {
	case errors.As(err, &ze) && ze.Kind == zipread.NotRegular:
		return nil, &record.InputError{File: member, Msg: fmt.Sprintf("not a regular file (mode %v)", ze.Mode)}
	case errors.As(err, &ze) && ze.Kind == zipread.TooLarge:
		return nil, &record.InputError{File: member, Msg: fmt.Sprintf("declares %d bytes uncompressed, over the %d-byte limit", ze.Size, ze.Limit)}
	case errors.As(err, &ze) && ze.Kind == zipread.Corrupt:
		return nil, &record.InputError{File: member, Msg: fmt.Sprintf("corrupt member: %v", ze.Err)}
	case err != nil:
		return nil, &record.InputError{File: member, Msg: err.Error()}
	}
	defer rc.Close()
	limit := min(maxRecord, *budget)
	d := newJSONDecoder(member, rc, limit)
	v, err := d.value()
	if err == nil {
		err = d.end()
	}
	*budget -= d.read
	switch {
	case errors.Is(err, errLimit) && limit < maxRecord:
		return nil, &record.InputError{File: member, Msg: fmt.Sprintf("the archive's members exceed %d bytes uncompressed together (zip bomb?)", maxUnzip)}
	case errors.Is(err, errLimit):
		return nil, &record.InputError{File: member, Msg: fmt.Sprintf("exceeds the %d-byte limit uncompressed (zip bomb?)", maxRecord)}
	case errors.Is(err, zip.ErrFormat):
		return nil, &record.InputError{File: member, Msg: "holds more data than its header declares, or is corrupt (zip bomb?)"}
	case errors.Is(err, zip.ErrChecksum):
		return nil, &record.InputError{File: member, Msg: "fails its checksum (corrupt)"}
	}
	return v, err
}

// sample turns one EvalSample into a record.
func (run *inspectRun) sample(n node, loc Location) (*Record, error) {
	if err := n.object(); err != nil {
		return nil, err
	}
	idn := n.at("id")
	id, ok := idn.scalar()
	if !ok || idn.v.kind == kBool {
		return nil, idn.want("a sample id (a string or an integer)")
	}
	if id == "" {
		return nil, idn.errf("empty sample id")
	}
	ep, err := n.at("epoch").num()
	if err != nil {
		return nil, err
	}
	if ep < 1 || ep != float64(int64(ep)) || ep > 1e9 {
		return nil, n.at("epoch").errf("epoch %s; expected a whole number from 1", fmtFloat(ep))
	}
	epoch := strconv.FormatInt(int64(ep), 10)
	if strings.HasPrefix(loc.Path, "samples/") {
		if want := "samples/" + id + "_epoch_" + epoch + ".json"; loc.Path != want {
			return nil, n.errf("member holds sample %q epoch %s; expected the name %s", id, epoch, want)
		}
	}
	if err := run.seen.add(id+"\x00"+epoch, id, loc, fmt.Sprintf(" in epoch %s; a sample id may appear once per epoch", epoch)); err != nil {
		return nil, err
	}
	rec := &Record{ID: id, Loc: loc, Meta: map[string]string{"epoch": epoch, "task": run.task, "model": run.model}, InputHash: inspectTask(n)}
	if e := n.at("error"); !e.null() {
		if err := e.object(); err != nil {
			return nil, err
		}
		msg, err := e.at("message").str()
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(msg) == "" {
			msg = "the sample failed (empty error message)"
		}
		rec.Error = msg
		return rec, nil
	}
	sc := n.at("scores")
	if sc.null() {
		rec.Error = "the sample has no scores"
		return rec, nil
	}
	if err := sc.object(); err != nil {
		return nil, err
	}
	if len(sc.v.keys) == 0 {
		rec.Error = "the sample has no scores"
		return rec, nil
	}
	var reasoning []string
	for _, scorer := range sc.v.keys {
		s := sc.at(scorer)
		if err := s.object(); err != nil {
			return nil, err
		}
		expl, err := s.at("explanation").optStr()
		if err != nil {
			return nil, err
		}
		if expl != "" {
			reasoning = append(reasoning, scorer+": "+expl)
		}
		val := s.at("value")
		if val.v != nil && val.v.kind == kObject {
			if len(val.v.keys) == 0 {
				return nil, val.errf("an empty dict of values; expected criterion -> number")
			}
			for _, k := range val.v.keys {
				f, na, err := inspectValue(val.at(k))
				if err != nil {
					return nil, err
				}
				rec.Metrics = append(rec.Metrics, Metric{Name: scorer + "/" + k, Value: f, Unscored: na, Reason: expl})
			}
			continue
		}
		f, na, err := inspectValue(val)
		if err != nil {
			return nil, err
		}
		rec.Metrics = append(rec.Metrics, Metric{Name: scorer, Value: f, Unscored: na, Reason: expl})
	}
	if run.binary {
		for _, m := range rec.Metrics {
			if !m.Unscored && m.Value != 0 && m.Value != 1 {
				return nil, sc.errf("scorer %s's value is %s, and the epochs were reduced with pass_at_1, which counts only a value of 1 as passed where rubricgate's mean counts it as %s: re-run with --epochs-reducer mean to gate on the mean", strconv.Quote(m.Name), fmtFloat(m.Value), fmtFloat(m.Value))
			}
		}
	}
	rec.Reasoning = strings.Join(reasoning, "\n")
	return rec, nil
}

// inspectValue converts one score value as Inspect's value_to_float does
// with its default letters, except that what it cannot convert is refused
// instead of becoming 0, and NaN or null is
// Unscored.
func inspectValue(n node) (float64, bool, error) {
	if n.v == nil {
		return 0, false, n.want("a score value")
	}
	switch n.v.kind {
	case kNumber, kNonFinite, kNull:
		return n.score()
	case kBool:
		if n.v.b {
			return 1, false, nil
		}
		return 0, false, nil
	case kString:
		switch n.v.s {
		case "C":
			return 1, false, nil
		case "P":
			return 0.5, false, nil
		case "I", "N":
			return 0, false, nil
		}
		switch strings.ToLower(n.v.s) {
		case "yes", "true":
			return 1, false, nil
		case "no", "false":
			return 0, false, nil
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(n.v.s), 64); err == nil && !isNonFinite(f) {
			return f, false, nil
		}
		return 0, false, n.errf("score value %q; expected a number, C, P, I, N, yes/no or true/false", clip(n.v.s, 40))
	}
	return 0, false, n.want("a number, a letter (C, P, I, N), a boolean or a dict of criterion -> number")
}

func isNonFinite(f float64) bool {
	return f != f || f > 1.7976931348623157e308 || f < -1.7976931348623157e308
}

// clip shortens s for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "..."
}
