package calibrate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/usage"
	"github.com/rubricgate/rubricgate/rubric"
)

func loadRubricFile(t *testing.T, path string) *rubric.Rubric {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rb, _, err := rubric.Load(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

func TestParseOptions(t *testing.T) {
	o, err := ParseOptions("Kappa", "80%", "5%")
	if err != nil || o.Metric != MetricKappa || o.MinAgreement != 0.8 || o.Tolerance != 0.05 {
		t.Fatalf("%+v %v", o, err)
	}
	for _, tc := range [][3]string{{"median", "0.8", "10%"}, {"exact", "0", "10%"}, {"exact", "lots", "10%"}, {"exact", "0.8", "0"}, {"exact", "0.8", "100%"}, {"exact", "0.8", "wide"}} {
		_, err := ParseOptions(tc[0], tc[1], tc[2])
		var u *usage.Error
		if !errors.As(err, &u) {
			t.Errorf("%q %q: %v, want a usage error", tc[0], tc[1], err)
		}
	}
}

func TestCompareFiles(t *testing.T) {
	prod := loadRubricFile(t, "../rubrics/production.yaml")
	opts := Options{Metric: MetricExact, MinAgreement: 0.75}
	res, err := CompareFiles(prod, Files{Human: "../examples/calibration/human.csv", Judge: "../examples/production/run.jsonl"}, opts)
	if err != nil || res.Report == nil || res.Reviewers != nil || res.Passed() != res.Report.Passed || len(res.Report.Criteria) != len(prod.Criteria) {
		t.Fatalf("human vs judge: %+v %v", res, err)
	}
	rag := loadRubricFile(t, "../rubrics/rag-review.yaml")
	res, err = CompareFiles(rag, Files{Reviewers: "../examples/rag-review/rag-review-sheet.csv"}, opts)
	if err != nil || res.Reviewers == nil || res.Report != nil || res.Passed() != res.Reviewers.Passed {
		t.Fatalf("reviewers: %+v %v", res, err)
	}
	// Stdin and a pattern naming two files are usage mistakes; a missing
	// file is not.
	dir := t.TempDir()
	for _, n := range []string{"a.csv", "b.csv"} {
		os.WriteFile(filepath.Join(dir, n), []byte("id,faithfulness\nx,5\n"), 0o644)
	}
	var u *usage.Error
	for _, p := range []string{"-", filepath.Join(dir, "*.csv")} {
		if _, err := CompareFiles(prod, Files{Human: p, Judge: p}, opts); !errors.As(err, &u) || !strings.Contains(err.Error(), "calibrate:") {
			t.Errorf("%s: %v, want a usage error", p, err)
		}
	}
	if _, err := CompareFiles(prod, Files{Human: filepath.Join(dir, "none.csv")}, opts); err == nil || errors.As(err, &u) {
		t.Errorf("missing file: %v", err)
	}
}
