package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/gates"
)

const schemaPath = "report/schema/report.schema.json"

// schemaGen derives a JSON Schema (draft 2020-12) from the report's Go
// types: one $defs entry per named struct, every field by its JSON name,
// required unless omitempty, no other properties. Lists and pointers may
// be null, as encoding/json writes nil ones.
type schemaGen struct{ defs map[string]any }

func (g *schemaGen) of(t reflect.Type) map[string]any {
	if t == reflect.TypeOf(time.Time{}) {
		return map[string]any{"type": "string", "format": "date-time"}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return map[string]any{"anyOf": []any{g.of(t.Elem()), map[string]any{"type": "null"}}}
	case reflect.Struct:
		name := t.String()
		if _, ok := g.defs[name]; !ok {
			g.defs[name] = nil // placeholder against recursion
			props, req := map[string]any{}, []string{}
			g.fields(t, props, &req)
			sort.Strings(req)
			g.defs[name] = map[string]any{"type": "object", "properties": props, "required": req, "additionalProperties": false}
		}
		return map[string]any{"$ref": "#/$defs/" + name}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": []any{"array", "null"}, "items": g.of(t.Elem())}
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

// reportSchema generates the schema of Report, with the trend and gates
// sections as optional properties until Report carries them.
func reportSchema(t *testing.T) []byte {
	t.Helper()
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
			t.Fatalf("schema constraint for unknown type %s", def)
		}
		dp := d["properties"].(map[string]any)
		for field, extra := range fields {
			p, ok := dp[field].(map[string]any)
			if !ok {
				t.Fatalf("schema constraint for unknown field %s.%s", def, field)
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
		"description": "The YAML/JSON report of evalcal run, schema_version 1. Generated from the Go types by report/schema_test.go (go test ./report -run Schema -update), with ranges and enums added there.",
		"$ref":        "#/$defs/report.Report",
		"$defs":       g.defs,
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestSchemaFileIsCurrent fails when the report's types change without
// the committed schema being regenerated.
func TestSchemaFileIsCurrent(t *testing.T) {
	checkGolden(t, schemaPath, reportSchema(t))
}

func compileSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("..", schemaPath))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("report.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// instance decodes a YAML or JSON report into the JSON value model the
// validator expects.
func instance(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return inst
}

// goldenReports are the committed calibration reports: every YAML or
// JSON file under testdata holding agreement_rate and schema_version.
func goldenReports(t *testing.T) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join("..", "testdata"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "runs" {
			return filepath.SkipDir // the bundled corpus: run directories
		}
		ext := filepath.Ext(path)
		if d.IsDir() || ext != ".yaml" && ext != ".json" && ext != ".golden" && ext != ".yml" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte("schema_version")) && bytes.Contains(b, []byte("agreement_rate")) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestGoldenReportsMatchSchema(t *testing.T) {
	s := compileSchema(t)
	paths := goldenReports(t)
	if len(paths) == 0 {
		t.Fatal("no golden reports found")
	}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(instance(t, b)); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

func TestReportWithTrendAndGatesMatchesSchema(t *testing.T) {
	r := buildReport(fixtureRuns)
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	tr := CompareReports(buildReport(fixtureRuns[:8]), r)
	gs, _ := gates.Parse([]string{"agreement.lower >= 80"})
	for k, v := range map[string]any{"trend": tr, "gates": gates.Check(gs, r)} {
		vb, _ := json.Marshal(v)
		var vv any
		_ = json.Unmarshal(vb, &vv)
		m[k] = vv
	}
	b, _ = json.Marshal(m)
	if err := compileSchema(t).Validate(instance(t, b)); err != nil {
		t.Error(err)
	}
}

// The schema can fail: out-of-range, unknown and missing keys are caught.
func TestSchemaRejectsBrokenReports(t *testing.T) {
	s := compileSchema(t)
	good, err := os.ReadFile("../testdata/render/synthetic.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(m map[string]any){
		"percent above 100":  func(m map[string]any) { m["agreement_rate"].(map[string]any)["percent"] = 140 },
		"unknown confidence": func(m map[string]any) { m["confidence"] = "certain" },
		"unknown key":        func(m map[string]any) { m["agreement"] = 1 },
		"missing key":        func(m map[string]any) { delete(m, "kappa") },
		"newer schema":       func(m map[string]any) { m["schema_version"] = SchemaVersion + 1 },
		"bad verdict": func(m map[string]any) {
			m["comparisons"].([]any)[0].(map[string]any)["deep_verdict"] = "maybe"
		},
	} {
		var m map[string]any
		if err := yaml.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, _ := json.Marshal(m)
		if err := s.Validate(instance(t, b)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
