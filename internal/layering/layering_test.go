package layering

import (
	"go/build"
	"io/fs"
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
		// The readers sit below results' detection and formats; formats
		// and results/native meet in package record, so results and
		// formats do not import each other's subtrees.
		{"results/native", []string{"results", "formats", "gaterun"}},
		{"formats", []string{"results", "results/native", "gaterun"}},
		{"record", []string{"results", "results/native", "formats", "gaterun"}},
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
	if !imports(t, "results")["formats"] || !imports(t, "formats")["record"] || !imports(t, "results/native")["record"] || !imports(t, "results")["gate"] {
		t.Error("the import walk misses known imports")
	}
}

// No two packages import each other's subtrees (a package's subtree is it
// and the packages below its directory): each pair is one room with
// arrows one way.
func TestNoSubtreesImportEachOther(t *testing.T) {
	var pkgs []string
	err := filepath.WalkDir(filepath.Join("..", ".."), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if n := d.Name(); n == "testdata" || strings.HasPrefix(n, ".") && p != filepath.Join("..", "..") {
			return filepath.SkipDir
		}
		if _, err := build.ImportDir(p, 0); err == nil {
			rel, _ := filepath.Rel(filepath.Join("..", ".."), p)
			pkgs = append(pkgs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	under := func(p, root string) bool { return p == root || strings.HasPrefix(p, root+"/") }
	direct := map[string][]string{}
	for _, p := range pkgs {
		bp, err := build.ImportDir(filepath.Join("..", "..", filepath.FromSlash(p)), 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range bp.Imports {
			if rel, ok := strings.CutPrefix(imp, module); ok {
				direct[p] = append(direct[p], rel)
			}
		}
	}
	// reaches reports whether a package of subtree a imports one of
	// subtree b (directly).
	reaches := func(a, b string) (string, string, bool) {
		for _, p := range pkgs {
			if !under(p, a) || under(p, b) {
				continue
			}
			for _, imp := range direct[p] {
				if under(imp, b) && !under(imp, a) {
					return p, imp, true
				}
			}
		}
		return "", "", false
	}
	for i, a := range pkgs {
		for _, b := range pkgs[i+1:] {
			if under(a, b) || under(b, a) || a == "." || b == "." {
				continue
			}
			p1, i1, ab := reaches(a, b)
			p2, i2, ba := reaches(b, a)
			if ab && ba {
				t.Errorf("%s and %s import each other's subtrees: %s imports %s, %s imports %s", a, b, p1, i1, p2, i2)
			}
		}
	}
}
