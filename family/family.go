// Package family tells which model family a model name belongs to and
// checks a judge against the production model's family (a judge of the same
// family grades its own kind: seed 004's self-preference rule). Both the
// judge command and calibration's tier checks use it; it depends on nothing
// but finding.
package family

import (
	"fmt"
	"sort"
	"strings"

	"github.com/rubricgate/rubricgate/finding"
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
// "accounts/…/models/", "ft:"); when the bare name matches nothing, a known
// provider prefix decides. Families in extra (family -> prefixes, from
// rubric.Rubric.ModelFamilies) only class models the built-in table does
// not: the rubric is the pull request's to edit, and must not move a judge
// out of its built-in family (gpt-4o-mini stays OpenAI whatever the rubric
// says) to pass the same-family check.
func Family(model string, extra map[string][]string) string {
	name, provider := modelName(model)
	if name == "" {
		return ""
	}
	if f := matchFamily(name, Families); f != "" {
		return f
	}
	if f := providerFamilies[provider]; f != "" {
		return f
	}
	if f := matchFamily(name, extra); f != "" {
		return f
	}
	// Extras may also name the full string ("my-org/house-model").
	return matchFamily(strings.ToLower(strings.TrimSpace(model)), extra)
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

// String is the policy as ParseFamilyPolicy reads it: "fail" or "warn".
func (p FamilyPolicy) String() string {
	if p == FamilyWarn {
		return "warn"
	}
	return "fail"
}

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
	// under FamilyWarn: the text of Findings.
	Warnings []string `json:"warnings"`
	// Findings are the typed forms of Warnings (finding.JudgeModelMissing,
	// JudgeFamilyUnknown, JudgeSameFamily), in the same order.
	Findings []finding.Finding `json:"-"`
}

// warn adds a warning finding and its text.
func (fc *FamilyCheck) warn(f finding.Finding) {
	f.Severity = finding.Warning
	fc.Findings = append(fc.Findings, f)
	fc.Warnings = append(fc.Warnings, f.Text())
}

// SameFamilyError is a judge of the same model family as the production
// model: a judge tends to prefer answers of its own family (self-preference bias).
type SameFamilyError struct {
	Family, Judge, Production string
}

func (e *SameFamilyError) Error() string { return e.Finding().Text() }

// Finding is the error as a typed finding (finding.JudgeSameFamily), of
// severity Error; under FamilyWarn the check gives it as a warning.
func (e *SameFamilyError) Finding() finding.Finding {
	return finding.Finding{Kind: finding.JudgeSameFamily, Severity: finding.Error,
		Params: finding.Params{JudgeParams: finding.JudgeParams{Model: e.Judge, Production: e.Production, Family: e.Family}}}
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
			fc.warn(finding.Finding{Kind: finding.JudgeModelMissing, Params: finding.Params{JudgeParams: finding.JudgeParams{Role: m.role}}})
		case m.fam == "":
			fc.warn(finding.Finding{Kind: finding.JudgeFamilyUnknown, Params: finding.Params{JudgeParams: finding.JudgeParams{Role: m.role, Model: m.model}}})
		}
	}
	if fc.JudgeFamily == "" || fc.JudgeFamily != fc.ProductionFamily {
		return fc, nil
	}
	fc.Same = true
	err := &SameFamilyError{Family: fc.JudgeFamily, Judge: judge, Production: production}
	if policy == FamilyWarn {
		fc.warn(err.Finding())
		return fc, nil
	}
	return fc, err
}

// maxUnknownJudges is how many distinct judge models of an unknown family
// JudgeFamilies keeps by name for its warnings.
const maxUnknownJudges = 20

// JudgeFamilies collects the families of every judge model seen (per-item
// judge_model values), in memory bounded by the number of families, not of
// models: one representative model per family (the least by name), and the
// names of the first few models of no known family (the rest are counted).
// Every distinct model is classified, so no value escapes the same-family
// check however many there are. Create it with NewJudgeFamilies.
type JudgeFamilies struct {
	extra     map[string][]string
	byFamily  map[string]string
	unknown   map[string]bool
	unknownN  int // items naming unknown models not kept by name
	last, fam string
	lastIsSet bool
}

// NewJudgeFamilies returns an empty set classifying with the built-in
// table and extra (rubric.Rubric.ModelFamilies; see Family).
func NewJudgeFamilies(extra map[string][]string) *JudgeFamilies {
	return &JudgeFamilies{extra: extra, byFamily: map[string]string{}, unknown: map[string]bool{}}
}

// Add records one judge model; blank names are ignored. Consecutive equal
// names (the usual case: one judge for a whole run) cost a comparison.
func (s *JudgeFamilies) Add(model string) {
	if s.lastIsSet && model == s.last {
		return
	}
	if strings.TrimSpace(model) == "" {
		return
	}
	s.last, s.lastIsSet = model, true
	s.fam = Family(model, s.extra)
	if s.fam == "" {
		switch {
		case s.unknown[model]:
		case len(s.unknown) < maxUnknownJudges:
			s.unknown[model] = true
		default:
			s.unknownN++
		}
		return
	}
	if cur, ok := s.byFamily[s.fam]; !ok || model < cur {
		s.byFamily[s.fam] = model
	}
}

// Models returns one model per known family, then the unknown models kept
// by name, each part sorted.
func (s *JudgeFamilies) Models() []string {
	var known, unknown []string
	for _, m := range s.byFamily {
		known = append(known, m)
	}
	for m := range s.unknown {
		unknown = append(unknown, m)
	}
	sort.Strings(known)
	sort.Strings(unknown)
	return append(known, unknown...)
}

// Check runs CheckFamilies for judge (the judge-model input, may be empty)
// and every family's representative against production, and returns the
// warnings of all checks and the first same-family error under FamilyFail.
// With no judge at all it checks "" (a warning that none was given).
// Unknown models beyond those kept by name add one warning with their count.
func (s *JudgeFamilies) Check(judge, production string, policy FamilyPolicy) ([]string, error) {
	warnings := []string{}
	if strings.TrimSpace(production) == "" {
		return warnings, nil
	}
	judges := []string{}
	if strings.TrimSpace(judge) != "" {
		judges = append(judges, judge)
	}
	for _, m := range s.Models() {
		if m != judge {
			judges = append(judges, m)
		}
	}
	if len(judges) == 0 {
		judges = append(judges, "")
	}
	for _, j := range judges {
		fc, err := CheckFamilies(j, production, s.extra, policy)
		if err != nil {
			return warnings, err
		}
		warnings = append(warnings, fc.Warnings...)
	}
	if s.unknownN > 0 {
		warnings = append(warnings, fmt.Sprintf("%d more item(s) name judge models of unknown families beyond the %d listed", s.unknownN, maxUnknownJudges))
	}
	return warnings, nil
}
