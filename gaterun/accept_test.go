package gaterun

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
)

const headSHA = "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"

func TestParseAccepted(t *testing.T) {
	d := -0.0659
	h := "sha256:" + strings.Repeat("0f", 32)
	for _, a := range []gate.AcceptRecord{
		{SHA: headSHA, Score: 75.25, Legacy: true},
		{SHA: headSHA, Score: 75.25, Rubric: h, Kinds: []gate.Waiver{gate.WaiveDrop, gate.WaiveRubricChange}, Drop: &d},
		{SHA: headSHA, Score: 75.25, Rubric: h, Kinds: []gate.Waiver{}},
		{SHA: headSHA, Score: 75.25, Rubric: h, Kinds: []gate.Waiver{gate.WaiveRemovedItems}, Items: h},
	} {
		if got, ok := ParseAccepted(AcceptField(a) + "\n### report"); !ok || !reflect.DeepEqual(got, a) {
			t.Errorf("round trip: %+v %v, want %+v", got, ok, a)
		}
	}
	for _, bad := range []string{"", "### report\n" + AcceptField(gate.AcceptRecord{SHA: headSHA}), acceptedPrefix + "sha=xyz score=1 -->", acceptedPrefix + "sha=" + headSHA + " score=abc -->",
		acceptedPrefix + "sha=" + headSHA + " score=1 rubric=x kinds=drop -->",
		acceptedPrefix + "sha=" + headSHA + " score=1 rubric=" + h + " kinds=drop items=x -->",
		lostField,
		acceptedPrefix + "sha=" + headSHA + " score=1 rubric=sha256:" + strings.Repeat("0f", 32) + " kinds=everything -->"} {
		if _, ok := ParseAccepted(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// The shown line reads back as written, after the accepted or lost line or
// first; nothing else is taken for it: a line in the report body, a
// malformed one, one without the label state.
func TestParseShown(t *testing.T) {
	d := -0.09
	h := "sha256:" + strings.Repeat("0f", 32)
	r := gate.AcceptRecord{SHA: headSHA, Score: 81.25, Rubric: h, Kinds: []gate.Waiver{gate.WaiveDrop, gate.WaiveRemovedItems}, Drop: &d, Items: h}
	acc := AcceptField(gate.AcceptRecord{SHA: headSHA, Score: 70, Rubric: h, Kinds: []gate.Waiver{gate.WaiveDrop}, Drop: &d})
	for _, on := range []bool{false, true} {
		for _, body := range []string{ShownField(r, on) + "\n## report", acc + "\n" + ShownField(r, on) + "\n## report", lostField + "\n" + ShownField(r, on) + "\nx"} {
			got, gotOn := parseShown(body)
			if got == nil || !reflect.DeepEqual(*got, r) || gotOn != on {
				t.Errorf("%q: %+v %v", body, got, gotOn)
			}
		}
	}
	line := ShownField(r, true)
	for _, bad := range []string{"", "## report\n" + line, acc + "\n## report\n" + line, strings.Replace(line, " label=on", "", 1),
		strings.Replace(line, " label=on", " label=maybe", 1), strings.Replace(line, "sha="+headSHA, "sha=xyz", 1),
		strings.Replace(line, "kinds=drop,removed-items", "kinds=everything", 1), strings.Replace(line, " kinds=drop,removed-items", "", 1)} {
		if got, _ := parseShown(bad); got != nil {
			t.Errorf("%q parsed: %+v", bad, got)
		}
	}
}

// What the run knows of the label: bound to the shown line whenever the
// comment can be read back; a labeled event with no comment to read back
// is the one unbound acceptance.
func TestReadAcceptanceShown(t *testing.T) {
	const label = "rubricgate:accept-regression"
	d := -0.09
	h := "sha256:" + strings.Repeat("0f", 32)
	shown := gate.AcceptRecord{SHA: headSHA, Score: 81.25, Rubric: h, Kinds: []gate.Waiver{gate.WaiveDrop}, Drop: &d}
	rec := gate.AcceptRecord{SHA: headSHA, Score: 80, Rubric: h, Kinds: []gate.Waiver{gate.WaiveDrop}, Drop: &d}
	read := func(body string) func(context.Context, string) (string, bool, error) {
		return func(context.Context, string) (string, bool, error) { return body, body != "", nil }
	}
	warn := func(string) {}
	sync := &host.Build{HeadSHA: headSHA, ChangeRequest: 3, ChangeRequestEvent: true, Labels: []string{label}}
	labeled := *sync
	labeled.LabelAdded = label
	for _, tt := range []struct {
		name    string
		b       *host.Build
		prev    func(context.Context, string) (string, bool, error)
		want    gate.AcceptState
		shown   bool
		labeled bool
		applied bool
		unbound bool
	}{
		{"synchronize, no comment", sync, read(""), gate.AcceptFresh, false, false, false, false},
		{"synchronize, shown off", sync, read(ShownField(shown, false) + "\nx"), gate.AcceptFresh, true, false, false, false},
		{"synchronize, shown on", sync, read(ShownField(shown, true) + "\nx"), gate.AcceptFresh, true, true, false, false},
		{"synchronize, recorded", sync, read(AcceptField(rec) + "\n" + ShownField(shown, true) + "\nx"), gate.AcceptRecorded, true, true, false, false},
		{"labeled, recorded", &labeled, read(AcceptField(rec) + "\n" + ShownField(shown, true) + "\nx"), gate.AcceptFresh, true, true, true, false},
		{"labeled, no comment", &labeled, read(""), gate.AcceptFresh, false, false, true, false},
		{"labeled, no read back", &labeled, nil, gate.AcceptFresh, false, false, true, true},
		{"synchronize, no read back", sync, nil, gate.AcceptUnreadable, false, false, false, false},
	} {
		a := readAcceptance(context.Background(), tt.b, tt.prev, label, "k", warn)
		if a.State != tt.want || (a.Shown != nil) != tt.shown || a.ShownLabeled != tt.labeled || a.Applied != tt.applied || a.Unbound != tt.unbound || a.HeadSHA != headSHA {
			t.Errorf("%s: %+v", tt.name, a)
		}
		if tt.shown && !reflect.DeepEqual(*a.Shown, shown) {
			t.Errorf("%s: shown %+v", tt.name, *a.Shown)
		}
	}
}

// Who applied the accept label decides whether it accepts (accept-by):
// the labeled event's sender when its adding started the run, else the
// host's answer. The author's own label accepts nothing and the comment
// says why; an applier nobody can name accepts nothing; a reviewer's label
// accepts, and the comment and the JSON name them; accept-by anyone takes
// the author's label too.
func TestAcceptByAuthor(t *testing.T) {
	rb := loadExample(t)
	head := strings.Repeat("a", 40)
	data, err := os.ReadFile(exampleRun)
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(run, []byte(strings.ReplaceAll(string(data), `"accuracy":5`, `"accuracy":2`)), 0o644); err != nil {
		t.Fatal(err)
	}
	asked := 0
	gateRun := func(sender string, answer gate.Actor, answerErr error, by gate.AcceptByPolicy) *Outcome {
		t.Helper()
		o := options(rb, run, baseline.FileStore{Path: exampleBaseline})
		o.Build = &host.Build{Host: "github", Repository: "o/r", Event: "pull_request", SHA: strings.Repeat("f", 40), HeadSHA: head,
			Ref: "refs/pull/3/merge", ChangeRequest: 3, ChangeRequestEvent: true, Labels: []string{"rubricgate:accept-regression"},
			LabelAdded: "rubricgate:accept-regression", LabelAddedBy: sender, Author: "mallory",
			RunID: 9, Workflow: "evals", Job: "gate", BaseBranch: "main"}
		o.AcceptBy = by
		o.LabelActor = func(context.Context, string) (gate.Actor, error) { asked++; return answer, answerErr }
		res, err := Gate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// The author applies the label to their own drop (the event's sender).
	res := gateRun("mallory", gate.Actor{}, nil, "")
	g := res.Report
	if !res.Blocked() || g.Accepted || g.Findings[0].Kind != finding.AcceptanceByAuthor || asked != 0 {
		t.Fatalf("the author's label: %s %q (asked %d)", g.Decision, g.Reasons, asked)
	}
	if !strings.Contains(res.Markdown, "applied by `mallory`, the pull request's author: it accepts nothing") || strings.Contains(res.Markdown, acceptedPrefix) {
		t.Errorf("the comment does not say why, or keeps a record:\n%s", res.Markdown)
	}
	js, _ := json.Marshal(g.Acceptance)
	for _, want := range []string{`"applied_by":"mallory"`, `"author":"mallory"`, `"accept_by":"others"`, `"refused":"by-author"`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("the JSON lacks %s: %s", want, js)
		}
	}
	// No sender in the event: the host is asked; its error leaves the
	// applier unknown, which accepts nothing.
	res = gateRun("", gate.Actor{}, errors.New("403 Resource not accessible by integration"), "")
	if !res.Blocked() || res.Report.Findings[0].Kind != finding.AcceptanceByUnknown || asked != 1 || !strings.Contains(res.Markdown, "Resource not accessible") {
		t.Errorf("unknown applier: %s %q (asked %d)", res.Report.Decision, res.Report.Reasons, asked)
	}
	// A reviewer named by the host: accepted, and named.
	res = gateRun("", gate.Actor{AppliedBy: "alice"}, nil, "")
	if res.Blocked() || !res.Report.Accepted || !strings.Contains(res.Markdown, "label applied by `alice` at commit") || res.Report.Acceptance.AppliedBy != "alice" {
		t.Errorf("a reviewer's label: %s %q\n%s", res.Report.Decision, res.Report.Reasons, res.Markdown)
	}
	// accept-by anyone: the author's label accepts.
	if res = gateRun("mallory", gate.Actor{}, nil, gate.AcceptByAnyone); res.Blocked() || !res.Report.Accepted {
		t.Errorf("accept-by anyone: %s %q", res.Report.Decision, res.Report.Reasons)
	}
}
