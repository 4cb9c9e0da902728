package escalate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x5ca1ab1e)) }

// agreeProb is the chance that light agrees with deep at confidence c.
type agreeProb func(c float64) float64

// informative: confidences are score distances 0..40 (whole points, so
// ties), and light agrees with deep with probability
// 1 - 0.6 (1 - c/40)^2: 0.4 at distance 0, 0.9 at 14.7, 1 at 40; 79.3%
// overall, so every target below needs a real threshold.
func informative(c float64) float64 { u := 1 - c/40; return 1 - 0.6*u*u }

// uninformative: the same confidences tell nothing; light agrees on 75%.
func uninformative(float64) float64 { return 0.75 }

func simulate(r *rand.Rand, n int, p agreeProb) []Scored {
	out := make([]Scored, n)
	for i := range out {
		c := float64(r.IntN(41))
		out[i] = Scored{Confidence: c, Agree: r.Float64() < p(c)}
	}
	return out
}

// populationAgreement is P(agree | confidence >= lambda) under p with
// confidences uniform on 0..40: what the guarantee is about.
func populationAgreement(p agreeProb, lambda float64) float64 {
	sum, k := 0.0, 0
	for c := 0; c <= 40; c++ {
		if float64(c) >= lambda {
			sum += p(float64(c))
			k++
		}
	}
	return sum / float64(k)
}

type simOutcome struct {
	realisedFailures   int     // splits whose covered test runs agree < A
	populationFailures int     // splits whose threshold's true agreement < A
	meanCoverage       float64 // on the test runs
	metShare           float64
}

// simulateSplits draws splits times a fresh set of nCal calibration and
// nTest test runs from p, calibrates on the first and applies the chosen
// threshold to the second. A split where nothing is covered escalates
// every test run: light decided nothing, so the guarantee holds there.
func simulateSplits(seed uint64, splits, nCal, nTest int, p agreeProb, tg Target) (simOutcome, error) {
	r := newRand(seed)
	var o simOutcome
	for s := 0; s < splits; s++ {
		res, err := Calibrate(simulate(r, nCal, p), tg)
		if err != nil {
			return o, err
		}
		test := simulate(r, nTest, p)
		if !res.Met {
			continue
		}
		o.metShare++
		covered, agree := 0, 0
		for _, run := range test {
			if run.Confidence >= res.Threshold {
				covered++
				if run.Agree {
					agree++
				}
			}
		}
		o.meanCoverage += float64(covered) / float64(nTest)
		if covered > 0 && float64(agree) < tg.Agreement*float64(covered) {
			o.realisedFailures++
		}
		if populationAgreement(p, res.Threshold) < tg.Agreement {
			o.populationFailures++
		}
	}
	o.meanCoverage /= float64(splits)
	o.metShare /= float64(splits)
	return o, nil
}

// The acceptance test: over 1,000 random calibration/test splits
// of simulated runs with an informative confidence, the realised
// agreement on the covered test runs is >= A in at least 1 - D of the
// splits, allowing Monte Carlo error (3 binomial standard errors of a
// failure share D over 1,000 splits: D + 0.028 at D = 0.1), for A = 0.8,
// 0.9, 0.95; the threshold's true agreement (the quantity Learn then Test
// guarantees) is checked the same way. With an uninformative confidence
// almost every run is escalated.
func TestSimulatedGuaranteeHolds(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation: 1,000 splits per target")
	}
	const splits, nCal, nTest = 1000, 1000, 4000
	for i, a := range []float64{0.8, 0.9, 0.95} {
		tg := Target{Agreement: a, Risk: DefaultRisk}
		t.Run(fmt.Sprintf("A=%v", a), func(t *testing.T) {
			o, err := simulateSplits(uint64(100+i), splits, nCal, nTest, informative, tg)
			if err != nil {
				t.Fatal(err)
			}
			allowed := tg.Risk + 3*math.Sqrt(tg.Risk*(1-tg.Risk)/splits)
			realised := float64(o.realisedFailures) / splits
			population := float64(o.populationFailures) / splits
			t.Logf("A=%v D=%v: realised agreement under A in %.1f%% of splits, true agreement under A in %.1f%%; threshold found in %.1f%%; mean test coverage %.1f%% (oracle %.1f%%)",
				a, tg.Risk, 100*realised, 100*population, 100*o.metShare, 100*o.meanCoverage, 100*oracleCoverage(informative, a))
			if realised > allowed || population > allowed {
				t.Errorf("failure share realised %.3f, population %.3f; allowed %.3f", realised, population, allowed)
			}
			// The check must have teeth: light decides a real share of the
			// runs an oracle threshold (the lowest whose true agreement
			// reaches A) would let it decide.
			if oracle := oracleCoverage(informative, a); o.meanCoverage < oracle/2 {
				t.Errorf("mean coverage %.3f, under half the oracle's %.3f: the method decides too little to test the guarantee", o.meanCoverage, oracle)
			}
		})
	}
	for i, a := range []float64{0.8, 0.9} {
		tg := Target{Agreement: a, Risk: DefaultRisk}
		t.Run(fmt.Sprintf("uninformative A=%v", a), func(t *testing.T) {
			o, err := simulateSplits(uint64(200+i), splits, nCal, nTest, uninformative, tg)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("uninformative, A=%v: threshold found in %.1f%% of splits, mean test coverage %.2f%%, realised failures %d",
				a, 100*o.metShare, 100*o.meanCoverage, o.realisedFailures)
			if o.meanCoverage > 0.02 {
				t.Errorf("mean coverage %.3f: an uninformative confidence should escalate nearly everything", o.meanCoverage)
			}
			if float64(o.realisedFailures)/splits > tg.Risk {
				t.Errorf("realised failures in %d splits", o.realisedFailures)
			}
		})
	}
}

// oracleCoverage is the share of runs at or above the lowest threshold
// whose true agreement reaches a.
func oracleCoverage(p agreeProb, a float64) float64 {
	for c := 0; c <= 40; c++ {
		if populationAgreement(p, float64(c)) >= a {
			return float64(41-c) / 41
		}
	}
	return 0
}

func TestPopulationAgreementOfTheModel(t *testing.T) {
	// 1 - 0.6 mean((1 - c/40)^2) over c = 0..40, where
	// sum_{k=0..40} k^2 = 40 x 41 x 81 / 6 = 22140: 1 - 0.6 x 22140/(41 x 1600).
	want := 1 - 0.6*22140.0/(41*1600)
	if got := populationAgreement(informative, 0); math.Abs(got-want) > 1e-12 {
		t.Fatalf("populationAgreement(0) = %v, want %v", got, want)
	}
	if got := populationAgreement(informative, 40); got != 1 {
		t.Fatalf("populationAgreement(40) = %v, want 1", got)
	}
}
