package gaterun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/family"
	"github.com/rubricgate/rubricgate/tier"
)

// judgedRun writes a run whose items name the given judge models.
func judgedRun(t *testing.T, models []string) string {
	t.Helper()
	var b strings.Builder
	for i, m := range models {
		line, _ := json.Marshal(map[string]any{"id": fmt.Sprintf("i%d", i), "judge_model": m,
			"scores": map[string]any{"accuracy": 4, "resolution": 4, "tone": 4, "safety": 1}})
		b.Write(append(line, '\n'))
	}
	p := filepath.Join(t.TempDir(), "run.jsonl")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// F12: every distinct per-item judge model is checked, not the first 100:
// a judge of the production model's family after 100 other judges is
// still a same-family error.
func TestEveryJudgeModelChecked(t *testing.T) {
	rb := loadExample(t)
	var models []string
	for i := range 150 {
		models = append(models, fmt.Sprintf("claude-x-%d", i))
	}
	o := options(rb, judgedRun(t, append(models, "gpt-4o-mini")), &baseline.Dir{Root: t.TempDir()})
	o.Tier = &tier.State{ProductionModel: "gpt-4o"}
	_, err := Gate(context.Background(), o)
	var sf *family.SameFamilyError
	if !errors.As(err, &sf) || sf.Judge != "gpt-4o-mini" {
		t.Fatalf("err %v, want the same-family error for gpt-4o-mini", err)
	}

	// Models of unknown family past the cap are counted in a warning.
	for i := range 5 {
		models = append(models, fmt.Sprintf("house-model-%d", i))
	}
	o = options(rb, judgedRun(t, models), &baseline.Dir{Root: t.TempDir()})
	o.Tier = &tier.State{ProductionModel: "gpt-4o"}
	res, err := Gate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	ws := strings.Join(res.Report.Warnings, "\n")
	if !strings.Contains(ws, `judge model "house-model-0" is of an unknown family`) || !strings.Contains(ws, "4 more item(s) were judged by models of unknown family") {
		t.Errorf("warnings:\n%s", ws)
	}
	// Memory stays bounded: one kept model per family past the cap.
	if n := o.Tier.KeptJudges(); n != tier.MaxJudgeModels+1 {
		t.Errorf("%d judge models kept, want %d", n, tier.MaxJudgeModels+1)
	}
}
