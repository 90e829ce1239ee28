package calibrate

import (
	"fmt"
	"sort"
	"strings"
)

// Families is the built-in model family table: family -> case-insensitive
// name prefixes, matched after a provider prefix is stripped (see Family).
var Families = map[string][]string{
	"OpenAI":    {"gpt-", "gpt4", "gpt3", "o1", "o3", "o4", "chatgpt", "text-davinci", "davinci", "babbage", "text-embedding", "codex"},
	"Anthropic": {"claude"},
	"Google":    {"gemini", "gemma", "palm", "bard", "chat-bison", "text-bison"},
	"Meta":      {"llama", "meta-llama", "codellama"},
	"Mistral":   {"mistral", "mixtral", "codestral", "ministral", "magistral", "pixtral", "open-mistral", "open-mixtral"},
	"Qwen":      {"qwen", "qwq"},
	"DeepSeek":  {"deepseek"},
	"Cohere":    {"command", "cohere", "c4ai"},
	"xAI":       {"grok"},
}

// providerFamilies maps provider path segments (as in "openai/gpt-4o" or
// "meta-llama/Llama-3-8B") to a family, used when the model name itself
// matches no prefix.
var providerFamilies = map[string]string{
	"openai": "OpenAI", "azure-openai": "OpenAI",
	"anthropic": "Anthropic",
	"google":    "Google", "gemini": "Google", "vertex_ai": "Google",
	"meta-llama": "Meta", "meta": "Meta",
	"mistralai": "Mistral", "mistral": "Mistral",
	"qwen":        "Qwen",
	"deepseek-ai": "DeepSeek", "deepseek": "DeepSeek",
	"cohere": "Cohere", "cohereforai": "Cohere",
	"x-ai": "xAI", "xai": "xAI",
}

// dottedProviders are Amazon Bedrock style prefixes ("anthropic.claude-…",
// "us.anthropic.claude-…", "meta.llama3-…").
var dottedProviders = []string{"anthropic", "meta", "mistral", "cohere", "deepseek", "openai", "qwen", "google", "amazon", "ai21", "writer"}

// bedrockRegions are cross-region inference prefixes on Bedrock model ids.
var bedrockRegions = []string{"us", "eu", "apac", "global", "us-gov", "jp", "au", "ca"}

// modelName splits a model string into its bare name (lower case) and the
// provider it named, if any: "openai/gpt-4o" -> ("gpt-4o", "openai");
// "us.anthropic.claude-3-5-sonnet" -> ("claude-3-5-sonnet", "anthropic");
// "accounts/fireworks/models/llama-v3" -> ("llama-v3", "fireworks");
// "models/gemini-1.5-pro" -> ("gemini-1.5-pro", "models"); "ft:gpt-4o:org::x"
// -> ("gpt-4o:org::x", "").
func modelName(model string) (name, provider string) {
	s := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(s, "/"); i >= 0 {
		segs := strings.Split(s[:i], "/")
		provider = segs[len(segs)-1]
		if len(segs) >= 2 && provider == "models" {
			provider = segs[len(segs)-2]
		}
		s = s[i+1:]
	}
	s = strings.TrimPrefix(s, "ft:")
	for _, r := range bedrockRegions {
		if rest, ok := strings.CutPrefix(s, r+"."); ok {
			for _, p := range dottedProviders {
				if strings.HasPrefix(rest, p+".") {
					s = rest
					break
				}
			}
		}
	}
	for _, p := range dottedProviders {
		if rest, ok := strings.CutPrefix(s, p+"."); ok {
			return rest, p
		}
	}
	return s, provider
}

// matchFamily returns the family whose longest prefix matches name.
func matchFamily(name string, table map[string][]string) string {
	best, bestLen := "", 0
	fams := make([]string, 0, len(table))
	for f := range table {
		fams = append(fams, f)
	}
	sort.Strings(fams)
	for _, f := range fams {
		for _, p := range table[f] {
			p = strings.ToLower(strings.TrimSpace(p))
			if p != "" && strings.HasPrefix(name, p) && len(p) > bestLen {
				best, bestLen = f, len(p)
			}
		}
	}
	return best
}

// Family returns the model family of a model name, or "" when unknown.
// Matching is case-insensitive on name prefixes after a provider prefix is
// stripped ("openai/", "anthropic.", "us.anthropic.", "models/",
// "accounts/…/models/", "ft:"). Families in extra (family -> prefixes, from
// rubric.Rubric.ModelFamilies) take precedence over the built-in table; when
// the bare name matches nothing, a known provider prefix decides.
func Family(model string, extra map[string][]string) string {
	name, provider := modelName(model)
	if name == "" {
		return ""
	}
	if f := matchFamily(name, extra); f != "" {
		return f
	}
	// Extras may also name the full string ("my-org/house-model").
	if f := matchFamily(strings.ToLower(strings.TrimSpace(model)), extra); f != "" {
		return f
	}
	if f := matchFamily(name, Families); f != "" {
		return f
	}
	return providerFamilies[provider]
}

// FamilyPolicy says what a judge of the production model's family means.
type FamilyPolicy int

// Family policies.
const (
	// FamilyFail makes the same family an error (the default).
	FamilyFail FamilyPolicy = iota
	// FamilyWarn makes it a warning.
	FamilyWarn
)

// ParseFamilyPolicy parses "fail" or "warn".
func ParseFamilyPolicy(s string) (FamilyPolicy, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "fail", "":
		return FamilyFail, nil
	case "warn":
		return FamilyWarn, nil
	}
	return FamilyFail, fmt.Errorf("unknown family policy %q: want fail or warn", s)
}

// FamilyCheck is the outcome of the judge/production family check.
type FamilyCheck struct {
	Judge            string `json:"judge"`
	Production       string `json:"production"`
	JudgeFamily      string `json:"judge_family"`
	ProductionFamily string `json:"production_family"`
	// Same is true when both are of one known family.
	Same bool `json:"same"`
	// Warnings are unknown families, a missing model, or a same-family pair
	// under FamilyWarn.
	Warnings []string `json:"warnings"`
}

// SameFamilyError is a judge of the same model family as the production
// model: a judge tends to prefer answers of its own family (self-preference bias).
type SameFamilyError struct {
	Family, Judge, Production string
}

func (e *SameFamilyError) Error() string {
	return fmt.Sprintf("judge model %q and production model %q are both %s models: a judge favours its own family's outputs; judge with another family", e.Judge, e.Production, e.Family)
}

// CheckFamilies checks that the judge and the production model come from
// different families (the rule: never the same family). The same family is a
// *SameFamilyError under FamilyFail and a warning under FamilyWarn; an
// unknown family or an empty model name is a warning, never silence. The
// returned check is non-nil even with an error.
func CheckFamilies(judge, production string, extra map[string][]string, policy FamilyPolicy) (*FamilyCheck, error) {
	fc := &FamilyCheck{Judge: judge, Production: production, Warnings: []string{}}
	fc.JudgeFamily = Family(judge, extra)
	fc.ProductionFamily = Family(production, extra)
	for _, m := range []struct{ role, model, fam string }{
		{"judge", judge, fc.JudgeFamily}, {"production", production, fc.ProductionFamily},
	} {
		switch {
		case strings.TrimSpace(m.model) == "":
			fc.Warnings = append(fc.Warnings, fmt.Sprintf("no %s model given: the judge family check could not be made", m.role))
		case m.fam == "":
			fc.Warnings = append(fc.Warnings, fmt.Sprintf("%s model %q is of an unknown family: the judge family check could not be made (add it under model_families in the rubric)", m.role, m.model))
		}
	}
	if fc.JudgeFamily == "" || fc.JudgeFamily != fc.ProductionFamily {
		return fc, nil
	}
	fc.Same = true
	err := &SameFamilyError{Family: fc.JudgeFamily, Judge: judge, Production: production}
	if policy == FamilyWarn {
		fc.Warnings = append(fc.Warnings, err.Error())
		return fc, nil
	}
	return fc, err
}
