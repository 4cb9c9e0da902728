package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sliceFixture is segment's reference fixture: runs with known answers,
// and the figures an independent script computed on them
// (segment/testdata/reference/segment_ref.py).
const sliceFixture = "segment/testdata/reference/"

// writeSliceInspections writes the fixture's runs as saved light and deep
// inspections: light's scores are 100 x its forecast (so the report's
// forecast (rf + te)/200 is the fixture's), its metadata on the light
// line; runs the fixture left without a deep verdict get no deep line.
func writeSliceInspections(t *testing.T, dir string) (light, deep string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot(t), sliceFixture, "runs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var runs []struct {
		ID           string          `json:"id"`
		System       string          `json:"system"`
		Metadata     json.RawMessage `json:"metadata"`
		LightVerdict string          `json:"light_verdict"`
		DeepVerdict  *string         `json:"deep_verdict"`
		Forecast     float64         `json:"forecast"`
	}
	if err := json.Unmarshal(data, &runs); err != nil {
		t.Fatal(err)
	}
	var lb, db strings.Builder
	for _, r := range runs {
		md := ""
		if len(r.Metadata) > 0 {
			var c bytes.Buffer
			if err := json.Compact(&c, r.Metadata); err != nil {
				t.Fatal(err)
			}
			md = `,"metadata":` + c.String()
		}
		s := 100 * r.Forecast
		fmt.Fprintf(&lb, `{"run_id":%q,"system":%q,"depth":"light","runtime_fidelity":%v,"task_effectiveness":%v,"verdict":%q%s}`+"\n",
			r.ID, r.System, s, s, r.LightVerdict, md)
		if r.DeepVerdict != nil {
			fmt.Fprintf(&db, `{"run_id":%q,"system":%q,"depth":"deep","runtime_fidelity":50,"task_effectiveness":50,"verdict":%q}`+"\n",
				r.ID, r.System, *r.DeepVerdict)
		}
	}
	light, deep = filepath.Join(dir, "light.jsonl"), filepath.Join(dir, "deep.jsonl")
	for p, s := range map[string]string{light: lb.String(), deep: db.String()} {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return light, deep
}

// `run --by system --by task` through the binary: the slices section
// carries the reference figures (as the report rounds them: percentages
// and points to 2 decimals, p-values to 3 significant digits), and the
// summary names the pair light orders wrong.
func TestRunByMatchesTheSliceReference(t *testing.T) {
	skipShort(t)
	light, deep := writeSliceInspections(t, t.TempDir())
	res := runBinary(t, binOptions{}, "run", "--no-cache", "--quiet", "--format", "json", "--deep-subset", "random",
		"--light", "saved:"+light, "--deep", "saved:"+deep, "--by", "system", "--by", "task")
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	var rep struct {
		Summary struct{ Sentence string }
		Inputs  struct{ By []string }
		Slices  []struct {
			Field, Runs, Missing, Tested any
			Slices                       []struct {
				Value    string
				N        int
				Percent  *float64
				Wilson95 *struct{ Lower, Upper float64 }
				DeepRate *struct {
					Method      string
					Percent, SE float64
				} `json:"deep_pass_rate"`
				LightRate *struct{ Percent float64 } `json:"light_pass_rate"`
			}
			Comparisons []struct {
				A, B        string
				Deep, Light struct {
					Points float64
					PHolm  float64 `json:"p_holm"`
				}
				OrderWrong bool `json:"order_wrong"`
			}
		}
		Warnings []string
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	refData, err := os.ReadFile(filepath.Join(repoRoot(t), sliceFixture, "segment_values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Fields []struct {
			Field  string
			Slices []struct {
				Value    string
				N        int
				Tested   bool
				Wilson95 struct{ Value [2]float64 }
				DeepRate struct {
					Method      string
					Percent, SE float64
				} `json:"deep_rate"`
				LightRate struct{ Percent float64 } `json:"light_rate"`
			}
			Comparisons []struct {
				A, B        string
				Deep, Light struct {
					Points float64
					PHolm  float64 `json:"p_holm"`
				}
				OrderWrong bool `json:"order_wrong"`
			}
		}
	}
	if err := json.Unmarshal(refData, &ref); err != nil {
		t.Fatal(err)
	}
	if strings.Join(rep.Inputs.By, ",") != "system,task" || len(rep.Slices) != len(ref.Fields) {
		t.Fatalf("inputs.by %v, %d sliced fields", rep.Inputs.By, len(rep.Slices))
	}
	points := func(what string, got, want float64) {
		if math.Abs(got-want) > 0.0051 {
			t.Errorf("%s = %v, want %.4f", what, got, want)
		}
	}
	pvalue := func(what string, got, want float64) {
		if math.Abs(got-want) > 0.0051*want {
			t.Errorf("%s = %v, want %.4g", what, got, want)
		}
	}
	for i, rf := range ref.Fields {
		g := rep.Slices[i]
		for j, rs := range rf.Slices {
			s := g.Slices[j]
			name := rf.Field + "=" + rs.Value
			if s.Value != rs.Value || s.N != rs.N || (s.Wilson95 != nil) != rs.Tested {
				t.Errorf("%s: %+v", name, s)
				continue
			}
			if !rs.Tested {
				continue
			}
			points(name+" wilson lower", s.Wilson95.Lower, rs.Wilson95.Value[0])
			points(name+" wilson upper", s.Wilson95.Upper, rs.Wilson95.Value[1])
			if s.DeepRate.Method != rs.DeepRate.Method {
				t.Errorf("%s deep method %s, want %s", name, s.DeepRate.Method, rs.DeepRate.Method)
			}
			points(name+" deep rate", s.DeepRate.Percent, rs.DeepRate.Percent)
			points(name+" deep se", s.DeepRate.SE, rs.DeepRate.SE)
			points(name+" light rate", s.LightRate.Percent, rs.LightRate.Percent)
		}
		if len(g.Comparisons) != len(rf.Comparisons) {
			t.Fatalf("%s: %d comparisons, want %d", rf.Field, len(g.Comparisons), len(rf.Comparisons))
		}
		for j, rc := range rf.Comparisons {
			c := g.Comparisons[j]
			name := rf.Field + " " + rc.A + " vs " + rc.B
			if c.A != rc.A || c.B != rc.B || c.OrderWrong != rc.OrderWrong {
				t.Errorf("%s: %+v", name, c)
			}
			points(name+" deep points", c.Deep.Points, rc.Deep.Points)
			points(name+" light points", c.Light.Points, rc.Light.Points)
			pvalue(name+" deep p_holm", c.Deep.PHolm, rc.Deep.PHolm)
			pvalue(name+" light p_holm", c.Light.PHolm, rc.Light.PHolm)
		}
	}
	if !strings.Contains(rep.Summary.Sentence, "alpha vs gamma: deep says +33.61 points (significant), light -22.86 (significant): light gets the order wrong") {
		t.Errorf("summary does not name the misordered pair: %s", rep.Summary.Sentence)
	}
	if !strings.Contains(strings.Join(rep.Warnings, "\n"), "--by task: 31 runs have no task") {
		t.Errorf("warnings %q", rep.Warnings)
	}
}

// A --by field given twice, or empty, is a usage error naming the flag.
func TestRunByRefusesABadField(t *testing.T) {
	for _, args := range [][]string{{"--by", "task", "--by", "task"}, {"--by", ""}, {"--by", " x"}} {
		var errb strings.Builder
		err := run(t.Context(), append([]string{"run", "--inspections", "x.jsonl"}, args...), &errb, &errb)
		if exitCode(err) != exitUsage || err == nil || !strings.Contains(err.Error(), "--by") {
			t.Errorf("%v: exit %d: %v", args, exitCode(err), err)
		}
	}
}
