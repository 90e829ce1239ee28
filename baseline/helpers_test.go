package baseline

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"path/filepath"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"

	"github.com/rubricgate/rubricgate/internal/testgolden"
)

func ptr[T any](v T) *T { return &v }

// testRubric is a small valid rubric built in code.
func testRubric(name string) *rubric.Rubric {
	return &rubric.Rubric{
		Name:      name,
		Threshold: 70,
		Criteria: []rubric.Criterion{
			{ID: "faithfulness", Name: "Faithfulness <grounded>", Weight: 2, Scale: rubric.Scale{Low: 1, High: 5}, Critical: ptr(3.0), Blocking: true},
			{ID: "relevance", Name: "Relevance", Weight: 1, Scale: rubric.Scale{Low: 1, High: 5}, NA: true},
		},
	}
}

var testCreated = time.Date(2026, 11, 20, 9, 30, 15, 0, time.UTC)

func testReport(rb *rubric.Rubric, score, pass float64) *gate.Report {
	return &gate.Report{
		Rubric:   gate.RubricRef{Name: rb.Name, Hash: rb.Hash()},
		Items:    3,
		Scored:   3,
		Score:    &score,
		PassRate: &pass,
		Criteria: []gate.CriterionStats{
			{ID: "faithfulness", Name: "Faithfulness <grounded>", Weight: 2, Mean: ptr(4.0), Normalized: ptr(75.0), Scored: 3, Histogram: map[int]int{1: 0, 2: 0, 3: 1, 4: 1, 5: 1}},
			{ID: "relevance", Name: "Relevance", Weight: 1, Mean: ptr(3.5), Normalized: ptr(62.5), Scored: 2, NA: 1, Histogram: map[int]int{1: 0, 2: 0, 3: 1, 4: 1, 5: 0}},
		},
	}
}

// reportOf is testReport with the score and pass rate the items give (Read
// refuses figures the items contradict).
func reportOf(rb *rubric.Rubric, items []gate.ItemScore) *gate.Report {
	var sum float64
	pass := 0
	for _, it := range items {
		sum += it.Score
		if it.Score >= rb.Threshold {
			pass++
		}
	}
	return testReport(rb, sum/float64(len(items)), float64(pass)/float64(len(items)))
}

// flatItems are testItems' ids all scoring score.
func flatItems(score float64) []gate.ItemScore {
	items := append([]gate.ItemScore(nil), testItems...)
	for i := range items {
		items[i].Score = score
	}
	return items
}

var testItems = []gate.ItemScore{
	{ID: "q-001", Score: 83.33333333333333},
	{ID: "q-002 \"quoted\" <tag> & é", Score: 100},
	{ID: "q-003", Score: 41.666666666666664},
}

var testMeta = Meta{
	CreatedAt:  testCreated,
	SHA:        "328faa0536e6fef19753d9d91dc96a9931694ce3",
	Ref:        "refs/heads/main",
	Branch:     "main",
	Repository: "octo-org/octo-repo",
	RunID:      2332938,
	RunURL:     "https://github.com/octo-org/octo-repo/actions/runs/2332938",
}

// testFile is a valid baseline for rubric name.
func testFile(t testing.TB, name string) *File {
	t.Helper()
	rb := testRubric(name)
	f, err := New(rb, testReport(rb, 75.0, 2.0/3), testItems, testMeta)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}

func encode(t testing.TB, f *File) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := f.Write(&buf); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return buf.Bytes()
}

// zipEntry is one entry of a test archive.
type zipEntry struct {
	name  string
	body  []byte
	mode  fs.FileMode // 0: regular 0644
	store bool        // no compression
}

func makeZip(t testing.TB, entries ...zipEntry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.store {
			h.Method = zip.Store
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h.SetMode(mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// golden checks got against its golden file (internal/testgolden).
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testgolden.Check(t, filepath.Join("testdata", name), got)
}
