package layering

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/rubricgate/rubricgate/"

// imports returns the module packages pkg imports, directly or not (test
// files excluded).
func imports(t *testing.T, pkg string) map[string]bool {
	t.Helper()
	seen := map[string]bool{}
	var walk func(p string)
	walk = func(p string) {
		bp, err := build.ImportDir(filepath.Join("..", "..", filepath.FromSlash(p)), 0)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for _, imp := range bp.Imports {
			rel, ok := strings.CutPrefix(imp, module)
			if !ok || seen[rel] {
				continue
			}
			seen[rel] = true
			walk(rel)
		}
	}
	walk(pkg)
	return seen
}

// Each rule is a package and the packages it must not reach.
func TestNothingImportsUpward(t *testing.T) {
	rules := []struct {
		pkg   string
		never []string
	}{
		// gate scores, compares and decides: it reads no file.
		{"gate", []string{"results", "results/native", "formats", "gaterun", "render", "host"}},
		// The readers sit below results' detection and formats.
		{"results/native", []string{"results", "formats", "gaterun"}},
		{"formats", []string{"results", "gaterun"}},
		// The orchestration depends on host's interfaces; cmd picks the host.
		{"gaterun", []string{"host/github", "host/gitlab", "host/local", "cmd/rubricgate"}},
		// The rules the gate run follows live below it.
		{"host", []string{"gaterun", "publish", "tier", "render", "host/github", "host/gitlab", "host/local"}},
		{"tier", []string{"gaterun", "publish", "host"}},
		{"publish", []string{"gaterun", "tier", "host/github", "host/gitlab", "host/local", "cmd/rubricgate"}},
		// The family check is not calibration's.
		{"judge", []string{"calibrate", "gaterun"}},
		// calibrate owns its renderers.
		{"render", []string{"calibrate", "gaterun"}},
	}
	for _, r := range rules {
		got := imports(t, r.pkg)
		for _, n := range r.never {
			if got[n] {
				t.Errorf("%s imports %s (directly or not): the layering forbids it", r.pkg, n)
			}
		}
	}
}

// The walk sees real imports (so the rules above can fail).
func TestImportsSeesTheGraph(t *testing.T) {
	if !imports(t, "results")["formats"] || !imports(t, "formats")["results/native"] || !imports(t, "results")["gate"] {
		t.Error("the import walk misses known imports")
	}
}
