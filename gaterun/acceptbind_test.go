package gaterun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/rubric"
)

// rewrite copies src into dir as name with old->new replacements.
func rewrite(t *testing.T, src, name string, pairs ...string) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	for i := 0; i < len(pairs); i += 2 {
		if !strings.Contains(s, pairs[i]) {
			t.Fatalf("%s: %q not found", src, pairs[i])
		}
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// F7: the accept label covers what it was applied for. Applied at one
// commit for a drop, it does not cover a later push that renames the
// safety criterion (a new kind of waived reason and another rubric), nor a
// drop larger by more than max-drop; the same drop at a later commit stays
// accepted.
func TestAcceptLabelBoundToWhatWasAccepted(t *testing.T) {
	rb := loadExample(t)
	labels := []string(nil)
	build := func(head string) *host.Build {
		return &host.Build{Host: "github", Repository: "o/r", Event: "pull_request", SHA: strings.Repeat("f", 40), HeadSHA: head,
			Ref: "refs/pull/3/merge", ChangeRequest: 3, ChangeRequestEvent: true, Labels: labels,
			RunID: 9, Workflow: "evals", Job: "gate", BaseBranch: "main"}
	}
	comment := "" // the sticky comment as the last run left it
	reader := func(context.Context, string) (string, bool, error) { return comment, comment != "", nil }
	gateRun := func(rb *rubric.Rubric, run, head string) *Outcome {
		t.Helper()
		o := options(rb, run, baseline.FileStore{Path: exampleBaseline})
		o.Build, o.Accept = build(head), reader
		res, err := Gate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		comment = res.Markdown
		return res
	}
	// The example run with lower accuracy: a drop, no blocking failure.
	dropped := rewrite(t, exampleRun, "run.jsonl", `"accuracy":5`, `"accuracy":3`)
	first := strings.Repeat("1", 40)
	// Blocked without the label; the comment shows the drop...
	res := gateRun(rb, dropped, first)
	if !res.Blocked() || !strings.HasPrefix(res.Markdown, shownPrefix+"sha="+first+" ") {
		t.Fatalf("without the label: %s\n%s", res.Report.Decision, strings.SplitN(res.Markdown, "\n", 2)[0])
	}
	// ...which the label then accepts.
	labels = []string{"rubricgate:accept-regression"}
	res = gateRun(rb, dropped, first)
	if res.Blocked() || !res.Report.Accepted {
		t.Fatalf("the label did not accept the drop: %q", res.Report.Reasons)
	}
	if !strings.HasPrefix(res.Markdown, acceptedPrefix+"sha="+first+" ") || !strings.Contains(res.Markdown, " kinds=drop ") {
		t.Fatalf("record:\n%s", strings.SplitN(res.Markdown, "\n", 2)[0])
	}

	// The same regression at a later commit: still accepted, bound to the first.
	if res = gateRun(rb, dropped, strings.Repeat("2", 40)); res.Blocked() {
		t.Fatalf("the same drop later is blocked: %q", res.Report.Reasons)
	}

	// A later push renames safety (rubric and results) and switches its
	// gate off: not covered.
	renamed := rewrite(t, exampleRubric, "support.yaml", "id: safety", "id: harmless", "blocking: true", "blocking: false")
	data, err := os.ReadFile(renamed)
	if err != nil {
		t.Fatal(err)
	}
	rb2, _, err := rubric.Load(renamed, data)
	if err != nil {
		t.Fatal(err)
	}
	run2 := rewrite(t, dropped, "run2.jsonl", `"safety"`, `"harmless"`)
	res = gateRun(rb2, run2, strings.Repeat("3", 40))
	if !res.Blocked() || res.Report.Accepted {
		t.Fatalf("the label covered a later rename of safety: %s %q", res.Report.Decision, res.Report.Reasons)
	}
	r0 := res.Report.Reasons[0]
	for _, want := range []string{"applied at commit 1111111 for drop", "this push adds", "rubric-change", "another rubric", "remove and re-add the label"} {
		if !strings.Contains(r0, want) {
			t.Errorf("reason lacks %q: %s", want, r0)
		}
	}
	// The record stays, still the first commit's: the next push is judged
	// against it too.
	if !strings.HasPrefix(res.Markdown, acceptedPrefix+"sha="+first+" ") {
		t.Errorf("record not kept:\n%s", strings.SplitN(res.Markdown, "\n", 2)[0])
	}

	// A later push that drops baseline items: a new kind, not covered.
	data, err = os.ReadFile(dropped)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSpace(string(data)), "\n")
	fewer := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(fewer, []byte(strings.Join(lines[:len(lines)-2], "")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res = gateRun(rb, fewer, strings.Repeat("5", 40))
	if !res.Blocked() || !strings.Contains(res.Report.Reasons[0], "removed-items") {
		t.Errorf("removing items is covered: %s %q", res.Report.Decision, res.Report.Reasons)
	}

	// A drop larger than the accepted one by more than max-drop.
	worse := rewrite(t, exampleRun, "run.jsonl", `"accuracy":5`, `"accuracy":1`)
	res = gateRun(rb, worse, strings.Repeat("4", 40))
	if !res.Blocked() || !strings.Contains(res.Report.Reasons[0], "a larger drop") {
		t.Errorf("a larger drop is covered: %s %q", res.Report.Decision, res.Report.Reasons)
	}
	// The revocation is a typed finding carrying what the label was applied
	// for and what this push adds.
	if f := res.Report.Findings[0]; f.Kind != finding.AcceptanceNotCovered || f.AcceptLabel != gate.DefaultPolicy.AcceptLabel || f.Commit == "" || len(f.Adds) != 1 || !strings.HasPrefix(f.Adds[0], "a larger drop") {
		t.Errorf("first finding %+v, want the acceptance not covered", f)
	}
	// The findings follow the revoked acceptance: every reason is an
	// error finding's text, none is left as an accepted notice.
	var texts []string
	for _, f := range res.Report.Findings {
		if f.Severity == finding.Warning {
			continue
		}
		if f.Severity != finding.Error || f.Label != "" {
			t.Errorf("finding %s: severity %s, label %q after the acceptance was revoked", f.Kind, f.Severity, f.Label)
		}
		texts = append(texts, f.Text())
	}
	if strings.Join(texts, "\n") != strings.Join(res.Report.Reasons, "\n") {
		t.Errorf("findings' texts %q, reasons %q", texts, res.Report.Reasons)
	}
}

// renamedStore answers as a local store whose slot for the rubric is empty
// while the branch holds another rubric's baseline.
type renamedStore struct{}

func (renamedStore) Latest(_ context.Context, q baseline.Query) (*baseline.File, gate.BaselineSource, error) {
	return nil, gate.BaselineSource{}, &baseline.OtherRubricsError{Rubric: q.Rubric, Branch: q.Branch, Found: []string{"support-answers"}}
}

// A label applied for a drop does not cover a later push that renames the
// rubric (accepted by the renamed-rubric rule with a warning only).
func TestAcceptLabelDoesNotCoverLaterRename(t *testing.T) {
	rb := loadExample(t)
	b := &host.Build{Host: "github", Repository: "o/r", Event: "pull_request", SHA: strings.Repeat("f", 40), HeadSHA: strings.Repeat("2", 40),
		Ref: "refs/pull/3/merge", ChangeRequest: 3, ChangeRequestEvent: true, Labels: []string{"rubricgate:accept-regression"},
		RunID: 9, Workflow: "evals", Job: "gate", BaseBranch: "main"}
	d := -0.05
	prev := gate.AcceptRecord{SHA: strings.Repeat("1", 40), Score: 77, Rubric: rb.Hash(), Kinds: []gate.Waiver{gate.WaiveDrop}, Drop: &d}
	o := options(rb, exampleRun, renamedStore{})
	o.Build = b
	o.Accept = func(context.Context, string) (string, bool, error) { return AcceptField(prev) + "\nbody", true, nil }
	res, err := Gate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Blocked() || !strings.Contains(res.Report.Reasons[0], string(gate.WaiveRenamedRubric)) {
		t.Errorf("a later rename is covered: %s %q", res.Report.Decision, res.Report.Reasons)
	}
	// Applied for the rename itself (no earlier record) once the comment
	// showed it, it is accepted.
	b.Labels = nil
	o.Accept = func(context.Context, string) (string, bool, error) { return "", false, nil }
	if res, err = Gate(context.Background(), o); err != nil || !res.Blocked() {
		t.Fatalf("the rename without the label: %v %s", err, res.Report.Decision)
	}
	shown := res.Markdown
	b.Labels = []string{"rubricgate:accept-regression"}
	o.Accept = func(context.Context, string) (string, bool, error) { return shown, true, nil }
	if res, err = Gate(context.Background(), o); err != nil || res.Blocked() || !strings.Contains(res.Markdown, "kinds="+string(gate.WaiveRenamedRubric)) {
		t.Errorf("the rename with the label: %v %q", err, res.Report.Reasons)
	}
}

// A label whose record cannot be read accepts nothing new: a failed read
// blocks and leaves a "lost" line, so the next run (read fine) does not take
// the label as freshly applied; removing the label drops the line, and adding
// it again accepts.
func TestAcceptLabelLostRecord(t *testing.T) {
	rb := loadExample(t)
	label := []string{"rubricgate:accept-regression"}
	b := &host.Build{Host: "github", Repository: "o/r", Event: "pull_request", SHA: strings.Repeat("f", 40), HeadSHA: strings.Repeat("1", 40),
		Ref: "refs/pull/3/merge", ChangeRequest: 3, ChangeRequestEvent: true, Labels: label, RunID: 9, Workflow: "evals", Job: "gate", BaseBranch: "main"}
	dropped := rewrite(t, exampleRun, "run.jsonl", `"accuracy":5`, `"accuracy":3`)
	comment, readErr := "", error(nil)
	o := options(rb, dropped, baseline.FileStore{Path: exampleBaseline})
	o.Build = b
	o.Accept = func(context.Context, string) (string, bool, error) { return comment, comment != "", readErr }
	run := func() *Outcome {
		t.Helper()
		res, err := Gate(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		comment = res.Markdown
		return res
	}
	readErr = errors.New("502 Bad Gateway")
	if res := run(); !res.Blocked() || res.Report.Findings[0].Kind != finding.AcceptanceUnreadable || !strings.HasPrefix(res.Markdown, lostField+"\n") {
		t.Fatalf("read error: %s %q", res.Report.Decision, res.Report.Reasons)
	}
	readErr = nil
	if res := run(); !res.Blocked() || !strings.Contains(res.Report.Reasons[0], "an earlier run could not read it") {
		t.Fatalf("after a lost record: %s %q", res.Report.Decision, res.Report.Reasons)
	}
	b.Labels = nil
	if res := run(); !res.Blocked() || strings.Contains(res.Markdown, acceptedPrefix) {
		t.Fatalf("label removed: %s\n%s", res.Report.Decision, res.Markdown)
	}
	b.Labels = label
	if res := run(); res.Blocked() || !res.Report.Accepted {
		t.Fatalf("label added again: %s %q", res.Report.Decision, res.Report.Reasons)
	}
}
