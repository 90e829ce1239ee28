package baseline

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/gate"
)

func TestEscapeName(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{in: "main", want: "main"},
		{in: "rag-review_v2.1", want: "rag-review_v2.1"},
		{in: "release/1.2", want: "release%2F1.2"},
		{in: "..", want: "%2E."},
		{in: ".", want: "%2E"},
		{in: ".hidden", want: "%2Ehidden"},
		{in: "a%2Fb", want: "a%252Fb"},
		{in: `a\b`, want: "a%5Cb"},
		{in: "x y:z", want: "x%20y%3Az"},
		{in: "é", want: "%C3%A9"},
		{in: "", err: "empty branch"},
		{in: strings.Repeat("/", 70), err: "too long"},
	}
	for _, tt := range tests {
		got, err := escapeName("branch", tt.in)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("escapeName(%q) = %q, %v; want error %q", tt.in, got, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("escapeName(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	// Distinct names never share a path.
	names := []string{"a/b", "a%2Fb", "a_b", "a-b", ".a", "%2Ea", "a.", "A"}
	seen := map[string]string{}
	for _, n := range names {
		e, _ := escapeName("branch", n)
		if prev, ok := seen[e]; ok {
			t.Errorf("%q and %q both escape to %q", prev, n, e)
		}
		seen[e] = n
	}
}

func TestDirSaveLatest(t *testing.T) {
	root := t.TempDir()
	d := Dir{Root: root}
	q := Query{Rubric: "rag-review", Branch: "release/1.2"}
	ctx := context.Background()

	if _, _, err := d.Latest(ctx, q); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty dir: %v, want ErrNotFound", err)
	}
	f := testFile(t, "rag-review")
	if err := d.Save(q, f); err != nil {
		t.Fatalf("Save: %v", err)
	}
	want := filepath.Join(root, "rag-review", "release%2F1.2.json")
	if p, _ := d.Path(q); p != want {
		t.Errorf("Path = %s, want %s", p, want)
	}
	got, src, err := d.Latest(ctx, q)
	if err != nil {
		t.Fatalf("Latest: %v", err)
	}
	if got.Rubric != f.Rubric || got.Items.Len() != f.Items.Len() {
		t.Errorf("Latest read %+v", got)
	}
	if src.Kind != "dir" || src.Location != want || src.SHA != testMeta.SHA || src.RunID != testMeta.RunID {
		t.Errorf("source = %+v", src)
	}
	// Other branch, and another rubric on a branch no rubric has: not found.
	for _, oq := range []Query{{Rubric: "rag-review", Branch: "main"}, {Rubric: "other", Branch: "main"}} {
		if _, _, err := d.Latest(ctx, oq); !errors.Is(err, ErrNotFound) {
			t.Errorf("Latest(%+v) = %v, want ErrNotFound", oq, err)
		}
	}
	// Saving under another rubric's name is refused.
	if err := d.Save(Query{Rubric: "other", Branch: "main"}, f); err == nil {
		t.Error("Save under the wrong rubric succeeded")
	}
	// A file for another rubric placed by hand is a store error.
	if err := os.MkdirAll(filepath.Join(root, "other"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "other", "main.json"), encode(t, f), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = d.Latest(ctx, Query{Rubric: "other", Branch: "main"})
	if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `rubric "rag-review", not "other"`) {
		t.Errorf("mismatched rubric: %v", err)
	}
	// A corrupt file is a store error, not "no baseline".
	if err := os.WriteFile(want, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Latest(ctx, q); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("corrupt file: %v", err)
	}
	if _, _, err := (Dir{}).Latest(ctx, q); err == nil {
		t.Error("Dir without root succeeded")
	}
}

// failAfter fails once n bytes have been written.
type failAfter struct {
	w io.Writer
	n int
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) > f.n {
		k, _ := f.w.Write(p[:f.n])
		f.n = 0
		return k, errors.New("disk full")
	}
	f.n -= len(p)
	return f.w.Write(p)
}

func TestDirSaveCrashSafe(t *testing.T) {
	root := t.TempDir()
	q := Query{Rubric: "rag-review", Branch: "main"}
	old := testFile(t, "rag-review")
	if err := (Dir{Root: root}).Save(q, old); err != nil {
		t.Fatal(err)
	}
	path, _ := Dir{Root: root}.Path(q)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rb := testRubric("rag-review")
	newer, err := New(rb, reportOf(rb, genItems(5000)), genItems(5000), testMeta)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 100, 4096} {
		d := Dir{Root: root, wrap: func(w io.Writer) io.Writer { return &failAfter{w: w, n: n} }}
		err := d.Save(q, newer)
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("failing write after %d bytes: Save = %v", n, err)
		}
		after, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(after, before) {
			t.Fatalf("after a failed Save the old baseline changed (err %v)", err)
		}
		ents, err := os.ReadDir(filepath.Dir(path))
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != 1 || ents[0].Name() != "main.json" {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("directory holds %v; want only main.json (temporary file left behind)", names)
		}
	}
	// A successful save replaces it.
	if err := (Dir{Root: root}).Save(q, newer); err != nil {
		t.Fatal(err)
	}
	got, _, err := Dir{Root: root}.Latest(context.Background(), q)
	if err != nil || got.Score != newer.Score || got.Items.Len() != 5000 {
		t.Fatalf("after a good Save: err %v", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode(), err)
	}
}

func TestFileStore(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "b.json")
	ctx := context.Background()
	_, _, err := FileStore{Path: path}.Latest(ctx, Query{Rubric: "rag-review"})
	if err == nil || errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "b.json") {
		t.Fatalf("missing named file: %v; want a store error naming it", err)
	}
	if err := os.WriteFile(path, encode(t, testFile(t, "rag-review")), 0o644); err != nil {
		t.Fatal(err)
	}
	f, src, err := FileStore{Path: path}.Latest(ctx, Query{Rubric: "rag-review", Branch: "ignored"})
	if err != nil {
		t.Fatal(err)
	}
	if f.Rubric.Name != "rag-review" || src != (gate.BaselineSource{Kind: "file", Location: path, SHA: testMeta.SHA, Ref: testMeta.Ref,
		Repository: testMeta.Repository, RunID: testMeta.RunID, RunURL: testMeta.RunURL, CreatedAt: testCreated}) {
		t.Errorf("got %+v %+v", f.Rubric, src)
	}
	// A file for another rubric name is returned: the gate sees a rubric
	// change (re-scores under it or blocks), never "no baseline".
	if f, _, err := (FileStore{Path: path}).Latest(ctx, Query{Rubric: "other"}); err != nil || f.Rubric.Name != "rag-review" {
		t.Errorf("file for another rubric name: %v, want it returned", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := (FileStore{Path: path}).Latest(cctx, Query{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestUniqueIDsExact(t *testing.T) {
	if err := uniqueIDsExact(gate.ColumnsOf(testItems)); err != nil {
		t.Error(err)
	}
	err := uniqueIDsExact(gate.ColumnsOf([]gate.ItemScore{{ID: "x"}, {ID: "y"}, {ID: "x"}}))
	if err == nil || !strings.Contains(err.Error(), `items.ids[2]": duplicate id "x" (also items.ids[0])`) {
		t.Errorf("got %v", err)
	}
}

// A pull request renames its rubric: the slot for the new name is empty, but
// the branch has a baseline under the old name. That is a typed error the
// gate blocks on, never ErrNotFound (which if-no-baseline: pass passes).
func TestDirRenamedRubricIsNotNotFound(t *testing.T) {
	root := t.TempDir()
	d := Dir{Root: root}
	ctx := context.Background()
	if err := d.Save(Query{Rubric: "rag-review", Branch: "main"}, testFile(t, "rag-review")); err != nil {
		t.Fatal(err)
	}
	if err := d.Save(Query{Rubric: "a/b%c", Branch: "main"}, testFile(t, "a/b%c")); err != nil {
		t.Fatal(err)
	}
	_, _, err := d.Latest(ctx, Query{Rubric: "rag-review-v2", Branch: "main"})
	var oe *OtherRubricsError
	if !errors.As(err, &oe) || errors.Is(err, ErrNotFound) {
		t.Fatalf("renamed rubric: %v, want *OtherRubricsError and not ErrNotFound", err)
	}
	if oe.Rubric != "rag-review-v2" || oe.Branch != "main" || strings.Join(oe.Found, ",") != "a/b%c,rag-review" {
		t.Errorf("error fields = %+v", oe)
	}
	if !strings.Contains(err.Error(), `"rag-review"`) || !strings.Contains(err.Error(), "rubric change") {
		t.Errorf("message: %v", err)
	}
	// Another branch with no baselines at all is still not found.
	if _, _, err := d.Latest(ctx, Query{Rubric: "rag-review-v2", Branch: "dev"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty branch: %v, want ErrNotFound", err)
	}
}

// A Key pins the slot outside the rubric file: a renamed rubric finds the
// baseline kept under the key (for the old name: a rubric change), and a
// save under the key takes a baseline of any rubric name.
func TestDirKey(t *testing.T) {
	root := t.TempDir()
	d := Dir{Root: root}
	ctx := context.Background()
	kq := Query{Rubric: "rag-review", Branch: "main", Key: "support"}
	if _, _, err := d.Latest(ctx, kq); !errors.Is(err, ErrNotFound) {
		t.Fatalf("empty: %v", err)
	}
	if err := d.Save(kq, testFile(t, "rag-review")); err != nil {
		t.Fatal(err)
	}
	if p, _ := d.Path(kq); p != filepath.Join(root, "support", "main.json") {
		t.Errorf("Path = %s", p)
	}
	renamed := Query{Rubric: "rag-review-v2", Branch: "main", Key: "support"}
	f, _, err := d.Latest(ctx, renamed)
	if err != nil || f.Rubric.Name != "rag-review" {
		t.Fatalf("renamed rubric under a key: %v, want the old baseline", err)
	}
	if err := d.Save(renamed, testFile(t, "rag-review-v2")); err != nil {
		t.Fatalf("save under a key: %v", err)
	}
	if f, _, err := d.Latest(ctx, renamed); err != nil || f.Rubric.Name != "rag-review-v2" {
		t.Fatalf("after save: %v %v", f, err)
	}
}
