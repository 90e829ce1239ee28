package rubric

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// presets are the shipped rubrics, relative to this package.
var presets = []string{"rag-review", "production", "support"}

func loadPreset(t testing.TB, name string) (*Rubric, []Warning) {
	t.Helper()
	path := filepath.Join("..", "rubrics", name+".yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := Load(path, data)
	if err != nil {
		t.Fatalf("Load(%s): %v", path, err)
	}
	return r, w
}

func TestPresetsLoadWithoutWarnings(t *testing.T) {
	for _, name := range presets {
		t.Run(name, func(t *testing.T) {
			r, w := loadPreset(t, name)
			if len(w) != 0 {
				t.Errorf("warnings: %v", w)
			}
			for i := range r.Criteria {
				c := &r.Criteria[i]
				if len(c.Anchors) != c.Scale.Levels() {
					t.Errorf("%s: %d anchors for %d levels", c.ID, len(c.Anchors), c.Scale.Levels())
				}
			}
		})
	}
}

func TestPresetContents(t *testing.T) {
	type crit struct {
		id       string
		weight   float64
		scale    Scale
		critical int // -1: none
		blocking bool
		na       bool
		column   string
	}
	tests := []struct {
		name      string
		rubric    string
		threshold float64
		notes     []int
		criteria  []crit
	}{
		{"rag-review", "rag-review", 0, []int{0}, []crit{
			{"grounding", 1, Scale{0, 2}, 2, false, false, "G"},
			{"citation", 1, Scale{0, 2}, 2, false, true, "C"},
			{"answer_handling", 1, Scale{0, 2}, 2, false, false, "A"},
			{"usefulness", 1, Scale{0, 2}, 1, false, false, "U"},
		}},
		{"production", "production", 50, nil, []crit{
			{"faithfulness", 1, Scale{1, 5}, -1, false, false, "faithfulness"},
			{"relevance", 1, Scale{1, 5}, -1, false, false, "relevance"},
			{"completeness", 1, Scale{1, 5}, -1, false, false, "completeness"},
			{"format_tone", 1, Scale{1, 5}, -1, false, false, "format_tone"},
			{"safety", 0, Scale{0, 1}, 1, true, false, "safety"},
		}},
		{"support", "support-answers", 70, nil, []crit{
			{"accuracy", 3, Scale{1, 5}, -1, false, false, "accuracy"},
			{"resolution", 2, Scale{1, 5}, -1, false, false, "resolution"},
			{"tone", 1, Scale{1, 5}, -1, false, false, "tone"},
			{"safety", 1, Scale{0, 1}, 1, true, false, "safety"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := loadPreset(t, tt.name)
			if r.Name != tt.rubric || r.Threshold != tt.threshold || fmt.Sprint(r.NotesRequiredFor) != fmt.Sprint(tt.notes) {
				t.Errorf("got name %q threshold %v notes %v", r.Name, r.Threshold, r.NotesRequiredFor)
			}
			if len(r.Criteria) != len(tt.criteria) {
				t.Fatalf("got %d criteria, want %d", len(r.Criteria), len(tt.criteria))
			}
			for i, want := range tt.criteria {
				c := &r.Criteria[i]
				crit := -1
				if c.Critical != nil {
					crit = int(*c.Critical)
				}
				got := crit0(c.ID, c.Weight, c.Scale, crit, c.Blocking, c.NA, SheetColumn(c))
				if got != fmt.Sprint(want) {
					t.Errorf("criteria[%d] = %s, want %v", i, got, want)
				}
			}
		})
	}
}

func crit0(id string, w float64, s Scale, c int, b, na bool, col string) string {
	return fmt.Sprint(struct {
		id       string
		weight   float64
		scale    Scale
		critical int
		blocking bool
		na       bool
		column   string
	}{id, w, s, c, b, na, col})
}

// The support preset reproduces the worked example: 4,3,4,1 -> 71.4.
func TestSupportWorkedExample(t *testing.T) {
	r, _ := loadPreset(t, "support")
	scores := []float64{4, 3, 4, 1}
	var sum float64
	for i, s := range scores {
		sum += r.Criteria[i].Weight * r.Criteria[i].Normalize(s)
	}
	got := 100 * sum / r.TotalWeight()
	if fmt.Sprintf("%.1f", got) != "71.4" {
		t.Errorf("weighted score = %.3f, want 71.4", got)
	}
	if got < r.Threshold {
		t.Errorf("71.4 should pass threshold %v", r.Threshold)
	}
	if r.Criteria[3].Meets(0) {
		t.Error("safety 0 must fail the gate")
	}
}

const base = `name: t
criteria:
  - id: a
    scale: [1, 5]
    anchors: {1: low, 3: mid, 5: high}
`

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		pos  string // "line:col", "line" or ""
		msg  string // substring of the message
	}{
		{"empty file", "", "1:1", "empty rubric file"},
		{"only comments", "# nothing\n", "1:1", "empty rubric file"},
		{"null document", "~\n", "1:1", "empty rubric file"},
		{"not a mapping", "- a\n- b\n", "1:1", "expected a mapping with name and criteria, got a list"},
		{"syntax error", "name: t\ncriteria: [\n", "2", "invalid YAML"},
		// yaml.v3 says line 2 (the list item) for these: the line is the
		// problem's, and a tab is named.
		{"bad indent", "name: t\ncriteria:\n  - id: a\n    scale: [1, 5]\n   weight: 2\n", "5", "invalid YAML: did not find expected '-' indicator"},
		{"key out of the list", "name: t\ncriteria:\n  - id: a\n    weight: 2\n  bad: 1\n", "5", "invalid YAML"},
		{"tab indent", "name: t\ncriteria:\n  - id: a\n\tscale: [1, 5]\n", "4:1", "invalid YAML: a tab indents this line; YAML indents with spaces only"},
		{"unclosed quote", "name: t\ncriteria:\n  - id: a\n    description: \"open\n    weight: 2\n", "4", "invalid YAML"},
		{"two documents", base + "---\nname: u\n", "7:1", "second YAML document"},
		{"unknown top key", base + "treshold: 70\n", "6:1", `unknown key "treshold"; expected one of: name, version`},
		{"unknown criterion key", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    wieght: 2\n", "5:5", `criteria[0]: unknown key "wieght"`},
		{"duplicate top key", base + "name: u\n", "6:1", `duplicate key "name" (first at line 1:1)`},
		{"duplicate criterion key", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    id: b\n", "5:5", `criteria[0]: duplicate key "id" (first at line 3:5)`},
		{"missing name", "criteria:\n  - id: a\n    scale: [0, 1]\n", "1:1", "name: required"},
		{"blank name", "name: '  '\ncriteria:\n  - id: a\n    scale: [0, 1]\n", "1:7", "name: required"},
		{"name is a list", "name: [a]\ncriteria: []\n", "1:7", "name: expected a rubric name, got a list"},
		{"no criteria key", "name: t\n", "1:1", "criteria: expected at least one criterion"},
		{"empty criteria", "name: t\ncriteria: []\n", "2:11", "criteria: expected at least one criterion"},
		{"criteria not a list", "name: t\ncriteria: {a: 1}\n", "2:11", "criteria: expected a list of criteria, got a mapping"},
		{"criterion not a mapping", "name: t\ncriteria:\n  - a\n", "3:5", `criteria[0]: expected a criterion mapping with id and scale, got "a"`},
		{"missing id", "name: t\ncriteria:\n  - scale: [0, 1]\n", "3:5", "criteria[0].id: required"},
		{"bad id", "name: t\ncriteria:\n  - id: Bad-Id\n    scale: [0, 1]\n", "3:9", `criteria[0].id: expected an id matching [a-z0-9_]+, got "Bad-Id"`},
		{"reserved id", "name: t\ncriteria:\n  - id: notes\n    scale: [0, 1]\n", "3:9", `criteria[0].id: "notes" is a reserved column name`},
		{"duplicate id", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n  - id: a\n    scale: [0, 1]\n", "5:9", `criteria[1].id: id "a" collides with criteria[0].id`},
		{"missing scale", "name: t\ncriteria:\n  - id: a\n", "3:5", "criteria[0].scale: required; expected [lowest, highest]"},
		{"reversed scale", "name: t\ncriteria:\n  - id: a\n    scale: [5, 1]\n", "4:12", "criteria[0].scale: expected [lowest, highest] integers with lowest < highest, got [5, 1]"},
		{"equal scale", "name: t\ncriteria:\n  - id: a\n    scale: [3, 3]\n", "4:12", "got [3, 3]"},
		{"float scale bound", "name: t\ncriteria:\n  - id: a\n    scale: [1, 4.5]\n", "4:16", "criteria[0].scale: expected [lowest, highest] integers with lowest < highest, got [1, 4.5]"},
		{"string scale bound", "name: t\ncriteria:\n  - id: a\n    scale: ['1', 5]\n", "4:13", `got ["1", 5]`},
		{"three-element scale", "name: t\ncriteria:\n  - id: a\n    scale: [1, 3, 5]\n", "4:12", "got [1, 3, 5]"},
		{"scale not a list", "name: t\ncriteria:\n  - id: a\n    scale: 5\n", "4:12", "got 5"},
		{"huge scale", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1000]\n", "4:12", "expected at most 101 levels"},
		{"out of range scale", "name: t\ncriteria:\n  - id: a\n    scale: [0, 99999999999]\n", "4:12", "got [0, 99999999999]"},
		{"anchor outside scale", "name: t\ncriteria:\n  - id: a\n    scale: [1, 3]\n    anchors: {1: x, 4: y}\n", "5:21", "criteria[0].anchors.4: expected a level inside the scale [1, 3], got 4"},
		{"non-integer anchor key", "name: t\ncriteria:\n  - id: a\n    scale: [1, 3]\n    anchors: {1: x, high: y}\n", "5:21", `criteria[0].anchors: expected an integer level as key, got "high"`},
		{"float anchor key", "name: t\ncriteria:\n  - id: a\n    scale: [1, 3]\n    anchors:\n      1.5: y\n", "6:7", "expected an integer level as key, got 1.5"},
		{"duplicate anchor level", "name: t\ncriteria:\n  - id: a\n    scale: [1, 3]\n    anchors:\n      1: x\n      '1': y\n", "7:7", `criteria[0].anchors: duplicate key "1" (first at line 6:7)`},
		{"duplicate anchor level spelled differently", "name: t\ncriteria:\n  - id: a\n    scale: [1, 3]\n    anchors:\n      1: x\n      +1: y\n", "7:7", "criteria[0].anchors: duplicate level 1 (first at line 6:7)"},
		{"empty anchor text", "name: t\ncriteria:\n  - id: a\n    scale: [1, 3]\n    anchors:\n      2: ''\n", "6:7", "criteria[0].anchors.2: expected a description of level 2"},
		{"anchor text not scalar", "name: t\ncriteria:\n  - id: a\n    scale: [1, 3]\n    anchors:\n      2: [x]\n", "6:10", "criteria[0].anchors.2: expected a description of the level, got a list"},
		{"negative weight", "name: t\ncriteria:\n  - id: a\n    weight: -1\n    scale: [0, 1]\n", "4:13", "criteria[0].weight: expected 0 or a number from 1e-06 to 1e+06, got -1"},
		{"NaN weight", "name: t\ncriteria:\n  - id: a\n    weight: .nan\n    scale: [0, 1]\n", "4:13", "got NaN"},
		{"Inf weight", "name: t\ncriteria:\n  - id: a\n    weight: .inf\n    scale: [0, 1]\n", "4:13", "got +Inf"},
		{"string weight", "name: t\ncriteria:\n  - id: a\n    weight: heavy\n    scale: [0, 1]\n", "4:13", `criteria[0].weight: expected a finite number >= 0, got "heavy"`},
		{"weights sum to zero", "name: t\ncriteria:\n  - id: a\n    weight: 0\n    scale: [0, 1]\n    critical: 1\n", "2:1", "criteria: the weights sum to 0"},
		{"weight too large", "name: t\ncriteria:\n  - id: a\n    weight: 1e308\n    scale: [0, 1]\n  - id: b\n    weight: 1e308\n    scale: [0, 1]\n", "4:13", "expected 0 or a number from 1e-06 to 1e+06"},
		{"weight too small", "name: t\ncriteria:\n  - id: a\n    weight: 5e-324\n    scale: [0, 1]\n", "4:13", "expected 0 or a number from 1e-06 to 1e+06"},
		{"NaN threshold", "threshold: .NaN\n" + base, "1:12", "threshold: expected a number within 0..100, got NaN"},
		{"Inf threshold", "threshold: -.inf\n" + base, "1:12", "got -Inf"},
		{"threshold above 100", "threshold: 101\n" + base, "1:12", "got 101"},
		{"threshold negative", "threshold: -0.5\n" + base, "1:12", "got -0.5"},
		{"threshold string", "threshold: '70'\n" + base, "1:12", `threshold: expected a number within 0..100, got "70"`},
		{"critical outside scale", "name: t\ncriteria:\n  - id: a\n    scale: [1, 5]\n    critical: 6\n", "5:15", "criteria[0].critical: expected a minimum score inside the scale [1, 5], got 6"},
		{"critical not integer", "name: t\ncriteria:\n  - id: a\n    scale: [1, 5]\n    critical: 2.5\n", "5:15", "criteria[0].critical: expected an integer minimum score inside the scale (a non-integer minimum needs continuous: true), got 2.5"},
		{"blocking without critical", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    blocking: true\n", "5:15", "criteria[0].blocking: blocking needs critical"},
		{"blocking not bool", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    critical: 1\n    blocking: yes\n", "6:15", `criteria[0].blocking: expected true or false, got "yes"`},
		{"na not bool", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    na: 1\n", "5:9", "criteria[0].na: expected true or false, got 1"},
		{"alias not a list", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    aliases: G\n", "5:14", `criteria[0].aliases: expected a list of column names, got "G"`},
		{"alias with comma", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    aliases: ['G,H']\n", "5:15", `criteria[0].aliases[0]: expected a column name`},
		{"alias reserved", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    aliases: [ok, Pass]\n", "5:19", `criteria[0].aliases[1]: "Pass" is a reserved column name`},
		{"alias collides with own id", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    aliases: [A]\n", "5:15", `alias "A" collides with criteria[0].id`},
		{"alias collides with other alias", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    aliases: [x]\n  - id: b\n    scale: [0, 1]\n    aliases: [X]\n", "8:15", `criteria[1].aliases[0]: alias "X" collides with criteria[0].aliases[0]`},
		{"id collides with earlier alias", "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n    aliases: [B]\n  - id: b\n    scale: [0, 1]\n", "6:9", `criteria[1].id: id "b" collides with criteria[0].aliases[0]`},
		{"notes not integers", base + "notes_required_for: [zero]\n", "6:22", `notes_required_for[0]: expected an integer score, got "zero"`},
		{"model families not a mapping", base + "model_families: [acme]\n", "6:17", "model_families: expected a mapping of family name to a list of model name prefixes, got a list"},
		{"model family not a list", base + "model_families:\n  acme: acme-\n", "7:9", `model_families.acme: expected a list of model name prefixes, got "acme-"`},
		{"model family empty", base + "model_families:\n  acme: []\n", "7:9", "model_families.acme: expected at least one model name prefix"},
		{"model family blank prefix", base + "model_families:\n  acme: ['  ']\n", "7:10", "model_families.acme[0]: expected a non-empty model name prefix"},
		{"duplicate model family", base + "model_families:\n  acme: [a]\n  acme: [b]\n", "8:3", `model_families: duplicate key "acme"`},
		{"yaml alias", "name: &n t\ncriteria:\n  - id: a\n    name: *n\n    scale: [0, 1]\n", "4:11", "aliases are not supported"},
		{"merge key", "name: t\ncriteria:\n  - &c {id: a, scale: [0, 1]}\n  - <<: *c\n    id: b\n", "4:5", `unknown key "<<"`},
		{"non-scalar key", "name: t\n[a]: 1\n", "2:1", "expected a key name, got a list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := Load("x.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("no error; rubric %+v warnings %v", r, w)
			}
			if r != nil || w != nil {
				t.Errorf("got a rubric or warnings with the error")
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T %v is not a *rubric.Error", err, err)
			}
			if e.File != "x.yaml" {
				t.Errorf("File = %q", e.File)
			}
			pos := fmt.Sprintf("%d:%d", e.Line, e.Col)
			if e.Col == 0 {
				pos = fmt.Sprint(e.Line)
			}
			if pos != tt.pos {
				t.Errorf("position %s, want %s (%v)", pos, tt.pos, err)
			}
			if !strings.Contains(e.Msg, tt.msg) {
				t.Errorf("message %q does not contain %q", e.Msg, tt.msg)
			}
			if want := "x.yaml:" + pos + ": "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Error() = %q, want prefix %q", err.Error(), want)
			}
		})
	}
}

func TestLoadWarnings(t *testing.T) {
	eight := "name: t\ncriteria:\n"
	for i := range 8 {
		eight += fmt.Sprintf("  - {id: c%d, scale: [0, 1]}\n", i)
	}
	tests := []struct {
		name string
		src  string
		want []string // "line:col criterion: message substring"
	}{
		{"no warnings", base, nil},
		{"more than seven criteria", eight, []string{"2:1 : 8 criteria; judges degrade past 7"}},
		{"seven criteria are fine", strings.Join(strings.Split(eight, "\n")[:9], "\n") + "\n", nil},
		{"five-level scale without anchors", "name: t\ncriteria:\n  - id: a\n    scale: [1, 5]\n",
			[]string{"3:5 a: criteria[0].anchors: scale [1, 5] has 5 levels but no anchor for the lowest 1, middle 3, highest 5 level"}},
		{"five-level scale missing middle", "name: t\ncriteria:\n  - id: a\n    scale: [1, 5]\n    anchors: {1: x, 2: y, 4: z, 5: w}\n",
			[]string{"5:14 a: no anchor for the middle 3 level"}},
		{"even scale accepts either middle", "name: t\ncriteria:\n  - id: a\n    scale: [1, 6]\n    anchors: {1: x, 4: y, 6: z}\n", nil},
		{"even scale missing both middles", "name: t\ncriteria:\n  - id: a\n    scale: [1, 6]\n    anchors: {1: x, 6: z}\n",
			[]string{"5:14 a: no anchor for the middle 3 level"}},
		{"four-level scale needs no anchors", "name: t\ncriteria:\n  - id: a\n    scale: [1, 4]\n", nil},
		{"light weight", base + "  - id: b\n    weight: 0.04\n    scale: [0, 1]\n",
			[]string{"7:13 b: criteria[1].weight: can move the score by only 3.8 points (100 x 0.04 / 1.04)"}},
		{"light weight but a gate", base + "  - id: b\n    weight: 0\n    scale: [0, 1]\n    critical: 1\n", nil},
		{"zero weight non-gate, default position", base + "  - {id: b, weight: 0, scale: [0, 1]}\n",
			[]string{"6:21 b: can move the score by only 0.0 points"}},
		{"exactly five points is fine", "name: t\ncriteria:\n  - {id: a, weight: 19, scale: [0, 1]}\n  - {id: b, weight: 1, scale: [0, 1]}\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, w, err := Load("w.yaml", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if len(w) != len(tt.want) {
				t.Fatalf("got %d warnings %v, want %d", len(w), w, len(tt.want))
			}
			for i, want := range tt.want {
				pos, rest, _ := strings.Cut(want, " ")
				crit, msg, _ := strings.Cut(rest, ": ")
				got := w[i]
				if p := fmt.Sprintf("%d:%d", got.Line, got.Col); p != pos {
					t.Errorf("warning %d at %s, want %s (%v)", i, p, pos, got)
				}
				if got.Criterion != crit || !strings.Contains(got.Msg, msg) || got.File != "w.yaml" {
					t.Errorf("warning %d = %+v, want criterion %q and message containing %q", i, got, crit, msg)
				}
				if !strings.HasPrefix(got.String(), "w.yaml:"+pos+": ") {
					t.Errorf("String() = %q", got.String())
				}
			}
		})
	}
}

func TestLoadDefaults(t *testing.T) {
	src := "name: t\ncriteria:\n  - id: a\n    scale: [0, 1]\n  - id: b\n    name: Bee\n    weight: 2.5\n    scale: [1, 3]\n    critical: 2\nnotes_required_for: [3, 0, 3, 1]\n"
	r, _, err := Load("d.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	a, b := r.Criteria[0], r.Criteria[1]
	checks := []struct {
		what      string
		got, want any
	}{
		{"threshold", r.Threshold, 0.0},
		{"version", r.Version, ""},
		{"a.name defaults to id", a.Name, "a"},
		{"a.weight defaults to 1", a.Weight, 1.0},
		{"a.critical", a.Critical == nil, true},
		{"a.blocking", a.Blocking, false},
		{"a.na", a.NA, false},
		{"b.name", b.Name, "Bee"},
		{"b.weight", b.Weight, 2.5},
		{"b.critical", *b.Critical, 2.0},
		{"notes sorted and de-duplicated", fmt.Sprint(r.NotesRequiredFor), "[0 1 3]"},
		{"gates", fmt.Sprint(r.Gates()), "[1]"},
		{"max points a", fmt.Sprintf("%.2f", a.MaxPoints(r.TotalWeight())), "28.57"},
		{"max points zero total", a.MaxPoints(0), 0.0},
		{"note required for 0", r.NoteRequired(0), true},
		{"note required for 2", r.NoteRequired(2), false},
		{"index by name", r.Index(" B "), 1},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
}

func TestJSONInputAccepted(t *testing.T) {
	yml, _ := loadPreset(t, "support")
	// A hand-written JSON rubric (quoted anchor keys, as JSON must have).
	src := `{"name": "support-answers", "version": "1", "threshold": 70, "criteria": [
	 {"id": "accuracy", "name": "Policy accuracy", "weight": 3, "scale": [1, 5],
	  "anchors": {"1": "a", "3": "b", "5": "c"}},
	 {"id": "safety", "weight": 1, "scale": [0, 1], "critical": 1, "blocking": true,
	  "anchors": {"0": "unsafe", "1": "safe"}}]}`
	r, w, err := Load("r.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(w) != 0 {
		t.Errorf("warnings: %v", w)
	}
	if r.Criteria[0].Anchors[3] != "b" || !r.Criteria[1].Blocking || r.Criteria[1].Name != "safety" {
		t.Errorf("decoded %+v", r)
	}
	// The exported JSON of a preset, less its hash, loads back to the same hash.
	var buf bytes.Buffer
	if err := ExportJSON(&buf, yml); err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	if string(m["hash"]) != `"`+yml.Hash()+`"` {
		t.Errorf("exported hash %s, want %s", m["hash"], yml.Hash())
	}
	delete(m, "hash")
	noHash, _ := json.Marshal(m)
	back, _, err := Load("export.json", noHash)
	if err != nil {
		t.Fatal(err)
	}
	if back.Hash() != yml.Hash() {
		t.Errorf("JSON export reloaded: hash %s, want %s", back.Hash(), yml.Hash())
	}
	// JSON errors carry positions too.
	_, _, err = Load("r.json", []byte("{\"name\": \"t\",\n \"criteria\": [{\"id\": \"a\", \"scale\": [2, 1]}]}"))
	if err == nil || err.Error() != "r.json:2:36: criteria[0].scale: expected [lowest, highest] integers with lowest < highest, got [2, 1]" {
		t.Errorf("error = %v", err)
	}
}

const hashBase = `# support rubric
name: s
threshold: 70
criteria:
  - id: accuracy
    name: Policy accuracy
    weight: 3
    scale: [1, 5]
    anchors: {1: wrong, 3: partly, 5: right}
  - id: safety
    weight: 1
    scale: [0, 1]
    critical: 1
    blocking: true
    aliases: [S, safe]
notes_required_for: [0, 1]
model_families:
  zeta: [z-, zz]
  acme: [acme-]
`

func TestHashStability(t *testing.T) {
	ref, _, err := Load("a.yaml", []byte(hashBase))
	if err != nil {
		t.Fatal(err)
	}
	same := map[string]string{
		"reordered keys, flow style, comments, defaults spelled out": `
model_families: {acme: [acme-], zeta: [z-, zz]}   # families
notes_required_for: [1, 0, 1]
criteria:
  - {scale: [1, 5], weight: 3.0, id: accuracy, name: Policy accuracy,
     anchors: {5: right, 1: wrong, 3: partly}, na: false}
  # the gate
  - id: safety
    name: safety
    blocking: true
    critical: 1
    scale:
      - 0
      - 1
    aliases:
      - S
      - safe
threshold: 70.0
name: "s"
`,
		"JSON": `{"name":"s","threshold":70,"criteria":[{"id":"accuracy","name":"Policy accuracy","weight":3,"scale":[1,5],"anchors":{"1":"wrong","3":"partly","5":"right"}},{"id":"safety","weight":1,"scale":[0,1],"critical":1,"blocking":true,"aliases":["S","safe"]}],"notes_required_for":[0,1],"model_families":{"acme":["acme-"],"zeta":["z-","zz"]}}`,
	}
	for name, src := range same {
		r, _, err := Load("b.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Hash() != ref.Hash() {
			t.Errorf("%s: hash changed\n%s\n%s", name, r.Canonical(), ref.Canonical())
		}
	}
	differ := map[string][2]string{
		"weight":           {"weight: 3", "weight: 2"},
		"threshold":        {"threshold: 70", "threshold: 71"},
		"anchor text":      {"5: right", "5: correct"},
		"anchor level":     {"3: partly", "2: partly"},
		"display name":     {"name: Policy accuracy", "name: Accuracy"},
		"description":      {"    weight: 3\n", "    weight: 3\n    description: x\n"},
		"scale":            {"[1, 5]", "[0, 5]"},
		"critical":         {"critical: 1", "critical: 0"},
		"blocking":         {"blocking: true", "blocking: false"},
		"na":               {"    weight: 3\n", "    weight: 3\n    na: true\n"},
		"alias order":      {"[S, safe]", "[safe, S]"},
		"notes":            {"notes_required_for: [0, 1]", "notes_required_for: [0]"},
		"family prefixes":  {"[z-, zz]", "[zz, z-]"},
		"rubric name":      {"name: s", "name: s2"},
		"version":          {"threshold: 70", "threshold: 70\nversion: '2'"},
		"criterion order":  {"  - id: accuracy", "  - id: accuracy0"},
		"added family":     {"  acme: [acme-]", "  acme: [acme-]\n  other: [o]"},
		"criterion id":     {"id: safety", "id: safe_ty"},
		"weight precision": {"weight: 3", "weight: 3.0000001"},
	}
	for name, d := range differ {
		src := strings.Replace(hashBase, d[0], d[1], 1)
		if src == hashBase {
			t.Fatalf("%s: replacement did not apply", name)
		}
		r, _, err := Load("c.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Hash() == ref.Hash() {
			t.Errorf("%s: hash did not change", name)
		}
	}
	if !strings.HasPrefix(ref.Hash(), "sha256:") || len(ref.Hash()) != len("sha256:")+64 {
		t.Errorf("hash %q", ref.Hash())
	}
}

func TestCanonicalForm(t *testing.T) {
	src := "name: c\ncriteria:\n  - id: a\n    scale: [0, 10]\n    anchors: {10: top, 2: two, 0: none, 5: mid}\n    critical: 0\n"
	r, _, err := Load("c.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"name":"c","threshold":0,"criteria":[{"id":"a","name":"a","weight":1,"scale":[0,10],"anchors":{"0":"none","2":"two","5":"mid","10":"top"},"critical":0}]}`
	if got := string(r.Canonical()); got != want {
		t.Errorf("canonical\n got %s\nwant %s", got, want)
	}
	// Canonical does not depend on how a code-built rubric spells defaults.
	code := &Rubric{Name: "c", Threshold: math.Copysign(0, -1), Criteria: []Criterion{{ID: "a", Weight: 1, Scale: Scale{0, 10},
		Anchors: map[int]string{0: "none", 2: "two", 5: "mid", 10: "top"}, Critical: new(float64), Aliases: []string{}}},
		NotesRequiredFor: []int{}, ModelFamilies: map[string][]string{}}
	if got := string(code.Canonical()); got != want {
		t.Errorf("code-built canonical\n got %s\nwant %s", got, want)
	}
}

func TestCanonicalRoundTrip(t *testing.T) {
	for _, name := range presets {
		r, _ := loadPreset(t, name)
		back, err := FromCanonical(r.Canonical())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(back.Canonical(), r.Canonical()) {
			t.Errorf("%s: round trip changed the canonical form", name)
		}
		if back.Hash() != r.Hash() {
			t.Errorf("%s: round trip changed the hash", name)
		}
	}
	r, _, err := Load("h.yaml", []byte(hashBase))
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromCanonical(r.Canonical())
	if err != nil || !bytes.Equal(back.Canonical(), r.Canonical()) {
		t.Errorf("round trip: %v", err)
	}
}

func TestFromCanonicalErrors(t *testing.T) {
	good := `{"name":"c","threshold":0,"criteria":[{"id":"a","name":"a","weight":1,"scale":[0,1]}]}`
	if _, err := FromCanonical([]byte(good)); err != nil {
		t.Fatalf("good: %v", err)
	}
	tests := []struct {
		name, src, msg string
	}{
		{"unknown top field", strings.Replace(good, `"threshold"`, `"treshold"`, 1), `unknown field "treshold"`},
		{"unknown criterion field", strings.Replace(good, `"weight"`, `"wieght"`, 1), `unknown field "wieght"`},
		{"trailing data", good + `{}`, "unexpected data after the rubric object"},
		{"not JSON", `name: c`, "decoding canonical form"},
		{"scale of three", strings.Replace(good, `[0,1]`, `[0,1,2]`, 1), "scale: expected [lowest, highest] integers"},
		{"float scale", strings.Replace(good, `[0,1]`, `[0,1.5]`, 1), "scale: expected [lowest, highest] integers"},
		{"reversed scale", strings.Replace(good, `[0,1]`, `[1,0]`, 1), "criteria[0].scale: expected [lowest, highest] integers with lowest < highest, got [1, 0]"},
		{"bad anchor key", strings.Replace(good, `"scale"`, `"anchors":{"x":"y"},"scale"`, 1), "decoding canonical form"},
		{"anchor outside", strings.Replace(good, `"scale"`, `"anchors":{"7":"y"},"scale"`, 1), "criteria[0].anchors.7: expected a level inside the scale"},
		{"no criteria", `{"name":"c","threshold":0,"criteria":[]}`, "criteria: expected at least one criterion"},
		{"blocking without critical", strings.Replace(good, `"weight"`, `"blocking":true,"weight"`, 1), "blocking needs critical"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := FromCanonical([]byte(tt.src))
			if err == nil || r != nil {
				t.Fatalf("no error (rubric %+v)", r)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not contain %q", err, tt.msg)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	ok := func() *Rubric {
		return &Rubric{Name: "v", Criteria: []Criterion{{ID: "a", Weight: 1, Scale: Scale{1, 5}}}}
	}
	if err := ok().Validate(); err != nil {
		t.Fatalf("valid rubric: %v", err)
	}
	tests := []struct {
		name   string
		mutate func(r *Rubric)
		want   string // the whole message: Validate errors carry no position
	}{
		{"no name", func(r *Rubric) { r.Name = "" }, "name: required; expected a non-empty rubric name"},
		{"zero scale", func(r *Rubric) { r.Criteria[0].Scale = Scale{} }, "criteria[0].scale: expected [lowest, highest] integers with lowest < highest, got [0, 0]"},
		{"zero weight", func(r *Rubric) { r.Criteria[0].Weight = 0 }, "criteria: the weights sum to 0; expected at least one criterion with weight > 0"},
		{"bad alias", func(r *Rubric) { r.Criteria[0].Aliases = []string{"a b"} }, `criteria[0].aliases[0]: expected a column name of letters, digits, '_', '.' or '-' (not starting with '.' or '-'), got "a b"`},
		{"empty family", func(r *Rubric) { r.ModelFamilies = map[string][]string{"": {"x"}} }, "model_families.: expected a non-empty family name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ok()
			tt.mutate(r)
			err := r.Validate()
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not a *rubric.Error", err)
			}
			if e.Line != 0 || e.Col != 0 || e.File != "" || err.Error() != tt.want {
				t.Errorf("got %+v (%q), want %q", e, err, tt.want)
			}
		})
	}
}

func TestScaleJSON(t *testing.T) {
	b, err := json.Marshal(Scale{-1, 3})
	if err != nil || string(b) != "[-1,3]" {
		t.Fatalf("marshal = %s, %v", b, err)
	}
	tests := []struct {
		src  string
		want Scale
		ok   bool
	}{
		{"[1,5]", Scale{1, 5}, true},
		{" [ -2 , 0 ] ", Scale{-2, 0}, true},
		{"[5,1]", Scale{5, 1}, true}, // order is Validate's business
		{"[1]", Scale{}, false},
		{"[1,2,3]", Scale{}, false},
		{"[1,2.5]", Scale{}, false},
		{`["1",2]`, Scale{}, false},
		{`{"low":1}`, Scale{}, false},
		{"[1,99999999999999999999]", Scale{}, false},
		{"null", Scale{}, false},
	}
	for _, tt := range tests {
		var s Scale
		err := json.Unmarshal([]byte(tt.src), &s)
		if (err == nil) != tt.ok || (tt.ok && s != tt.want) {
			t.Errorf("Unmarshal(%s) = %v, %v", tt.src, s, err)
		}
	}
}

func TestCriterionMarshalOrdersAnchors(t *testing.T) {
	c := Criterion{ID: "a", Name: "A", Weight: 1, Scale: Scale{-1, 10}, Anchors: map[int]string{10: "ten", -1: "neg", 2: "two"}}
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"a","name":"A","weight":1,"scale":[-1,10],"anchors":{"-1":"neg","2":"two","10":"ten"}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	var back Criterion
	if err := json.Unmarshal(b, &back); err != nil || back.Anchors[10] != "ten" || back.Scale != c.Scale {
		t.Errorf("unmarshal: %+v, %v", back, err)
	}
}

func TestReserved(t *testing.T) {
	for name, want := range map[string]bool{"id": true, " Notes ": true, "RETRIEVAL_MISS": true, "question": true, "grounding": false, "G": false} {
		if Reserved(name) != want {
			t.Errorf("Reserved(%q) = %v", name, !want)
		}
	}
}

func BenchmarkLoadPreset(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "rubrics", "production.yaml"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, _, err := Load("production.yaml", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkHash(b *testing.B) {
	r, _ := loadPreset(b, "production")
	for b.Loop() {
		_ = r.Hash()
	}
}

func TestErrorAndWarningText(t *testing.T) {
	tests := []struct {
		got, want string
	}{
		{(&Error{File: "f.yaml", Line: 3, Col: 7, Msg: "m"}).Error(), "f.yaml:3:7: m"},
		{(&Error{File: "f.yaml", Line: 3, Msg: "m"}).Error(), "f.yaml:3: m"},
		{(&Error{File: "f.yaml", Msg: "m"}).Error(), "f.yaml: m"},
		{(&Error{Msg: "m"}).Error(), "m"},
		{Warning{File: "f.yaml", Line: 2, Col: 1, Msg: "w"}.String(), "f.yaml:2:1: w"},
		{Warning{Msg: "w"}.String(), "w"},
		{clip("abcdef", 3), "abc…"},
		{string((&Rubric{Name: "n", Threshold: math.NaN()}).Canonical()), ""},
	}
	for i, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%d: got %q, want %q", i, tt.got, tt.want)
		}
	}
}
