package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

const schemaPath = "report/schema/report.schema.json"

// TestSchemaFileIsCurrent fails when the report's types change without
// the committed schema being regenerated.
func TestSchemaFileIsCurrent(t *testing.T) {
	b, err := GenerateSchema()
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, schemaPath, b)
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
