package drift

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/inspection"
	"gopkg.in/yaml.v3"
)

// AnchorSchemaVersion is the version of the anchor document's layout. It
// rises whenever a field is removed, moves or changes meaning; ReadAnchors
// refuses newer versions.
const AnchorSchemaVersion = 1

// AnchorKind is the anchor document's kind field: a reader can tell an
// anchor file from a report or a drift document.
const AnchorKind = "evalcal-anchors"

// Anchors is a frozen anchor set: runs known by id and content hash, with
// the verdicts and scores each side gave them when it was frozen and who
// the judges were. Field order is the document's key order.
type Anchors struct {
	SchemaVersion int      `yaml:"schema_version" json:"schema_version"`
	Kind          string   `yaml:"kind" json:"kind"`
	GeneratedBy   string   `yaml:"generated_by" json:"generated_by"`
	CommandLine   []string `yaml:"command_line" json:"command_line"`
	// Paths are the run directories or folders the runs were found in
	// (empty when a saved or imported source brought them).
	Paths []string `yaml:"paths" json:"paths"`
	// Light is the light judge; Deep the deep one, absent when the anchor
	// set holds no deep labels.
	Light Judge  `yaml:"light" json:"light"`
	Deep  *Judge `yaml:"deep,omitempty" json:"deep,omitempty"`
	// Hash is AnchorsHash of Runs: drift documents of one anchor set share it.
	Hash string      `yaml:"hash" json:"hash"`
	Runs []AnchorRun `yaml:"runs" json:"runs"`
}

// Judge says who judged a side: the spec as given, the inspector identity
// (the inspection cache's key), and for an LLM judge what the identity is
// a hash of.
type Judge struct {
	Spec     string `yaml:"spec" json:"spec"`
	Identity string `yaml:"identity" json:"identity"`
	Provider string `yaml:"provider,omitempty" json:"provider,omitempty"`
	BaseURL  string `yaml:"base_url,omitempty" json:"base_url,omitempty"`
	Model    string `yaml:"model,omitempty" json:"model,omitempty"`
	// Parameters are the generation parameters as text (temperature,
	// max_output_tokens, seed, prompt_tokens, schema and pack versions).
	Parameters map[string]string `yaml:"parameters,omitempty" json:"parameters,omitempty"`
	// PromptSHA256 is the SHA-256 of the side's rendered system prompt.
	PromptSHA256 string `yaml:"prompt_sha256,omitempty" json:"prompt_sha256,omitempty"`
}

// Changes lists what differs between two judges, one item a field
// ("model: gpt-4o → gpt-4o-2024-11-20", "parameters.temperature: 0 ->
// 0.7", "prompt_sha256: 3f2a... → 91bc..."), in a fixed order; the
// identity is listed last, and only when nothing else explains it.
func (j Judge) Changes(now Judge) []string {
	var out []string
	add := func(field, a, b string) {
		if a != b {
			out = append(out, fmt.Sprintf("%s: %s → %s", field, orNone(a), orNone(b)))
		}
	}
	add("spec", j.Spec, now.Spec)
	add("provider", j.Provider, now.Provider)
	add("base_url", j.BaseURL, now.BaseURL)
	add("model", j.Model, now.Model)
	keys := map[string]bool{}
	for k := range j.Parameters {
		keys[k] = true
	}
	for k := range now.Parameters {
		keys[k] = true
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		add("parameters."+k, j.Parameters[k], now.Parameters[k])
	}
	add("prompt_sha256", short(j.PromptSHA256), short(now.PromptSHA256))
	if len(out) == 0 || (len(out) == 1 && strings.HasPrefix(out[0], "spec: ")) {
		add("identity", j.Identity, now.Identity)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func short(h string) string {
	if len(h) > 16 {
		return h[:16]
	}
	return h
}

// AnchorRun is one anchor run: its id, the hash of what was inspected, and
// each side's frozen inspection.
type AnchorRun struct {
	ID string `yaml:"id" json:"id"`
	// ContentHash is the run's content hash as the sampler (a run
	// directory) or the source (a saved or imported file) gave it.
	ContentHash string `yaml:"content_hash" json:"content_hash"`
	// FromSource is true when a saved or imported source brought the run:
	// its content hash is then the source's line or sample, which holds
	// the judge's answer, so drift checks the run's id only.
	FromSource bool         `yaml:"from_source,omitempty" json:"from_source,omitempty"`
	Light      Observation  `yaml:"light" json:"light"`
	Deep       *Observation `yaml:"deep,omitempty" json:"deep,omitempty"`
}

// AnchorsHash is the hex SHA-256 over the runs' ids, content hashes and
// frozen verdicts and scores, in id order: two anchor files with the same
// runs and frozen answers share it, whatever else differs.
func AnchorsHash(runs []AnchorRun) string {
	lines := make([]string, 0, len(runs))
	for _, r := range runs {
		l := fmt.Sprintf("%s\x00%s\x00%s", r.ID, r.ContentHash, r.Light.key())
		if r.Deep != nil {
			l += "\x00" + r.Deep.key()
		}
		lines = append(lines, l)
	}
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		_, _ = io.WriteString(h, l+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (o Observation) key() string {
	return fmt.Sprintf("%s/%v/%v", o.Verdict, o.RuntimeFidelity, o.TaskEffectiveness)
}

// HasDeep reports whether any anchor run holds a deep label.
func (a *Anchors) HasDeep() bool {
	for _, r := range a.Runs {
		if r.Deep != nil {
			return true
		}
	}
	return false
}

// EncodeAnchors writes the anchor set as YAML (two-space indentation);
// numbers are written exact (shortest round trip): drift recomputes from
// them.
func EncodeAnchors(a *Anchors) ([]byte, error) {
	return encodeYAML(a)
}

func encodeYAML(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("drift: encode: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("drift: encode: %w", err)
	}
	return buf.Bytes(), nil
}

// ParseAnchors reads an anchor document (YAML or JSON) from data; name is
// the file name errors give. Every problem names the file, the line and
// the field: an unknown field, a newer schema version, another kind of
// document, a run without id or content hash, a repeated id, a verdict
// other than fail, partial or pass, a score outside 0..100, or a hash
// that does not match the runs.
func ParseAnchors(data []byte, name string) (*Anchors, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("drift: %s: %w", name, err)
	}
	if root.Kind != yaml.DocumentNode || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("drift: %s: not an anchor document (want a mapping with kind: %s)", name, AnchorKind)
	}
	top := root.Content[0]
	var head struct {
		SchemaVersion int    `yaml:"schema_version"`
		Kind          string `yaml:"kind"`
	}
	if err := top.Decode(&head); err != nil {
		return nil, fmt.Errorf("drift: %s: %w", name, err)
	}
	switch {
	case head.Kind != AnchorKind:
		return nil, fmt.Errorf("drift: %s:%d: kind: %q, want %q (is this an anchor file from evalcal anchor freeze?)", name, top.Line, head.Kind, AnchorKind)
	case head.SchemaVersion > AnchorSchemaVersion:
		return nil, fmt.Errorf("drift: %s:%d: schema_version: %d is newer than this evalcal reads (%d); upgrade evalcal", name, top.Line, head.SchemaVersion, AnchorSchemaVersion)
	case head.SchemaVersion < 1:
		return nil, fmt.Errorf("drift: %s:%d: schema_version: %d, want %d", name, top.Line, head.SchemaVersion, AnchorSchemaVersion)
	}
	var a Anchors
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		return nil, fmt.Errorf("drift: %s: %w", name, err)
	}
	if err := checkRuns(&a, runLines(top), name); err != nil {
		return nil, err
	}
	if got := AnchorsHash(a.Runs); a.Hash != got {
		return nil, fmt.Errorf("drift: %s: hash: %s does not match the runs (%s): the file was edited after it was frozen", name, orNone(a.Hash), got)
	}
	return &a, nil
}

// runLines returns the line of each item of the top mapping's runs list.
func runLines(top *yaml.Node) []int {
	for i := 0; i+1 < len(top.Content); i += 2 {
		if top.Content[i].Value == "runs" && top.Content[i+1].Kind == yaml.SequenceNode {
			var lines []int
			for _, item := range top.Content[i+1].Content {
				lines = append(lines, item.Line)
			}
			return lines
		}
	}
	return nil
}

// checkRuns checks every run, naming the file, its line and the field.
func checkRuns(a *Anchors, lines []int, name string) error {
	if len(a.Runs) == 0 {
		return fmt.Errorf("drift: %s: runs: no anchor run", name)
	}
	var errs []error
	seen := map[string]bool{}
	for i, r := range a.Runs {
		where := fmt.Sprintf("%s: runs[%d]", name, i)
		if i < len(lines) {
			where = fmt.Sprintf("%s:%d: runs[%d]", name, lines[i], i)
		}
		switch {
		case r.ID == "":
			errs = append(errs, fmt.Errorf("drift: %s: id: empty", where))
		case seen[r.ID]:
			errs = append(errs, fmt.Errorf("drift: %s: id: %q is listed twice", where, r.ID))
		case r.ContentHash == "":
			errs = append(errs, fmt.Errorf("drift: %s (%s): content_hash: empty", where, r.ID))
		}
		seen[r.ID] = true
		if err := r.Light.check(); err != nil {
			errs = append(errs, fmt.Errorf("drift: %s (%s): light.%w", where, r.ID, err))
		}
		if r.Deep != nil {
			if err := r.Deep.check(); err != nil {
				errs = append(errs, fmt.Errorf("drift: %s (%s): deep.%w", where, r.ID, err))
			}
		}
	}
	return errors.Join(errs...)
}

// check accepts a verdict of fail, partial or pass and scores in 0..100.
func (o Observation) check() error {
	switch o.Verdict {
	case inspection.VerdictFail, inspection.VerdictPartial, inspection.VerdictPass:
	default:
		return fmt.Errorf("verdict: %q, want fail, partial or pass", o.Verdict)
	}
	for _, s := range []struct {
		name string
		v    float64
	}{{"runtime_fidelity", o.RuntimeFidelity}, {"task_effectiveness", o.TaskEffectiveness}} {
		if !(s.v >= 0 && s.v <= 100) { // NaN too
			return fmt.Errorf("%s: %v outside 0..100", s.name, s.v)
		}
	}
	return nil
}
