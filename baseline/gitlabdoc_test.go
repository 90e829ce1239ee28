package baseline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The GitLab recipe (docs/gitlab.md) names the store's files itself: its
// esc function must escape a branch or rubric name exactly as the store
// does (issue 15 §4), or a merge request would look for its target's
// baseline under another name and find none.
func TestGitLabRecipeEscapesLikeTheStore(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for _, tool := range []string{"od", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s", tool)
		}
	}
	doc, err := os.ReadFile("../docs/gitlab.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(doc)
	i := strings.Index(text, "      esc() {\n")
	j := strings.Index(text[max(i, 0):], "\n      }\n")
	if i < 0 || j < 0 {
		t.Fatal("docs/gitlab.md has no esc() function")
	}
	fn := text[i : i+j+len("\n      }\n")]
	for _, name := range []string{"main", "release/1.2", "feature/ä-ü", ".hidden", "a.b", "x y+z%", "trunk~1"} {
		p, err := Dir{Root: "r"}.Path(Query{Rubric: "support-answers", Branch: name})
		if err != nil {
			t.Fatal(err)
		}
		want := strings.TrimSuffix(filepath.Base(p), ".json")
		out, err := exec.Command(sh, "-c", fn+`esc "$1" store`, "sh", name).Output()
		if err != nil {
			t.Fatalf("%q: %v", name, err)
		}
		if string(out) != want {
			t.Errorf("esc %q = %q, the store names it %q", name, out, want)
		}
		url, err := exec.Command(sh, "-c", fn+`esc "$1" url`, "sh", want+".json").Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.ReplaceAll(string(url), "%25", "%"); got != want+".json" || strings.ContainsAny(string(url), "/ ") {
			t.Errorf("url-encoding %q = %q", want+".json", url)
		}
	}
}
