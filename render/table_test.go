package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

func TestTableNames(t *testing.T) {
	if got := strings.Join(Names(), ","); got != "json,junit,markdown,text" {
		t.Errorf("Names = %s", got)
	}
	if _, err := Lookup("yaml", Options{}); err == nil || !strings.Contains(err.Error(), `"yaml"`) || !strings.Contains(err.Error(), "json, junit, markdown, text") {
		t.Errorf("Lookup(yaml) error = %v", err)
	}
}

// The table's entries are the existing renderers, unchanged.
func TestTableMatchesRenderers(t *testing.T) {
	g := passReport()
	o := Options{Now: now}
	render := func(name string) string {
		t.Helper()
		fn, err := Lookup(name, o)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := fn(&b, g); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return b.String()
	}
	var js bytes.Buffer
	if err := JSON(&js, g); err != nil {
		t.Fatal(err)
	}
	if render("json") != js.String() {
		t.Error("json entry differs from JSON")
	}
	if want := Markdown(g, MarkdownOptions{Title: "rubricgate: support-answers", Now: now}); render("markdown") != want {
		t.Error("markdown entry differs from Markdown with the default title")
	}
	var ju bytes.Buffer
	if err := JUnit(&ju, g, JUnitOptions{Name: "rubricgate: support-answers", Now: now}); err != nil {
		t.Fatal(err)
	}
	if render("junit") != ju.String() {
		t.Error("junit entry differs from JUnit with the default name")
	}
	o.Title = "custom"
	if md := render("markdown"); !strings.Contains(md, "custom") {
		t.Errorf("markdown entry ignores the title:\n%.200s", md)
	}
}

func TestGateText(t *testing.T) {
	g := blockedReport()
	g.Reasons = append(g.Reasons, "x\n::error::pwned")
	var b bytes.Buffer
	if err := GateText(&b, g, nil); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "::") {
			t.Errorf("a line reads as a workflow command: %q", l)
		}
	}
	golden(t, "blocked.txt", b.String())
	b.Reset()
	acc := passReport()
	acc.Accepted = true
	if err := GateText(&b, acc, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "decision PASS (regression accepted)\n") || !strings.Contains(b.String(), "baseline 81.8, change -1.00% (max-drop 2%)") {
		t.Errorf("accepted pass:\n%s", b.String())
	}
	if err := GateText(&failWriter{n: 10}, g, nil); err == nil {
		t.Error("a failing writer gave no error")
	}
	if err := GateText(&bytes.Buffer{}, &gate.GateReport{Decision: gate.Pass}, nil); err != nil {
		t.Errorf("report without a run: %v", err)
	}
}
