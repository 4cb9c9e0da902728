package calibrate

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/saved"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
	"github.com/evalcal/evalcal/statistician"
)

// summeval is the real judge data of ../shared/real-judge-data/summeval
// (its README: SummEval's 12 systems x 100 articles, three experts' 1-5
// ratings, and GPT-4's 1-5 ratings of the same summaries).
const summeval = "../../shared/real-judge-data/summeval"

// realRun is one summary as a pair of inspections: light is GPT-4-0314's
// rating, deep the three experts' mean rating, each of coherence
// (runtime_fidelity) and relevance (task_effectiveness), mapped from 1..5
// to 0..100 as (s - 1) x 25, with the verdict rule of the README (fail
// when a score is below 40, pass when both are at least 70, else partial).
type realRun struct {
	id, system   string
	light, deep  [2]float64
	lightVerdict string
	deepVerdict  string
}

var finalScore = regexp.MustCompile(`(?i)score[^0-9]{0,20}([1-5])`)

// loadSummeval reads the real judge data, skipping the test when it is
// absent; summaries whose GPT-4 answer names no score are left out.
func loadSummeval(t *testing.T) []realRun {
	t.Helper()
	systems, _ := filepath.Glob(filepath.Join(summeval, "model_output_annotations", "M*_outputs_annotations.jsonl"))
	if len(systems) == 0 {
		t.Skip("no real judge data at " + summeval)
	}
	slices.Sort(systems)
	var out []realRun
	for _, path := range systems {
		sys := regexp.MustCompile(`M\d+`).FindString(filepath.Base(path))
		judge := map[string][2]float64{}
		for d, dim := range []string{"coherence", "relevance"} {
			readJSONL(t, filepath.Join(summeval, "eval_model_generations", "gpt-4-0314", "eval_"+sys+"_generations", dim+"_rts.txt"),
				func(line []byte) {
					var v struct{ ID, Resp string }
					if err := json.Unmarshal(line, &v); err != nil {
						t.Fatalf("%s: %v", path, err)
					}
					m := finalScore.FindAllStringSubmatch(v.Resp, -1)
					s := judge[v.ID]
					s[d] = math.NaN()
					if len(m) > 0 {
						x, _ := strconv.Atoi(m[len(m)-1][1])
						s[d] = float64(x)
					}
					judge[v.ID] = s
				})
		}
		readJSONL(t, path, func(line []byte) {
			var v struct {
				ID      string
				Experts []map[string]float64 `json:"expert_annotations"`
			}
			if err := json.Unmarshal(line, &v); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			j, ok := judge[v.ID]
			if !ok || math.IsNaN(j[0]) || math.IsNaN(j[1]) || len(v.Experts) == 0 {
				return
			}
			var e [2]float64
			for _, a := range v.Experts {
				e[0] += a["coherence"] / float64(len(v.Experts))
				e[1] += a["relevance"] / float64(len(v.Experts))
			}
			r := realRun{id: sys + "-" + v.ID, system: sys}
			for d := range 2 {
				r.light[d], r.deep[d] = (j[d]-1)*25, (e[d]-1)*25
			}
			r.lightVerdict, r.deepVerdict = verdictOf(r.light), verdictOf(r.deep)
			out = append(out, r)
		})
	}
	return out
}

func verdictOf(s [2]float64) string {
	switch m := math.Min(s[0], s[1]); {
	case m < 40:
		return inspection.VerdictFail
	case m >= 70:
		return inspection.VerdictPass
	}
	return inspection.VerdictPartial
}

func readJSONL(t *testing.T, path string, each func([]byte)) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		each(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// summevalLight loads the real data and serves its light side from a
// saved file in a temporary directory: the runs, the experts' pass rate
// over all of them, the light inspector and its runs, and the directory.
func summevalLight(t *testing.T) (runs []realRun, truth float64, light *saved.Inspector, lightRuns []inspection.Run, dir string) {
	t.Helper()
	runs = loadSummeval(t)
	for _, r := range runs {
		if r.deepVerdict == inspection.VerdictPass {
			truth++
		}
	}
	truth /= float64(len(runs))
	dir = t.TempDir()
	lightPath := filepath.Join(dir, "light.jsonl")
	writeSaved(t, lightPath, runs, inspection.Light, nil)
	light, lightRuns, err := saved.Load(lightPath)
	if err != nil {
		t.Fatal(err)
	}
	return runs, truth, light, lightRuns, dir
}

// writeSaved writes one saved-inspections line per run at depth, with
// inclusion_probability when pi has the run.
func writeSaved(t *testing.T, path string, runs []realRun, depth inspection.Depth, pi map[string]float64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, r := range runs {
		s, v := r.light, r.lightVerdict
		if depth == inspection.Deep {
			s, v = r.deep, r.deepVerdict
		}
		line := map[string]any{"run_id": r.id, "system": r.system, "depth": depth, "runtime_fidelity": s[0],
			"task_effectiveness": s[1], "verdict": v, "summary": "", "flags": []any{}, "services": []any{}}
		if p, ok := pi[r.id]; ok {
			line["inclusion_probability"] = p
		}
		b, _ := json.Marshal(line)
		fmt.Fprintf(w, "%s\n", b)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSavedLabelsWithUnequalProbabilitiesAlwaysGiveIPW is the regression
// test of issue 20: expert labels of a Poisson subset drawn with unequal
// probabilities (four times likelier where GPT-4 did not pass the
// summary), given as a saved file with inclusion_probability, through
// Run. Every report must carry an IPW pass-rate estimate, mark classical
// and PPI++ not valid and never quote them as best; the IPW intervals
// must cover the experts' pass rate over all summaries about 95% of the
// time (the bug reported classical with 5% coverage).
func TestSavedLabelsWithUnequalProbabilitiesAlwaysGiveIPW(t *testing.T) {
	runs, truth, light, lightRuns, dir := summevalLight(t)
	reps := 200
	if testing.Short() {
		reps = 20
	}
	rng := rand.New(rand.NewPCG(20, 2026))
	covered, ipw := 0, 0
	strat, stratCovered := 0, 0
	var stratWidth, ipwWidth float64
	for rep := range reps {
		pi := map[string]float64{}
		var labelled []realRun
		for _, r := range runs {
			p := 0.05
			if r.lightVerdict != inspection.VerdictPass {
				p = 0.2
			}
			if rng.Float64() < p {
				pi[r.id] = p
				labelled = append(labelled, r)
			}
		}
		deepPath := filepath.Join(dir, fmt.Sprintf("deep-%d.jsonl", rep))
		writeSaved(t, deepPath, labelled, inspection.Deep, pi)
		deep, _, err := saved.Load(deepPath)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Runs: lightRuns, Light: light, Deep: deep, LightSpec: "saved:light", DeepSpec: "saved:deep",
			Sample: sampler.SelectOptions{Seed: 1}, Runner: runner.Options{Jobs: 2, Timeout: runner.DefaultTimeout}, Bins: 10}
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		e := r.Estimate
		if e == nil {
			t.Fatalf("subset %d: no estimate section", rep)
		}
		pr := e.PassRate
		if pr.IPW == nil || pr.IPW.Reason != "" || pr.IPW.CI95 == nil {
			t.Errorf("subset %d (%d labels, first run labelled: %v): no IPW estimate: %+v", rep, len(labelled),
				pi[runs[0].id] > 0, pr.IPW)
			continue
		}
		ipw++
		if pr.Classical.Reason == "" || pr.PPI.Reason == "" {
			t.Errorf("subset %d: classical (%q) or PPI++ (%q) reported as valid under unequal probabilities", rep,
				pr.Classical.Reason, pr.PPI.Reason)
		}
		// pi depends on light's verdict only, so it is equal within each
		// stratum light verdict x system: stratified PPI++ is valid too.
		if e.Best == nil || (e.Best.Method != statistician.MethodIPW && e.Best.Method != statistician.MethodStratPPI) {
			t.Errorf("subset %d: best is %+v, want ipw or stratified ppi++", rep, e.Best)
		}
		if pr.IPW.CI95.Lower <= truth && truth <= pr.IPW.CI95.Upper {
			covered++
		}
		if sp := pr.StratPPI; sp != nil && sp.CI95 != nil {
			strat++
			if sp.CI95.Lower <= truth && truth <= sp.CI95.Upper {
				stratCovered++
			}
			stratWidth += (sp.CI95.Upper - sp.CI95.Lower) / 2
			ipwWidth += (pr.IPW.CI95.Upper - pr.IPW.CI95.Lower) / 2
		}
	}
	t.Logf("%d subsets: IPW in %d, covering the experts' pass rate %.4f in %d; stratified PPI++ in %d, covering in %d, mean half-width %.4f (IPW's %.4f)",
		reps, ipw, truth, covered, strat, stratCovered, stratWidth/float64(max(strat, 1)), ipwWidth/float64(max(strat, 1)))
	if !testing.Short() && float64(covered) < 0.9*float64(reps) {
		t.Errorf("IPW covered the pass rate in %d of %d subsets, want about 95%%", covered, reps)
	}
}

// TestRealDataCalibratedAndStratifiedPPI draws uniform subsets of 120
// expert labels of SummEval (a saved file, --deep-subset random) and
// compares, through Run, PPI++ with light's fixed forecast, PPI++ with the
// calibrated predictor and stratified PPI++: coverage of the experts' pass
// rate over all summaries and mean half-widths are logged, and the
// calibrated PPI++ must not be wider on average than the fixed one.
func TestRealDataCalibratedAndStratifiedPPI(t *testing.T) {
	if testing.Short() {
		t.Skip("100 calibrations of 1,200 runs")
	}
	runs, truth, light, lightRuns, dir := summevalLight(t)
	rng := rand.New(rand.NewPCG(21, 2026))
	const reps, n = 100, 120
	var cover [3]int
	var width [3]float64
	defined := [3]int{}
	isotonic := 0
	for rep := range reps {
		perm := rng.Perm(len(runs))
		var labelled []realRun
		for _, i := range perm[:n] {
			labelled = append(labelled, runs[i])
		}
		deepPath := filepath.Join(dir, fmt.Sprintf("deep-%d.jsonl", rep))
		writeSaved(t, deepPath, labelled, inspection.Deep, nil)
		deep, _, err := saved.Load(deepPath)
		if err != nil {
			t.Fatal(err)
		}
		cfg := Config{Runs: lightRuns, Light: light, Deep: deep, Subset: Subset{Chosen: "random"},
			Sample: sampler.SelectOptions{Seed: 1}, Runner: runner.Options{Jobs: 2, Timeout: runner.DefaultTimeout}}
		r, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		pr := r.Estimate.PassRate
		for k, m := range []*MethodEstimateRef{ref(&pr.PPI), ref(pr.PPICalibrated), ref(pr.StratPPI)} {
			if m == nil || m.lower == nil {
				continue
			}
			defined[k]++
			if *m.lower <= truth && truth <= *m.upper {
				cover[k]++
			}
			width[k] += (*m.upper - *m.lower) / 2
		}
		if pr.Predictor == "isotonic" {
			isotonic++
		}
	}
	for k, name := range []string{"PPI++ (fixed map)", "PPI++ (calibrated)", "stratified PPI++"} {
		t.Logf("%s: defined in %d of %d, covers %d, mean half-width %.4f", name, defined[k], reps, cover[k], width[k]/float64(max(defined[k], 1)))
	}
	t.Logf("the calibrated PPI++ used the isotonic map in %d of %d", isotonic, reps)
	if defined[0] != reps || defined[1] != reps {
		t.Fatalf("PPI++ defined in %d, calibrated in %d of %d", defined[0], defined[1], reps)
	}
	if width[1] > width[0] {
		t.Errorf("calibrated PPI++ mean half-width %.4f above the fixed map's %.4f", width[1]/reps, width[0]/reps)
	}
}

// MethodEstimateRef is a report estimate's interval, nil bounds when it
// has none.
type MethodEstimateRef struct{ lower, upper *float64 }

func ref(m *report.MethodEstimate) *MethodEstimateRef {
	if m == nil || m.Reason != "" || m.CI95 == nil {
		return nil
	}
	lo, hi := m.CI95.Lower, m.CI95.Upper
	return &MethodEstimateRef{&lo, &hi}
}
