package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	pathpkg "path"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/evalcal/evalcal"

// productionFiles calls fn on every non-test Go file of the module
// outside testdata and hidden directories, with its path and its path
// relative to the module root (slash-separated); an error ends the test.
func productionFiles(t *testing.T, fn func(path, rel string) error) {
	t.Helper()
	root := filepath.Join("..", "..")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		return fn(p, filepath.ToSlash(rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// imports maps each package directory (relative, slash-separated) to the
// imports of its non-test files.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	productionFiles(t, func(path, rel string) error {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir := pathpkg.Dir(rel)
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			out[dir] = append(out[dir], p)
		}
		if _, ok := out[dir]; !ok {
			out[dir] = nil
		}
		return nil
	})
	if len(out) < 10 {
		t.Fatalf("found %d packages; is the test run from internal/archtest?", len(out))
	}
	return out
}

func isStdlib(path string) bool { return !strings.Contains(strings.Split(path, "/")[0], ".") }

// The scoring core imports only the standard library and gonum
// (docs/DESIGN.md, "Dependency rules").
func TestScoringCoreImportsOnlyStdlibAndGonum(t *testing.T) {
	core := imports(t)["statistician"]
	if len(core) == 0 {
		t.Fatal("no imports read for statistician")
	}
	for _, path := range core {
		if !isStdlib(path) && !strings.HasPrefix(path, "gonum.org/v1/gonum/") {
			t.Errorf("statistician imports %s", path)
		}
	}
}

// Stages never import cmd/; nothing imports programs/ except cmd/.
func TestStagesDoNotImportCommandsOrPrograms(t *testing.T) {
	for dir, paths := range imports(t) {
		for _, path := range paths {
			if strings.HasPrefix(path, module+"/cmd/") {
				t.Errorf("%s imports %s", dir, path)
			}
			if strings.HasPrefix(path, module+"/programs/") && !strings.HasPrefix(dir, "cmd/") && !strings.HasPrefix(dir, "programs/") {
				t.Errorf("%s imports %s: only cmd/ may", dir, path)
			}
		}
	}
}

// Only the command and the reader itself link the SQLite driver: the
// prediction-log reader is a package of its own (forecast/predictionlog).
func TestOnlyThePredictionLogReaderImportsSQLite(t *testing.T) {
	for dir, paths := range imports(t) {
		for _, path := range paths {
			if strings.HasPrefix(path, "modernc.org/sqlite") && dir != "forecast/predictionlog" {
				t.Errorf("%s imports %s: only forecast/predictionlog may", dir, path)
			}
			if path == module+"/forecast/predictionlog" && !strings.HasPrefix(dir, "cmd/") {
				t.Errorf("%s imports forecast/predictionlog: only cmd/ may", dir)
			}
		}
	}
}

// internal/testutil and report/reporttest are scaffolding for tests: no
// package's non-test code imports them.
func TestNoProductionCodeImportsTestutil(t *testing.T) {
	for dir, paths := range imports(t) {
		for _, path := range paths {
			for _, scaffold := range []string{"internal/testutil", "report/reporttest"} {
				if path == module+"/"+scaffold && dir != scaffold {
					t.Errorf("%s imports %s outside its tests", dir, scaffold)
				}
			}
		}
	}
}

// A program that embeds the pipeline (calibrate) links no SQLite driver,
// no plotting library (the renderers are report/render) and no JSON Schema
// validator (the report reader is report/reportio): checked on the build
// graph itself (go list -deps), which also sees imports made by
// third-party modules.
func TestCalibrateLinksNoSQLitePlotOrJSONSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	goCmd := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goCmd); err != nil {
		if goCmd, err = exec.LookPath("go"); err != nil {
			t.Skip("no go command to list dependencies with")
		}
	}
	cmd := exec.Command(goCmd, "list", "-deps", "./calibrate")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps ./calibrate: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 || !slices.Contains(deps, module+"/calibrate") {
		t.Fatalf("go list -deps ./calibrate listed %d packages; is the test run from internal/archtest?", len(deps))
	}
	for _, d := range deps {
		for _, heavy := range []string{"modernc.org/sqlite", "gonum.org/v1/plot", "github.com/santhosh-tekuri/jsonschema"} {
			if strings.HasPrefix(d, heavy) {
				t.Errorf("calibrate depends on %s (module %s)", d, heavy)
			}
		}
	}
}

// layers ranks the packages from the bottom (the scoring core, helpers)
// to the top (commands): a package imports only packages of lower layers,
// so that the import graph has no arrow pointing up. A package missing
// here fails the test: add it where it belongs.
var layers = map[string]int{
	"internal/english": -1, // words only: gates, at the bottom, uses it
	"statistician":     0, "gates": 0, "internal/atomicfile": 0, "internal/inputfile": 0, "internal/lines": 0,
	"inspection":           0,
	"internal/judgeserver": 0, "internal/corpusgen": 0,
	"sampler": 1, "segment": 1,
	"runner":                 2,
	"comparator":             3,
	"statistician/aggregate": 4,
	"advisor":                5,
	"forecast":               6, "pairwise": 6, "perturb": 6, "escalate": 6, "drift": 6, "rank": 6,
	"forecast/predictionlog": 7, "report": 7,
	"calibrate": 8, "programs/spec": 8, "report/reportio": 8, "internal/reportenc": 8,
	"report/render": 9, "report/reporttest": 9,
	"programs/builtin": 9, "programs/exec": 9, "programs/importers": 9, "programs/llm": 9, "programs/saved": 9,
	"programs/panel": 9,
	"programs/all":   10,
	"cmd/evalcal":    11, "cmd/judgeserver": 11,
}

func TestImportsPointDownTheLayers(t *testing.T) {
	for dir, paths := range imports(t) {
		from, ok := layers[dir]
		if !ok {
			if dir != "internal/archtest" && dir != "internal/testutil" {
				t.Errorf("%s has no layer: add it to layers where it belongs", dir)
			}
			continue
		}
		for _, path := range paths {
			to, ok := layers[strings.TrimPrefix(path, module+"/")]
			if ok && strings.HasPrefix(path, module+"/") && to >= from {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point to lower layers", dir, from, path, to)
			}
		}
	}
}

// The domain package (inspection) is a leaf: it imports only the standard
// library, so every stage and every program can share its vocabulary.
func TestDomainIsALeaf(t *testing.T) {
	all := imports(t)
	paths, ok := all["inspection"]
	if !ok {
		t.Fatal("no package inspection")
	}
	for _, path := range paths {
		if !isStdlib(path) {
			t.Errorf("inspection imports %s: the domain package imports the standard library only", path)
		}
	}
}

// The inspectors in programs/ speak the domain's protocol, not the
// scheduler's: no program imports runner, and the spec registry imports
// only the domain. Only programs/all lists the
// programs, and cmd/evalcal reaches them only through it (it may import
// programs/llm for the generation parameters' range checks).
func TestProgramsUseTheDomainNotTheScheduler(t *testing.T) {
	for dir, paths := range imports(t) {
		for _, path := range paths {
			switch {
			case strings.HasPrefix(dir, "programs/") && path == module+"/runner":
				t.Errorf("%s imports runner: a program uses package inspection", dir)
			case dir == "programs/spec" && strings.HasPrefix(path, module+"/") && path != module+"/inspection":
				t.Errorf("programs/spec imports %s: the registry knows only the domain", path)
			case strings.HasPrefix(dir, "programs/") && dir != "programs/all" && strings.HasPrefix(path, module+"/programs/") && path != module+"/programs/spec":
				t.Errorf("%s imports %s: programs do not import each other (programs/all lists them)", dir, path)
			case strings.HasPrefix(dir, "cmd/") && strings.HasPrefix(path, module+"/programs/") &&
				path != module+"/programs/all" && path != module+"/programs/spec" && path != module+"/programs/llm" &&
				path != module+"/programs/panel": // rank calibrates a panel's members first
				t.Errorf("%s imports %s: commands open inspectors through programs/all", dir, path)
			}
		}
	}
}

// The domain's names are said once, as inspection.X: no package re-exports
// them under its own name (a type alias of an inspection type, a constant
// or variable set to inspection.X, a function that only returns
// inspection.X(...)), as runner and sampler did while the domain moved out
// of them. Test files count too.
func TestNoPackageReExportsTheDomain(t *testing.T) {
	root := filepath.Join("..", "..")
	files := 0
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if filepath.ToSlash(filepath.Dir(rel)) == "inspection" {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			return err
		}
		files++
		local := map[string]bool{} // the names inspection is imported as
		for _, im := range f.Imports {
			if path, _ := strconv.Unquote(im.Path.Value); path == module+"/inspection" {
				name := "inspection"
				if im.Name != nil {
					name = im.Name.Name
				}
				local[name] = true
			}
		}
		for _, decl := range f.Decls {
			for _, id := range domainReExports(decl, local) {
				t.Errorf("%s: %s re-exports a name of package inspection: say inspection.%s", fset.Position(id.Pos()), id.Name, id.Name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files; is the test run from internal/archtest?", files)
	}
}

// domainReExports returns the names decl declares as a re-export of a name
// of package inspection, which the file imports as the names in local: a
// type alias of an inspection type, a constant or variable X set to
// inspection.X, a function X whose body is only "return inspection.X(...)".
func domainReExports(decl ast.Decl, local map[string]bool) []*ast.Ident {
	domain := func(e ast.Expr) string {
		if sel, ok := e.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && local[id.Name] {
				return sel.Sel.Name
			}
		}
		return ""
	}
	var out []*ast.Ident
	switch d := decl.(type) {
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Assign.IsValid() && domain(s.Type) != "" {
					out = append(out, s.Name)
				}
			case *ast.ValueSpec:
				for i, v := range s.Values {
					if i < len(s.Names) && domain(v) == s.Names[i].Name {
						out = append(out, s.Names[i])
					}
				}
			}
		}
	case *ast.FuncDecl:
		if d.Recv != nil || d.Body == nil || len(d.Body.List) != 1 {
			return nil
		}
		if ret, ok := d.Body.List[0].(*ast.ReturnStmt); ok && len(ret.Results) == 1 {
			if call, ok := ret.Results[0].(*ast.CallExpr); ok && domain(call.Fun) == d.Name.Name {
				out = append(out, d.Name)
			}
		}
	}
	return out
}
