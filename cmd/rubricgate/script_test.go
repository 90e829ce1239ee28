package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/rubricgate/rubricgate/comment"
	"github.com/rubricgate/rubricgate/gaterun"
	"github.com/rubricgate/rubricgate/internal/ghfake"
	buildversion "github.com/rubricgate/rubricgate/internal/version"
)

// The command line's behaviours are txtar scripts in testdata/script, one
// file per behaviour with its inputs inline, run by testscript as the go
// command tests itself: `exec rubricgate ...` runs this test binary as the
// real command (TestMain), with exit status, stdout and stderr checked.
// The scripts have $REPO (the repository root, for the shipped rubrics and
// examples) and four commands: ghfake (a fake GitHub API; see cmdGHFake),
// status (the last run's exit status), jsonok (a file is one JSON value)
// and jsonedit (a JSON file edited, as by hand; see cmdJSONEdit).

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"rubricgate": scriptMain})
}

// scriptMain is the command as a script runs it: the process's streams and
// environment, the clock at testNow unless RUBRICGATE_TEST_NOW says
// otherwise (RFC 3339).
func scriptMain() {
	now := testNow
	if s := os.Getenv("RUBRICGATE_TEST_NOW"); s != "" {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			fmt.Fprintln(os.Stderr, "RUBRICGATE_TEST_NOW:", err)
			os.Exit(3)
		}
		now = t
	}
	code := run(os.Args[1:], &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv,
		now: func() time.Time { return now }})
	// The status command reads the exit status back: exec tells only
	// zero from non-zero, and 1 (blocked) from 2 (error) is the point.
	if w := os.Getenv("WORK"); w != "" {
		_ = os.WriteFile(filepath.Join(w, ".rubricgate-status"), []byte(strconv.Itoa(code)), 0o644)
	}
	os.Exit(code)
}

// cmdStatus checks the exit status of the last rubricgate run:
//
//	status 0|1|2
func cmdStatus(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 || neg {
		ts.Fatalf("usage: status N")
	}
	got := strings.TrimSpace(ts.ReadFile(filepath.Join(ts.Getenv("WORK"), ".rubricgate-status")))
	if got != args[0] {
		ts.Fatalf("exit status %s, want %s", got, args[0])
	}
}

func TestScripts(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(e *testscript.Env) error {
			e.Setenv("REPO", root)
			e.Setenv("VERSION", buildversion.Version) // a test binary has no module version: the const
			e.Values[tbKey{}] = e.T().(testing.TB)
			return nil
		},
		Cmds: map[string]func(*testscript.TestScript, bool, []string){"ghfake": cmdGHFake, "jsonok": cmdJSONOK, "status": cmdStatus, "jsonedit": cmdJSONEdit},
	})
}

type tbKey struct{}

// fakes are the scripts' GitHub fakes, by script.
var fakes sync.Map // *testscript.TestScript -> *scriptFake

type scriptFake struct {
	srv    *ghfake.Server
	issues *ghfake.Issues
	// head is the pull request's head commit, labels its labels; by
	// applies the labels added from now on (author wrote the pull request).
	head   string
	labels []string
	by     string
}

// The scripts' pull request's author, and who applies its labels unless
// ghfake by says otherwise.
const (
	scriptAuthor   = "octo-author"
	scriptReviewer = "octo-reviewer"
)

// label records that f.by applied the labels of ls not in had.
func (f *scriptFake) label(had, ls []string) {
	for _, l := range ls {
		if !slices.Contains(had, l) {
			f.issues.AddEvent(prNum, f.by, "labeled", l)
		}
	}
}

// cmdGHFake is the scripts' fake GitHub:
//
//	ghfake start [LABEL...]  start the fake API for acme/support-bot with pull request 17
//	                         (head feature, base main) and export the variables of a
//	                         pull_request run of GitHub Actions, the event carrying the
//	                         labels; the runner's files are $WORK/github_output,
//	                         $WORK/step_summary and $WORK/event.json
//	ghfake baseline FILE     upload FILE (a baseline.json) as the artifact of a passing
//	                         push run on main
//	ghfake comments          print the pull request's comments (a "--- comment ID by
//	                         LOGIN" line before each body)
//	ghfake requests          print the requests the fake answered, one a line:
//	                         "ROUTE METHOD PATH auth=true|false"
//	ghfake labels [LABEL...] the pull request's labels are now these (the event rewritten:
//	                         a synchronize event; a new one applied, in the pull
//	                         request's events, by octo-reviewer or the login of ghfake by)
//	ghfake unlabeled-since LABEL
//	                         LABEL was removed since the event was written, in the pull
//	                         request's events (by octo-reviewer or the login of ghfake
//	                         by); the event is left as it was, as a re-run keeps it
//	ghfake labeled-since LABEL
//	                         LABEL was applied since, as unlabeled-since removes it
//	ghfake by LOGIN          LOGIN applies the labels added from now on (the pull
//	                         request's author is octo-author)
//	ghfake labeled LABEL     LABEL is added to the pull request's labels: the event is the
//	                         labeled event that adds it
//	ghfake push SHA          the pull request's head is now SHA (API and event: a
//	                         synchronize event with the labels it has)
//	ghfake readonly          every comment write answers 403, as for a fork's token
//	ghfake fail ROUTE CODE   the next request of ROUTE answers CODE
//	ghfake plant USER RESULTS
//	                         USER posts a comment carrying the marker of this gate's
//	                         sticky comment (workflow evals, job gate, the support
//	                         rubric, the results input RESULTS), then "all good"
func cmdGHFake(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! ghfake")
	}
	if len(args) == 0 {
		ts.Fatalf("usage: ghfake start|baseline|comments|requests")
	}
	if args[0] == "start" {
		startFake(ts, args[1:])
		return
	}
	v, ok := fakes.Load(ts)
	if !ok {
		ts.Fatalf("ghfake %s: run ghfake start first", args[0])
	}
	f := v.(*scriptFake)
	switch args[0] {
	case "baseline":
		if len(args) != 2 {
			ts.Fatalf("usage: ghfake baseline FILE")
		}
		data, err := os.ReadFile(ts.MkAbs(args[1]))
		ts.Check(err)
		var zbuf bytes.Buffer
		zw := zip.NewWriter(&zbuf)
		w, err := zw.Create("baseline.json")
		ts.Check(err)
		_, err = w.Write(data)
		ts.Check(err)
		ts.Check(zw.Close())
		created := testNow.Add(-24 * time.Hour)
		f.srv.Add(ghfake.Artifact{ID: 1, Name: "rubricgate-baseline", CreatedAt: created, RunID: 501,
			RepositoryID: repoID, HeadRepositoryID: repoID, HeadBranch: "main", HeadSHA: "0123456789abcdef0123456789abcdef01234567", Zip: zbuf.Bytes()})
	case "comments":
		w := ts.Stdout() // set even when there is nothing to print
		for _, c := range f.issues.Comments(prNum) {
			fmt.Fprintf(w, "--- comment %d by %s\n%s\n", c.ID, c.User, c.Body)
		}
	case "requests":
		w := ts.Stdout()
		for _, r := range f.srv.Requests() {
			fmt.Fprintf(w, "%s %s auth=%v\n", r.Route, r, r.Auth != "")
		}
	case "labels":
		had := f.labels
		f.labels = append([]string(nil), args[1:]...)
		f.label(had, f.labels)
		writeEvent(ts, f, "")
	case "labeled":
		if len(args) != 2 {
			ts.Fatalf("usage: ghfake labeled LABEL")
		}
		f.labels = append(f.labels, args[1])
		f.label(nil, args[1:])
		writeEvent(ts, f, args[1])
	case "unlabeled-since", "labeled-since":
		if len(args) != 2 {
			ts.Fatalf("usage: ghfake %s LABEL", args[0])
		}
		f.issues.AddEvent(prNum, f.by, strings.TrimSuffix(args[0], "-since"), args[1])
	case "by":
		if len(args) != 2 {
			ts.Fatalf("usage: ghfake by LOGIN")
		}
		f.by = args[1]
	case "push":
		if len(args) != 2 || len(args[1]) != 40 {
			ts.Fatalf("usage: ghfake push SHA (40 hex digits)")
		}
		f.head = args[1]
		f.issues.AddPull(ghfake.PullRequest{Number: prNum, HeadSHA: f.head, HeadRef: "feature", BaseRef: "main"})
		writeEvent(ts, f, "")
	case "readonly":
		f.issues.SetReadOnly(true)
	case "fail":
		if len(args) != 3 {
			ts.Fatalf("usage: ghfake fail ROUTE CODE")
		}
		code, err := strconv.Atoi(args[2])
		ts.Check(err)
		f.srv.Fail(args[1], ghfake.Status(code, http.StatusText(code)))
	case "plant":
		if len(args) != 3 {
			ts.Fatalf("usage: ghfake plant USER RESULTS")
		}
		key := gaterun.DefaultCommentKey("evals", "gate", []string{args[2]})
		id := f.issues.AddComment(prNum, args[1], comment.Marker(key)+"\nall good")
		fmt.Fprintf(ts.Stdout(), "planted comment %d\n", id)
	default:
		ts.Fatalf("ghfake: unknown subcommand %q", args[0])
	}
}

// writeEvent writes $WORK/event.json: the pull_request event of pull
// request 17 at f's head with f's labels, synchronize or (added set) the
// labeled event adding that label.
func writeEvent(ts *testscript.TestScript, f *scriptFake, added string) {
	ls := []map[string]any{}
	for _, l := range f.labels {
		ls = append(ls, map[string]any{"name": l})
	}
	ev := map[string]any{
		"action": "synchronize", "number": prNum,
		"pull_request": map[string]any{"number": prNum, "head": map[string]any{"sha": f.head, "ref": "feature"},
			"base": map[string]any{"ref": "main"}, "labels": ls, "user": map[string]any{"login": scriptAuthor}},
		"repository": map[string]any{"id": repoID, "full_name": owner + "/" + repo, "default_branch": "main"},
	}
	if added != "" {
		ev["action"], ev["label"] = "labeled", map[string]any{"name": added}
		typ := "User"
		if strings.HasSuffix(f.by, "[bot]") {
			typ = "Bot"
		}
		ev["sender"] = map[string]any{"login": f.by, "type": typ}
	}
	data, err := json.Marshal(ev)
	ts.Check(err)
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("WORK"), "event.json"), data, 0o644))
}

func startFake(ts *testscript.TestScript, labels []string) {
	tb, _ := ts.Value(tbKey{}).(testing.TB)
	if tb == nil {
		ts.Fatalf("ghfake: no test")
	}
	srv := ghfake.New(tb, owner, repo, repoID)
	srv.AcceptTokens("ghs_faketoken123")
	issues := srv.ServeIssues()
	issues.AddPull(ghfake.PullRequest{Number: prNum, HeadSHA: headSHA, HeadRef: "feature", BaseRef: "main"})
	f := &scriptFake{srv: srv, issues: issues, head: headSHA, labels: append([]string(nil), labels...), by: scriptReviewer}
	f.label(nil, f.labels)
	fakes.Store(ts, f)
	ts.Defer(func() { fakes.Delete(ts) })

	writeEvent(ts, f, "")
	work := ts.Getenv("WORK")
	for k, v := range map[string]string{
		"GITHUB_ACTIONS": "true", "GITHUB_REPOSITORY": owner + "/" + repo, "GITHUB_API_URL": srv.API.URL + ghfake.Prefix,
		"GITHUB_SERVER_URL": "https://github.com", "GITHUB_EVENT_NAME": "pull_request",
		"GITHUB_SHA": strings.Repeat("f", 40), "GITHUB_REF": fmt.Sprintf("refs/pull/%d/merge", prNum),
		"GITHUB_RUN_ID": "9001", "GITHUB_WORKFLOW": "evals", "GITHUB_JOB": "gate", "RUNNER_TEMP": work,
		"GITHUB_OUTPUT": filepath.Join(work, "github_output"), "GITHUB_STEP_SUMMARY": filepath.Join(work, "step_summary"),
		"GITHUB_EVENT_PATH": filepath.Join(work, "event.json"), "INPUT_GITHUB-TOKEN": "ghs_faketoken123",
	} {
		ts.Setenv(k, v)
	}
}

// cmdJSONOK checks that a file (or the last command's stdout) is one JSON
// value and nothing else:
//
//	jsonok stdout|FILE
func cmdJSONOK(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: jsonok stdout|FILE")
	}
	text := ts.ReadFile(args[0])
	dec := json.NewDecoder(strings.NewReader(text))
	var v any
	err := dec.Decode(&v)
	if err == nil && dec.More() {
		err = fmt.Errorf("more after the first JSON value")
	}
	switch {
	case err != nil && !neg:
		ts.Fatalf("%s is not one JSON value: %v", args[0], err)
	case err == nil && neg:
		ts.Fatalf("%s is JSON", args[0])
	}
}

// cmdJSONEdit edits a JSON file as a hand or a tool might, numbers kept as
// written:
//
//	jsonedit set FILE PATH VALUE   set the member or element at PATH to the JSON VALUE
//	jsonedit del FILE PATH         remove the member or element at PATH
//
// PATH is dot-separated: object keys, and array indexes as numbers
// ("history.entries.2.score").
func cmdJSONEdit(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 || args[0] == "set" && len(args) != 4 || args[0] == "del" && len(args) != 3 || args[0] != "set" && args[0] != "del" {
		ts.Fatalf("usage: jsonedit set FILE PATH VALUE | jsonedit del FILE PATH")
	}
	file := ts.MkAbs(args[1])
	dec := json.NewDecoder(strings.NewReader(ts.ReadFile(args[1])))
	dec.UseNumber()
	var root any
	ts.Check(dec.Decode(&root))
	var val any
	if args[0] == "set" {
		d := json.NewDecoder(strings.NewReader(args[3]))
		d.UseNumber()
		ts.Check(d.Decode(&val))
	}
	keys := strings.Split(args[2], ".")
	// edit returns v with the member at keys set (or removed).
	var edit func(v any, keys []string) any
	edit = func(v any, keys []string) any {
		k := keys[0]
		switch c := v.(type) {
		case map[string]any:
			if len(keys) > 1 {
				c[k] = edit(c[k], keys[1:])
			} else if args[0] == "set" {
				c[k] = val
			} else {
				delete(c, k)
			}
			return c
		case []any:
			i, err := strconv.Atoi(k)
			if err != nil || i < 0 || i >= len(c) {
				ts.Fatalf("jsonedit: %q is not an index of an array of %d", k, len(c))
			}
			switch {
			case len(keys) > 1:
				c[i] = edit(c[i], keys[1:])
			case args[0] == "set":
				c[i] = val
			default:
				c = append(c[:i:i], c[i+1:]...)
			}
			return c
		}
		ts.Fatalf("jsonedit: %q: not inside an object or array", k)
		return nil
	}
	root = edit(root, keys)
	data, err := json.MarshalIndent(root, "", "  ")
	ts.Check(err)
	ts.Check(os.WriteFile(file, append(data, '\n'), 0o644))
}
