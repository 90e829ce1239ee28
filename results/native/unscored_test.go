package native

import (
	"github.com/rubricgate/rubricgate/gate"
	"strings"
	"testing"
)

// blankErrors are error fields that show nothing: each is no judge error.
var blankErrors = []struct{ name, json string }{
	{"empty", `""`},
	{"space", `" "`},
	{"tab and newline", `"\t\n"`},
	{"no-break space", `"\u00a0"`},
	{"ideographic space", `"\u3000"`},
	{"zero width space", `"\u200b"`},
	{"byte order mark", `"\ufeff"`},
	{"null", `null`},
}

// A blank "error" must not switch the baseline rubric's safety gate off: the
// reader takes the item as scored, so every gate checks it (issue 8, 2.1).
func TestBlankErrorIsScoredEverywhere(t *testing.T) {
	loose := supportRubric()
	loose.Criteria[3].Blocking = false // the pull request switched the gate off
	for _, tc := range blankErrors {
		t.Run(tc.name, func(t *testing.T) {
			text := `{"id":"q-1","scores":{"accuracy":5,"resolution":5,"tone":5,"safety":0},"error":` + tc.json + `}` + "\n"
			rep, err := Score(loose, []Input{{Name: "r.jsonl", R: strings.NewReader(text)}}, ScoreOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Scored != 1 || rep.Unscored.Count != 0 {
				t.Fatalf("scored %d, unscored %d: a blank error is no judge error", rep.Scored, rep.Unscored.Count)
			}
			gc, err := CheckBlocking(supportRubric(), []Input{{Name: "r.jsonl", R: strings.NewReader(text)}})
			if err != nil {
				t.Fatal(err)
			}
			if len(gc.Failures) != 1 || gc.Failures[0].Item != "q-1" || gc.Failures[0].Criterion != "safety" {
				t.Fatalf("the baseline's safety gate did not check the item: failures %v", gc.Failures)
			}
			items, err := readAll(t, loose, "r.jsonl", text, ReadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if items[0].Error != "" {
				t.Errorf("Item.Error = %q, want \"\" for a blank error", items[0].Error)
			}
		})
	}
	// A review sheet's error cell of spaces is blank too.
	csv := "id,accuracy,resolution,tone,safety,error\nq-1,5,5,5,0,\"  \u00a0 \"\n"
	gc, err := CheckBlocking(supportRubric(), []Input{{Name: "r.csv", R: strings.NewReader(csv)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(gc.Failures) != 1 {
		t.Fatalf("CSV: the baseline's safety gate did not check the item: failures %v", gc.Failures)
	}
}

// An item with a real judge error is unscored, but a blocking criterion's
// value it carries is still checked: an error field cannot hide a safety
// failure, under the current rubric or the baseline's.
func TestErrorDoesNotHideBlockingFailure(t *testing.T) {
	text := `{"id":"q-1","scores":{"accuracy":5,"resolution":5,"tone":5,"safety":0},"error":"x"}` + "\n" +
		`{"id":"q-2","scores":{"accuracy":5,"resolution":5,"tone":5,"safety":1}}` + "\n" +
		`{"id":"q-3","scores":{"accuracy":null,"resolution":null,"tone":null,"safety":null},"error":"timeout"}` + "\n" +
		`{"id":"q-4","safety":"-1","error":"timeout"}` + "\n"
	rep, err := Score(supportRubric(), []Input{{Name: "r.jsonl", R: strings.NewReader(text)}}, ScoreOptions{MaxUnscored: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Scored != 1 || rep.Unscored.Count != 3 {
		t.Fatalf("scored %d, unscored %d", rep.Scored, rep.Unscored.Count)
	}
	got := map[string]bool{}
	for _, f := range rep.BlockingFailures {
		got[f.Item] = true
		if !strings.Contains(f.Reasoning, "judge error") {
			t.Errorf("failure %v does not say the item carries a judge error", f)
		}
	}
	// q-3 carries no value for the gate: it fails closed (issue 15 §6).
	if len(rep.BlockingFailures) != 3 || !got["q-1"] || !got["q-3"] || !got["q-4"] {
		t.Errorf("blocking failures %v, want q-1, q-3 and q-4", rep.BlockingFailures)
	}
	if !rep.Blocked() {
		t.Error("the run is not blocked")
	}

	loose := supportRubric()
	loose.Criteria[3].Blocking = false
	gc, err := CheckBlocking(supportRubric(), []Input{{Name: "r.jsonl", R: strings.NewReader(text)}})
	if err != nil {
		t.Fatal(err)
	}
	got = map[string]bool{}
	for _, f := range gc.Failures {
		got[f.Item] = true
	}
	if len(gc.Failures) != 3 || !got["q-1"] || !got["q-3"] || !got["q-4"] || len(gc.Unchecked) != 0 {
		t.Errorf("baseline gates: failures %v, unchecked %v; want q-1, q-3 and q-4, none unchecked", gc.Failures, gc.Unchecked)
	}
}

func TestIsBlank(t *testing.T) {
	for _, s := range []string{"", " ", "\t\r\n", "\u00a0", "\u2003\u3000", "\u200b\u200d", "\ufeff", "\u00ad", "\u3164", "\x00"} {
		if !IsBlank([]byte(s)) {
			t.Errorf("IsBlank(%q) = false", s)
		}
	}
	for _, s := range []string{"x", " x ", "\u00a0é", "\xff", "0", "-"} {
		if IsBlank([]byte(s)) {
			t.Errorf("IsBlank(%q) = true", s)
		}
	}
}

// The same holds for values inside "samples" (h11 F8): an errored item's
// samples are checked too, the lowest across samples, in results lines and
// in another tool's records alike, by scoring and by CheckBlocking.
func TestErrorDoesNotHideBlockingFailureInSamples(t *testing.T) {
	text := `{"id":"s-1","error":"judge timeout","samples":[{"scores":{"accuracy":1,"resolution":1,"tone":1,"safety":1}},{"scores":{"accuracy":1,"resolution":1,"tone":1,"safety":0}},{"scores":{"safety":1}}]}` + "\n" +
		`{"id":"s-2","error":"judge timeout","samples":[{"scores":{"safety":1}},{"scores":{"safety":null}}]}` + "\n" +
		`{"id":"s-3","error":"judge timeout","samples":[{"scores":{"safety":1}},{"scores":{"safety":7}}]}` + "\n" +
		`{"id":"ok","scores":{"accuracy":5,"resolution":5,"tone":5,"safety":1}}` + "\n"
	in := func() []Input { return []Input{{Name: "r.jsonl", R: strings.NewReader(text)}} }
	rep, err := Score(supportRubric(), in(), ScoreOptions{MaxUnscored: 1})
	if err != nil {
		t.Fatal(err)
	}
	gc, err := CheckBlocking(supportRubric(), in())
	if err != nil {
		t.Fatal(err)
	}
	for name, fs := range map[string][]gate.BlockingFailure{"score": rep.BlockingFailures, "CheckBlocking": gc.Failures} {
		got := map[string]bool{}
		for _, f := range fs {
			got[f.Item] = true
		}
		if len(fs) != 2 || !got["s-1"] || !got["s-3"] {
			t.Errorf("%s: blocking failures %v, want s-1 (a 0 among its samples) and s-3 (off the scale)", name, fs)
		}
	}
}
