package formats

import (
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/results/native"
	"github.com/rubricgate/rubricgate/rubric"
)

// The --format names are the rubric's `from` keys, one per tool.
func TestNamesAreRubricSources(t *testing.T) {
	want := slices.Clone(rubric.Sources)
	slices.Sort(want)
	if got := Names(); !slices.Equal(got, want) {
		t.Fatalf("Names() = %v, rubric.Sources = %v", got, want)
	}
}

func records(t *testing.T, file string) *Records {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Detect(file, data)
	if err != nil {
		t.Fatal(err)
	}
	return NewRecords(f, file, func() (io.Reader, error) { return bytes.NewReader(data), nil })
}

// Records of one id (Inspect's epochs) are one item with a sample per
// epoch, in epoch order; a failed epoch unscores the item; Each can be
// called again and yields the same.
func TestRecordsGroupsEpochs(t *testing.T) {
	src := records(t, "testdata/inspect/epochs.json")
	if src.Format() != "inspect" {
		t.Fatalf("format %s", src.Format())
	}
	for range 2 {
		var got []*native.Record
		if err := src.Each(func(r *native.Record) error { got = append(got, r); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].ID != "1" || len(got[0].Samples) != 2 || got[0].Line != 34 || got[0].Where != "$.samples[0]" {
			t.Fatalf("records %+v", got)
		}
		if m := got[0].Samples[1].Metrics[1]; m.Name != "rubric/helpfulness" || m.Value != 0.1 {
			t.Errorf("epoch 2's helpfulness %+v", m)
		}
		if got[1].ID != "q-two" || got[1].Error != "epoch 2 of 2: RuntimeError: sandbox exited" || len(got[1].Samples) != 2 {
			t.Errorf("failed epoch: %+v", got[1])
		}
		if !got[0].Answers || !got[1].Answers {
			t.Errorf("epochs are answer samples (regenerated answers): %v %v", got[0].Answers, got[1].Answers)
		}
		if !got[0].Samples[0].Metrics[3].Unscored || len(got[2].Samples) != 2 {
			t.Errorf("NaN or item 3: %+v %+v", got[0].Samples[0].Metrics[3], got[2])
		}
	}
}

// A reader's error is a *native.InputError with the file, line and path.
func TestRecordsInputError(t *testing.T) {
	src := records(t, "testdata/hostile/inspect-letter.json")
	err := src.Each(func(*native.Record) error { return nil })
	var ie *native.InputError
	if !errors.As(err, &ie) || ie.File != "testdata/hostile/inspect-letter.json" || ie.Line != 46 || !strings.HasPrefix(ie.Msg, "at $.samples[0].scores.model_graded_qa.value: ") {
		t.Fatalf("error %#v", err)
	}
}
