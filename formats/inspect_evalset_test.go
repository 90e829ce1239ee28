package formats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evalSetDir writes an eval-set directory: eval-set.json with the task ids,
// logs.json as given, and an empty file per log name (the manifests alone
// decide).
func evalSetDir(t *testing.T, taskIDs []string, logs string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	var tasks []string
	for _, id := range taskIDs {
		tasks = append(tasks, `{"name":"x","task_id":"`+id+`","task_args":{},"model":"m","model_args":{},"sequence":0}`)
	}
	os.WriteFile(filepath.Join(dir, EvalSetManifest), []byte(`{"eval_set_id":"s","tasks":[`+strings.Join(tasks, ",")+`]}`), 0o644)
	os.WriteFile(filepath.Join(dir, LogsManifest), []byte(logs), 0o644)
	for _, f := range files {
		os.WriteFile(filepath.Join(dir, f), nil, 0o644)
	}
	return dir
}

func hdr(status, task, id string) string {
	return `{"version":2,"status":"` + status + `","eval":{"task":"` + task + `","task_id":"` + id + `","model":"m"}}`
}

func TestInspectEvalSet(t *testing.T) {
	logs, err := InspectEvalSet("testdata/inspect/evalset")
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2 || logs[0].Task != "capitals" || logs[1].Task != "popularity" || !strings.HasSuffix(logs[1].Path, "_popularity_cccccccccccccccccccccc.json") {
		t.Errorf("logs %+v", logs)
	}
	for _, c := range []struct {
		name string
		dir  string
		want string
	}{
		{"failed only", evalSetDir(t, []string{"a"}, `{"a.json":`+hdr("error", "ta", "a")+`}`, "a.json"),
			"task a has no successful log in logs.json (only a.json (error)): the eval set is not complete"},
		{"no log", evalSetDir(t, []string{"a", "b"}, `{"a.json":`+hdr("success", "ta", "a")+`}`, "a.json"),
			"task b has no successful log in logs.json (no log)"},
		{"two successes", evalSetDir(t, []string{"a"}, `{"a1.json":`+hdr("success", "ta", "a")+`,"a2.json":`+hdr("success", "ta", "a")+`}`, "a1.json", "a2.json"),
			"task a has 2 successful logs (a1.json, a2.json)"},
		{"one name", evalSetDir(t, []string{"a", "b"}, `{"a.json":`+hdr("success", "t", "a")+`,"b.json":`+hdr("success", "t", "b")+`}`, "a.json", "b.json"),
			`tasks a and b are both task "t"`},
		{"outside", evalSetDir(t, []string{"a"}, `{"../a.json":`+hdr("success", "ta", "a")+`}`),
			`log name "../a.json" is not a file inside the eval-set directory`},
		{"missing log", evalSetDir(t, []string{"a"}, `{"a.json":`+hdr("success", "ta", "a")+`}`),
			"the log a.json of task a:"},
	} {
		_, err := InspectEvalSet(c.dir)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := InspectEvalSet(t.TempDir()); err == nil || !strings.Contains(err.Error(), "expected an Inspect eval-set directory") {
		t.Errorf("empty directory: %v", err)
	}
}
