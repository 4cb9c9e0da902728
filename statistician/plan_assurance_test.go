package statistician

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestAssuredPlansAtHalfAreTheAveragePlans(t *testing.T) {
	if a, b := PlanClassicalRateAssured(0.3, 18, 60, 0.04, 0.95, 0.5), PlanClassicalRate(0.3, 0.04, 0.95); a != b {
		t.Errorf("classical at P = 0.5: %+v, want %+v", a, b)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	y, f := make([]float64, 80), make([]float64, 80)
	for i := range y {
		y[i] = float64(rng.IntN(2))
		f[i] = 0.3 + 0.4*y[i] + 0.15*rng.NormFloat64()
	}
	a, b := PlanPPIRateAssured(y, f, 3000, 0.03, 0.95, 0.5), PlanPPIRate(y, f, 3000, 0.03, 0.95)
	if a.N != b.N || a.Achieved != b.Achieved || a.Reason != b.Reason {
		t.Errorf("PPI++ at P = 0.5: %+v, want %+v", a, b)
	}
	hi := PlanPPIRateAssured(y, f, 3000, 0.03, 0.95, 0.9)
	if !(hi.N > b.N) || hi.Reason != "" {
		t.Errorf("PPI++ at P = 0.9: %+v, want more than %d labels", hi, b.N)
	}
	for name, p := range map[string]Plan{
		"classical P 0.4":  PlanClassicalRateAssured(0.3, 18, 60, 0.04, 0.95, 0.4),
		"classical P 1":    PlanClassicalRateAssured(0.3, 18, 60, 0.04, 0.95, 1),
		"classical counts": PlanClassicalRateAssured(0.3, 61, 60, 0.04, 0.95, 0.9),
		"PPI++ P NaN":      PlanPPIRateAssured(y, f, 3000, 0.03, 0.95, math.NaN()),
	} {
		if !strings.HasPrefix(p.Reason, "invalid input") || p.N != 0 {
			t.Errorf("%s: %+v, want invalid input", name, p)
		}
	}
	// Classical at P = 0.9 plans with a share nearer 1/2: more labels,
	// and at a rate of 1/2 itself the share cannot move (same n).
	if p := PlanClassicalRateAssured(0.3, 18, 60, 0.04, 0.95, 0.9); !(p.N > PlanClassicalRate(0.3, 0.04, 0.95).N) {
		t.Errorf("classical at P = 0.9: %+v", p)
	}
	if p := PlanClassicalRateAssured(0.5, 30, 60, 0.04, 0.95, 0.9); p.N != PlanClassicalRate(0.5, 0.04, 0.95).N {
		t.Errorf("classical at rate 1/2: %+v", p)
	}
}

// TestAssuredPlansReachTheHalfWidth is issue 20's check of plan
// --assurance: the whole chain is simulated (a pilot of 60 paired runs
// drawn from the population, the plan at assurance P computed from it,
// then a fresh deep subset of the planned size and its realised 95%
// interval), and the share of chains whose realised half-width is at most
// W must be at least P within Monte Carlo error (3 standard errors of a
// share P over the chains), for the classical rate and PPI++, at P = 0.9
// and 0.8. At P = 0.5 the share is logged (about one half: the average
// plans).
func TestAssuredPlansReachTheHalfWidth(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("planner simulation: 2 x 3,200 pilots and subsets")
	}
	checkAssuredPlans(t, 3000, false, []assuredCase{{"strong", 0.3, 0.025}, {"weak", 0.2, 0.03}})
}

// TestAssuredPlansOfRunsReachTheHalfWidth is the same simulation for the
// finite-population corrected planners and intervals (PlanClassicalRate-
// AssuredOfRuns, PlanPPIRateAssuredOfRuns; ClassicalRateOfRuns,
// PPIMeanOfRuns) with 1,000 runs, where the planned n is up to about 56%
// of them (the correction matters).
func TestAssuredPlansOfRunsReachTheHalfWidth(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("planner simulation: 2 x 3,200 pilots and subsets")
	}
	checkAssuredPlans(t, 1000, true, []assuredCase{{"strong", 0.3, 0.025}, {"weak", 0.2, 0.03}})
}

type assuredCase struct {
	predictor string
	rate, w   float64
}

// checkAssuredPlans draws, per case and assurance, 600 pilots of 60 and
// sets of nLight runs (2,000 at assurance 0.9, where the check is
// issue 20's: with 600 the 3 SE allowance was 3.7 points, and a planner
// reaching W in 86.8% of chains passed), plans on the pilot and labels the planned n of the
// runs: at least the assurance share (less 3 Monte Carlo SEs) of the
// realised half-widths must be <= W.
func checkAssuredPlans(t *testing.T, nLight int, ofRuns bool, cases []assuredCase) {
	t.Helper()
	const pilotN = 60
	for i, c := range cases {
		s := coverageSetting{predictor: c.predictor, rate: c.rate, fraction: 1, policy: "uniform"}
		for _, assurance := range []float64{0.5, 0.8, 0.9} {
			chains := 600
			if assurance == 0.9 {
				chains = 2000 // 3 Monte Carlo SEs: 2.0 points
			}
			rng := rand.New(rand.NewPCG(uint64(200+i), uint64(1000*assurance)))
			pilot, runs := make([]simRun, pilotN), make([]simRun, nLight)
			reached := [2]int{}
			for range chains {
				s.draw(rng, pilot)
				py, pf := make([]float64, pilotN), make([]float64, pilotN)
				passes := 0
				for j, r := range pilot {
					py[j], pf[j] = r.y, r.f
					passes += int(r.y)
				}
				rate := float64(passes) / pilotN
				plans := [2]Plan{PlanClassicalRateAssured(rate, passes, pilotN, c.w, 0.95, assurance),
					PlanPPIRateAssured(py, pf, nLight, c.w, 0.95, assurance)}
				if ofRuns {
					plans = [2]Plan{PlanClassicalRateAssuredOfRuns(rate, passes, pilotN, nLight, c.w, 0.95, assurance),
						PlanPPIRateAssuredOfRuns(py, pf, nLight, c.w, 0.95, assurance)}
				}
				s.draw(rng, runs)
				for k, plan := range plans {
					if plan.Reason != "" || plan.N > nLight {
						continue // unreachable: counted as not reached
					}
					y, fl, fu := make([]float64, 0, plan.N), make([]float64, 0, plan.N), make([]float64, 0, nLight-plan.N)
					for j, r := range runs { // runs are exchangeable: label the first n
						if j < plan.N {
							y, fl = append(y, r.y), append(fl, r.f)
						} else {
							fu = append(fu, r.f)
						}
					}
					var e Estimate
					switch {
					case ofRuns && k == 0:
						e = ClassicalRateOfRuns(y, nLight, 0.95)
					case ofRuns:
						e = PPIMeanOfRuns(y, fl, fu, 0.95)
					case k == 0:
						e = ClassicalRate(y, 0.95)
					default:
						e = PPIMean(y, fl, fu, 0.95)
					}
					if (e.CI.Upper-e.CI.Lower)/2 <= c.w {
						reached[k]++
					}
				}
			}
			for k, name := range []string{"classical", "PPI++"} {
				share := float64(reached[k]) / float64(chains)
				t.Logf("%s, %s predictor, rate %v, W %v, %d runs (finite: %v), assurance %v: %.1f%% of %d pilot+subset chains reach W",
					name, c.predictor, c.rate, c.w, nLight, ofRuns, assurance, 100*share, chains)
				if assurance > 0.5 && share < assurance-3*math.Sqrt(assurance*(1-assurance)/float64(chains)) {
					t.Errorf("%s, %+v, assurance %v: only %.1f%% reach W", name, c, assurance, 100*share)
				}
			}
		}
	}
}
