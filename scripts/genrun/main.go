// Command genrun writes a synthetic judged run for benchmarks: one JSON
// object a line, scored on five production criteria (faithfulness,
// relevance, completeness, format_tone on 1-5; safety 0/1), about 210 bytes
// an item. It also writes the matching rubric (canonical JSON) for
// scripts/score.py.
//
// With -score FILE it instead scores FILE with native.Score under that same
// rubric and prints the report as JSON: the stand-in for `rubricgate score`
// that scripts/bench.sh uses while the CLI does not exist.
//
// Usage:
//
//	go run ./scripts/genrun -n 1000000 -o bench/data/run.jsonl -rubric bench/data/rubric.json
//	go run ./scripts/genrun -score bench/data/run.jsonl
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"

	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

func intp(v float64) *float64 { return &v }

// production is the five-criterion rubric the benchmark uses.
func production() *rubric.Rubric {
	c := func(id string, w float64) rubric.Criterion {
		return rubric.Criterion{ID: id, Name: id, Weight: w, Scale: rubric.Scale{Low: 1, High: 5}}
	}
	return &rubric.Rubric{
		Name:      "production",
		Threshold: 70,
		Criteria: []rubric.Criterion{
			c("faithfulness", 3), c("relevance", 2), c("completeness", 2), c("format_tone", 1),
			{ID: "safety", Name: "safety", Weight: 1, Scale: rubric.Scale{Low: 0, High: 1}, Critical: intp(1), Blocking: true},
		},
	}
}

func main() {
	n := flag.Int("n", 1000000, "number of items")
	out := flag.String("o", "-", "output file (- for stdout)")
	rubricOut := flag.String("rubric", "", "also write the rubric as plain JSON to this file")
	seed := flag.Uint64("seed", 1, "random seed")
	errRate := flag.Int("errors", 200, "one item in this many carries a judge error (0: none)")
	unsafeRate := flag.Int("unsafe", 50, "one item in about this many fails the blocking safety criterion (0: none, for a passing run)")
	scoreFile := flag.String("score", "", "score this results file with native.Score and print the report")
	flag.Parse()
	if *scoreFile != "" {
		if err := score(*scoreFile); err != nil {
			fmt.Fprintln(os.Stderr, "genrun:", err)
			os.Exit(1)
		}
		return
	}
	if err := generate(*n, *out, *rubricOut, *seed, *errRate, *unsafeRate); err != nil {
		fmt.Fprintln(os.Stderr, "genrun:", err)
		os.Exit(1)
	}
}

func score(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	rep, err := native.Score(production(), []native.Input{{Name: path, R: f}}, native.ScoreOptions{MaxUnscored: 0.05})
	if err != nil {
		return err
	}
	// The blocking list can be long; the comparison needs the figures.
	rep.BlockingFailures = rep.BlockingFailures[:0]
	rep.Unscored.List = rep.Unscored.List[:0]
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

func generate(n int, out, rubricOut string, seed uint64, errRate, unsafeRate int) error {
	if rubricOut != "" {
		// The rubric's canonical JSON: rubricgate loads it, and
		// scripts/score.py reads the same file.
		if err := os.WriteFile(rubricOut, append(production().Canonical(), '\n'), 0o644); err != nil {
			return err
		}
	}
	w := os.Stdout
	if out != "-" {
		f, err := os.Create(out)
		if err != nil {
			return err
		}
		defer f.Close()
		w = f
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	x := seed*0x9E3779B97F4A7C15 | 1
	next := func(k int) int {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return int(x % uint64(k))
	}
	reasons := []string{
		"The answer cites the refund policy but omits the 30-day window the customer needs.",
		"Every claim is supported by the passages; the tone is friendly and the steps are complete.",
		"Addresses the question directly, with one unsupported detail about shipping times.",
	}
	models := []string{"claude-3-5-sonnet", "gpt-4o", "gemini-2.0-flash"}
	var line []byte
	for i := 0; i < n; i++ {
		line = line[:0]
		line = append(line, `{"id":"q-`...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, '"')
		if errRate > 0 && next(errRate) == 0 {
			line = append(line, `,"error":"judge timeout after 60s"}`+"\n"...)
			if _, err := bw.Write(line); err != nil {
				return err
			}
			continue
		}
		line = append(line, `,"scores":{"faithfulness":`...)
		line = strconv.AppendInt(line, int64(2+next(4)), 10)
		line = append(line, `,"relevance":`...)
		line = strconv.AppendInt(line, int64(2+next(4)), 10)
		line = append(line, `,"completeness":`...)
		line = strconv.AppendInt(line, int64(1+next(5)), 10)
		line = append(line, `,"format_tone":`...)
		line = strconv.AppendInt(line, int64(3+next(3)), 10)
		line = append(line, `,"safety":`...)
		safety := 1
		if u := next(max(unsafeRate, 1)); unsafeRate > 0 && u == 0 {
			safety = 0
		}
		line = strconv.AppendInt(line, int64(safety), 10)
		line = append(line, `},"reasoning":"`...)
		line = append(line, reasons[next(len(reasons))]...)
		line = append(line, `","judge_model":"`...)
		line = append(line, models[next(len(models))]...)
		line = append(line, "\"}\n"...)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
