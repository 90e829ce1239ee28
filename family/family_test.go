package family

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestFamily(t *testing.T) {
	extra := map[string][]string{"House": {"acme-"}, "Anthropic2": {"claude-x"}, "Org": {"my-org/"}}
	tests := []struct {
		model string
		extra map[string][]string
		want  string
	}{
		{"gpt-4o", nil, "OpenAI"},
		{"GPT-4.1-mini", nil, "OpenAI"},
		{"o1-preview", nil, "OpenAI"},
		{"o3-mini", nil, "OpenAI"},
		{"o4-mini", nil, "OpenAI"},
		{"chatgpt-4o-latest", nil, "OpenAI"},
		{"text-davinci-003", nil, "OpenAI"},
		{"ft:gpt-4o-mini:acme::abc", nil, "OpenAI"},
		{"openai/gpt-4o", nil, "OpenAI"},
		{"claude-3-5-sonnet-20241022", nil, "Anthropic"},
		{"anthropic/claude-sonnet-4", nil, "Anthropic"},
		{"anthropic.claude-3-haiku-20240307-v1:0", nil, "Anthropic"},
		{"us.anthropic.claude-3-7-sonnet-20250219-v1:0", nil, "Anthropic"},
		{"models/gemini-1.5-pro", nil, "Google"},
		{"gemini-2.0-flash", nil, "Google"},
		{"google/gemma-2-9b-it", nil, "Google"},
		{"text-bison", nil, "Google"},
		{"meta-llama/Llama-3.1-8B-Instruct", nil, "Meta"},
		{"meta.llama3-70b-instruct-v1:0", nil, "Meta"},
		{"accounts/fireworks/models/llama-v3p1-405b-instruct", nil, "Meta"},
		{"mistral-large-latest", nil, "Mistral"},
		{"mistralai/Mixtral-8x7B-Instruct-v0.1", nil, "Mistral"},
		{"codestral-latest", nil, "Mistral"},
		{"Qwen/Qwen2.5-72B-Instruct", nil, "Qwen"},
		{"qwq-32b", nil, "Qwen"},
		{"deepseek-ai/DeepSeek-R1", nil, "DeepSeek"},
		{"command-r-plus", nil, "Cohere"},
		{"cohere.command-r-v1:0", nil, "Cohere"},
		{"CohereForAI/c4ai-command-r-v01", nil, "Cohere"},
		{"grok-2", nil, "xAI"},
		{"x-ai/grok-beta", nil, "xAI"},
		// A provider prefix decides when the bare name is unknown.
		{"openai/my-finetune", nil, "OpenAI"},
		{"my-deployment", nil, ""},
		{"", nil, ""},
		{"   ", nil, ""},
		// Rubric extras add families for models no built-in family matches,
		// and never re-class one that a built-in family does.
		{"acme-judge-7", extra, "House"},
		{"ACME-judge-7", extra, "House"},
		{"claude-x-1", extra, "Anthropic"},
		{"gpt-4o-mini", map[string][]string{"acme": {"gpt-4o-mini"}}, "OpenAI"},
		{"openai/house-model", map[string][]string{"House": {"house-"}}, "OpenAI"},
		{"claude-3-opus", extra, "Anthropic"},
		{"my-org/house-model", extra, "Org"},
		{"acme-judge-7", nil, ""},
	}
	for _, tt := range tests {
		if got := Family(tt.model, tt.extra); got != tt.want {
			t.Errorf("Family(%q) = %q, want %q", tt.model, got, tt.want)
		}
	}
}

func TestCheckFamilies(t *testing.T) {
	tests := []struct {
		name              string
		judge, production string
		policy            FamilyPolicy
		same              bool
		err               bool
		warnings          []string
	}{
		{"different", "claude-3-5-sonnet", "gpt-4o", FamilyFail, false, false, nil},
		{"same fails", "gpt-4o", "openai/gpt-4o-mini", FamilyFail, true, true, nil},
		{"same warns", "gpt-4o", "o3-mini", FamilyWarn, true, false, []string{"both OpenAI models"}},
		{"unknown judge", "house-judge", "gpt-4o", FamilyFail, false, false, []string{`judge model "house-judge" is of an unknown family`}},
		{"unknown both", "a", "b", FamilyFail, false, false, []string{"judge model", "production model"}},
		{"no production", "gpt-4o", "", FamilyFail, false, false, []string{"no production model given"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fc, err := CheckFamilies(tt.judge, tt.production, nil, tt.policy)
			if fc == nil {
				t.Fatal("nil check")
			}
			var sf *SameFamilyError
			if tt.err != errors.As(err, &sf) {
				t.Fatalf("err = %v, want same-family error: %v", err, tt.err)
			}
			if tt.err && sf.Family != "OpenAI" {
				t.Errorf("family = %q", sf.Family)
			}
			if fc.Same != tt.same {
				t.Errorf("same = %v, want %v", fc.Same, tt.same)
			}
			if len(fc.Warnings) != len(tt.warnings) {
				t.Fatalf("warnings = %q, want %d", fc.Warnings, len(tt.warnings))
			}
			for i, w := range tt.warnings {
				if !strings.Contains(fc.Warnings[i], w) {
					t.Errorf("warning %q lacks %q", fc.Warnings[i], w)
				}
			}
		})
	}
}

// The rubric (the pull request's to edit) adding acme: [gpt-4o-mini] must
// not let a gpt-4o-mini judge pass as another family than a gpt-4o
// production model.
func TestCheckFamiliesExtrasCannotReclass(t *testing.T) {
	extra := map[string][]string{"acme": {"gpt-4o-mini"}}
	fc, err := CheckFamilies("gpt-4o-mini", "gpt-4o", extra, FamilyFail)
	var sf *SameFamilyError
	if !errors.As(err, &sf) || sf.Family != "OpenAI" || !fc.Same {
		t.Fatalf("judge gpt-4o-mini vs production gpt-4o with rubric acme: [gpt-4o-mini]: err %v, check %+v; want a same-family (OpenAI) error", err, fc)
	}
	// An extra family still classes a model the built-ins do not know.
	fc, err = CheckFamilies("acme-judge", "acme-prod", map[string][]string{"acme": {"acme-"}}, FamilyFail)
	if !errors.As(err, &sf) || sf.Family != "acme" || !fc.Same {
		t.Errorf("house models of one extra family: %v %+v", err, fc)
	}
}

// Per-item judge_model values were checked only up to 100 distinct ones:
// 100 decoys of another family hid a same-family judge after them. The set
// keeps one model per family, so every value is checked in bounded memory.
func TestJudgeFamiliesChecksEveryValue(t *testing.T) {
	s := NewJudgeFamilies(nil)
	for i := range 5000 {
		s.Add(fmt.Sprintf("claude-decoy-%d", i))
	}
	for i := range 50 {
		s.Add(fmt.Sprintf("house-judge-%d", i))
	}
	s.Add("gpt-4o-mini")
	s.Add("gpt-4o-mini")
	s.Add("")
	if got := len(s.byFamily); got != 2 {
		t.Errorf("%d families kept, want 2 (Anthropic, OpenAI)", got)
	}
	if len(s.unknown) != maxUnknownJudges || s.unknownN != 50-maxUnknownJudges {
		t.Errorf("unknown kept %d, counted %d", len(s.unknown), s.unknownN)
	}
	_, err := s.Check("", "gpt-4o", FamilyFail)
	var sf *SameFamilyError
	if !errors.As(err, &sf) || sf.Judge != "gpt-4o-mini" {
		t.Fatalf("err = %v, want the gpt-4o-mini judge refused", err)
	}
	warns, err := s.Check("", "gpt-4o", FamilyWarn)
	if err != nil || !strings.Contains(strings.Join(warns, "\n"), "both OpenAI models") || !strings.Contains(strings.Join(warns, "\n"), "30 more item(s)") {
		t.Errorf("warn policy: %v %q", err, warns)
	}
	// Different families only: no error; the judge-model input is checked too.
	ok := NewJudgeFamilies(nil)
	ok.Add("claude-sonnet-4")
	if _, err := ok.Check("gemini-2.0-flash", "gpt-4o", FamilyFail); err != nil {
		t.Errorf("different families: %v", err)
	}
	if _, err := ok.Check("o3-mini", "gpt-4o", FamilyFail); !errors.As(err, &sf) {
		t.Errorf("judge-model input of the production family: %v", err)
	}
	if w, err := NewJudgeFamilies(nil).Check("", "gpt-4o", FamilyFail); err != nil || len(w) != 1 || !strings.Contains(w[0], "no judge model given") {
		t.Errorf("no judge: %v %q", err, w)
	}
}

func TestParseFamilyPolicy(t *testing.T) {
	if p, err := ParseFamilyPolicy("warn"); err != nil || p != FamilyWarn {
		t.Errorf("warn: %v %v", p, err)
	}
	if p, err := ParseFamilyPolicy("FAIL"); err != nil || p != FamilyFail {
		t.Errorf("fail: %v %v", p, err)
	}
	if _, err := ParseFamilyPolicy("ignore"); err == nil {
		t.Error("ignore accepted")
	}
}
