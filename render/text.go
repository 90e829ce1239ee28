package render

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/safe"
	"github.com/rubricgate/rubricgate/rubric"
)

// maxTextFailures caps the blocking failures listed on a terminal.
const maxTextFailures = 20

// ScoreText writes the readable per-criterion table of a scored run. Text
// from results and rubrics is escaped so it can never become a workflow
// command in a CI log.
func ScoreText(w io.Writer, rep *gate.Report, rb *rubric.Rubric) error {
	ew := &errWriter{w: w}
	ew.printf("rubric %s (%s)\n", clean(rep.Rubric.Name, 80), shortSHA(trimHash(rep.Rubric.Hash)))
	ew.printf("items %d, scored %d, unscored %d\n", rep.Items, rep.Scored, rep.Unscored.Count)
	ew.printf("score %s   pass rate %s", numPtr(rep.Score), pctPtr(rep.PassRate))
	if rep.RetrievalMiss.Count > 0 {
		ew.printf("   retrieval misses %d (%.1f%%)", rep.RetrievalMiss.Count, 100*rep.RetrievalMiss.Rate)
	}
	ew.printf("\n\n")

	tw := tabwriter.NewWriter(ew, 2, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "criterion\tweight\tscale\tmean\tnorm\tscored\tna\tbelow min\thistogram")
	for i, c := range rep.Criteria {
		scale, gateMark := "", ""
		if rb != nil && i < len(rb.Criteria) && rb.Criteria[i].ID == c.ID {
			rc := &rb.Criteria[i]
			scale = fmt.Sprintf("%d-%d", rc.Scale.Low, rc.Scale.High)
			if rc.Continuous {
				scale += " cont."
			}
			if rc.Critical != nil {
				gateMark = fmt.Sprintf(" (min %s", scoreText(*rc.Critical))
				if rc.Blocking {
					gateMark += ", blocking"
				}
				gateMark += ")"
			}
		}
		name := clean(c.ID, 40)
		if c.Name != "" && c.Name != c.ID {
			name += " · " + clean(c.Name, 40)
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n", name, gateMark, num(c.Weight), scale,
			mean2(c.Mean), numPtr(c.Normalized), c.Scored, c.NA, c.BelowMin, histogram(c))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if n := len(rep.BlockingFailures); n > 0 {
		ew.printf("\nblocking failures: %d\n", n)
		for i, f := range rep.BlockingFailures {
			if i == maxTextFailures {
				ew.printf("  ... and %d more (see --json)\n", n-i)
				break
			}
			ew.printf("  %s  %s = %s  %s\n", clean(f.Item, 60), clean(f.Criterion, 40), failureScore(f), clean(f.Reasoning, 160))
		}
	}
	if n := rep.Unscored.Count; n > 0 {
		ew.printf("\nunscored items (judge errors): %d (%.1f%%)", n, 100*rep.Unscored.Rate)
		if rep.Unscored.Exceeded {
			ew.printf(", more than max-unscored allows")
		}
		ew.printf("\n")
		for i, u := range rep.Unscored.List {
			if i == maxTextFailures {
				ew.printf("  ... and %d more\n", n-i)
				break
			}
			ew.printf("  %s:%d  %s  %s\n", clean(u.File, 80), u.Line, clean(u.ID, 60), clean(u.Error, 120))
		}
	}
	for _, s := range rep.Warnings {
		ew.printf("warning: %s\n", clean(s, 400))
	}
	return ew.err
}

// clean makes untrusted text one safe log line of at most max runes.
func clean(s string, max int) string {
	return safe.LogLine(truncate(strings.Join(strings.Fields(s), " "), max))
}

func truncate(s string, max int) string {
	r := []rune(s)
	if len(r) <= max {
		return s
	}
	return string(r[:max-1]) + "…"
}

func mean2(f *float64) string {
	if f == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *f)
}

// histogram writes level:count pairs, or for a continuous criterion
// lower-edge:count per bin; with a spread (items judged several times) it
// adds "spread ±x".
func histogram(c gate.CriterionStats) string {
	var parts []string
	if len(c.Bins) > 0 {
		for _, b := range c.Bins {
			parts = append(parts, fmt.Sprintf("%s:%d", scoreText(b.Low), b.Count))
		}
	} else {
		parts = levelCounts(c.Histogram)
	}
	if c.Spread != nil {
		parts = append(parts, "spread "+spreadText(c.Spread))
	}
	return strings.Join(parts, " ")
}

func levelCounts(h map[int]int) []string {
	levels := make([]int, 0, len(h))
	for l := range h {
		levels = append(levels, l)
	}
	sort.Ints(levels)
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = fmt.Sprintf("%d:%d", l, h[l])
	}
	return parts
}

// errWriter keeps the first write error so the caller checks once.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }
