package llm

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"text/template"

	"github.com/evalcal/evalcal/inspection"
)

// The built-in system prompts, derived from the inspector's depth
// definitions in docs/DESIGN.md.
var (
	//go:embed prompts/light.tmpl
	builtinLightPrompt string
	//go:embed prompts/deep.tmpl
	builtinDeepPrompt string
)

// BuiltinPrompt returns the built-in template source of depth (a start
// for a user's own --light-prompt / --deep-prompt file).
func BuiltinPrompt(depth inspection.Depth) string {
	if depth == inspection.Light {
		return builtinLightPrompt
	}
	return builtinDeepPrompt
}

// PromptData is what a prompt template can use. The system prompt holds
// nothing run-specific, so it is one cacheable prefix for every call at a
// depth; the run itself follows in the user message (see Pack).
type PromptData struct {
	// Depth is "light" or "deep".
	Depth string
	// Schema is the JSON schema of the answer (see AnswerSchema), indented.
	Schema string
	// RuntimeCap and TaskCap are the score caps at Depth: 85 and 80 at
	// light, 100 at deep.
	RuntimeCap, TaskCap int
	// FlagIDs is inspection.DefectFlagIDs joined by ", ".
	FlagIDs string
	// LogFiles and ManifestFiles name the well-known files shown at light.
	LogFiles, ManifestFiles string
}

// AnswerSchema is the JSON schema of the answer a judge asks for: the
// inspection of docs/DESIGN.md without run_id, system, depth and cost, which
// evalcal fills in. It satisfies OpenAI's strict mode (every property
// required, no additional properties).
func AnswerSchema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	score := func(desc string) map[string]any {
		return map[string]any{"type": "number", "minimum": 0, "maximum": 100, "description": desc}
	}
	object := func(props map[string]any, required ...string) map[string]any {
		return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	}
	return object(map[string]any{
		"runtime_fidelity":   score("0-100: how faithfully the run executed its program"),
		"task_effectiveness": score("0-100: how well the run's outputs do the task"),
		"services": map[string]any{"type": "array", "items": object(map[string]any{
			"name":   str("service name"),
			"status": str("completed, failed, skipped or missing"),
		}, "name", "status")},
		"flags": map[string]any{"type": "array", "items": object(map[string]any{
			"id":          str("short kebab-case id"),
			"severity":    map[string]any{"type": "string", "enum": []string{inspection.SeverityInfo, inspection.SeverityWarning, inspection.SeverityCritical}},
			"description": str("one line"),
			"evidence":    str("file and line or marker, or a short quote"),
		}, "id", "severity", "description", "evidence")},
		"verdict": map[string]any{"type": "string", "enum": []string{inspection.VerdictPass, inspection.VerdictPartial, inspection.VerdictFail}},
		"summary": str("one or two sentences"),
	}, "runtime_fidelity", "task_effectiveness", "services", "flags", "verdict", "summary")
}

// The answer schema as sent, marshalled once: the whole schema (OpenAI
// response_format) and its properties (Anthropic input_schema).
var (
	answerSchemaJSON     = mustMarshal(AnswerSchema())
	answerPropertiesJSON = mustMarshal(AnswerSchema()["properties"])
	answerRequired       = AnswerSchema()["required"].([]string)
)

// mustMarshal marshals plain maps, strings and numbers, which cannot fail.
func mustMarshal(v any) json.RawMessage {
	data, _ := json.Marshal(v)
	return data
}

// schemaText is AnswerSchema as indented JSON (map keys sorted by
// encoding/json, so it is stable).
func schemaText() string {
	data, _ := json.MarshalIndent(AnswerSchema(), "", "  ") // cannot fail: plain values
	return string(data)
}

// promptData returns the template data of depth.
func promptData(depth inspection.Depth) PromptData {
	d := PromptData{
		Depth:         string(depth),
		Schema:        schemaText(),
		RuntimeCap:    100,
		TaskCap:       100,
		FlagIDs:       strings.Join(inspection.DefectFlagIDs(), ", "),
		LogFiles:      strings.Join(logFiles, " or "),
		ManifestFiles: strings.Join(manifestFiles, ", "),
	}
	if depth == inspection.Light {
		d.RuntimeCap, d.TaskCap = inspection.LightRuntimeCap, inspection.LightTaskCap
	}
	return d
}

// renderSystemPrompt executes the template src ("" for the built-in one)
// for depth. A template that does not parse, names a field PromptData
// lacks, or renders to nothing is an error.
func renderSystemPrompt(depth inspection.Depth, src string) (string, error) {
	if src == "" {
		src = BuiltinPrompt(depth)
	}
	t, err := template.New(string(depth)).Option("missingkey=error").Parse(src)
	if err != nil {
		return "", fmt.Errorf("%s prompt template: %w", depth, err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, promptData(depth)); err != nil {
		return "", fmt.Errorf("%s prompt template: %w", depth, err)
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", fmt.Errorf("%s prompt template renders to nothing", depth)
	}
	return b.String(), nil
}
