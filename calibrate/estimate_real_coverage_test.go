package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// realCoverageSubsets is the number of subsets drawn per design in
// TestRealDataCoverageOfRuns: the Monte Carlo standard error of a 95%
// coverage is then sqrt(0.95 x 0.05/2,000) = 0.49 points.
const realCoverageSubsets = 2000

// realDesign is one way of drawing the deep subset of the real runs:
// uniform, a simple random sample of round(fraction N) runs; otherwise
// Poisson sampling with pi twice as large where light did not pass,
// averaging fraction.
type realDesign struct {
	uniform  bool
	fraction float64
}

func (d realDesign) String() string {
	if d.uniform {
		return fmt.Sprintf("uniform %g%%", 100*d.fraction)
	}
	return fmt.Sprintf("Poisson %g%%, pi twice as large where light did not pass", 100*d.fraction)
}

// realTally is one estimator's intervals over the subsets.
type realTally struct {
	covered, defined, total int
	width                   float64
}

func (t realTally) coverage() float64 { return float64(t.covered) / float64(t.total) }
func (t realTally) meanWidth() float64 {
	return t.width / float64(max(t.defined, 1))
}

// The estimators and targets of the real-data check, in the report's names.
var (
	realMethods = []string{"classical", "ppi", "ppi_calibrated", "stratified_ppi", "ipw"}
	realTargets = []string{"pass_rate", "runtime_fidelity", "task_effectiveness"}
)

// TestRealDataCoverageOfRuns is issue 20's real-data check of the
// finite-population corrected intervals: from SummEval's 1,200 summaries
// (GPT-4 light, the experts' mean deep; loadSummeval), 2,000 subsets per
// design get deep labels and the estimate section (aggregate.ComputeAll,
// the report's code) estimates the experts' pass rate and mean scores
// over all the summaries. The designs: simple random subsets of 10%, 25%
// and 50%, where classical, PPI++, calibrated PPI++ and stratified PPI++
// are valid, and Poisson subsets averaging 25% and 50% with pi twice as
// large where light did not pass, where IPW and stratified PPI++ are (pi
// is equal within each stratum light verdict x system). Every valid
// estimator must cover the exact mean over the 1,200 in 93.5-96.5% of the
// subsets on each target (an undefined interval counts as a miss), and
// under a uniform subset calibrated and stratified PPI++ must not be
// wider than PPI++ on average. Rogan-Gladen's interval is for the
// process, not these runs, and is not checked here.
func TestRealDataCoverageOfRuns(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("5 x 2,000 estimate sections of 1,200 runs: about two minutes on 2 cores, over ten under the race detector")
	}
	runs := loadSummeval(t)
	var truth [3]float64 // pass rate, mean runtime_fidelity, mean task_effectiveness
	for _, r := range runs {
		if r.deepVerdict == inspection.VerdictPass {
			truth[0]++
		}
		truth[1] += r.deep[0]
		truth[2] += r.deep[1]
	}
	for k := range truth {
		truth[k] /= float64(len(runs))
	}
	designs := []realDesign{{true, 0.10}, {true, 0.25}, {true, 0.50}, {false, 0.25}, {false, 0.50}}
	for di, d := range designs {
		tallies, pooled := realCoverage(runs, truth, d, uint64(di))
		var b strings.Builder
		for k, tg := range realTargets {
			for _, m := range realMethods {
				tl, ok := tallies[tg+" "+m]
				if !ok {
					continue
				}
				c := tl.coverage()
				fmt.Fprintf(&b, "\n  %s %s: covers %.1f%% (MC SE %.1f) of %d, defined in %d, mean half-width %.4g (truth %.4g)",
					tg, m, 100*c, 100*math.Sqrt(c*(1-c)/float64(tl.total)), tl.total, tl.defined, tl.meanWidth(), truth[k])
				if c < 0.935 || c > 0.965 {
					t.Errorf("%v: %s %s covers %.2f%%, want 93.5-96.5%%", d, tg, m, 100*c)
				}
			}
			if !d.uniform {
				continue
			}
			p := tallies[tg+" ppi"]
			for _, m := range []string{"ppi_calibrated", "stratified_ppi"} {
				if o := tallies[tg+" "+m]; o.meanWidth() > p.meanWidth() {
					t.Errorf("%v: %s %s mean half-width %.4g above PPI++'s %.4g", d, tg, m, o.meanWidth(), p.meanWidth())
				}
			}
		}
		t.Logf("SummEval (%d runs), %v, %d subsets (stratified PPI++ of the pass rate fell back to pooled PPI++ in %d):%s",
			len(runs), d, realCoverageSubsets, pooled, b.String())
	}
}

// realCoverage draws realCoverageSubsets subsets of design d and tallies
// the valid estimators' intervals against truth, by "target method";
// pooled counts the pass-rate stratified estimates that fell back to
// pooled PPI++.
func realCoverage(runs []realRun, truth [3]float64, d realDesign, seed uint64) (map[string]*realTally, int) {
	valid := realMethods[:4]
	if !d.uniform {
		valid = []string{"stratified_ppi", "ipw"}
	}
	tallies := map[string]*realTally{}
	for _, tg := range realTargets {
		for _, m := range valid {
			tallies[tg+" "+m] = &realTally{}
		}
	}
	lightFail := 0
	for _, r := range runs {
		if r.lightVerdict != inspection.VerdictPass {
			lightFail++
		}
	}
	// pi = c for a light pass, 2c otherwise, averaging d.fraction.
	c := d.fraction * float64(len(runs)) / float64(len(runs)+lightFail)
	var mu sync.Mutex
	pooled := 0
	eachOnCores(realCoverageSubsets, func(rep int) {
		rng := rand.New(rand.NewPCG(uint64(rep), 1000*seed+uint64(1000*d.fraction)))
		pi := make([]float64, len(runs))
		labelled := make([]bool, len(runs))
		if d.uniform {
			n := int(math.Round(d.fraction * float64(len(runs))))
			for _, i := range rng.Perm(len(runs))[:n] {
				labelled[i] = true
			}
			for i := range pi {
				pi[i] = float64(n) / float64(len(runs))
			}
		} else {
			for i, r := range runs {
				pi[i] = c
				if r.lightVerdict != inspection.VerdictPass {
					pi[i] = 2 * c
				}
				labelled[i] = rng.Float64() < pi[i]
			}
		}
		e := aggregate.ComputeAll(realInput(runs, labelled, pi), aggregate.DefaultOptions()).Estimate
		mu.Lock()
		defer mu.Unlock()
		for k, set := range []aggregate.EstimateSet{e.PassRate, e.RuntimeFidelity, e.TaskEffectiveness} {
			byName := map[string]*aggregate.MethodEstimate{"classical": &set.Classical, "ppi": &set.PPI,
				"ppi_calibrated": set.PPICalibrated, "stratified_ppi": set.StratPPI, "ipw": set.IPW}
			for _, name := range valid {
				m, tl := byName[name], tallies[realTargets[k]+" "+name]
				tl.total++
				if m == nil || m.CI95 == nil {
					continue
				}
				tl.defined++
				tl.width += (m.CI95.Upper - m.CI95.Lower) / 2
				if m.CI95.Lower <= truth[k] && truth[k] <= m.CI95.Upper {
					tl.covered++
				}
				if name == "stratified_ppi" && m.Pooled && k == 0 {
					pooled++
				}
			}
		}
	})
	return tallies, pooled
}

// realInput is the estimate section's input for the runs with those
// marked labelled inspected deep, and each run's inclusion probability.
func realInput(runs []realRun, labelled []bool, pi []float64) aggregate.Input {
	in := aggregate.Input{Pi: map[string]float64{}, Design: "test"}
	for i, r := range runs {
		in.Pi[r.id] = pi[i]
		light := comparator.Scores{RuntimeFidelity: r.light[0], TaskEffectiveness: r.light[1]}
		if !labelled[i] {
			in.LightOnly = append(in.LightOnly, aggregate.LightOnlyRun{RunID: r.id, System: r.system, LightVerdict: r.lightVerdict, Light: light})
			continue
		}
		in.Comparisons = append(in.Comparisons, comparator.Comparison{RunID: r.id, System: r.system,
			LightVerdict: r.lightVerdict, DeepVerdict: r.deepVerdict, VerdictMatch: r.lightVerdict == r.deepVerdict, Light: light,
			Deep: comparator.Scores{RuntimeFidelity: r.deep[0], TaskEffectiveness: r.deep[1]}})
	}
	return in
}

// eachOnCores calls work(0..n-1) on one goroutine per core.
func eachOnCores(n int, work func(i int)) {
	next := make(chan int)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				work(i)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
