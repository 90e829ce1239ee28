package gaterun

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

func TestMaySaveInActions(t *testing.T) {
	for _, tt := range []struct {
		name string
		b    host.Build
		ok   bool
	}{
		{"push to the baseline branch", host.Build{Host: "github", Event: "push", Ref: "refs/heads/main", Branch: "main"}, true},
		{"push to another branch", host.Build{Host: "github", Event: "push", Ref: "refs/heads/feature", Branch: "feature"}, false},
		{"tag push", host.Build{Host: "github", Event: "push", Ref: "refs/tags/main"}, false},
		{"pull request", host.Build{Host: "github", Event: "pull_request", Ref: "refs/pull/1/merge", ChangeRequest: 1}, false},
		{"schedule on main", host.Build{Host: "github", Event: "schedule", Ref: "refs/heads/main", Branch: "main"}, false},
	} {
		var warned []string
		ok, why := host.MaySave(host.SaveInputs{Branch: "main"}, &tt.b, "main", func(s string) { warned = append(warned, s) })
		if ok != tt.ok || (!ok && why == "") {
			t.Errorf("%s: %v %q", tt.name, ok, why)
		}
		// A --branch that is not the run's is ignored, and said so.
		if (tt.b.Branch != "main") != (len(warned) == 1) {
			t.Errorf("%s: warnings %q", tt.name, warned)
		}
	}
}

func TestMaySaveOutsideActions(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	// Another host's build follows the rules outside Actions: a GitLab
	// merge request pipeline never saves, whatever --branch says.
	gl := &host.Build{Host: "gitlab", Event: "push", Ref: "refs/heads/main", Branch: "main"}
	if ok, why := host.MaySave(host.SaveInputs{Branch: "main", Getenv: env(map[string]string{"CI_MERGE_REQUEST_IID": "4"})}, gl, "main", nil); ok || !strings.Contains(why, "CI_MERGE_REQUEST_IID") {
		t.Errorf("a GitLab merge request's run saves: %q", why)
	}
	if ok, _ := host.MaySave(host.SaveInputs{Branch: "main", Getenv: env(nil)}, nil, "main", nil); !ok {
		t.Error("--branch main does not save")
	}
	if ok, why := host.MaySave(host.SaveInputs{Branch: "main", Getenv: env(map[string]string{"CI_MERGE_REQUEST_IID": "3"})}, nil, "main", nil); ok || !strings.Contains(why, "CI_MERGE_REQUEST_IID") {
		t.Errorf("a merge request's run saves: %q", why)
	}
	if ok, why := host.MaySave(host.SaveInputs{Getenv: env(map[string]string{"CIRCLE_BRANCH": "dev"})}, nil, "main", nil); ok || !strings.Contains(why, "CIRCLE_BRANCH") {
		t.Errorf("a run on dev saves: %q", why)
	}
	if ok, why := host.MaySave(host.SaveInputs{WorkDir: t.TempDir()}, nil, "main", nil); ok || !strings.Contains(why, "not in a git checkout") {
		t.Errorf("outside a checkout: %v %q", ok, why)
	}
}

// failingStore is a baseline store that cannot be reached.
type failingStore struct{}

func (failingStore) Latest(context.Context, baseline.Query) (*baseline.File, gate.BaselineSource, error) {
	return nil, gate.BaselineSource{}, errors.New("unreachable")
}

// noResults is a results source with nothing to score: Gate must not get
// that far when the store fails under on-baseline-error fail.
type noResults struct{ called bool }

func (n *noResults) Score(*rubric.Rubric, native.ScoreOptions) (*gate.Report, error) {
	n.called = true
	return nil, errors.New("no results")
}
func (n *noResults) CheckBlocking(*rubric.Rubric) (*gate.GateCheck, error) { return nil, nil }

func TestGateBaselineErrorPolicy(t *testing.T) {
	rb := &rubric.Rubric{Name: "r", Threshold: 50, Criteria: []rubric.Criterion{{ID: "a", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5}}}}
	src := &noResults{}
	_, err := Gate(context.Background(), Options{Rubric: rb, Results: src, Store: failingStore{}, OnBaselineError: BaselineErrorFail, Now: time.Now()})
	if err == nil || !strings.Contains(err.Error(), "baseline: unreachable") || src.called {
		t.Errorf("fail policy: %v (scored %v)", err, src.called)
	}
	var warned []string
	_, err = Gate(context.Background(), Options{Rubric: rb, Results: src, Store: failingStore{}, OnBaselineError: BaselineErrorPass, Now: time.Now(), Warn: func(s string) { warned = append(warned, s) }})
	if len(warned) != 1 || !strings.Contains(warned[0], "unreachable") || !src.called || err == nil {
		t.Errorf("pass policy: warned %q, scored %v, err %v", warned, src.called, err)
	}
}
