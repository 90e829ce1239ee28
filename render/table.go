package render

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// Format names a report format of [Table] and [ScoreTable].
type Format string

// The report formats.
const (
	FormatJSON     Format = "json"
	FormatMarkdown Format = "markdown"
	FormatText     Format = "text"
	FormatJUnit    Format = "junit"
)

// Func writes a gate report in one format.
type Func func(w io.Writer, g *gate.GateReport) error

// Options are what the renderers of the table need besides the report.
type Options struct {
	// Title is the heading (markdown) or the test suite name (JUnit);
	// default "rubricgate: <rubric name>".
	Title string
	// Now is the time of the run: the baseline's age (markdown) and the
	// suite's timestamp (JUnit). Zero leaves the timestamp out.
	Now time.Time
	// Budget is the markdown size budget in bytes (see MarkdownOptions).
	Budget int
	// Rubric, when known, adds scales and minimums to the text table.
	Rubric *rubric.Rubric
}

// title returns o.Title or the default for g.
func (o Options) title(g *gate.GateReport) string {
	if o.Title != "" {
		return o.Title
	}
	if g != nil && g.Report != nil && g.Rubric.Name != "" {
		return "rubricgate: " + g.Rubric.Name
	}
	return "rubricgate"
}

// Table returns the renderers by format name: "json", "markdown", "text"
// and "junit". Adding a format is one entry here and its function.
func Table(o Options) map[Format]Func {
	return map[Format]Func{
		FormatJSON: func(w io.Writer, g *gate.GateReport) error { return JSON(w, g) },
		FormatMarkdown: func(w io.Writer, g *gate.GateReport) error {
			_, err := io.WriteString(w, Markdown(g, MarkdownOptions{Title: o.title(g), Now: o.Now, Budget: o.Budget}))
			return err
		},
		FormatText: func(w io.Writer, g *gate.GateReport) error { return GateText(w, g, o.Rubric) },
		FormatJUnit: func(w io.Writer, g *gate.GateReport) error {
			return JUnit(w, g, JUnitOptions{Name: o.title(g), Now: o.Now})
		},
	}
}

// Names lists the formats of [Table], sorted.
func Names() []string {
	names := make([]string, 0, 4)
	for n := range Table(Options{}) {
		names = append(names, string(n))
	}
	slices.Sort(names)
	return names
}

// Lookup returns the renderer for format name, or an error that lists
// the formats there are.
func Lookup(name string, o Options) (Func, error) {
	if fn, ok := Table(o)[Format(name)]; ok {
		return fn, nil
	}
	return nil, fmt.Errorf("report format %q: expected one of %s", name, strings.Join(Names(), ", "))
}

// GateText writes the decision, its reasons and warnings, then the
// per-criterion table of [ScoreText]: the gate report for a terminal or a
// CI log. Untrusted text is escaped so no line reads as a workflow command.
func GateText(w io.Writer, g *gate.GateReport, rb *rubric.Rubric) error {
	ew := &errWriter{w: w}
	word := strings.ToUpper(string(g.Decision))
	if g.Accepted {
		word += " (regression accepted)"
	}
	ew.printf("decision %s\n", clean(word, 40))
	for _, r := range g.Reasons {
		ew.printf("  - %s\n", clean(r, 400))
	}
	if g.Baseline != nil {
		// The figures the decision used, the full sets' beside them.
		hf := headlineFigures(g)
		ew.printf("baseline %s", numPtr(hf.base))
		if hf.change != nil {
			ew.printf(", change %s%s (max-drop %s)", gate.FormatChange(*hf.change, g.MaxDrop), hf.on(), pctPlain(g.MaxDrop))
		}
		if n := hf.fullNote(g.MaxDrop); n != "" {
			ew.printf("; %s", n)
		}
		if g.Baseline.PooledRuns > 1 {
			ew.printf(" (the mean of the last %d runs of its branch)", g.Baseline.PooledRuns)
		}
		ew.printf("\n")
	}
	if line := TrendLine(g); line != "" {
		ew.printf("%s\n", line)
	}
	if line := DriftLine(g); line != "" {
		ew.printf("%s\n", line)
	}
	if ew.err != nil {
		return ew.err
	}
	if g.Report == nil {
		return nil
	}
	ew.printf("\n")
	if ew.err != nil {
		return ew.err
	}
	return ScoreText(w, g.Report, rb)
}
