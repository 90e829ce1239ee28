package rubric

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// The presets were hashed before continuous scales and `from` existed; a
// rubric that uses neither must keep its exact hash (baselines are keyed on it).
func TestPresetHashesUnchanged(t *testing.T) {
	want := map[string]string{
		"production": "sha256:bd9a5f5949a7e546db409043e5cf5a61f97b5d1a886fdca39480d1ef3c8b0c59",
		"rag-review": "sha256:5248b232caccf4ac3c6634e3bff2bec02a179b67d8613061ae2aae5754f68612",
		"support":    "sha256:fe3defac9645f4acbc8c133f31d944547c2df9fcafd29990821ce0d68c3d10f2",
	}
	for _, name := range presets {
		r, _ := loadPreset(t, name)
		if got := r.Hash(); got != want[name] {
			t.Errorf("%s: hash %s, want %s", name, got, want[name])
		}
	}
}

const contSrc = `name: c
criteria:
  - id: helpfulness
    scale: [0, 1]
    continuous: true
    critical: 0.35
    blocking: true
    from: {promptfoo: Helpful, deepeval: {metric: "Answer Relevancy"}}
  - id: tone
    scale: [1, 5]
    continuous: true
    from:
      ragas: {metric: answer_tone, scale: [0, 1]}
  - id: accuracy
    scale: [1, 5]
`

func TestContinuousLoads(t *testing.T) {
	r, warns, err := Load("c.yaml", []byte(contSrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warns {
		if strings.Contains(w.Msg, "anchor") && w.Criterion != "accuracy" {
			t.Errorf("continuous criterion warned about anchors: %s", w)
		}
	}
	h := &r.Criteria[0]
	if !h.Continuous || h.Critical == nil || *h.Critical != 0.35 {
		t.Fatalf("helpfulness = %+v", h)
	}
	if !h.OnScale(0.5) || h.OnScale(1.01) || r.Criteria[2].OnScale(2.5) || !r.Criteria[2].OnScale(2) {
		t.Error("OnScale")
	}
	if h.Meets(0.3) || !h.Meets(0.35) {
		t.Error("Meets with a non-integer minimum")
	}
	for _, c := range []struct {
		v    float64
		want int
	}{{0, 0}, {0.05, 0}, {0.1, 1}, {0.99, 9}, {1, 9}} {
		if got := h.Bin(c.v); got != c.want {
			t.Errorf("Bin(%v) = %d, want %d", c.v, got, c.want)
		}
	}
	if got := r.Criteria[1].BinLow(5); got != 3 {
		t.Errorf("BinLow(5) on [1,5] = %v, want 3", got)
	}
	// The canonical form carries both fields and reloads to the same hash.
	c := string(r.Canonical())
	for _, want := range []string{`"continuous":true`, `"critical":0.35`, `"from":{"deepeval":{"metric":"Answer Relevancy"},"promptfoo":{"metric":"Helpful"}}`, `"scale":[0,1]}}`} {
		if !strings.Contains(c, want) {
			t.Errorf("canonical lacks %s:\n%s", want, c)
		}
	}
	back, err := FromCanonical(r.Canonical())
	if err != nil || back.Hash() != r.Hash() {
		t.Fatalf("FromCanonical: %v (hash %s vs %s)", err, back.Hash(), r.Hash())
	}
	// Equal meaning, equal hash: a minimum of -0 is 0, a metric's
	// surrounding space does not count.
	z1, _, err1 := Load("z.yaml", []byte("name: z\ncriteria:\n  - {id: a, scale: [0, 1], continuous: true, critical: -0.0, from: {ragas: ' f '}}\n"))
	z2, _, err2 := Load("z.yaml", []byte("name: z\ncriteria:\n  - {id: a, scale: [0, 1], continuous: true, critical: 0, from: {ragas: f}}\n"))
	if err1 != nil || err2 != nil || z1.Hash() != z2.Hash() {
		t.Errorf("-0 or a spaced metric changes the hash: %v %v\n%s\n%s", err1, err2, z1.Canonical(), z2.Canonical())
	}
	// Without continuous the hash differs (it is part of the meaning).
	plain := strings.Replace(contSrc, "    continuous: true\n    from:\n", "    from:\n", 1)
	plain = strings.Replace(plain, "      ragas: {metric: answer_tone, scale: [0, 1]}\n", "      ragas: answer_tone\n", 1)
	p, _, err := Load("p.yaml", []byte(plain))
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash() == r.Hash() {
		t.Error("continuous does not change the hash")
	}
	// The export loads back.
	var buf bytes.Buffer
	if err := ExportJSON(&buf, r); err != nil {
		t.Fatal(err)
	}
	again, _, err := Load("c.json", buf.Bytes())
	if err != nil || again.Hash() != r.Hash() {
		t.Fatalf("exported JSON reloads: %v", err)
	}
}

func TestCriterionFor(t *testing.T) {
	r, _, err := Load("c.yaml", []byte(contSrc))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		format, metric string
		want           int
	}{
		{"promptfoo", "helpful", 0},
		{"deepeval", " Answer Relevancy ", 0},
		{"deepeval", "helpfulness", -1}, // mapped to another metric for deepeval
		{"ragas", "helpfulness", 0},     // no ragas mapping: the id is the name
		{"ragas", "answer_tone", 1},
		{"ragas", "tone", -1},
		{"inspect", "accuracy", 2},
		{"inspect", "nothing", -1},
	} {
		got, ok := r.CriterionFor(c.format, c.metric)
		if ok != (c.want >= 0) || (ok && got != c.want) {
			t.Errorf("CriterionFor(%q, %q) = %d, %v; want %d", c.format, c.metric, got, ok, c.want)
		}
	}
	if got := r.Criteria[1].FromSource("ragas", 0.5); got != 3 {
		t.Errorf("FromSource 0.5 on [0,1] -> [1,5] = %v, want 3", got)
	}
	if got := r.Criteria[0].FromSource("promptfoo", 0.5); got != 0.5 {
		t.Errorf("FromSource without a source scale = %v", got)
	}
}

func TestContinuousAndFromErrors(t *testing.T) {
	crit := func(extra string) string {
		return "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n" + extra
	}
	for _, tt := range []struct {
		name, src, pos, msg string
	}{
		{"continuous not bool", crit("    continuous: yes\n"), "5:17", "criteria[0].continuous: expected true or false"},
		{"critical out of continuous scale", crit("    continuous: true\n    critical: 1.5\n"), "6:15", "expected a minimum score inside the scale [0, 1], got 1.5"},
		{"non-integer critical on integer scale", crit("    critical: 0.5\n"), "5:15", "a non-integer minimum needs continuous: true"},
		{"unknown format", crit("    from: {promptfu: x}\n"), "5:12", `criteria[0].from: unknown results format "promptfu"; expected one of: ` + strings.Join(Sources, ", ")},
		{"empty metric", crit("    from: {ragas: ' '}\n"), "5:12", "criteria[0].from.ragas: expected a non-empty metric name"},
		{"metric not text", crit("    from: {ragas: [x]}\n"), "5:19", "expected a metric name, or a mapping with metric and scale, got a list"},
		{"unknown source key", crit("    from: {ragas: {metric: x, scael: [0, 1]}}\n"), "5:31", `unknown key "scael"`},
		{"source scale on integer criterion", crit("    from: {ragas: {metric: x, scale: [0, 1]}}\n"), "5:38", "a source scale needs continuous: true"},
		{"bad source scale", crit("    continuous: true\n    from: {ragas: {metric: x, scale: [1, 1]}}\n"), "6:38", "criteria[0].from.ragas.scale: expected [worst, best] integers that differ ([0, 1] when higher is better, [1, 0] when lower is), got [1, 1]"},
		{"one metric feeds two criteria", crit("    from: {promptfoo: Help}\n  - id: b\n    scale: [0, 1]\n    from: {promptfoo: help}\n"), "8:12", `criteria[1].from.promptfoo: the promptfoo metric "help" already feeds criteria[0].from.promptfoo`},
		{"the judge's usage key is reserved", "name: t\ncriteria:\n  - id: usage\n    scale: [0, 1]\n", "3:9", `"usage" is a reserved column name`},
		{"samples is reserved", "name: t\ncriteria:\n  - id: samples\n    scale: [0, 1]\n", "3:9", `"samples" is a reserved column name`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Load("t.yaml", []byte(tt.src))
			var re *Error
			if !errors.As(err, &re) {
				t.Fatalf("got %v, want an *Error", err)
			}
			if !strings.Contains(err.Error(), "t.yaml:"+tt.pos+": ") || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %q\nwant position %s and %q", err, tt.pos, tt.msg)
			}
		})
	}
}

func TestContinuousNeedsNoLevelLimitOrAnchors(t *testing.T) {
	src := "name: t\ncriteria:\n  - id: a\n    scale: [0, 1000]\n    continuous: true\n"
	_, warns, err := Load("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(warns) != 0 {
		t.Errorf("warnings: %v", warns)
	}
}

func TestExportPromptContinuous(t *testing.T) {
	r, _, err := Load("c.yaml", []byte(contSrc))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ExportPrompt(&buf, r); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"### 1. helpfulness (0 to 1)",
		"Any number from 0 to 1 is a valid score (decimals allowed).",
		`"helpfulness": <number 0 to 1>,`,
		`"accuracy": <integer 1 to 5>,`,
		"with a score for each criterion",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("prompt lacks %q:\n%s", want, out)
		}
	}
}
