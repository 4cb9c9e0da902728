package drift

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/evalcal/evalcal/inspection"
)

// simJudge is a simulated judge over anchor runs: each run has a verdict
// it gives when it does not pass, a chance of passing on any one call, and
// mean scores; deep's label is fixed per run. It models an LLM judge at
// temperature 0: most runs get the same verdict every call, and some are
// borderline (pass on 20-80% of calls).
type simJudge struct {
	pass    []float64 // P(pass) on one call
	notPass []string  // the verdict when it does not pass
	score   []float64 // mean of both scores
	deep    []Observation
}

// simRuns is the anchor size of the simulations.
const simRuns = 300

// simBorderline is the share of borderline runs of the simulations that
// assert: with P(pass) uniform in [0.2, 0.8] a borderline run crosses the
// pass line between two calls with probability 0.44, so 10% borderline
// runs make a judge that flips about 4.4% of the runs from one night to
// the next with nothing changed.
const simBorderline = 0.10

// newSimJudge draws n runs: a share borderline of them borderline, with
// P(pass) uniform in [0.2, 0.8]; of the rest 53% pass every call and 47%
// never pass (half of them fail, half partial); deep agrees with the
// judge's usual verdict on about 80%.
func newSimJudge(rng *rand.Rand, n int, borderline float64) *simJudge {
	j := &simJudge{pass: make([]float64, n), notPass: make([]string, n), score: make([]float64, n), deep: make([]Observation, n)}
	for i := range n {
		switch u := rng.Float64(); {
		case u < borderline:
			j.pass[i] = 0.2 + 0.6*rng.Float64()
		case u < borderline+0.53*(1-borderline):
			j.pass[i] = 1
		default:
			j.pass[i] = 0
		}
		j.notPass[i] = inspection.VerdictFail
		if rng.IntN(2) == 0 {
			j.notPass[i] = inspection.VerdictPartial
		}
		j.score[i] = 30 + 55*j.pass[i]
		usual := inspection.VerdictPass
		if j.pass[i] < 0.5 {
			usual = j.notPass[i]
		}
		if rng.Float64() < 0.2 {
			// deep disagrees: one step away
			if usual == inspection.VerdictPass {
				usual = inspection.VerdictPartial
			} else {
				usual = inspection.VerdictPass
			}
		}
		j.deep[i] = Observation{Verdict: usual, RuntimeFidelity: j.score[i], TaskEffectiveness: j.score[i]}
	}
	return j
}

// call is one inspection of run i; lenient runs pass whatever happens.
func (j *simJudge) call(rng *rand.Rand, i int, lenient bool) Observation {
	v := j.notPass[i]
	if lenient || rng.Float64() < j.pass[i] {
		v = inspection.VerdictPass
	}
	s := j.score[i]
	if lenient {
		s += 30
	}
	clip := func(x float64) float64 { return min(100, max(0, x)) }
	return Observation{Verdict: v, RuntimeFidelity: clip(s + 3*rng.NormFloat64()), TaskEffectiveness: clip(s + 3*rng.NormFloat64())}
}

// shiftRuns picks the runs a 5-point leniency shift turns from fails to
// passes: 5% of the runs, among those the judge never passes.
func (j *simJudge) shiftRuns(rng *rand.Rand) map[int]bool {
	var never []int
	for i, p := range j.pass {
		if p == 0 {
			never = append(never, i)
		}
	}
	rng.Shuffle(len(never), func(a, b int) { never[a], never[b] = never[b], never[a] })
	out := map[int]bool{}
	for _, i := range never[:len(j.pass)*5/100] {
		out[i] = true
	}
	return out
}

// freeze draws the anchor inspections (deep labels included).
func (j *simJudge) freeze(rng *rand.Rand) *Anchors {
	a := &Anchors{SchemaVersion: AnchorSchemaVersion, Kind: AnchorKind, Light: Judge{Identity: "sim"}, Deep: &Judge{Identity: "sim-deep"}}
	for i := range j.pass {
		d := j.deep[i]
		a.Runs = append(a.Runs, AnchorRun{ID: fmt.Sprintf("run-%03d", i), ContentHash: "h", Light: j.call(rng, i, false), Deep: &d})
	}
	a.Hash = AnchorsHash(a.Runs)
	return a
}

// night draws tonight's inspections; shifted runs pass.
func (j *simJudge) night(rng *rand.Rand, shifted map[int]bool) map[string]Observation {
	out := map[string]Observation{}
	for i := range j.pass {
		out[fmt.Sprintf("run-%03d", i)] = j.call(rng, i, shifted[i])
	}
	return out
}

// simNight is one night's check against a freshly frozen anchor set.
func simNight(t *testing.T, rng *rand.Rand, borderline float64, shift bool) *Document {
	t.Helper()
	j := newSimJudge(rng, simRuns, borderline)
	a := j.freeze(rng)
	var shifted map[int]bool
	if shift {
		shifted = j.shiftRuns(rng)
	}
	doc, err := Build(Input{Anchors: a, LightNow: j.night(rng, shifted), LightJudge: a.Light, Options: DefaultOptions()})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestSimulatedLeniencyShiftIsDetected: on 300-run anchors, fails turned
// to passes on 5% of the runs are detected on at least 80% of simulated
// nights by a judge with 10% borderline runs, and with no shift at most 5%
// of 1,000 nights alarm, whatever the share of borderline runs (0, 5, 10
// and 15% are measured; the power at each is logged for the README).
func TestSimulatedLeniencyShiftIsDetected(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped under -short and the race detector")
	}
	const nights = 1000
	for i, borderline := range []float64{0, 0.05, simBorderline, 0.15} {
		rng := rand.New(rand.NewPCG(23, uint64(i)))
		var detected, falseAlarms, noiseFlips int
		for range nights {
			if simNight(t, rng, borderline, true).Detected {
				detected++
			}
			d := simNight(t, rng, borderline, false)
			if d.Detected {
				falseAlarms++
			}
			noiseFlips += d.Light.Flips.Count
		}
		power, fa := float64(detected)/nights, float64(falseAlarms)/nights
		t.Logf("%.0f%% borderline runs (%.2f%% flip with no change): 5-point leniency shift detected on %d of %d nights (power %.1f%%); no shift: %d false alarms (%.1f%%)",
			100*borderline, 100*float64(noiseFlips)/nights/simRuns, detected, nights, 100*power, falseAlarms, 100*fa)
		if borderline == simBorderline && power < 0.80 {
			t.Errorf("%v borderline: power %.3f, want >= 0.80", borderline, power)
		}
		if fa > 0.05 {
			t.Errorf("%v borderline: false alarm rate %.3f, want <= 0.05", borderline, fa)
		}
	}
}

// simYear runs looks nightly checks of one frozen anchor set with the
// history of the earlier ones; shiftAt (1-based, 0 = never) is the first
// night of a 5-point leniency shift. It returns the look of the first
// anytime alarm (0 = none) and of the first alarm of the fixed nightly
// test (checked every night without the history).
func simYear(t *testing.T, rng *rand.Rand, looks, shiftAt int) (anytime, naive int) {
	t.Helper()
	j := newSimJudge(rng, simRuns, simBorderline)
	a := j.freeze(rng)
	shifted := j.shiftRuns(rng)
	h := &HistoryInput{}
	for k := 1; k <= looks; k++ {
		var s map[int]bool
		if shiftAt > 0 && k >= shiftAt {
			s = shifted
		}
		doc, err := Build(Input{Anchors: a, LightNow: j.night(rng, s), LightJudge: a.Light, Options: DefaultOptions(), History: h})
		if err != nil {
			t.Fatal(err)
		}
		if naive == 0 && (doc.Light.Detected) {
			naive = k
		}
		if anytime == 0 && doc.Detected {
			anytime = k
		}
		h.Earlier = append(h.Earlier, doc)
		h.Names = append(h.Names, fmt.Sprintf("night-%02d", k))
	}
	return anytime, naive
}

// TestSimulatedYearsOfNightlyChecksKeepAlpha: 1,000 simulated series of
// 30 nightly looks with no shift; the share with any anytime alarm is at
// most 5%. It also measures the fixed test checked every night (the
// mistake the history avoids) and the anytime test's power when the shift
// starts on night 1 or night 15, for the README.
func TestSimulatedYearsOfNightlyChecksKeepAlpha(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped under -short and the race detector")
	}
	const years, looks = 1000, 30
	rng := rand.New(rand.NewPCG(23, 2))
	var anyAnytime, anyNaive int
	for range years {
		a, n := simYear(t, rng, looks, 0)
		if a > 0 {
			anyAnytime++
		}
		if n > 0 {
			anyNaive++
		}
	}
	t.Logf("no shift, %d looks: any anytime alarm in %d of %d series (%.1f%%); the fixed test checked nightly alarms in %d (%.1f%%)",
		looks, anyAnytime, years, 100*float64(anyAnytime)/years, anyNaive, 100*float64(anyNaive)/years)
	if share := float64(anyAnytime) / years; share > 0.05 {
		t.Errorf("share of series with a false alarm %.3f, want <= 0.05", share)
	}
	for _, start := range []int{1, 15} {
		const series = 200
		detected, delay := 0, 0
		for range series {
			a, _ := simYear(t, rng, looks, start)
			if a > 0 {
				detected++
				delay += a - start
			}
		}
		mean := 0.0
		if detected > 0 {
			mean = float64(delay) / float64(detected)
		}
		t.Logf("shift from night %d: anytime alarm by night %d in %d of %d series (%.1f%%), %.2f nights after the shift on average",
			start, looks, detected, series, 100*float64(detected)/series, mean)
	}
}
