package publish

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
)

// fakeHost records what Publish does on a host.
type fakeHost struct {
	build              host.Build
	commenting         host.Commenting
	outputs            []host.Output
	summary            string
	summaryErr, outErr error
	annotations        []finding.Annotation
}

func (h *fakeHost) Build() *host.Build { return &h.build }
func (h *fakeHost) Annotate(a finding.Annotation) error {
	h.annotations = append(h.annotations, a)
	return nil
}
func (h *fakeHost) Summary(md string) error {
	h.summary = md
	return h.summaryErr
}
func (h *fakeHost) SetOutputs(outs []host.Output) error {
	h.outputs = outs
	return h.outErr
}
func (h *fakeHost) DefaultStore(host.StoreOptions) (baseline.Store, *baseline.Dir, error) {
	return nil, nil, nil
}
func (h *fakeHost) Commenting(host.CommentOptions) host.Commenting { return h.commenting }

type fakeCommenter struct {
	res  host.CommentResult
	err  error
	body string
}

func (c *fakeCommenter) Comment(_ context.Context, _, body string) (host.CommentResult, error) {
	c.body = body
	return c.res, c.err
}
func (c *fakeCommenter) BodyLimit(string) int { return 65536 }

func blocked() *Result {
	score := 70.0
	return &Result{
		Report: &gate.GateReport{Report: &gate.Report{Score: &score, Warnings: []string{"rubric warning", "run warning"}},
			Decision: gate.Block, Reasons: []string{"score dropped"}},
		Markdown: "## report", CommentKey: "k", RubricWarnings: 1,
	}
}

func outputs(h *fakeHost) map[string]string {
	m := map[string]string{}
	for _, o := range h.outputs {
		m[o.Name] = o.Value
	}
	return m
}

// The comment is posted before the files are committed, its address is an
// output, the summary is the markdown, and the log ends with what the
// comment did; the reasons and warnings are annotations on an annotating
// host, the rubric's warnings left out (already shown).
func TestPublishOnPullRequest(t *testing.T) {
	cm := &fakeCommenter{res: host.CommentResult{Action: "created", URL: "https://x/c/1"}}
	h := &fakeHost{build: host.Build{Host: "github", ChangeRequest: 7, ChangeRequestEvent: true},
		commenting: host.Commenting{Noun: "comment", Commenter: cm}}
	var log bytes.Buffer
	committed := false
	err := Publish(context.Background(), h, blocked(), Options{
		Comment: host.CommentOptions{Mode: host.CommentAuto}, ReportPath: "r.json", Log: &log, Annotate: true,
		Commit: func(last func() error) error {
			if cm.body != "## report" {
				t.Error("the comment was not posted before the commit")
			}
			committed = true
			return last()
		},
	})
	if err != nil || !committed {
		t.Fatalf("err %v, committed %v", err, committed)
	}
	out := outputs(h)
	if out["comment-url"] != "https://x/c/1" || out["decision"] != "block" || out["report"] != "r.json" || out["score"] != "70.0" || h.summary != "## report" {
		t.Errorf("outputs %v, summary %q", out, h.summary)
	}
	if !strings.HasPrefix(log.String(), "rubricgate: BLOCK\n  score 70.0\n") || !strings.HasSuffix(log.String(), "  comment created: https://x/c/1\n") {
		t.Errorf("log:\n%s", log.String())
	}
	if len(h.annotations) != 2 || h.annotations[0].Level != finding.Error || h.annotations[0].Message != "score dropped" || h.annotations[1].Message != "run warning" {
		t.Errorf("annotations %+v", h.annotations)
	}
}

// A failed comment is a warning and no address; a summary that cannot be
// written is a warning; outputs that cannot be written are the error, and
// nothing is logged then.
func TestPublishFailures(t *testing.T) {
	h := &fakeHost{build: host.Build{Host: "github", ChangeRequest: 7, ChangeRequestEvent: true},
		commenting: host.Commenting{Noun: "note", Commenter: &fakeCommenter{err: errors.New("403")}},
		summaryErr: fmt.Errorf("job summary: %w", errors.New("disk full"))}
	var warns []string
	var log bytes.Buffer
	o := Options{Comment: host.CommentOptions{Mode: host.CommentAlways}, Log: &log,
		Warn:   func(s string) { warns = append(warns, s) },
		Commit: func(last func() error) error { return last() }}
	if err := Publish(context.Background(), h, blocked(), o); err != nil {
		t.Fatal(err)
	}
	if outputs(h)["comment-url"] != "" || strings.Join(warns, "|") != "note not posted: 403|job summary not written: disk full|run warning" {
		t.Errorf("warnings %q", warns)
	}
	h.outErr = errors.New("step outputs: read-only")
	log.Reset()
	if err := Publish(context.Background(), h, blocked(), o); err == nil || log.Len() != 0 {
		t.Errorf("err %v, log %q", err, log.String())
	}
}

// Without a token the comment is a warning; a run that is not for a
// change request comments only when asked, with a warning; a host without
// comments says nothing.
func TestPublishCommentRules(t *testing.T) {
	for _, tc := range []struct {
		b    host.Build
		c    host.Commenting
		mode host.CommentMode
		warn string
	}{
		{host.Build{ChangeRequest: 7, ChangeRequestEvent: true}, host.Commenting{Noun: "comment", Missing: "no token"}, host.CommentAuto, "no token"},
		{host.Build{}, host.Commenting{Noun: "comment", Commenter: &fakeCommenter{}}, host.CommentAuto, ""},
		{host.Build{}, host.Commenting{Noun: "comment", Commenter: &fakeCommenter{}}, host.CommentAlways, "comment: always was asked but this run is not for a pull request"},
		{host.Build{ChangeRequest: 7, ChangeRequestEvent: true}, host.Commenting{Noun: "comment", Commenter: &fakeCommenter{}}, host.CommentNever, ""},
		{host.Build{}, host.Commenting{}, host.CommentAlways, ""},
	} {
		h := &fakeHost{build: tc.b, commenting: tc.c}
		var warns []string
		err := Publish(context.Background(), h, blocked(), Options{Comment: host.CommentOptions{Mode: tc.mode},
			Warn: func(s string) { warns = append(warns, s) }, Commit: func(last func() error) error { return last() }})
		if err != nil || strings.Join(warns, "|") != tc.warn {
			t.Errorf("%+v %s: warnings %q, %v", tc.b, tc.mode, warns, err)
		}
	}
	cm := &fakeCommenter{res: host.CommentResult{Action: "skipped-stale"}}
	h := &fakeHost{build: host.Build{ChangeRequest: 7, ChangeRequestEvent: true}, commenting: host.Commenting{Noun: "comment", Commenter: cm}}
	var log bytes.Buffer
	if err := Publish(context.Background(), h, blocked(), Options{Log: &log, Commit: func(last func() error) error { return last() }}); err != nil ||
		!strings.Contains(log.String(), "comment not updated: this run's commit is no longer the pull request's head") {
		t.Errorf("stale: %v\n%s", err, log.String())
	}
}
