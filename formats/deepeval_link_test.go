package formats

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/results/native"
)

// A .latest_test_run.json that holds only the Confident AI link is
// deepeval's, and refused as what it is: a run whose test cases are on
// Confident AI, not in the file.
func TestDeepevalLinkOnlyIsRefusedAsSuch(t *testing.T) {
	path := filepath.Join("testdata", "deepeval", "latest_test_run_link.json")
	f, err := Detect(path, fixture(t, path))
	if err != nil || f != deepevalJSON {
		t.Fatalf("Detect = %v, %v; want deepeval", f, err)
	}
	_, err = readFile(t, f, path)
	var ie *native.InputError
	if !errors.As(err, &ie) || ie.Line != 1 || !strings.Contains(ie.Msg, "Confident AI") || !strings.Contains(ie.Msg, "no test cases") {
		t.Errorf("err = %v; want an input error at line 1 saying the test cases are on Confident AI", err)
	}
}
