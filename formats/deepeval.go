package formats

import (
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/record"
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
// order: {name, score 0-1, reason}; a null, absent or NaN score is Unscored
// (deepeval's failure to score: null with an error, NaN when the metric
// could not be computed, marked success false). A
// metric with an error (the judge failed) makes the whole test case
// unscored: Error lists each failing metric and its error, and the metric
// is Unscored with the error as its Reason.
//
// Direction: deepeval passes most metrics when score >= threshold
// (BaseMetric.is_successful) but Bias, Hallucination, Misuse and Toxicity
// when score <= threshold (their own is_successful in deepeval/metrics/*/
// at a2e0d4cfd311): those are better lower, and read reversed (see
// deepevalDirections). For any other name, the file's own success flags
// tell when they can: a metric that passed below its threshold, or failed
// above it, is better lower; one that passed above it, or failed below it,
// is better higher; a file whose flags say both is refused. A metric
// neither list nor the file settles is DirectionAssumed (higher is
// better), and Records warns when the rubric maps it without a source
// scale saying which way it goes. Reasoning is the metrics' reasons,
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
		return hasKey(k, "testCases", "conversationalTestCases", "testRunData", deepevalLinkKey) && !hasKey(k, "eval", "evalId")
	},
	Read:     readDeepeval,
	Directed: true,
}

// deepevalLinkKey is the one key of the .latest_test_run.json deepeval
// writes when it sent the run to Confident AI (TestRunManager.
// save_final_test_run_link, LATEST_TEST_RUN_LINK_KEY): a link, no test
// cases.
const deepevalLinkKey = "testRunLink"

func readDeepeval(name string, r io.Reader, fn func(*Record) error) error {
	v, err := decodeAll(name, limitedReader(r, maxFile), 0)
	if err != nil {
		return err
	}
	root := node{v: v, file: name, path: "$"}
	if err := root.object(); err != nil {
		return err
	}
	if link := root.at(deepevalLinkKey); !link.missing() && root.at("testRunData").missing() && root.at("testCases").missing() && root.at("conversationalTestCases").missing() {
		return link.errf("a deepeval %s with no test cases: it holds only the link to the run on Confident AI, where deepeval sent the results instead of keeping them here; set DEEPEVAL_RESULTS_FOLDER to have deepeval also save the run as a file (test_run_<timestamp>.json) and read that", ".latest_test_run.json")
	}
	if w := root.at("testRunData"); !w.missing() && len(v.keys) == 1 {
		root = w
		if err := root.object(); err != nil {
			return err
		}
	}
	dirs, err := deepevalEvidence(root)
	if err != nil {
		return err
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
			rec, err := deepevalCase(tc, dirs)
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

func deepevalCase(tc node, dirs map[string]record.Direction) (*Record, error) {
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
	rec := &Record{ID: id, Loc: Location{File: tc.file, Line: tc.lineNo(), Path: tc.path}, Meta: map[string]string{}, InputHash: deepevalTask(tc)}
	if s, err := tc.at("success").optBool(); err != nil {
		return nil, err
	} else if s != "" {
		rec.Meta["success"] = s
	}
	var groups []metricGroup
	if md := tc.at("metricsData"); !md.missing() && !md.null() {
		groups = append(groups, metricGroup{md, ""})
	}
	spans, err := deepevalSpans(tc.at("trace"))
	if err != nil {
		return nil, err
	}
	groups = append(groups, spans...)
	mr := &deepevalMetrics{rec: rec, dirs: dirs, models: map[string]bool{}, names: map[string]bool{}}
	for _, g := range groups {
		n, err := g.md.array()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			if err := mr.metric(g.md.index(i), g.prefix); err != nil {
				return nil, err
			}
		}
	}
	if len(rec.Metrics) == 0 {
		rec.Error = "deepeval recorded no metrics for this test case"
		return rec, nil
	}
	rec.Error = strings.Join(mr.errs, "\n")
	rec.Reasoning = strings.Join(mr.reasoning, "\n")
	var ms []string
	for m := range mr.models {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	rec.JudgeModel = strings.Join(ms, ", ")
	return rec, nil
}

// deepevalMetrics reads the MetricData of one test case into its record,
// keeping the metrics' errors, reasons and judge models.
type deepevalMetrics struct {
	rec             *Record
	dirs            map[string]record.Direction
	errs, reasoning []string
	models, names   map[string]bool
}

// metric reads one MetricData, its name prefixed ("" for the test case's
// own, "trace/" or "<span>/").
func (mr *deepevalMetrics) metric(m node, prefix string) error {
	if err := m.object(); err != nil {
		return err
	}
	base, err := m.at("name").str()
	if err != nil {
		return err
	}
	if base == "" {
		return m.at("name").errf("empty metric name")
	}
	name := prefix + base
	if mr.names[name] {
		return m.at("name").errf("metric %q appears twice in this test case", name)
	}
	mr.names[name] = true
	reason, err := m.at("reason").optStr()
	if err != nil {
		return err
	}
	merr, err := m.at("error").optStr()
	if err != nil {
		return err
	}
	model, err := m.at("evaluationModel").optStr()
	if err != nil {
		return err
	}
	if model != "" {
		mr.models[model] = true
	}
	if t, ok, err := m.at("threshold").optNum(); err != nil {
		return err
	} else if ok {
		mr.rec.Meta["threshold:"+name] = fmtFloat(t)
	}
	dir, ok := mr.dirs[base]
	if !ok {
		dir = deepevalDirections(base)
	}
	met := Metric{Name: name, Reason: reason, Direction: dir}
	if strings.TrimSpace(merr) != "" {
		mr.errs = append(mr.errs, name+": "+merr)
		met.Unscored, met.Reason = true, merr
	} else {
		sc := m.at("score")
		if sc.missing() {
			met.Unscored = true
		} else if met.Value, met.Unscored, err = sc.score(); err != nil {
			return err
		}
		if reason != "" {
			mr.reasoning = append(mr.reasoning, name+": "+reason)
		}
	}
	mr.rec.Metrics = append(mr.rec.Metrics, met)
	return nil
}

// deepevalLowerIsBetter are deepeval's metrics that pass when score <=
// threshold (deepeval/metrics/{bias,hallucination,misuse,toxicity} at
// a2e0d4cfd311), by the name MetricData carries (the metric's __name__).
var deepevalLowerIsBetter = map[string]bool{"Bias": true, "Hallucination": true, "Misuse": true, "Toxicity": true}

// deepevalHigherIsBetter are deepeval's other built-in metrics, which keep
// BaseMetric's score >= threshold; GEval, DAG and the ragas wrappers are
// recognised by the suffix deepeval gives their names.
var deepevalHigherIsBetter = map[string]bool{
	"Agent Loop Detection": true, "Agent Responsiveness": true, "Answer Relevancy": true, "Argument Correctness": true,
	"Audio Integrity": true, "Citation Faithfulness": true, "Contextual Precision": true, "Contextual Recall": true,
	"Contextual Relevancy": true, "Conversation Completeness": true, "Exact Match": true, "Faithfulness": true,
	"Goal Accuracy": true, "Image Coherence": true, "Image Editing": true, "Image Helpfulness": true,
	"Image Reference": true, "Json Correctness": true, "Knowledge Retention": true, "MCP Task Completion": true,
	"MCP Use": true, "Multi-Turn MCP Use": true, "Non-Advice": true, "PII Leakage": true, "Pattern Match": true,
	"Plan Adherence": true, "Plan Quality": true, "Prompt Alignment": true, "RAGAS": true, "Role Adherence": true,
	"Role Violation": true, "Speech Intelligibility": true, "Step Efficiency": true, "Summarization": true,
	"Task Completion": true, "Text to Image": true, "Tool Correctness": true, "Tool Permission": true,
	"Tool Use": true, "Topic Adherence": true, "Turn Contextual Precision": true, "Turn Contextual Recall": true,
	"Turn Contextual Relevancy": true, "Turn Faithfulness": true, "Turn Relevancy": true,
	"Turn-Taking Naturalness": true, "Voice Consistency": true, "Voice Naturalness": true, "Voice Reliability": true,
}

// deepevalHigherSuffixes mark GEval, DAG and ragas-wrapped metrics.
var deepevalHigherSuffixes = []string{" [GEval]", " [Conversational GEval]", " [Arena GEval]", " [DAG]", " (ragas)"}

// deepevalDirections is the direction deepeval defines for a metric name,
// DirectionAssumed for a name it does not know (a custom metric).
func deepevalDirections(name string) record.Direction {
	switch {
	case deepevalLowerIsBetter[name]:
		return record.LowerIsBetter
	case deepevalHigherIsBetter[name]:
		return record.HigherIsBetter
	}
	for _, s := range deepevalHigherSuffixes {
		if strings.HasSuffix(name, s) {
			return record.HigherIsBetter
		}
	}
	return record.DirectionAssumed
}

// deepevalEvidence finds the direction the file's success flags show for
// each metric name that has any (score, threshold and success of the
// metrics without an error); deepevalCase falls back on deepevalDirections. Flags that show both directions for one
// name refuse the file; flags that contradict deepeval's own direction for
// a built-in name win (a custom metric may reuse the name), as the file
// says how its metric was judged.
func deepevalEvidence(root node) (map[string]record.Direction, error) {
	type ev struct {
		dir record.Direction
		at  node
	}
	found := map[string]*ev{}
	for _, key := range []string{"testCases", "conversationalTestCases"} {
		list := root.at(key)
		if list.missing() || list.null() {
			continue
		}
		n, err := list.array()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			tc := list.index(i)
			if tc.v.kind != kObject {
				continue // deepevalCase reports it
			}
			groups := []metricGroup{{tc.at("metricsData"), ""}}
			if spans, err := deepevalSpans(tc.at("trace")); err == nil {
				groups = append(groups, spans...)
			}
			for _, g := range groups {
				md := g.md
				if md.missing() || md.null() || md.v.kind != kArray {
					continue
				}
				k, _ := md.array()
				for j := 0; j < k; j++ {
					m := md.index(j)
					if m.v.kind != kObject {
						continue
					}
					name, err := m.at("name").str()
					if err != nil {
						continue // deepevalCase reports it
					}
					if e, _ := m.at("error").optStr(); strings.TrimSpace(e) != "" {
						continue
					}
					score, ok1, err1 := m.at("score").optNum()
					thr, ok2, err2 := m.at("threshold").optNum()
					succ, err3 := m.at("success").optBool()
					if err1 != nil || err2 != nil || err3 != nil || !ok1 || !ok2 || succ == "" || score == thr {
						continue
					}
					d := record.HigherIsBetter
					// Passed below the threshold, or failed above it: better
					// lower (score <= threshold passes).
					if (succ == "true") == (score < thr) {
						d = record.LowerIsBetter
					}
					e := found[name]
					if e == nil {
						found[name] = &ev{dir: d, at: m}
						continue
					}
					if e.dir != d {
						return nil, m.errf("deepeval metric %q passed above its threshold in one place and below it in another (%s): its direction cannot be told; keep one metric definition per name", name, e.at.path)
					}
				}
			}
		}
	}
	out := map[string]record.Direction{}
	for name, e := range found {
		out[name] = e.dir
	}
	return out, nil
}

// metricGroup is one metricsData list of a test case: its own (prefix "")
// or a trace's or span's ("<span>/").
type metricGroup struct {
	md     node
	prefix string
}

// deepevalSpanLists are TraceApi's span lists (tracing/api.py), in order.
var deepevalSpanLists = []string{"baseSpans", "agentSpans", "llmSpans", "retrieverSpans", "toolSpans"}

// deepevalSpans returns the metric lists of a test case's trace: the
// trace's own metricsData as "trace/<metric>", and each span's as
// "<span name>/<metric>" (a span without a name takes its type). Span
// uuids change from run to run, so names make the metrics' identity; a
// name that several spans of one trace carry is numbered from its second
// occurrence, in the trace's order ("generate#2/Faithfulness").
func deepevalSpans(tr node) ([]metricGroup, error) {
	if tr.missing() || tr.null() {
		return nil, nil
	}
	if err := tr.object(); err != nil {
		return nil, err
	}
	var out []metricGroup
	if md := tr.at("metricsData"); !md.missing() && !md.null() {
		out = append(out, metricGroup{md, "trace/"})
	}
	count := map[string]int{}
	for _, key := range deepevalSpanLists {
		list := tr.at(key)
		if list.missing() || list.null() {
			continue
		}
		n, err := list.array()
		if err != nil {
			return nil, err
		}
		for i := 0; i < n; i++ {
			sp := list.index(i)
			if err := sp.object(); err != nil {
				return nil, err
			}
			name, err := sp.at("name").optStr()
			if err != nil {
				return nil, err
			}
			if strings.TrimSpace(name) == "" {
				if name, err = sp.at("type").optStr(); err != nil {
					return nil, err
				}
			}
			if strings.TrimSpace(name) == "" {
				name = strings.TrimSuffix(key, "Spans")
			}
			md := sp.at("metricsData")
			if md.missing() || md.null() {
				continue
			}
			count[name]++
			label := name
			if k := count[name]; k > 1 {
				label += "#" + strconv.Itoa(k)
			}
			out = append(out, metricGroup{md, label + "/"})
		}
	}
	return out, nil
}
