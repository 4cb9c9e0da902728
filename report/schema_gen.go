package report

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/evalcal/evalcal/gates"
)

// schemaGen derives a JSON Schema (draft 2020-12) from the report's Go
// types: one $defs entry per named struct, every field by its JSON name,
// required unless omitempty, no other properties. Lists and pointers may
// be null, as encoding/json writes nil ones.
type schemaGen struct{ defs map[string]any }

// publishedName is the $defs name of the Go type name: the one the
// schema published, for a type that moved to another package since, so
// the public schema does not change with the code's layout.
func publishedName(name string) string {
	if rest, ok := strings.CutPrefix(name, "report."); ok && sectionTypes[rest] {
		return "aggregate." + rest
	}
	if rest, ok := strings.CutPrefix(name, "report."); ok && coreTypes[rest] {
		return "statistician." + rest
	}
	switch name {
	case "inspection.Failure":
		return "runner.Failure"
	case "inspection.Usage":
		return "runner.Usage"
	}
	return name
}

// sectionTypes are the report's statistics section types (sections*.go),
// published under the names they had when statistician/aggregate defined
// them ("aggregate.AgreementRate").
var sectionTypes = map[string]bool{
	"AgreementRate": true, "SystemAgreement": true, "ClusteredRate": true, "KappaSection": true, "Leniency": true,
	"Confusion": true, "Breakdown": true, "ScoreCorrelation": true, "Correlation": true, "MeanScoreDelta": true,
	"ScoreDelta": true, "Forecast": true, "RobustAgreement": true, "Alpha": true, "AC1": true, "ClassWise": true,
	"Proportion": true, "Estimate": true, "BestEstimate": true, "EstimateSet": true, "TransportCheck": true,
	"MethodEstimate": true, "ClusteredEstimates": true, "ClusterDesign": true, "Repeatability": true,
	"SideRepeatability": true, "ScoreSpread": true,
}

// coreTypes are the report's copies of the scoring core's results
// (sections_core.go), published under their statistician.* names.
var coreTypes = map[string]bool{
	"BlandAltmanResult": true, "CCC": true, "CORPDecomposition": true, "BinnedMurphy": true, "ReliabilityBin": true,
	"Regression": true, "Coefficient": true,
}

func (g *schemaGen) of(t reflect.Type) map[string]any {
	if t == reflect.TypeOf(time.Time{}) {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return map[string]any{"anyOf": []any{g.of(t.Elem()), map[string]any{"type": "null"}}}
	case reflect.Struct:
		name := publishedName(t.String())
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // placeholder against recursion
			props, req := map[string]any{}, []string{}
			g.fields(t, props, &req)
			sort.Strings(req)
			g.defs[name] = map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	case reflect.Slice, reflect.Array:
		item := t.Elem()
		if item.Kind() == reflect.Pointer {
			item = item.Elem() // shared elements (Report.Disagreements point into Comparisons), never null
		}
		return map[string]any{"type": []any{"array", "null"}, "items": g.of(item)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.of(t.Elem())}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer", "minimum": 0}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	}
	return map[string]any{}
}

// fields adds the JSON properties of struct t to props, inlining embedded
// structs as encoding/json does.
func (g *schemaGen) fields(t reflect.Type, props map[string]any, req *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		key, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous && key == "" && f.Type.Kind() == reflect.Struct {
			g.fields(f.Type, props, req)
			continue
		}
		if !f.IsExported() || key == "-" {
			continue
		}
		if key == "" {
			key = f.Name
		}
		props[key] = g.of(f.Type)
		if !strings.Contains(opts, "omitempty") {
			*req = append(*req, key)
		}
	}
}

// schemaConstraints add what the types cannot say: ranges and enums.
// Keys are $defs names, then property names.
var schemaConstraints = map[string]map[string]map[string]any{
	"report.Report": {
		"schema_version": {"minimum": 1, "maximum": SchemaVersion},
		"confidence":     {"enum": []any{"low", "medium", "high"}},
		"bias_direction": {"enum": []any{"optimistic", "pessimistic", "neutral"}},
		"sample_size":    {"minimum": 0},
	},
	"aggregate.AgreementRate": {
		"percent":  {"minimum": 0, "maximum": 100},
		"matches":  {"minimum": 0},
		"n":        {"minimum": 0},
		"wilson95": {"properties": map[string]any{"lower": map[string]any{"minimum": 0, "maximum": 100}, "upper": map[string]any{"minimum": 0, "maximum": 100}}},
	},
	"aggregate.ScoreDelta": {
		"direction": {"enum": []any{"optimistic", "pessimistic", "neutral"}},
	},
	"comparator.Comparison": {
		"light_verdict":     {"enum": []any{"pass", "partial", "fail"}},
		"deep_verdict":      {"enum": []any{"pass", "partial", "fail"}},
		"disagreement_type": {"anyOf": []any{map[string]any{"enum": []any{"verdict_split", "false_negative", "severity_mismatch", "false_positive"}}, map[string]any{"type": "null"}}},
	},
	"comparator.Scores": {
		"runtime_fidelity":   {"minimum": 0, "maximum": 100},
		"task_effectiveness": {"minimum": 0, "maximum": 100},
	},
	"runner.Failure": {
		"depth":    {"enum": []any{"light", "deep"}},
		"attempts": {"minimum": 0},
	},
	"statistician.Kappa": {
		"value": {"minimum": -1, "maximum": 1},
		"se":    {"minimum": 0},
	},
	"statistician.ReliabilityBin": {
		"count": {"minimum": 0},
		"hits":  {"minimum": 0},
	},
	"advisor.Recommendation": {
		"priority": {"minimum": 1},
	},
}

// GenerateSchema generates the JSON Schema (draft 2020-12) of the report
// from its Go types (schemaGen) and schemaConstraints, with the trend and
// gates sections as optional properties. report/schema/report.schema.json
// is its output, committed (TestSchemaFileIsCurrent; -update rewrites it)
// and used by the reader to validate reports.
func GenerateSchema() ([]byte, error) {
	g := &schemaGen{defs: map[string]any{}}
	g.of(reflect.TypeOf(Report{}))
	root := g.defs["report.Report"].(map[string]any)
	props := root["properties"].(map[string]any)
	if _, ok := props["trend"]; !ok {
		props["trend"] = g.of(reflect.TypeOf(&Trend{}))
	}
	if _, ok := props["gates"]; !ok {
		props["gates"] = g.of(reflect.TypeOf([]gates.GateRecord{}))
	}
	for def, fields := range schemaConstraints {
		d, ok := g.defs[def].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("report: schema constraint for unknown type %s", def)
		}
		dp := d["properties"].(map[string]any)
		for field, extra := range fields {
			p, ok := dp[field].(map[string]any)
			if !ok {
				return nil, fmt.Errorf("report: schema constraint for unknown field %s.%s", def, field)
			}
			for k, v := range extra {
				p[k] = v
			}
		}
	}
	doc := map[string]any{
		"$schema":     "https://json-schema.org/draft/2020-12/schema",
		"$id":         "https://github.com/evalcal/evalcal/report/schema/report.schema.json",
		"title":       "evalcal calibration report",
		"description": "The YAML/JSON report of evalcal run, schema_version 1. Generated from the Go types by report/schema_gen.go (go test ./report -run Schema -update), with ranges and enums added there.",
		"$ref":        "#/$defs/report.Report",
		"$defs":       g.defs,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("report: schema: %w", err)
	}
	return append(b, '\n'), nil
}
