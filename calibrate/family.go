package calibrate

import (
	"strings"
	"unicode"
)

// familyPrefixes maps the start of a model name, lower-cased and without
// a vendor path ("meta-llama/Llama-3-70B" is "llama-3-70b"), to its model
// family: the vendor that trained it. The list is the public model names
// of the major vendors' APIs; a name it does not know has no family
// (ModelFamily returns ""), and --family / --judge-family name it.
var familyPrefixes = []struct{ prefix, family string }{
	{"gpt", "openai"}, {"chatgpt", "openai"}, {"davinci", "openai"}, {"text-davinci", "openai"},
	{"claude", "anthropic"},
	{"gemini", "google"}, {"gemma", "google"}, {"palm", "google"}, {"bison", "google"},
	{"llama", "meta"}, {"codellama", "meta"},
	{"mistral", "mistral"}, {"mixtral", "mistral"}, {"codestral", "mistral"}, {"ministral", "mistral"}, {"magistral", "mistral"},
	{"qwen", "alibaba"}, {"qwq", "alibaba"},
	{"deepseek", "deepseek"},
	{"command", "cohere"},
	{"grok", "xai"},
	{"phi-", "microsoft"},
}

// ModelFamily is the model family of a model name: openai for gpt-*,
// chatgpt-* and o<digit>* (o1, o3-mini, o4-mini), anthropic for claude-*,
// google for gemini-*, meta for llama-*, and the others of
// familyPrefixes; "" when the name says nothing.
func ModelFamily(model string) string {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	if len(m) >= 2 && m[0] == 'o' && unicode.IsDigit(rune(m[1])) {
		return "openai"
	}
	for _, p := range familyPrefixes {
		if strings.HasPrefix(m, p.prefix) {
			return p.family
		}
	}
	return ""
}

// Sources of a model family, in the bias section.
const (
	FamilyFromFlag     = "--family"
	FamilyFromJudge    = "--judge-family"
	FamilyFromMetadata = "metadata.model_family"
	FamilyFromName     = "system name"
	FamilyFromModel    = "model name"
)

// judgeFamily is the light judge's model family and its source: the
// --judge-family flag (recorded in the inputs), else the family of the
// model an LLM light spec names ("openai:gpt-5-mini" is openai); "" for a
// judge that is not an LLM of a known family (builtin, exec:, saved:,
// imported results, panels).
func judgeFamily(given, lightSpec string) (family, source string) {
	if given != "" {
		return given, FamilyFromJudge
	}
	provider, model, ok := strings.Cut(lightSpec, ":")
	if !ok {
		return "", ""
	}
	switch provider {
	case "openai", "anthropic":
		if f := ModelFamily(model); f != "" {
			return f, FamilyFromModel + " " + model
		}
	}
	return "", ""
}
