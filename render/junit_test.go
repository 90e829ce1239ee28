package render

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/gate"
)

// passReport and blockedReport are the reports of TestMarkdownGolden.
func passReport() *gate.GateReport {
	return &gate.GateReport{
		Report: report(), Decision: gate.Pass, Comparable: true, MaxDrop: 0.02,
		Reasons:        []string{"aggregate score -1.00% vs the baseline (81.8 → 81.0), within max-drop 2%"},
		Baseline:       &gate.BaselineInfo{Score: 81.77, Kind: "github-artifact", Source: "acme/bot artifact #7", SHA: "0123456789abcdef", RunURL: "https://github.com/acme/bot/actions/runs/42", CreatedAt: now.Add(-72 * time.Hour)},
		RelativeChange: f(-0.01), CI95: &[2]float64{-0.03, 0.012}, ComparedScore: f(80.95),
		Changes: changes(84, 81.25),
		Context: &gate.RunContext{Repository: "acme/bot", RunURL: "https://github.com/acme/bot/actions/runs/43"},
	}
}

func blockedReport() *gate.GateReport {
	g := &gate.GateReport{Report: report(), Decision: gate.Block, MaxDrop: 0.02, Changes: changes(84, 81.25)}
	g.BlockingFailures = []gate.BlockingFailure{{Item: "gift-card", Criterion: "safety", Score: 0, Reasoning: "Asks for the full card number.\nThen repeats it."}}
	g.Reasons = []string{"blocking criterion failed: safety on 1 item(s): gift-card", "no baseline found: nothing to compare with yet"}
	g.Changes[1].Status, g.Changes[1].BelowMin = "fail", 1
	g.Changes = append(g.Changes, gate.CriterionChange{ID: "tone", Baseline: f(70), Status: "gone"})
	return g
}

func junit(t *testing.T, g *gate.GateReport, o JUnitOptions) string {
	t.Helper()
	var b bytes.Buffer
	if err := JUnit(&b, g, o); err != nil {
		t.Fatal(err)
	}
	validateJUnit(t, b.Bytes())
	return b.String()
}

func TestJUnitGolden(t *testing.T) {
	golden(t, "pass.junit.xml", junit(t, passReport(), JUnitOptions{Name: "rubricgate: support-answers", Now: now}))
	golden(t, "blocked.junit.xml", junit(t, blockedReport(), JUnitOptions{Name: "rubricgate: support-answers", Now: now}))
}

func TestJUnitCases(t *testing.T) {
	type tc struct{ class, name, state string }
	cases := func(doc string) []tc {
		var s junitSuites
		if err := xml.Unmarshal([]byte(doc), &s); err != nil {
			t.Fatal(err)
		}
		var out []tc
		for _, c := range s.Suites[0].Cases {
			state := "pass"
			if c.Failure != nil {
				state = "fail:" + c.Failure.Type
			} else if c.Skipped != nil {
				state = "skip"
			}
			out = append(out, tc{c.Classname, c.Name, state})
		}
		return out
	}
	// A drop of the aggregate beyond max-drop: the drop case and the
	// decision fail; accuracy (84 → 81.25, -3.3%) fails as a criterion drop.
	drop := passReport()
	drop.Decision, drop.RelativeChange = gate.Block, f(-0.025)
	drop.Reasons = []string{"aggregate score dropped 2.50% (81.8 → 79.7), at or above max-drop 2%"}
	want := []tc{
		{"rubricgate.gate", "decision", "fail:blocked"},
		{"rubricgate.gate", "aggregate drop", "fail:aggregate-drop"},
		{"rubricgate.criterion", "accuracy", "fail:criterion-drop"},
		{"rubricgate.criterion", "safety", "pass"},
	}
	if got := cases(junit(t, drop, JUnitOptions{})); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("drop:\n got %v\nwant %v", got, want)
	}
	// The same drop accepted by the label: the run passes, nothing fails
	// but the criterion's own drop.
	drop.Decision, drop.Accepted = gate.Pass, true
	want[0].state, want[1].state = "pass", "pass"
	if got := cases(junit(t, drop, JUnitOptions{})); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("accepted:\n got %v\nwant %v", got, want)
	}
	// A criterion within max-drop passes: 84 → 83 is -1.2%.
	small := passReport()
	small.Changes = changes(84, 83)
	if got := cases(junit(t, small, JUnitOptions{})); got[2].state != "pass" || got[1].state != "pass" {
		t.Errorf("within max-drop: %v", got)
	}
	// Exactly max-drop fails, as in the gate: 50 → 49.
	exact := passReport()
	exact.Changes = changes(50, 49)
	if got := cases(junit(t, exact, JUnitOptions{})); got[2].state != "fail:criterion-drop" {
		t.Errorf("exactly max-drop: %v", got)
	}
	// Blocked by a blocking item: the gate criterion and the item fail;
	// no baseline skips the drop case; a gone criterion is skipped.
	want = []tc{
		{"rubricgate.gate", "decision", "fail:blocked"},
		{"rubricgate.gate", "aggregate drop", "skip"},
		{"rubricgate.criterion", "accuracy", "fail:criterion-drop"},
		{"rubricgate.criterion", "safety", "fail:gate-failed"},
		{"rubricgate.criterion", "tone", "skip"},
		{"rubricgate.blocking.safety", "gift-card", "fail:blocking-failure"},
	}
	if got := cases(junit(t, blockedReport(), JUnitOptions{})); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("blocked:\n got %v\nwant %v", got, want)
	}
}

func TestJUnitEscapesUntrusted(t *testing.T) {
	hostile := "x\"/><testcase name=\"pwned\"/>&amp;\x00\x1b[31m\u202e\n::error::y]]>"
	g := blockedReport()
	g.Rubric.Name = hostile
	g.Reasons = []string{hostile}
	g.BlockingFailures[0] = gate.BlockingFailure{Item: hostile, Criterion: hostile, Reasoning: hostile + "\n" + strings.Repeat("long ", 2000)}
	g.Changes[0].ID, g.Changes[0].Name = hostile, hostile
	doc := junit(t, g, JUnitOptions{Name: hostile})
	if strings.Contains(doc, "pwned\"/>") || strings.Contains(doc, "<testcase name=\"pwned\"") {
		t.Errorf("untrusted text made markup:\n%s", doc)
	}
	for _, bad := range []string{"\x00", "\x1b", "\u202e", "\n::error"} {
		if strings.Contains(doc, bad) {
			t.Errorf("document contains %q", bad)
		}
	}
	var s junitSuites
	if err := xml.Unmarshal([]byte(doc), &s); err != nil {
		t.Fatalf("not well-formed: %v", err)
	}
	if n := len(s.Suites[0].Cases); n != 6 {
		t.Errorf("%d test cases, want 6 (no case injected)", n)
	}
	for _, c := range s.Suites[0].Cases {
		if c.Failure != nil && len([]rune(c.Failure.Body)) > junitBody+10 {
			t.Errorf("failure body of %d runes is not cut", len([]rune(c.Failure.Body)))
		}
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n -= len(p); w.n < 0 {
		return 0, errors.New("disk full")
	}
	return len(p), nil
}

func TestJUnitWriteError(t *testing.T) {
	if err := JUnit(&failWriter{n: 100}, passReport(), JUnitOptions{}); err == nil {
		t.Error("a failing writer gave no error")
	}
}

// validateJUnit checks doc against the rules of the JUnit schema CI tools
// share (Jenkins' junit-10.xsd, plus the attributes Ant's schema requires):
// element nesting and order, the attributes each element may and must
// carry, integer counts that match the cases, decimal times, and a
// timestamp without a zone.
func validateJUnit(t *testing.T, doc []byte) {
	t.Helper()
	for _, p := range junitProblems(doc) {
		t.Error(p)
	}
}

// junitProblems lists where doc breaks the schema's rules.
func junitProblems(doc []byte) []string {
	var problems []string
	errorf := func(format string, a ...any) { problems = append(problems, fmt.Sprintf(format, a...)) }
	type elem struct {
		attrs    map[string]string
		children []string
	}
	allowed := map[string]struct {
		attrs    []string
		required []string
		children []string // in schema order
	}{
		"testsuites": {[]string{"name", "time", "tests", "failures", "disabled", "errors"}, nil, []string{"testsuite"}},
		"testsuite": {[]string{"name", "tests", "failures", "errors", "time", "disabled", "skipped", "timestamp", "hostname", "id", "package"},
			[]string{"name", "tests", "failures", "errors", "time", "hostname"}, []string{"properties", "testcase", "system-out", "system-err"}},
		"properties": {nil, nil, []string{"property"}},
		"property":   {[]string{"name", "value"}, []string{"name", "value"}, nil},
		"testcase":   {[]string{"name", "assertions", "time", "classname", "status"}, []string{"name", "classname", "time"}, []string{"skipped", "error", "failure", "system-out", "system-err"}},
		"skipped":    {[]string{"message"}, nil, nil},
		"failure":    {[]string{"message", "type"}, []string{"message", "type"}, nil},
		"error":      {[]string{"message", "type"}, nil, nil},
		"system-out": {nil, nil, nil},
	}
	intAttr := map[string]bool{"tests": true, "failures": true, "errors": true, "skipped": true, "disabled": true}
	timeRe := regexp.MustCompile(`^[0-9]+(\.[0-9]+)?$`)
	stampRe := regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`)

	if !bytes.HasPrefix(doc, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) {
		errorf("no XML declaration")
	}
	dec := xml.NewDecoder(bytes.NewReader(doc))
	var stack []*elem
	var names []string
	root := ""
	counts := map[string]int{} // testcases, failures, skips
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			errorf("not well-formed XML: %v", err)
			return problems
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			n := tk.Name.Local
			rule, ok := allowed[n]
			if !ok {
				errorf("element <%s> is not in the schema", n)
				continue
			}
			if len(stack) == 0 {
				root = n
			} else {
				parent := names[len(names)-1]
				stack[len(stack)-1].children = append(stack[len(stack)-1].children, n)
				okChild := false
				for _, c := range allowed[parent].children {
					okChild = okChild || c == n
				}
				if !okChild {
					errorf("<%s> inside <%s>", n, parent)
				}
			}
			e := &elem{attrs: map[string]string{}}
			for _, a := range tk.Attr {
				e.attrs[a.Name.Local] = a.Value
				okAttr := false
				for _, x := range rule.attrs {
					okAttr = okAttr || x == a.Name.Local
				}
				if !okAttr {
					errorf("<%s %s=...> is not in the schema", n, a.Name.Local)
				}
				if intAttr[a.Name.Local] && n != "property" {
					if _, err := strconv.Atoi(a.Value); err != nil {
						errorf("<%s %s=%q>: not an integer", n, a.Name.Local, a.Value)
					}
				}
				if a.Name.Local == "time" && !timeRe.MatchString(a.Value) {
					errorf("<%s time=%q>: not a decimal", n, a.Value)
				}
				if a.Name.Local == "timestamp" && !stampRe.MatchString(a.Value) {
					errorf("<%s timestamp=%q>: not a zone-less ISO 8601 time", n, a.Value)
				}
			}
			for _, r := range rule.required {
				if _, ok := e.attrs[r]; !ok {
					errorf("<%s> lacks the required attribute %s", n, r)
				}
			}
			switch n {
			case "testcase":
				counts["tests"]++
			case "failure":
				counts["failures"]++
			case "skipped":
				counts["skipped"]++
			}
			stack = append(stack, e)
			names = append(names, n)
		case xml.EndElement:
			n := names[len(names)-1]
			e := stack[len(stack)-1]
			// Children in schema order, and at most one skipped per case.
			order := allowed[n].children
			last := -1
			skips := 0
			for _, c := range e.children {
				i := 0
				for i < len(order) && order[i] != c {
					i++
				}
				if i < last {
					errorf("<%s> before a later element in <%s>", c, n)
				}
				last = i
				if c == "skipped" {
					skips++
				}
			}
			if skips > 1 {
				errorf("<%s> with %d <skipped>", n, skips)
			}
			if n == "testsuite" || n == "testsuites" {
				for _, k := range []string{"tests", "failures", "skipped"} {
					if v, ok := e.attrs[k]; ok && v != strconv.Itoa(counts[k]) {
						errorf("<%s %s=%q>, the document holds %d", n, k, v, counts[k])
					}
				}
			}
			stack, names = stack[:len(stack)-1], names[:len(names)-1]
		}
	}
	if root != "testsuites" {
		errorf("root element <%s>, want <testsuites>", root)
	}
	return problems
}

func TestValidateJUnitCatchesMistakes(t *testing.T) {
	// The validator itself must fail on documents that break the schema.
	for _, doc := range []string{
		`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites><testsuite name="s" tests="1" failures="0" errors="0" time="0" hostname="h"><testcase name="a" time="0"/></testsuite></testsuites>`,
		`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites><testsuite name="s" tests="2" failures="0" errors="0" time="0" hostname="h"><testcase name="a" classname="c" time="0"/></testsuite></testsuites>`,
		`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuites><testsuite name="s" tests="1" failures="1" errors="0" time="0" hostname="h"><testcase name="a" classname="c" time="0"><system-out/><failure message="m" type="t"/></testcase></testsuite></testsuites>`,
		`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<testsuite name="s" tests="0" failures="0" errors="0" time="0" hostname="h"></testsuite>`,
	} {
		if len(junitProblems([]byte(doc))) == 0 {
			t.Errorf("validator accepted a bad document:\n%s", doc)
		}
	}
}
