package publish

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

// A report is read with a cap and must be a gate report made inside
// GitHub Actions.
func TestReadReport(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.json", `{"rubric":{"name":"r"},"decision":"pass","context":{"repository":"a/b","run_id":1}}`)
	if g, err := ReadReport(ok, "10MiB"); err != nil || g.Context.RunID != 1 {
		t.Fatalf("%+v, %v", g, err)
	}
	for _, tc := range []struct{ path, max, want string }{
		{ok, "lots", "max-report"},
		{ok, "10B", "report"},
		{write("bad.json", `[1]`), "10MiB", "not a rubricgate gate report"},
		{write("local.json", `{"rubric":{"name":"r"},"decision":"pass"}`), "10MiB", "made inside GitHub Actions"},
		{filepath.Join(dir, "missing.json"), "10MiB", "report"},
	} {
		if _, err := ReadReport(tc.path, tc.max); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v", tc.path, tc.max, err)
		}
	}
}

func TestCheckReport(t *testing.T) {
	g := &gate.GateReport{Decision: gate.Pass, Report: &gate.Report{}, Context: &gate.RunContext{Repository: "o/r", RunID: 7, HeadSHA: "abc"}}
	if err := CheckReport(g, "r.json"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []*gate.GateReport{
		{Decision: "maybe", Report: &gate.Report{}, Context: g.Context},
		{Decision: gate.Block, Context: g.Context},
		{Decision: gate.Block, Report: &gate.Report{}},
	} {
		if err := CheckReport(bad, "r.json"); err == nil || !strings.Contains(err.Error(), "r.json") {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}
