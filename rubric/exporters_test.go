package rubric

import (
	"errors"
	"reflect"
	"testing"

	"github.com/rubricgate/rubricgate/internal/usage"
)

func TestExporter(t *testing.T) {
	for name, want := range map[string]ExportFunc{"json": ExportJSON, "CSV": ExportCSV, "Prompt": ExportPrompt} {
		got, err := Exporter(name)
		if err != nil || reflect.ValueOf(got).Pointer() != reflect.ValueOf(want).Pointer() {
			t.Errorf("%s: wrong export (%v)", name, err)
		}
	}
	_, err := Exporter("yaml")
	var u *usage.Error
	if !errors.As(err, &u) || u.Msg != `rubric export --format "yaml": expected json, csv or prompt` {
		t.Errorf("yaml: %v", err)
	}
}
