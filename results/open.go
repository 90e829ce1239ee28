// Package results opens the results files of a run, whatever wrote them:
// rubricgate's own JSON lines and review sheets, or the result files of
// promptfoo, Inspect AI, deepeval, openai/evals and ragas (package
// formats). It is the one place that turns --results and --format into
// gate inputs: adding a format to package formats adds it here.
package results

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rubricgate/rubricgate/formats"
	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/results/native"
)

// Native format names: rubricgate's JSON lines (json is the same) and CSV
// review sheets.
const (
	JSONL = "jsonl"
	CSV   = "csv"
)

// Names lists every --format name: the native ones, then each tool's.
func Names() []string {
	return append([]string{JSONL, CSV}, formats.Names()...)
}

// UsageError is a mistake in the patterns or the format name, as opposed
// to a file that cannot be read.
type UsageError = usage.Error

func usagef(format string, a ...any) error { return usage.Errorf(format, a...) }

// Open expands patterns (file names, globs, "-" for stdin) and opens every
// file as a gate input, in the order given (a glob's matches sorted, a
// file named twice opened once). format is "" (each file by its name and
// content), jsonl (or json), csv, or a tool's name (see Names); "-" needs
// one.
//
// Without a format, .csv is a review sheet unless ragas' or promptfoo's
// header says otherwise (a summary table of metric and score is refused),
// .eval is Inspect's, and .json, .jsonl and .log files are another tool's
// when its reader recognises their first bytes (two claims are an error
// that asks for --format), else rubricgate's JSON lines; .yaml, .yml,
// .html, .htm and .xml files that are not JSON are refused, naming what to
// write instead (formats.Unread). Any other name is JSON lines. A
// directory is an Inspect eval set (evalSet). When more than one Inspect
// log is read, their ids are qualified by task.
//
// Every input can be read again (gate re-reads to show a duplicate id, and
// a gate re-scores under the baseline's rubric): a tool's records re-read
// their file, and stdin read by a tool's reader is buffered (up to
// formats.MaxFileBytes). Calling close closes every file; it is never nil.
func Open(patterns []string, format string, stdin io.Reader) ([]native.Input, func(), error) {
	nop := func() {}
	own := native.FormatAuto
	var tool *formats.Format
	switch f := strings.ToLower(strings.TrimSpace(format)); f {
	case "":
	case JSONL, "json":
		own = native.FormatJSONL
	case CSV:
		own = native.FormatCSV
	default:
		t, ok := formats.Lookup(f)
		if !ok {
			return nil, nop, usagef("--format %q: expected one of %s", format, strings.Join(Names(), ", "))
		}
		tool = t
	}
	if len(patterns) == 0 {
		return nil, nop, usagef("--results: no results file given")
	}
	o := &opener{own: own, tool: tool, stdin: stdin, seen: map[string]bool{}}
	for _, p := range patterns {
		if err := o.pattern(p); err != nil {
			o.close()
			return nil, nop, err
		}
	}
	inputs := o.inputs
	// The ids of several Inspect logs (tasks) stay apart: qualified by task.
	var logs []*formats.Records
	for _, in := range inputs {
		if r, ok := in.Records.(*formats.Records); ok && r.Format() == "inspect" && in.Name != "-" {
			logs = append(logs, r)
		}
	}
	if len(logs) > 1 {
		for _, r := range logs {
			r.QualifyByTask()
		}
	}
	return inputs, o.close, nil
}

// opener opens the files of --results one pattern at a time.
type opener struct {
	own       native.Format
	tool      *formats.Format
	stdin     io.Reader
	stdinSeen bool
	seen      map[string]bool
	files     []*os.File
	inputs    []native.Input
}

// close closes every file opened.
func (o *opener) close() {
	for _, fl := range o.files {
		fl.Close()
	}
}

// pattern opens what one pattern names: stdin, a file, a glob's matches or
// an eval-set directory.
func (o *opener) pattern(p string) error {
	if p == "-" {
		return o.stdinInput()
	}
	matches := []string{p}
	if strings.ContainsAny(p, "*?[") {
		m, err := filepath.Glob(p)
		if err != nil {
			return usagef("--results %q: bad pattern: %v", p, err)
		}
		if len(m) == 0 {
			return fmt.Errorf("--results %q: no file matches", p)
		}
		sort.Strings(m)
		matches = m
	}
	for _, path := range matches {
		if o.seen[path] {
			continue
		}
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			set, err := evalSet(path, o.tool, &o.files, o.seen)
			if err != nil {
				return err
			}
			o.seen[path] = true
			o.inputs = append(o.inputs, set...)
			continue
		}
		o.seen[path] = true
		fl, err := os.Open(path)
		if err != nil {
			return fmt.Errorf("results: %w", err)
		}
		o.files = append(o.files, fl)
		in, err := input(fl, path, o.own, o.tool)
		if err != nil {
			return err
		}
		o.inputs = append(o.inputs, in)
	}
	return nil
}

// stdinInput opens stdin ("-"), once: a tool's reader gets it buffered
// (it is read twice), rubricgate's own formats stream it.
func (o *opener) stdinInput() error {
	if o.stdinSeen {
		return usagef("--results: stdin (-) given twice")
	}
	o.stdinSeen = true
	switch {
	case o.tool != nil:
		data, err := io.ReadAll(io.LimitReader(o.stdin, formats.MaxFileBytes+1))
		if err != nil {
			return fmt.Errorf("read stdin: %w", err)
		}
		if int64(len(data)) > formats.MaxFileBytes {
			return &native.InputError{File: "-", Msg: fmt.Sprintf("stdin is over %d bytes; name the file instead", int64(formats.MaxFileBytes))}
		}
		o.inputs = append(o.inputs, native.Input{Name: "-", Records: formats.NewRecords(o.tool, "-", func() (io.Reader, error) { return bytes.NewReader(data), nil })})
	case o.own == native.FormatAuto:
		return usagef("--results -: reading stdin needs --format (one of %s)", strings.Join(Names(), ", "))
	default:
		o.inputs = append(o.inputs, native.Input{Name: "-", R: o.stdin, Format: o.own})
	}
	return nil
}

// evalSet opens the log of each task of an Inspect eval-set directory (see
// formats.InspectEvalSet), ids qualified by task whatever the number of
// tasks, so adding a task to the set renames nothing.
func evalSet(dir string, tool *formats.Format, files *[]*os.File, seen map[string]bool) ([]native.Input, error) {
	if _, err := os.Stat(filepath.Join(dir, formats.EvalSetManifest)); err != nil {
		return nil, fmt.Errorf("--results %s: a directory, and not an Inspect eval set (no %s): name its files or a glob", dir, formats.EvalSetManifest)
	}
	ins, _ := formats.Lookup("inspect")
	if tool != nil && tool != ins {
		return nil, usagef("--results %s: an Inspect eval-set directory, read with --format inspect, not %s", dir, tool.Name)
	}
	logs, err := formats.InspectEvalSet(dir)
	if err != nil {
		return nil, err
	}
	var out []native.Input
	for _, l := range logs {
		if seen[l.Path] {
			continue
		}
		seen[l.Path] = true
		fl, err := os.Open(l.Path)
		if err != nil {
			return nil, fmt.Errorf("results: %w", err)
		}
		*files = append(*files, fl)
		in, err := input(fl, l.Path, native.FormatAuto, ins)
		if err != nil {
			return nil, err
		}
		in.Records.(*formats.Records).QualifyByTask()
		out = append(out, in)
	}
	return out, nil
}

// input makes the gate input of one open file.
func input(fl *os.File, path string, own native.Format, tool *formats.Format) (native.Input, error) {
	if tool == nil && own == native.FormatAuto {
		t, err := detect(fl, path)
		if err != nil {
			return native.Input{}, err
		}
		tool = t
	}
	if tool == nil {
		return native.Input{Name: path, R: fl, Format: own}, nil
	}
	reopen := func() (io.Reader, error) {
		if _, err := fl.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		return fl, nil
	}
	return native.Input{Name: path, Records: formats.NewRecords(tool, path, reopen)}, nil
}

// detect reads the head of fl and names the tool that wrote it, nil for
// rubricgate's own formats; fl is rewound.
func detect(fl *os.File, path string) (*formats.Format, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json", ".jsonl", ".csv", ".eval", ".log", ".yaml", ".yml", ".html", ".htm", ".xml":
	default:
		return nil, nil
	}
	head := make([]byte, formats.HeadSize)
	n, err := io.ReadFull(fl, head)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("results: %w", err)
	}
	if _, err := fl.Seek(0, io.SeekStart); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	if err := formats.Unread(path, head[:n]); err != nil {
		return nil, err
	}
	t, err := formats.Detect(path, head[:n])
	if errors.Is(err, formats.ErrUnknownFormat) {
		if strings.EqualFold(filepath.Ext(path), ".eval") {
			return nil, &native.InputError{File: path, Msg: "not an Inspect .eval log (no zip archive); name the format with --format"}
		}
		return nil, nil
	}
	if err != nil {
		return nil, usage.Wrap(err)
	}
	return t, nil
}
