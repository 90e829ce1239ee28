package formats

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rubricgate/rubricgate/record"
)

// EvalSetLog is the log of one task of an Inspect eval set.
type EvalSetLog struct {
	// Path is the log file (the eval-set directory joined with its name).
	Path string
	// Task is the task's name (eval.task), which qualifies its ids.
	Task string
}

// Names of the manifests inspect_ai writes in an eval-set directory.
const (
	EvalSetManifest = "eval-set.json"
	LogsManifest    = "logs.json"
)

// InspectEvalSet reads the manifests of an Inspect eval-set directory (what
// `inspect eval-set` or eval_set(log_dir=...) writes): eval-set.json (an
// EvalSet: eval_set_id and tasks[], each with a task_id) and logs.json (the
// log headers, EvalLog without samples, keyed by file name relative to the
// directory, "/"-separated), and returns the one log of each task, in the
// order of eval-set.json's tasks. Source: inspect_ai
// src/inspect_ai/_eval/evalset.py (EvalSet, EvalSetTask,
// write_eval_set_info, latest_completed_task_eval_logs) and
// src/inspect_ai/log/_file.py (write_log_dir_manifest,
// manifest_eval_log_name), at commit 499e6152e7b8.
//
// An eval set retries failed tasks, and without retry_cleanup it keeps the
// failed attempts' logs: a task's log is its one log whose status is
// "success". A task with none (the eval set is not complete), or with more
// than one (Inspect itself would pick the newest by modification time,
// which a checkout does not keep), is refused, and so is a set of two tasks
// of one name (one task run on several models or arguments: their ids
// would be one), a name that leaves the directory, and a listed log that is
// missing.
func InspectEvalSet(dir string) ([]EvalSetLog, error) {
	set, err := evalSetManifest(dir, EvalSetManifest)
	if err != nil {
		return nil, err
	}
	logs, err := evalSetManifest(dir, LogsManifest)
	if err != nil {
		return nil, err
	}
	tasks := set.at("tasks")
	k, err := tasks.array()
	if err != nil {
		return nil, err
	}
	if k == 0 {
		return nil, tasks.errf("no tasks")
	}
	byID, err := evalSetLogs(logs)
	if err != nil {
		return nil, err
	}
	var out []EvalSetLog
	names := map[string]string{} // task name -> task_id
	for i := 0; i < k; i++ {
		t := tasks.index(i)
		if err := t.object(); err != nil {
			return nil, err
		}
		id, err := t.at("task_id").str()
		if err != nil {
			return nil, err
		}
		e, err := evalSetSuccess(t, id, byID[id])
		if err != nil {
			return nil, err
		}
		if prev, dup := names[e.task]; dup {
			return nil, t.errf("tasks %s and %s are both task %q (one task on several models or arguments): their sample ids would be one; gate them as separate runs", prev, id, e.task)
		}
		names[e.task] = id
		clean := path.Clean(e.name)
		if e.name == "" || path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(e.name, "\\") {
			return nil, logs.errf("log name %q is not a file inside the eval-set directory", e.name)
		}
		p := filepath.Join(dir, filepath.FromSlash(clean))
		if _, err := os.Stat(p); err != nil {
			return nil, logs.errf("the log %s of task %s: %v", e.name, id, err)
		}
		out = append(out, EvalSetLog{Path: p, Task: e.task})
	}
	return out, nil
}

// evalSetManifest reads one manifest of an eval-set directory (a JSON
// object).
func evalSetManifest(dir, name string) (node, error) {
	p := filepath.Join(dir, name)
	f, err := os.Open(p)
	if err != nil {
		return node{}, &record.InputError{File: p, Msg: fmt.Sprintf("read: %v; expected an Inspect eval-set directory (%s and %s beside one log per task)", err, EvalSetManifest, LogsManifest)}
	}
	defer f.Close()
	v, err := decodeAll(p, f, maxFile)
	if err != nil {
		return node{}, err
	}
	n := node{v: v, file: p, path: "$"}
	return n, n.object()
}

// evalSetEntry is one log of logs.json: its name, task and status.
type evalSetEntry struct{ name, task, status string }

// evalSetLogs reads logs.json: the logs of each task_id, with their
// status.
func evalSetLogs(logs node) (map[string][]evalSetEntry, error) {
	byID := map[string][]evalSetEntry{}
	for _, name := range logs.v.keys {
		h := logs.at(name)
		if err := h.object(); err != nil {
			return nil, err
		}
		status, err := h.at("status").str()
		if err != nil {
			return nil, err
		}
		ev := h.at("eval")
		if err := ev.object(); err != nil {
			return nil, err
		}
		id, err := ev.at("task_id").str()
		if err != nil {
			return nil, err
		}
		task, err := ev.at("task").str()
		if err != nil {
			return nil, err
		}
		byID[id] = append(byID[id], evalSetEntry{name, task, status})
	}
	return byID, nil
}

// evalSetSuccess is the one successful log of task id (t in
// eval-set.json): none, or two, is refused.
func evalSetSuccess(t node, id string, logs []evalSetEntry) (evalSetEntry, error) {
	var ok []evalSetEntry
	var other []string
	for _, e := range logs {
		if e.status == "success" {
			ok = append(ok, e)
		} else {
			other = append(other, fmt.Sprintf("%s (%s)", e.name, e.status))
		}
	}
	switch len(ok) {
	case 1:
		return ok[0], nil
	case 0:
		seen := "no log"
		if len(other) > 0 {
			sort.Strings(other)
			seen = "only " + strings.Join(other, ", ")
		}
		return evalSetEntry{}, t.at("task_id").errf("task %s has no successful log in %s (%s): the eval set is not complete; re-run the eval set until it completes", id, LogsManifest, seen)
	}
	var n []string
	for _, e := range ok {
		n = append(n, e.name)
	}
	sort.Strings(n)
	return evalSetEntry{}, t.at("task_id").errf("task %s has %d successful logs (%s): keep one (inspect eval-set cleans older ones up unless retry_cleanup is off)", id, len(ok), strings.Join(n, ", "))
}
