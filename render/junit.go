package render

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/safe"
)

// JUnitOptions tune the JUnit XML report.
type JUnitOptions struct {
	// Name is the test suite's name (default "rubricgate").
	Name string
	// Now is the suite's timestamp; zero leaves it out.
	Now time.Time
}

// Lengths of untrusted text in the JUnit report, in runes.
const (
	junitName   = 200  // test names and class names
	junitMsgLen = 500  // failure and skip messages
	junitBody   = 4000 // failure bodies (reasons, judge reasoning)
)

// dropTolerance mirrors the gate's: a drop of exactly max-drop counts.
const dropTolerance = 1e-9

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	Hostname   string          `xml:"hostname,attr"`
	Properties []junitProperty `xml:"properties>property"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Skipped   *junitMessage `xml:"skipped"`
	Failure   *junitMessage `xml:"failure"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Body    string `xml:",chardata"`
}

// JUnit writes the gate report as JUnit XML, which CI systems (GitHub
// test-report actions, GitLab's artifacts:reports:junit, Jenkins) show as
// test results: one <testsuites> with one <testsuite> holding
//
//   - "decision" (class rubricgate.gate): failed when the run is blocked,
//     the reasons as the failure's text, so the test results never look
//     green for a blocked run whatever blocked it;
//   - "aggregate drop" (rubricgate.gate): failed when the aggregate score
//     dropped by max-drop or more and no accept label waived it; skipped
//     when there was nothing to compare;
//   - one test case per criterion (rubricgate.criterion): failed when its
//     gate failed or its normalised mean dropped by max-drop or more
//     relative to the baseline's (a criterion's drop is reported, the gate
//     itself blocks on the aggregate); skipped when it was not scored or
//     is gone from the rubric;
//   - one per blocking item failure (rubricgate.blocking.<criterion>,
//     named by the item id), always failed, the judge's reasoning as text.
//
// The shape follows the JUnit schema CI tools share (Jenkins' junit-10.xsd,
// which GitLab and the GitHub actions read, with the attributes Ant's
// stricter schema requires: time on every element, classname on every case,
// hostname on the suite). Times are 0: the gate measures no durations.
// Untrusted text (criterion and item ids, names, reasons, reasoning) is made
// one safe line (multi-line bodies keep their line breaks), cut to a bounded
// length, and XML-escaped; characters XML cannot carry become U+FFFD.
func JUnit(w io.Writer, g *gate.GateReport, o JUnitOptions) error {
	name := o.Name
	if name == "" {
		name = "rubricgate"
	}
	s := junitSuite{Name: clean(name, junitName), Time: "0", Hostname: "localhost"}
	if !o.Now.IsZero() {
		s.Timestamp = o.Now.UTC().Format("2006-01-02T15:04:05")
	}
	s.Properties = junitProperties(g)
	s.Cases = append(s.Cases, decisionCase(g), dropCase(g))
	s.Cases = append(s.Cases, criterionCases(g)...)
	if g.Report != nil {
		for _, f := range g.BlockingFailures {
			s.Cases = append(s.Cases, junitCase{
				Name:      clean(f.Item, junitName),
				Classname: "rubricgate.blocking." + clean(f.Criterion, junitName),
				Time:      "0",
				Failure: &junitMessage{
					Message: clean(junitFailure(f), junitMsgLen),
					Type:    "blocking-failure",
					Body:    cleanBody(f.Reasoning),
				},
			})
		}
	}
	for _, c := range s.Cases {
		switch {
		case c.Failure != nil:
			s.Failures++
		case c.Skipped != nil:
			s.Skipped++
		}
	}
	s.Tests = len(s.Cases)
	doc := junitSuites{Name: "rubricgate", Tests: s.Tests, Failures: s.Failures, Time: "0", Suites: []junitSuite{s}}
	ew := &errWriter{w: w}
	io.WriteString(ew, xml.Header)
	enc := xml.NewEncoder(ew)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode JUnit XML: %w", err)
	}
	io.WriteString(ew, "\n")
	return ew.err
}

func junitProperties(g *gate.GateReport) []junitProperty {
	ps := []junitProperty{{"decision", string(g.Decision)}}
	if g.Accepted {
		ps = append(ps, junitProperty{"accepted", "true"})
	}
	if g.Report != nil {
		ps = append(ps, junitProperty{"rubric", clean(g.Rubric.Name, junitName)}, junitProperty{"rubric_hash", clean(g.Rubric.Hash, 80)})
		if g.Score != nil {
			ps = append(ps, junitProperty{"score", strconv.FormatFloat(*g.Score, 'f', 2, 64)})
		}
	}
	if g.Baseline != nil {
		ps = append(ps, junitProperty{"baseline_score", strconv.FormatFloat(g.Baseline.Score, 'f', 2, 64)})
	}
	if g.RelativeChange != nil {
		ps = append(ps, junitProperty{"relative_change", strconv.FormatFloat(*g.RelativeChange, 'f', 6, 64)})
	}
	ps = append(ps, junitProperty{"max_drop", strconv.FormatFloat(g.MaxDrop, 'f', -1, 64)})
	if g.Context != nil && isHTTPURL(g.Context.RunURL) {
		ps = append(ps, junitProperty{"run_url", g.Context.RunURL})
	}
	return ps
}

func decisionCase(g *gate.GateReport) junitCase {
	c := junitCase{Name: "decision", Classname: "rubricgate.gate", Time: "0"}
	if g.Decision != gate.Pass {
		first := "the run is blocked"
		if len(g.Reasons) > 0 {
			first = g.Reasons[0]
		}
		c.Failure = &junitMessage{Message: clean(first, junitMsgLen), Type: "blocked", Body: cleanBody(strings.Join(g.Reasons, "\n"))}
		return c
	}
	c.SystemOut = cleanBody(strings.Join(g.Reasons, "\n"))
	return c
}

func dropCase(g *gate.GateReport) junitCase {
	c := junitCase{Name: "aggregate drop", Classname: "rubricgate.gate", Time: "0"}
	if g.RelativeChange == nil || g.Baseline == nil || !g.Comparable {
		why := "no baseline to compare with"
		if g.Baseline != nil {
			why = "the scores are not comparable with the baseline's"
		}
		c.Skipped = &junitMessage{Message: why}
		return c
	}
	// The figures and the verdict of the decision's relative check (the
	// items in common, unscored ones at 0, re-scored after a rubric
	// change), not the full sets' (see headlineFigures).
	hf := headlineFigures(g)
	rel := *hf.change
	msg := fmt.Sprintf("aggregate score %s%s vs the baseline (%s → %s), max-drop %s", gate.FormatChange(rel, g.MaxDrop), hf.on(), numPtr(hf.base), numPtr(hf.cur), pctPlain(g.MaxDrop))
	if n := hf.fullNote(g.MaxDrop); n != "" {
		msg += "; " + n
	}
	if dc := g.DropCheck; dc != nil && dc.Baseline > 0 {
		switch {
		case !dc.Blocks:
			if dc.Case == gate.DropNoise {
				msg += ": within noise, so it passes"
			}
			c.SystemOut = msg
		case g.Accepted:
			c.SystemOut = msg + ": accepted by the accept label"
		default:
			c.Failure = &junitMessage{Message: msg, Type: "aggregate-drop"}
		}
		return c
	}
	if -rel < g.MaxDrop-dropTolerance {
		c.SystemOut = msg
		return c
	}
	if g.Accepted {
		c.SystemOut = msg + ": accepted by the accept label"
		return c
	}
	c.Failure = &junitMessage{Message: msg, Type: "aggregate-drop"}
	return c
}

func criterionCases(g *gate.GateReport) []junitCase {
	var out []junitCase
	for _, ch := range g.Changes {
		c := junitCase{Name: clean(ch.ID, junitName), Classname: "rubricgate.criterion", Time: "0"}
		label := ch.ID
		if ch.Name != "" && ch.Name != ch.ID {
			label += " (" + ch.Name + ")"
		}
		switch {
		case ch.Status == "fail":
			c.Failure = &junitMessage{
				Message: clean(fmt.Sprintf("criterion %s: %d item(s) below the minimum of a blocking gate", label, ch.BelowMin), junitMsgLen),
				Type:    "gate-failed",
			}
		case ch.Status == "gone":
			c.Skipped = &junitMessage{Message: clean("criterion "+label+" is no longer in the rubric", junitMsgLen)}
		case ch.Current == nil:
			c.Skipped = &junitMessage{Message: clean("criterion "+label+" was not scored", junitMsgLen)}
		case ch.Baseline != nil && *ch.Baseline > 0 && (*ch.Baseline-*ch.Current) / *ch.Baseline >= g.MaxDrop-dropTolerance:
			rel := (*ch.Current - *ch.Baseline) / *ch.Baseline
			c.Failure = &junitMessage{
				Message: clean(fmt.Sprintf("criterion %s: %s vs the baseline (%s → %s), max-drop %s", label, signedPct(rel), num1(*ch.Baseline), num1(*ch.Current), pctPlain(g.MaxDrop)), junitMsgLen),
				Type:    "criterion-drop",
			}
		default:
			s := "criterion " + label + ": " + num1(*ch.Current)
			if ch.Change != nil {
				s += " (" + signed1(*ch.Change) + " points)"
			}
			c.SystemOut = clean(s, junitMsgLen)
		}
		out = append(out, c)
	}
	return out
}

// cleanBody makes untrusted multi-line text safe for a failure body: every
// line a safe log line, at most junitBody runes in all.
func cleanBody(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = safe.LogLine(strings.TrimRight(l, " \t\r"))
	}
	return truncate(strings.TrimSpace(strings.Join(lines, "\n")), junitBody)
}

// junitFailure is the message of a blocking failure's test case.
func junitFailure(f gate.BlockingFailure) string {
	if f.Unscored {
		return fmt.Sprintf("item %s has no score on blocking criterion %s (a judge error): it fails closed", f.Item, f.Criterion)
	}
	return fmt.Sprintf("item %s scored %s on blocking criterion %s, below its minimum", f.Item, scoreText(f.Score), f.Criterion)
}
