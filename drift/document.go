package drift

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// SchemaVersion is the version of the drift document's layout; it rises
// whenever a field is removed, moves or changes meaning, and
// ParseDocument refuses newer versions.
const SchemaVersion = 1

// Kind is the drift document's kind field.
const Kind = "evalcal-drift"

// Document is what evalcal drift writes: tonight's judges against the
// frozen anchors, per side, and with a history the anytime-valid result
// over every night. Field order is the document's key order. Numbers are
// written exact: a later night's --history recomputes from them.
type Document struct {
	SchemaVersion int    `yaml:"schema_version" json:"schema_version"`
	Kind          string `yaml:"kind" json:"kind"`
	GeneratedBy   string `yaml:"generated_by" json:"generated_by"`
	// Detected is the answer: with a history the anytime-valid test's
	// (History.Detected), else tonight's test's (a side's Detected).
	Detected bool   `yaml:"detected" json:"detected"`
	Sentence string `yaml:"sentence" json:"sentence"`
	Anchors  Ref    `yaml:"anchors" json:"anchors"`
	// Alpha and MaxDropPoints are the thresholds; each side re-inspected
	// is tested at Alpha divided by the number of sides (Bonferroni).
	Alpha         float64    `yaml:"alpha" json:"alpha"`
	MaxDropPoints float64    `yaml:"max_drop_points" json:"max_drop_points"`
	Judges        JudgeCheck `yaml:"judges" json:"judges"`
	Light         SideResult `yaml:"light" json:"light"`
	// Deep is absent when deep was not inspected again.
	Deep    *SideResult `yaml:"deep,omitempty" json:"deep,omitempty"`
	History *History    `yaml:"history,omitempty" json:"history,omitempty"`
	// Missing lists anchor runs left out because tonight's inspection of
	// them failed ("run depth: reason").
	Missing  []string `yaml:"missing" json:"missing"`
	Warnings []string `yaml:"warnings" json:"warnings"`
}

// Ref names the anchor set a drift document compared with.
type Ref struct {
	File string `yaml:"file" json:"file"`
	Hash string `yaml:"hash" json:"hash"`
	Runs int    `yaml:"runs" json:"runs"`
}

// JudgeCheck is each side's judge then and now, and what changed.
type JudgeCheck struct {
	Light SideJudges  `yaml:"light" json:"light"`
	Deep  *SideJudges `yaml:"deep,omitempty" json:"deep,omitempty"`
}

// SideJudges is one side's judge at freeze time and tonight; Changed
// lists what differs (empty when nothing does).
type SideJudges struct {
	Then    Judge    `yaml:"then" json:"then"`
	Now     Judge    `yaml:"now" json:"now"`
	Changed []string `yaml:"changed" json:"changed"`
}

// Input is one night's drift check.
type Input struct {
	Anchors    *Anchors
	AnchorFile string
	// LightNow and DeepNow are tonight's inspections by run id; DeepNow is
	// nil when deep was not inspected again. Anchor runs missing from a
	// map are left out of that side (list them in Missing).
	LightNow, DeepNow map[string]Observation
	LightJudge        Judge
	DeepJudge         *Judge
	Missing           []string
	GeneratedBy       string
	Options           Options
	// History, when not nil, holds the earlier nights (see NewHistory).
	History *HistoryInput
}

// Build compares tonight's inspections with the anchors and returns the
// drift document. It returns an error for invalid options, a side with no
// anchor run inspected tonight, or an earlier document that cannot be
// used.
func Build(in Input) (*Document, error) {
	if err := in.Options.check(); err != nil {
		return nil, err
	}
	sides := 1
	if in.DeepNow != nil {
		sides = 2
	}
	sideOpts := in.Options
	sideOpts.Alpha /= float64(sides)
	doc := &Document{SchemaVersion: SchemaVersion, Kind: Kind, GeneratedBy: in.GeneratedBy,
		Anchors: Ref{File: in.AnchorFile, Hash: in.Anchors.Hash, Runs: len(in.Anchors.Runs)},
		Alpha:   in.Options.Alpha, MaxDropPoints: roundTo(100*in.Options.MaxDrop, 10),
		Missing: nonNil(in.Missing), Warnings: []string{}}
	doc.Judges.Light = SideJudges{Then: in.Anchors.Light, Now: in.LightJudge, Changed: nonNil(in.Anchors.Light.Changes(in.LightJudge))}
	light, err := CompareSide(pairsOf(in.Anchors, in.LightNow, false), sideOpts)
	if err != nil {
		return nil, fmt.Errorf("drift: light: %w", err)
	}
	doc.Light = light
	if in.DeepNow != nil {
		if in.Anchors.Deep == nil || !in.Anchors.HasDeep() {
			return nil, errors.New("drift: deep was inspected again, but the anchors hold no deep labels to compare with")
		}
		dj := SideJudges{Then: *in.Anchors.Deep, Changed: []string{}}
		if in.DeepJudge != nil {
			dj.Now = *in.DeepJudge
			dj.Changed = nonNil(in.Anchors.Deep.Changes(*in.DeepJudge))
		}
		doc.Judges.Deep = &dj
		deep, err := CompareSide(pairsOf(in.Anchors, in.DeepNow, true), sideOpts)
		if err != nil {
			return nil, fmt.Errorf("drift: deep: %w", err)
		}
		doc.Deep = &deep
	}
	doc.Detected = doc.Light.Detected || (doc.Deep != nil && doc.Deep.Detected)
	if in.History != nil {
		h, err := history(in.History, doc, in.Options)
		if err != nil {
			return nil, err
		}
		doc.History = h
		doc.Detected = h.Detected
	}
	doc.Sentence = sentence(doc)
	return doc, nil
}

// pairsOf pairs the anchors' frozen inspections of one side with
// tonight's, in anchor order; deep selects the deep side (whose pairs
// carry no deep label).
func pairsOf(a *Anchors, now map[string]Observation, deep bool) []Pair {
	var out []Pair
	for _, r := range a.Runs {
		o, ok := now[r.ID]
		if !ok {
			continue
		}
		switch {
		case deep && r.Deep != nil:
			out = append(out, Pair{RunID: r.ID, Then: *r.Deep, Now: o})
		case !deep:
			out = append(out, Pair{RunID: r.ID, Then: r.Light, Now: o, Deep: r.Deep})
		}
	}
	return out
}

// sentence says the answer in words, with the figures behind it.
func sentence(d *Document) string {
	var b strings.Builder
	if d.Detected {
		b.WriteString("Drift detected")
		if d.History != nil {
			fmt.Fprintf(&b, " (anytime-valid over %d nights, first at night %d)", d.History.Looks, d.History.FirstDetected)
		}
		b.WriteString(": ")
	} else {
		b.WriteString("No drift detected")
		if d.History != nil {
			fmt.Fprintf(&b, " (anytime-valid over %d nights)", d.History.Looks)
		}
		b.WriteString(": ")
	}
	b.WriteString(sideSentence("light", d.Light))
	if d.Deep != nil {
		b.WriteString("; " + sideSentence("deep", *d.Deep))
	}
	if len(d.Judges.Light.Changed) > 0 {
		b.WriteString("; the light judge changed since the freeze (" + strings.Join(d.Judges.Light.Changed, ", ") + ")")
	}
	if d.Judges.Deep != nil && len(d.Judges.Deep.Changed) > 0 {
		b.WriteString("; the deep judge changed since the freeze (" + strings.Join(d.Judges.Deep.Changed, ", ") + ")")
	}
	b.WriteString(".")
	return b.String()
}

func sideSentence(name string, r SideResult) string {
	f := r.Flips
	s := fmt.Sprintf("%s flipped %d of %d runs at the pass line (%s [%s, %s]), %d to pass and %d to not pass (McNemar p = %s)",
		name, f.Count, f.N, percent(f.Rate), percent(f.CI.Lower), percent(f.CI.Upper), f.ToPass, f.ToNotPass, formatP(f.McNemarP))
	if a := r.AgreementWithDeep; a != nil {
		s += fmt.Sprintf(", agreement with deep %s → %s (%s points [%s, %s])", percent(a.Then), percent(a.Now),
			points(a.Change.Estimate), points(a.Change.CI.Lower), points(a.Change.CI.Upper))
	}
	return s
}

// EncodeDocument writes a drift document as YAML, numbers exact.
func EncodeDocument(d *Document) ([]byte, error) { return encodeYAML(d) }

// ParseDocument reads a drift document (YAML or JSON); name is the file
// name errors give. An unknown field, another kind of document or a newer
// schema version is an error naming the file.
func ParseDocument(data []byte, name string) (*Document, error) {
	var head struct {
		SchemaVersion int    `yaml:"schema_version"`
		Kind          string `yaml:"kind"`
	}
	if err := yaml.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("drift: %s: %w", name, err)
	}
	switch {
	case head.Kind != Kind:
		return nil, fmt.Errorf("drift: %s: kind: %q, want %q", name, head.Kind, Kind)
	case head.SchemaVersion > SchemaVersion:
		return nil, fmt.Errorf("drift: %s: schema_version: %d is newer than this evalcal reads (%d)", name, head.SchemaVersion, SchemaVersion)
	case head.SchemaVersion < 1:
		return nil, fmt.Errorf("drift: %s: schema_version: %d, want %d", name, head.SchemaVersion, SchemaVersion)
	}
	var d Document
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&d); err != nil {
		return nil, fmt.Errorf("drift: %s: %w", name, err)
	}
	return &d, nil
}

// IsDocument reports whether data looks like a drift document (its kind
// field says so), without checking the rest.
func IsDocument(data []byte) bool {
	var head struct {
		Kind string `yaml:"kind"`
	}
	return yaml.Unmarshal(data, &head) == nil && head.Kind == Kind
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
