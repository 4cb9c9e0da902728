package calibrate

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// Deep-subset policies.
const (
	// PolicyAll inspects every sampled run at both depths (the default).
	PolicyAll = "all"
	// PolicyUniform inspects a seeded simple random sample of the runs at
	// depth deep: inclusion probability n/N for every run.
	PolicyUniform = "uniform"
	// PolicyUncertain gives each run an inclusion probability that is
	// higher where light is least sure (see uncertainty), with a uniform
	// floor, and draws each run independently (Poisson sampling).
	PolicyUncertain = "uncertain"
	// PolicyStratified splits the runs into strata by light's verdict and
	// the run's system, shares the deep budget among them by Neyman
	// allocation (see selectStratified) and draws a seeded simple random
	// sample in each.
	PolicyStratified = "stratified"
	// PolicyGiven takes the deep subset from the deep source: the runs a
	// saved file (human labels) holds deep inspections of.
	PolicyGiven = "given"
)

// Subset asks for deep on a subset of the sampled runs.
type Subset struct {
	// N (--deep-sample) or Fraction (--deep-fraction, in (0, 1]) sets the
	// subset's expected size; neither means every run, unless the deep
	// source covers some runs only.
	N        int
	Fraction float64
	// Policy is PolicyUniform (default) or PolicyUncertain.
	Policy string
	// Seed draws the subset (with the run ids), so every shard draws the
	// same one.
	Seed uint64
	// Cluster is the field whose clusters PolicyCluster labels whole
	// (Config.Cluster; "" is system).
	Cluster string
	// Chosen says how a deep source that covers some runs only chose them:
	// "random" (--deep-subset random) or "" (not said: the estimates then
	// assume a uniform random subset, and the report says so).
	Chosen string
}

// UniformFloorShare is the share of the uncertain policy's inclusion
// probability spread uniformly: every run has pi >= UniformFloorShare * n/N
// (half the uniform rate), so no run is left out by design and the
// inverse-probability weights stay bounded (at most 2N/n).
const UniformFloorShare = 0.5

func (s Subset) check() error {
	switch {
	case s.N < 0:
		return fmt.Errorf("calibrate: deep sample must be 0 or more, got %d", s.N)
	case s.Fraction < 0 || s.Fraction > 1 || math.IsNaN(s.Fraction):
		return fmt.Errorf("calibrate: deep fraction must be in (0, 1], got %v", s.Fraction)
	case s.N > 0 && s.Fraction > 0:
		return fmt.Errorf("calibrate: give a deep sample size or a deep fraction, not both")
	}
	switch s.Policy {
	case "", PolicyUniform, PolicyUncertain, PolicyStratified, PolicyCluster:
	default:
		return fmt.Errorf("calibrate: deep policy must be uniform, uncertain, stratified or cluster, got %q", s.Policy)
	}
	switch s.Chosen {
	case "", "random":
	default:
		return fmt.Errorf("calibrate: deep subset must be random, got %q", s.Chosen)
	}
	return nil
}

// design is how the deep subset of one calibration is drawn.
type design struct {
	policy string
	subset Subset
	// n is the number of sampled runs, target the deep subset's expected
	// size over the whole sample.
	n      int
	target float64
	// deepRuns is the subset when it is known before any call (nil: all
	// runs, or not known until light is had).
	deepRuns map[string]bool
	// pi holds each run's inclusion probability; assumed is true when it
	// was not given and a uniform random subset is assumed.
	pi      map[string]float64
	assumed bool
	// unrecorded counts the labelled runs of a deep source that records
	// inclusion probabilities for some of its runs but not these.
	unrecorded int
	// uniformFallback is set when the uncertain policy found every run
	// equally uncertain and drew a uniform Poisson sample instead.
	uniformFallback bool
	// strata is the number of strata of the stratified policy; by the
	// fields that with light's verdict make them (Config.By; nil: the
	// system) and meta each run's metadata.
	strata int
	by     []string
	meta   map[string]inspection.Metadata
	// clusters and chosenClusters are the cluster policy's number of
	// clusters and of clusters inspected deep.
	clusters, chosenClusters int
}

// design decides the deep subset over the sampled runs.
func (s Subset) design(runs []inspection.Run, deep inspection.Inspector) design {
	d := design{policy: PolicyAll, subset: s, n: len(runs)}
	cov, covers := inspection.As[inspection.Coverage](deep)
	if covers {
		in := map[string]bool{}
		for _, r := range runs {
			if cov.Covers(r.ID, inspection.Deep) {
				in[r.ID] = true
			}
		}
		if len(in) < len(runs) {
			d.policy, d.deepRuns, d.target = PolicyGiven, in, float64(len(in))
			// Every labelled run's recorded pi is used; a run not labelled
			// needs none (the estimators read the labelled runs' pi only).
			d.pi = map[string]float64{}
			for id := range in {
				if p, ok := cov.InclusionProbability(id); ok && p > 0 && p <= 1 {
					d.pi[id] = p
				}
			}
			d.unrecorded = len(in) - len(d.pi)
			if len(d.pi) == 0 {
				// Nothing recorded: a uniform random subset is assumed for
				// every run.
				d.unrecorded = 0
				for _, r := range runs {
					d.pi[r.ID] = float64(len(in)) / float64(len(runs))
				}
				d.assumed = s.Chosen != "random"
			}
			return d
		}
	}
	switch {
	case s.N > 0:
		d.target = float64(min(s.N, len(runs)))
	case s.Fraction > 0:
		d.target = s.Fraction * float64(len(runs))
	default:
		return d
	}
	if d.target >= float64(len(runs)) {
		return d
	}
	d.pi = map[string]float64{}
	if s.Policy == PolicyCluster {
		d.selectClusters(runs)
		return d
	}
	if s.Policy == PolicyUncertain || s.Policy == PolicyStratified {
		d.policy = s.Policy
		d.meta = map[string]inspection.Metadata{}
		for _, r := range runs {
			d.meta[r.ID] = r.Metadata
		}
		return d
	}
	// Uniform: the round(target) runs with the smallest draws, over the
	// whole sample (every shard draws the same subset).
	d.policy = PolicyUniform
	k := int(math.Round(d.target))
	d.target = float64(k)
	ids := make([]string, len(runs))
	for i, r := range runs {
		ids[i] = r.ID
	}
	sort.Slice(ids, func(i, j int) bool {
		ui, uj := draw(s.Seed, ids[i]), draw(s.Seed, ids[j])
		if ui != uj {
			return ui < uj
		}
		return ids[i] < ids[j]
	})
	d.deepRuns = map[string]bool{}
	for i, id := range ids {
		if i < k {
			d.deepRuns[id] = true
		}
		d.pi[id] = float64(k) / float64(len(runs))
	}
	return d
}

// draw is run id's uniform draw in [0, 1) for seed: the first 8 bytes of
// SHA-256(seed as 8 big-endian bytes + id) over 2^64. It depends on the
// run alone, so the subset does not change when runs are added or sharded.
func draw(seed uint64, id string) float64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], seed)
	h := sha256.New()
	h.Write(b[:])
	h.Write([]byte(id))
	sum := h.Sum(nil)
	return float64(binary.BigEndian.Uint64(sum[:8])>>11) / (1 << 53)
}

// uncertainty is how unsure light is about a run, in [0, 1], from what
// the judge gives: the largest of
//
//   - the threshold distance: 1 for a partial verdict; otherwise 1 - d/30
//     (at least 0), where d is the smallest distance in points of either
//     light score to a verdict threshold (40 and 70, the verdict rule of
//     README.md): a run light scores 72 is less settled than one it scores
//     95;
//   - the vote split over the repeats (--repeat K >= 2): (1 - m/K) / (1 -
//     1/K) with m the count of the most frequent verdict, 0 when the K
//     repeats agree and 1 when they are spread evenly;
//   - the score spread over the repeats: the larger sample standard
//     deviation of the two scores over 25 points (at most 1);
//   - a panel's vote split (a panel judge, README "Choosing a judge"):
//     the same (1 - m/K)/(1 - 1/K) over the K member verdicts of every
//     repeat that did not abstain (voteSplit).
//
// An LLM judge that scores 0 or 100 leaves the first at 0 for every run;
// its repeats, or a panel's members, still tell a run it is sure of from
// one it is not. Log-probabilities are not a source: neither provider's
// path asks for them (Anthropic's Messages API has none; OpenAI's
// structured answer puts the verdict inside a JSON object, and reasoning
// models refuse the logprobs option), README "Deep subset".
// uncertainty of no inspection is 0.
func uncertainty(reps []inspection.Inspection) float64 {
	if len(reps) == 0 {
		return 0
	}
	return math.Max(repeatUncertainty(reps), voteSplit(reps))
}

// voteSplit is (1 - m/K)/(1 - 1/K) over the K non-abstaining member
// verdicts of every repeat of a panel, m the count of the most frequent;
// 0 with fewer than 2 votes (not a panel).
func voteSplit(reps []inspection.Inspection) float64 {
	votes := map[string]int{}
	k, most := 0, 0
	for _, r := range reps {
		for _, v := range r.Votes {
			if v != inspection.VerdictFail && v != inspection.VerdictPartial && v != inspection.VerdictPass {
				continue // abstained
			}
			k++
			votes[v]++
			most = max(most, votes[v])
		}
	}
	if k < 2 {
		return 0
	}
	return (1 - float64(most)/float64(k)) / (1 - 1/float64(k))
}

// repeatUncertainty is uncertainty from light's scores, verdicts and
// repeats (the first three sources).
func repeatUncertainty(reps []inspection.Inspection) float64 {
	in := inspection.Consolidate(reps)
	u := 0.0
	if in.Verdict == inspection.VerdictPartial {
		u = 1
	} else {
		d := math.Inf(1)
		for _, s := range []float64{in.RuntimeFidelity, in.TaskEffectiveness} {
			for _, t := range []float64{40, 70} {
				d = math.Min(d, math.Abs(s-t))
			}
		}
		u = math.Max(0, 1-d/30)
	}
	k := len(reps)
	if k < 2 {
		return u
	}
	votes := map[string]int{}
	most := 0
	for _, r := range reps {
		votes[r.Verdict]++
		most = max(most, votes[r.Verdict])
	}
	u = math.Max(u, (1-float64(most)/float64(k))/(1-1/float64(k)))
	for _, score := range []func(inspection.Inspection) float64{
		func(r inspection.Inspection) float64 { return r.RuntimeFidelity },
		func(r inspection.Inspection) float64 { return r.TaskEffectiveness },
	} {
		var sum, ss float64
		for _, r := range reps {
			sum += score(r)
		}
		m := sum / float64(k)
		for _, r := range reps {
			ss += (score(r) - m) * (score(r) - m)
		}
		u = math.Max(u, math.Min(1, math.Sqrt(ss/float64(k-1))/25))
	}
	return u
}

// selectUncertain returns the runner's SelectDeep for the uncertain
// policy: with the job's m runs that got a light inspection and a target
// of n deep inspections over all N sampled runs (n*m/N for this job),
//
//	pi_i = min(1, c * (UniformFloorShare/m + (1 - UniformFloorShare) * u_i / sum_j u_j)) * n_job
//
// with c >= 1 raised until the capped probabilities sum to n_job (water
// filling), and run i is inspected deep when draw(seed, id) < pi_i. When
// every run is equally uncertain (an LLM judge scoring 0 or 100 without
// repeats) the policy falls back to uniform: every pi_i is n_job/m, the
// same number, so the estimate section treats the subset as uniform
// (classical and PPI++ stay valid), and the report's inputs say so.
// Shards normalise over their own runs: their probabilities are each
// run's true inclusion probability, so the estimators stay valid, but a
// merged report of shards equals an unsharded one only under the uniform
// policy.
func (d *design) selectUncertain(sampled int) func(map[string][]inspection.Inspection) map[string]bool {
	return func(light map[string][]inspection.Inspection) map[string]bool {
		ids := make([]string, 0, len(light))
		for id := range light {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		m := len(ids)
		if m == 0 {
			return nil
		}
		nJob := d.target * float64(m) / float64(sampled)
		u := make([]float64, m)
		sumU := 0.0
		equal := true
		for i, id := range ids {
			u[i] = uncertainty(light[id])
			sumU += u[i]
			equal = equal && u[i] == u[0]
		}
		pi := make([]float64, m)
		if equal {
			d.uniformFallback = true
			for i := range pi {
				pi[i] = math.Min(1, nJob/float64(m))
			}
		} else {
			for i := range ids {
				b := UniformFloorShare/float64(m) + (1-UniformFloorShare)*u[i]/sumU
				pi[i] = b * nJob
			}
			pi = waterFill(pi, nJob)
		}
		out := map[string]bool{}
		for i, id := range ids {
			d.pi[id] = pi[i]
			if draw(d.subset.Seed, id) < pi[i] {
				out[id] = true
			}
		}
		return out
	}
}

// selectDeep returns the runner's SelectDeep for a policy that needs light
// on every run first, nil for the others.
func (d *design) selectDeep(sampled int) func(map[string][]inspection.Inspection) map[string]bool {
	switch d.policy {
	case PolicyUncertain:
		return d.selectUncertain(sampled)
	case PolicyStratified:
		return d.selectStratified(sampled)
	}
	return nil
}

// StratifiedMinPerStratum is the fewest deep labels the stratified policy
// gives a stratum (all its runs when it has fewer): stratified PPI++ needs
// 2 to estimate a stratum's variance.
const StratifiedMinPerStratum = 2

// selectStratified returns the runner's SelectDeep for the stratified
// policy: the job's runs with a light inspection are split into strata by
// light's consolidated verdict and the system, or the values of the run
// --by fields (aggregate.StratumKey; the estimate section's stratified
// PPI++ then uses the same strata); the
// job's share of the deep budget, round(n m/N), is split by
// statistician.NeymanAllocation with each stratum's S_h taken from light,
// sqrt(p_h (1 - p_h)) with p_h the stratum's mean light forecast of a
// deep pass ((runtime_fidelity + task_effectiveness)/200; light is the
// only pilot a run has before deep), at least StratifiedMinPerStratum per
// stratum; in stratum h the n_h runs with the smallest draw(seed, id) are
// inspected deep, so pi_i = n_h/N_h. Shards allocate over their own runs.
// The plan command recommends an allocation from a pilot's deep labels
// instead.
func (d *design) selectStratified(sampled int) func(map[string][]inspection.Inspection) map[string]bool {
	return func(light map[string][]inspection.Inspection) map[string]bool {
		strata := map[string][]string{}
		forecast := map[string]float64{}
		for id, reps := range light {
			in := inspection.Consolidate(reps)
			h := aggregate.StratumKey(in.Verdict, in.System, d.meta[id], d.by)
			strata[h] = append(strata[h], id)
			forecast[h] += (in.RuntimeFidelity + in.TaskEffectiveness) / 200
		}
		names := make([]string, 0, len(strata))
		for h := range strata {
			names = append(names, h)
		}
		sort.Strings(names)
		sizes, sd := make([]int, len(names)), make([]float64, len(names))
		for i, h := range names {
			sizes[i] = len(strata[h])
			p := forecast[h] / float64(sizes[i])
			sd[i] = math.Sqrt(math.Max(0, p*(1-p)))
		}
		nJob := int(math.Round(d.target * float64(len(light)) / float64(sampled)))
		alloc := statistician.NeymanAllocation(nJob, sizes, sd, StratifiedMinPerStratum)
		out := map[string]bool{}
		for i, h := range names {
			ids := strata[h]
			sort.Slice(ids, func(a, b int) bool {
				ua, ub := draw(d.subset.Seed, ids[a]), draw(d.subset.Seed, ids[b])
				if ua != ub {
					return ua < ub
				}
				return ids[a] < ids[b]
			})
			for j, id := range ids {
				d.pi[id] = float64(alloc[i]) / float64(len(ids))
				if j < alloc[i] {
					out[id] = true
				}
			}
		}
		d.strata = len(names)
		return out
	}
}

// waterFill scales base (positive, summing to total) so that no value
// exceeds 1 and the values still sum to total (when total <= len(base)):
// capped values are fixed at 1 and the rest scaled up, until none exceeds 1.
func waterFill(base []float64, total float64) []float64 {
	pi := append([]float64(nil), base...)
	capped := make([]bool, len(pi))
	for range len(pi) {
		free, freeSum, fixed := 0, 0.0, 0.0
		for i, p := range pi {
			if capped[i] {
				fixed += 1
				continue
			}
			free++
			freeSum += p
		}
		if free == 0 || freeSum == 0 {
			break
		}
		scale := (total - fixed) / freeSum
		over := false
		for i := range pi {
			if capped[i] {
				continue
			}
			pi[i] *= scale
			if pi[i] >= 1 {
				pi[i], capped[i], over = 1, true, true
			}
		}
		if !over {
			break
		}
	}
	return pi
}

// inclusion lists each run's inclusion probability and whether it got a
// deep inspection, sorted by run id; nil when deep ran on every run.
func (d *design) inclusion(paired []string, lightOnly []runner.LightRun) []report.Inclusion {
	if d.policy == PolicyAll {
		return nil
	}
	out := []report.Inclusion{}
	add := func(id string, deep bool) {
		in := report.Inclusion{RunID: id, Deep: deep}
		if p, ok := d.pi[id]; ok && !math.IsNaN(p) {
			in.Pi = &p
		}
		out = append(out, in)
	}
	for _, id := range paired {
		add(id, true)
	}
	for _, l := range lightOnly {
		add(l.Run.ID, false)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].RunID < out[j].RunID })
	return out
}

// inputs is the subset's part of the report's inputs; nil for deep on
// every run.
func (d *design) inputs() *report.SubsetInputs {
	if d.policy == PolicyAll {
		return nil
	}
	in := &report.SubsetInputs{Policy: d.policy, Expected: d.target, Sampled: d.n, Assumed: d.assumed}
	switch d.policy {
	case PolicyUniform:
		in.HowChosen = "a seeded simple random sample of the sampled runs"
	case PolicyUncertain:
		in.HowChosen = fmt.Sprintf("seeded Poisson sampling, more likely where light is least sure; every run has pi >= %g x n/N", UniformFloorShare)
		in.MinPi = UniformFloorShare * d.target / float64(d.n)
		if d.uniformFallback {
			in.HowChosen = "seeded Poisson sampling with pi = n/N for every run: the uncertain policy found every run equally uncertain (light's scores, verdicts, repeats and panel votes told none apart), so it fell back to uniform"
			in.MinPi = d.target / float64(d.n)
		}
	case PolicyStratified:
		by := "system"
		if len(d.by) > 0 {
			by = strings.Join(d.by, " x ")
		}
		in.HowChosen = fmt.Sprintf("a seeded simple random sample in each of %d strata (light verdict x %s), Neyman allocation from light's forecasts, at least %d per stratum", d.strata, by, StratifiedMinPerStratum)
	case PolicyCluster:
		in.HowChosen = d.clusterHowChosen()
	case PolicyGiven:
		switch {
		case d.assumed:
			in.HowChosen = "the runs the deep source covers; how they were chosen was not said, so a uniform random subset is ASSUMED: if it was not random, the estimates may be biased"
		case d.subset.Chosen == "random":
			in.HowChosen = "the runs the deep source covers, chosen at random (--deep-subset random)"
		case d.unrecorded > 0:
			in.HowChosen = fmt.Sprintf("the runs the deep source covers, with the inclusion probabilities it records; %d labelled runs record none, so no estimate that needs them is given", d.unrecorded)
		default:
			in.HowChosen = "the runs the deep source covers, with the inclusion probabilities it records"
		}
	}
	return in
}
