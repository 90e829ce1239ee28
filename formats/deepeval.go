package formats

import (
	"io"
	"sort"
	"strings"
)

// deepeval's test runs: .deepeval/.latest_run_full.json and the
// test_run_<timestamp>.json files of a results folder (a TestRun dumped by
// alias), and .deepeval/.latest_test_run.json (the same under the key
// "testRunData"). Source: deepeval deepeval/test_run/test_run.py (TestRun),
// test_run/api.py (LLMApiTestCase, ConversationalApiTestCase),
// tracing/api.py (MetricData), evaluate/local_store.py, at commit
// a2e0d4cfd311.
//
// One record per entry of testCases and conversationalTestCases; the id is
// the test case's name (deepeval names unnamed cases test_case_<order>, so
// name your cases if their order can change). Metrics are metricsData in
// order: {name, score 0-1, reason}; a null, absent or NaN score is NA. A
// metric with an error (the judge failed) makes the whole test case
// unscored: Error lists each failing metric and its error, and the metric
// is NA with the error as its Reason. Reasoning is the metrics' reasons,
// labelled by metric; JudgeModel is the metrics' evaluationModel (distinct
// ones joined by ", "). Meta: success, and threshold:<metric> for each
// metric with a threshold.
var deepevalJSON = &Format{
	Name: "deepeval",
	Detect: func(name string, head []byte) bool {
		if ext(name) != ".json" {
			return false
		}
		k := topKeys(head)
		return hasKey(k, "testCases", "conversationalTestCases", "testRunData") && !hasKey(k, "eval", "evalId")
	},
	Read: readDeepeval,
}

func readDeepeval(name string, r io.Reader, fn func(*Record) error) error {
	v, err := decodeAll(name, limitedReader(r, maxFile), 0)
	if err != nil {
		return err
	}
	root := node{v: v, file: name, path: "$"}
	if err := root.object(); err != nil {
		return err
	}
	if w := root.at("testRunData"); !w.missing() && len(v.keys) == 1 {
		root = w
		if err := root.object(); err != nil {
			return err
		}
	}
	seen := newIDs(name)
	found := false
	for _, key := range []string{"testCases", "conversationalTestCases"} {
		list := root.at(key)
		if list.null() {
			continue
		}
		found = true
		n, err := list.array()
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			tc := list.index(i)
			rec, err := deepevalCase(tc)
			if err != nil {
				return err
			}
			if err := seen.add(rec.ID, rec.ID, rec.Loc, "; give each test case a unique name"); err != nil {
				return err
			}
			if err := fn(rec); err != nil {
				return err
			}
		}
	}
	if !found {
		return root.errf("no testCases or conversationalTestCases; expected a deepeval test run")
	}
	return nil
}

func deepevalCase(tc node) (*Record, error) {
	if err := tc.object(); err != nil {
		return nil, err
	}
	id, err := tc.at("name").str()
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(id) == "" {
		return nil, tc.at("name").errf("empty test case name")
	}
	rec := &Record{ID: id, Loc: Location{File: tc.file, Line: tc.lineNo(), Path: tc.path}, Meta: map[string]string{}}
	if s, err := tc.at("success").optBool(); err != nil {
		return nil, err
	} else if s != "" {
		rec.Meta["success"] = s
	}
	md := tc.at("metricsData")
	if md.null() {
		rec.Error = "deepeval recorded no metrics for this test case"
		return rec, nil
	}
	n, err := md.array()
	if err != nil {
		return nil, err
	}
	if n == 0 {
		rec.Error = "deepeval recorded no metrics for this test case"
		return rec, nil
	}
	var errs, reasoning []string
	models := map[string]bool{}
	names := map[string]bool{}
	for i := 0; i < n; i++ {
		m := md.index(i)
		if err := m.object(); err != nil {
			return nil, err
		}
		name, err := m.at("name").str()
		if err != nil {
			return nil, err
		}
		if name == "" {
			return nil, m.at("name").errf("empty metric name")
		}
		if names[name] {
			return nil, m.at("name").errf("metric %q appears twice in this test case", name)
		}
		names[name] = true
		reason, err := m.at("reason").optStr()
		if err != nil {
			return nil, err
		}
		merr, err := m.at("error").optStr()
		if err != nil {
			return nil, err
		}
		model, err := m.at("evaluationModel").optStr()
		if err != nil {
			return nil, err
		}
		if model != "" {
			models[model] = true
		}
		if t, ok, err := m.at("threshold").optNum(); err != nil {
			return nil, err
		} else if ok {
			rec.Meta["threshold:"+name] = fmtFloat(t)
		}
		met := Metric{Name: name, Reason: reason}
		if strings.TrimSpace(merr) != "" {
			errs = append(errs, name+": "+merr)
			met.NA, met.Reason = true, merr
		} else {
			sc := m.at("score")
			if sc.missing() {
				met.NA = true
			} else if met.Value, met.NA, err = sc.score(); err != nil {
				return nil, err
			}
			if reason != "" {
				reasoning = append(reasoning, name+": "+reason)
			}
		}
		rec.Metrics = append(rec.Metrics, met)
	}
	rec.Error = strings.Join(errs, "\n")
	rec.Reasoning = strings.Join(reasoning, "\n")
	var ms []string
	for m := range models {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	rec.JudgeModel = strings.Join(ms, ", ")
	return rec, nil
}
