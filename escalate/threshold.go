package escalate

import (
	"fmt"
	"math"
	"sort"

	"github.com/evalcal/evalcal/statistician"
)

// DefaultRisk is the risk D when none is given: the guarantee holds with
// probability 0.9.
const DefaultRisk = 0.1

// IntervalLevel is the two-sided level of the reported coverage and
// agreement intervals (the report's 95%); the guarantee itself uses the
// one-sided bound at 1 - D.
const IntervalLevel = 0.95

// MaxNeeded bounds the "runs needed" search when no threshold meets the
// target; beyond it the answer is "more than MaxNeeded".
const MaxNeeded = 10_000_000

// Target is the guarantee asked for: agreement with deep of at least
// Agreement among the runs light decides, with probability at least
// 1 - Risk over the calibration runs.
type Target struct {
	Agreement float64 `yaml:"agreement" json:"agreement"` // A, in (0, 1)
	Risk      float64 `yaml:"risk" json:"risk"`           // D, in (0, 1)
}

// Check returns an error unless 0 < A < 1 and 0 < D < 1.
func (t Target) Check() error {
	if !(t.Agreement > 0 && t.Agreement < 1) {
		return fmt.Errorf("escalate: target agreement %v must be in (0, 1)", t.Agreement)
	}
	if !(t.Risk > 0 && t.Risk < 1) {
		return fmt.Errorf("escalate: risk %v must be in (0, 1)", t.Risk)
	}
	return nil
}

// Scored is one calibration run: light's confidence and whether light's
// verdict equals deep's.
type Scored struct {
	Confidence float64
	Agree      bool
}

// Point is one candidate threshold: the runs with confidence at or above
// it (Covered) and how many of them light and deep agree on (Matches).
// Tested points carry the one-sided Clopper-Pearson bound at 1 - D of
// Matches/Covered and whether it reached the target.
type Point struct {
	Threshold float64
	Covered   int
	Matches   int
	Tested    bool
	Lower     float64
	Passed    bool
}

// Result is Calibrate's answer.
type Result struct {
	Target Target
	// N is the number of calibration runs.
	N int
	// MinCovered is the fewest covered runs whose bound can reach the
	// target at all (statistician.ClopperPearsonLowerN): thresholds
	// covering fewer are not tested.
	MinCovered int
	// Points are the candidate thresholds, every distinct confidence from
	// the highest down: the coverage-risk curve.
	Points []Point
	// Met is true when some threshold passed; Chosen is then its index in
	// Points (the lowest passed threshold), else -1.
	Met    bool
	Chosen int
	// Threshold, Covered, Matches and AgreementLower are the chosen
	// point's (zero when not Met). Coverage is Covered/N and Agreement
	// Matches/Covered, each with its two-sided Clopper-Pearson interval at
	// IntervalLevel.
	Threshold      float64
	Covered        int
	Matches        int
	AgreementLower float64
	Coverage       statistician.Interval
	Agreement      statistician.Interval
	// Needed, when not Met, is the number of calibration runs that would
	// let the most economical threshold pass if the runs kept the coverage
	// and agreement seen at it (NeededAt, an index in Points; -1 when no
	// threshold's agreement exceeds the target, and then Needed.Reason
	// says so).
	Needed   statistician.Plan
	NeededAt int
	// PassAlone, when not Met, counts the less confident thresholds that
	// would pass on their own with the runs there are but were not tested
	// because the sequence stopped above them.
	PassAlone int
	// Reason says, when not Met, why no threshold passed.
	Reason string
}

// Calibrate chooses the lowest confidence threshold lambda such that the
// agreement with deep among runs with confidence >= lambda is at least
// t.Agreement (A) with probability at least 1 - t.Risk (D), by
// fixed-sequence testing (Bauer 1991; Angelopoulos et al., "Learn then
// Test", 2021) as in Jung, Brahman and Choi, "Trust or Escalate" (ICLR
// 2025):
//
//	lambda_1 > lambda_2 > ...   the distinct confidences, highest first
//	H_j: P(agree | confidence >= lambda_j) < A
//	reject H_j when ClopperPearsonLower(matches_j, covered_j, D) >= A,
//	    i.e. P(Binomial(covered_j, A) >= matches_j) <= D
//	test H_1, H_2, ... in order and stop at the first not rejected;
//	lambda-hat = the last rejected lambda_j
//
// Each test has level D and the order is fixed before any agreement is
// looked at, so the chance that any rejected H_j is true is at most D
// (fixed-sequence testing controls the family-wise error rate without a
// correction), and the chosen threshold carries the guarantee.
// Thresholds covering fewer than MinCovered runs cannot be rejected
// whatever the agreement (a perfect record of n runs has bound D^(1/n));
// the sequence starts after them rather than stopping at them. Which
// thresholds are skipped depends on the confidences alone, never on
// agreement. When nothing passes, Met is false, every run is escalated,
// and Needed says how many calibration runs might change that.
//
// It returns an error when the target is invalid or a confidence is not
// finite. No runs give a Result with a Reason.
func Calibrate(runs []Scored, t Target) (Result, error) {
	if err := t.Check(); err != nil {
		return Result{}, err
	}
	for i, r := range runs {
		if math.IsNaN(r.Confidence) || math.IsInf(r.Confidence, 0) {
			return Result{}, fmt.Errorf("escalate: calibration run %d: confidence %v is not finite", i+1, r.Confidence)
		}
	}
	minCovered, err := statistician.ClopperPearsonLowerN(t.Agreement, t.Risk, statistician.MaxClopperPearsonN)
	if err != nil {
		return Result{}, fmt.Errorf("escalate: %w", err)
	}
	res := Result{Target: t, N: len(runs), MinCovered: minCovered, Chosen: -1, NeededAt: -1, Points: curve(runs)}
	if len(runs) == 0 {
		res.Reason = "no runs with both a light and a deep verdict to calibrate on"
		res.Needed.Reason = res.Reason
		return res, nil
	}
	for i := range res.Points {
		p := &res.Points[i]
		if p.Covered < minCovered {
			continue
		}
		lo, err := statistician.ClopperPearsonLower(p.Matches, p.Covered, t.Risk)
		if err != nil {
			return Result{}, fmt.Errorf("escalate: threshold %v: %w", p.Threshold, err)
		}
		p.Tested, p.Lower, p.Passed = true, lo, lo >= t.Agreement
		if !p.Passed {
			break
		}
		res.Chosen = i
	}
	if res.Chosen < 0 {
		res.Reason = notMetReason(res)
		res.Needed, res.NeededAt, res.PassAlone = needed(res)
		return res, nil
	}
	c := res.Points[res.Chosen]
	res.Met, res.Threshold, res.Covered, res.Matches, res.AgreementLower = true, c.Threshold, c.Covered, c.Matches, c.Lower
	if res.Coverage, err = statistician.ClopperPearson(c.Covered, res.N, IntervalLevel); err != nil {
		return Result{}, fmt.Errorf("escalate: coverage interval: %w", err)
	}
	if res.Agreement, err = statistician.ClopperPearson(c.Matches, c.Covered, IntervalLevel); err != nil {
		return Result{}, fmt.Errorf("escalate: agreement interval: %w", err)
	}
	return res, nil
}

// curve returns one Point per distinct confidence, highest first, with
// the cumulative counts of runs at or above it.
func curve(runs []Scored) []Point {
	sorted := append([]Scored(nil), runs...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Confidence > sorted[j].Confidence })
	var pts []Point
	covered, matches := 0, 0
	for i, r := range sorted {
		covered++
		if r.Agree {
			matches++
		}
		if i+1 < len(sorted) && sorted[i+1].Confidence == r.Confidence {
			continue
		}
		pts = append(pts, Point{Threshold: r.Confidence, Covered: covered, Matches: matches})
	}
	return pts
}

func notMetReason(res Result) string {
	all := res.Points[len(res.Points)-1]
	if all.Covered < res.MinCovered {
		return fmt.Sprintf("%d runs with both depths; even if light agreed with deep on all of them, at least %d are needed to show agreement >= %v with probability %v",
			res.N, res.MinCovered, res.Target.Agreement, 1-res.Target.Risk)
	}
	for _, p := range res.Points {
		if p.Tested {
			return fmt.Sprintf("the most confident threshold tested (%v: %d runs, %d agree) has a %v lower bound of %.4g, under the target %v",
				p.Threshold, p.Covered, p.Matches, 1-res.Target.Risk, p.Lower, res.Target.Agreement)
		}
	}
	return "no threshold could be tested"
}

// needed returns the calibration runs that would let some threshold
// pass if runs kept the coverage c_j = covered_j/N and agreement
// a_j = matches_j/covered_j seen at it: the covered runs k_j the bound
// needs at agreement a_j (statistician.PlanClopperPearsonLower, at most
// MaxNeeded), over the coverage, ceil(k_j / c_j), the smallest over the
// thresholds with a_j > A whose answer exceeds N (one at or under N would
// pass alone now: the sequence stopped above it). It is a planning figure: more runs also have to
// keep every threshold above the chosen one passing.
func needed(res Result) (statistician.Plan, int, int) {
	best, at, alone := statistician.Plan{Method: statistician.MethodClopperPearsonLower}, -1, 0
	for i, p := range res.Points {
		rate := float64(p.Matches) / float64(p.Covered)
		if rate <= res.Target.Agreement {
			continue
		}
		plan := statistician.PlanClopperPearsonLower(rate, res.Target.Agreement, res.Target.Risk, MaxNeeded)
		if plan.N == 0 {
			continue
		}
		n := int(math.Ceil(float64(plan.N) * float64(res.N) / float64(p.Covered)))
		if n <= res.N {
			// It would pass on its own with the runs there are: what
			// stopped the sequence is a more confident threshold, not n.
			alone++
			continue
		}
		if at < 0 || n < best.N {
			best, at = plan, i
			best.N = n
		}
	}
	if at < 0 && alone > 0 {
		best.Reason = fmt.Sprintf("%d less confident thresholds would pass on their own with these runs, but fixed-sequence testing stopped at a more confident one that did not: the confidence does not rank agreement consistently at the top", alone)
	} else if at < 0 {
		best.Reason = fmt.Sprintf("unreachable at these rates: no threshold's agreement exceeds %v (or it would need more than %d covered runs); a more informative confidence or a lower target is needed, not more runs", res.Target.Agreement, MaxNeeded)
	}
	return best, at, alone
}
