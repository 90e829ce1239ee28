package formats

import (
	"strconv"
	"strings"
)

// pfScores fills the metrics, error, reasoning and judge of a row; each
// metric whose weights sum to 0 is noted by name in zero.
func pfScores(n, tc node, rec *Record, zero map[string]bool) error {
	if done, err := pfFailed(n, rec); done || err != nil {
		return err
	}
	gr := n.at("gradingResult")
	if err := gr.object(); err != nil {
		return err
	}
	asserts, err := pfAssertions(gr.at("componentResults"), pfTestJudge(tc))
	if err != nil {
		return err
	}
	if err := pfNamedScores(n, gr, asserts, rec, zero); err != nil {
		return err
	}
	rec.Reasoning = strings.Join(asserts.reasoning, "\n")
	if len(asserts.reasoning) > 0 {
		rec.JudgeModel = asserts.judge
	}
	return nil
}

// pfFailed sets rec.Error for a row promptfoo did not grade: failureReason
// 2 (an error), or no gradingResult; done reports that it did.
func pfFailed(n node, rec *Record) (done bool, err error) {
	fr := n.at("failureReason")
	if f, ok, err := fr.optNum(); err != nil {
		return false, err
	} else if ok && f != 0 && f != 1 && f != 2 {
		return false, fr.errf("failureReason %s; expected 0 (none), 1 (assertion) or 2 (error)", fmtFloat(f))
	} else if ok && f == 2 {
		msg, err := n.at("error").optStr()
		if err != nil {
			return false, err
		}
		if msg == "" {
			if resp := n.at("response"); !resp.null() && resp.v.kind == kObject {
				if msg, err = resp.at("error").optStr(); err != nil {
					return false, err
				}
			}
		}
		if strings.TrimSpace(msg) == "" {
			msg = "promptfoo reported an error (failureReason 2) without a message"
		}
		rec.Error = msg
		return true, nil
	}
	if !n.at("gradingResult").null() {
		return false, nil
	}
	rec.Error = "promptfoo did not grade this row (gradingResult is null)"
	if msg, err := n.at("error").optStr(); err != nil {
		return false, err
	} else if strings.TrimSpace(msg) != "" {
		rec.Error += ": " + msg
	}
	return true, nil
}

// pfTestJudge is the grading provider the test's options name, "" if none.
func pfTestJudge(tc node) string {
	if opt := tc.at("options"); !opt.null() && opt.v.kind == kObject {
		if p := opt.at("provider"); p.v != nil && p.v.kind == kString {
			return p.v.s
		}
	}
	return ""
}

// pfAsserts is what a row's assertion results say: the reasons per metric,
// the judge's reasoning and the judge, and the scores of the top-level
// results per metric (promptfoo lists every result there, the members of
// an assert-set flattened after it).
type pfAsserts struct {
	reasons   map[string][]string
	scores    map[string][]float64
	reasoning []string
	judge     string
}

// pfModelGraded are the assertion types whose reason is a judge's
// reasoning.
var pfModelGraded = map[string]bool{"llm-rubric": true, "g-eval": true, "model-graded-closedqa": true, "factuality": true}

// pfAssertions reads gradingResult.componentResults (assert-sets nest them).
func pfAssertions(c node, judge string) (*pfAsserts, error) {
	a := &pfAsserts{reasons: map[string][]string{}, scores: map[string][]float64{}, judge: judge}
	return a, a.walk(c, 0)
}

func (a *pfAsserts) walk(c node, depth int) error {
	if c.null() {
		return nil
	}
	k, err := c.array()
	if err != nil {
		return err
	}
	for i := 0; i < k; i++ {
		e := c.index(i)
		if err := e.object(); err != nil {
			return err
		}
		if err := a.result(e, depth); err != nil {
			return err
		}
		if err := a.walk(e.at("componentResults"), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// result reads one assertion result.
func (a *pfAsserts) result(e node, depth int) error {
	reason, err := e.at("reason").optStr()
	if err != nil {
		return err
	}
	as := e.at("assertion")
	if as.null() {
		return nil
	}
	if err := as.object(); err != nil {
		return err
	}
	metric, err := as.at("metric").optStr()
	if err != nil {
		return err
	}
	if metric != "" && reason != "" {
		a.reasons[metric] = append(a.reasons[metric], reason)
	}
	if metric != "" && depth == 0 {
		if s, ok, err := e.at("score").optNum(); err != nil {
			return err
		} else if ok {
			a.scores[metric] = append(a.scores[metric], s)
		}
	}
	typ, err := as.at("type").optStr()
	if err != nil {
		return err
	}
	if pfModelGraded[typ] {
		if reason != "" {
			a.reasoning = append(a.reasoning, reason)
		}
		if p := as.at("provider"); p.v != nil && p.v.kind == kString {
			a.judge = p.v.s
		}
	}
	return nil
}

// pfNamedScores reads the row's namedScores (else gradingResult's) with
// their weights. promptfoo divides a metric's weighted sum by its weights'
// sum, and writes 0 where that sum is 0 (every assertion feeding it has
// weight 0): that 0 is no score. Such a metric is read as the mean of its
// assertions' scores (what promptfoo writes for a metric-only assertion),
// or, with no assertion result naming it, as Unscored; either way it is
// noted in zero.
func pfNamedScores(n, gr node, a *pfAsserts, rec *Record, zero map[string]bool) error {
	weights := gr.at("namedScoreWeights")
	if !weights.null() {
		if err := weights.object(); err != nil {
			return err
		}
	}
	ns := n.at("namedScores")
	if ns.null() {
		ns = gr.at("namedScores")
	}
	if ns.null() {
		return nil
	}
	if err := ns.object(); err != nil {
		return err
	}
	for _, k := range ns.v.keys {
		if k == "" {
			return ns.errf("a named score with an empty name")
		}
		val, na, err := ns.at(k).score()
		if err != nil {
			return err
		}
		m := Metric{Name: k, Value: val, Unscored: na, Reason: strings.Join(a.reasons[k], "\n")}
		if !weights.null() {
			w, ok, err := weights.at(k).optNum()
			if err != nil {
				return err
			}
			if ok {
				m.Weight = w
			}
			if ok && w == 0 && !na {
				zero[k] = true
				m.Value, m.Unscored = pfMean(a.scores[k])
				if m.Unscored {
					m.Reason = "promptfoo wrote no score for " + strconv.Quote(k) + ": the weights of the assertions feeding it sum to 0"
				}
			}
		}
		rec.Metrics = append(rec.Metrics, m)
	}
	return nil
}

// pfMean is the mean of scores; none is no score (unscored true).
func pfMean(scores []float64) (mean float64, unscored bool) {
	if len(scores) == 0 {
		return 0, true
	}
	sum := 0.0
	for _, s := range scores {
		sum += s
	}
	return sum / float64(len(scores)), false
}
