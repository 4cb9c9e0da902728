package segment

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician"
)

// MinRuns is the fewest paired runs (light and deep verdicts both) a slice
// needs to be tested: the trust rule's minimum (README "The report", the
// trust rule's insufficient_evidence under 10 paired runs). Smaller
// slices are listed with their counts only.
const MinRuns = 10

// MaxCompared is the most tested slices a field's slices are compared
// pairwise for (k(k-1)/2 = 435 pairs): a field with a value per run or
// per number (a token count) would otherwise ask for millions of pairs,
// none surviving Holm's adjustment.
const MaxCompared = 30

// level is the confidence level of every interval here.
const level = 0.95

// Run is one run as slicing sees it.
type Run struct {
	ID       string
	System   string
	Metadata inspection.Metadata
	// LightVerdict and DeepVerdict are pass, partial or fail; DeepVerdict
	// is "" when deep did not inspect the run (it is then light only).
	LightVerdict, DeepVerdict string
	// Forecast is light's forecast of a deep pass in [0, 1], the
	// predictor of PPI++: (light runtime_fidelity + light
	// task_effectiveness) / 200, as the report's estimate section.
	Forecast float64
	// Pi is the run's recorded probability of a deep inspection, 0 when
	// none is recorded.
	Pi float64
}

// Options says how deep's subset was drawn.
type Options struct {
	// NotRandom, when not empty, says why deep's subset is not a random
	// subset (a cascade's deep runs are the ones light was unsure of):
	// deep's pass rate of a slice deep did not cover whole is then not
	// estimated.
	NotRandom string
}

func (r Run) paired() bool { return r.DeepVerdict != "" }

// Field is the runs sliced by one field.
type Field struct {
	Field string `yaml:"field" json:"field"`
	// Runs counts the runs that have the field; Missing those that do not
	// (they are in no slice).
	Runs    int `yaml:"runs" json:"runs"`
	Missing int `yaml:"missing" json:"missing"`
	// Tested counts the slices with at least MinRuns paired runs: the
	// k of the Bonferroni-simultaneous intervals.
	Tested int     `yaml:"tested" json:"tested"`
	Slices []Slice `yaml:"slices" json:"slices"`
	// Comparisons are the pairs of tested slices (A before B by value);
	// none when more than MaxCompared slices are tested, and
	// ComparisonsLeftOut says so.
	Comparisons        []Comparison `yaml:"comparisons" json:"comparisons"`
	ComparisonsLeftOut string       `yaml:"comparisons_left_out,omitempty" json:"comparisons_left_out,omitempty"`
	// Misjudged names the pairs whose order or significance light gets
	// wrong ("A vs B: ..."), in pair order.
	Misjudged []string `yaml:"misjudged" json:"misjudged"`
}

// Slice is the runs whose field has one value. Percentages are 0..100.
type Slice struct {
	Value string `yaml:"value" json:"value"`
	// N counts the paired runs, NLight every run with a light verdict
	// (paired and light only).
	N      int `yaml:"n" json:"n"`
	NLight int `yaml:"n_light" json:"n_light"`
	// Matches counts the paired runs whose verdicts agree; Percent is
	// their share (null over no paired run).
	Matches int      `yaml:"matches" json:"matches"`
	Percent *float64 `yaml:"percent" json:"percent"`
	// Tested is N >= MinRuns; when false, Reason says so and every
	// figure below is absent.
	Tested bool   `yaml:"tested" json:"tested"`
	Reason string `yaml:"reason,omitempty" json:"reason,omitempty"`
	// Wilson95 is the agreement's Wilson 95% interval; Simultaneous95
	// Wilson's at z' = Phi^-1(1 - 0.025/k), k the field's tested slices
	// (statistician.BonferroniZ), so all k hold together at 95%.
	Wilson95       *statistician.Interval `yaml:"wilson95,omitempty" json:"wilson95,omitempty"`
	Simultaneous95 *statistician.Interval `yaml:"simultaneous95,omitempty" json:"simultaneous95,omitempty"`
	// KappaLinear is the linear-weighted kappa over the ordinal verdicts
	// (statistician.CohenKappa), with its asymptotic SE and interval.
	KappaLinear *statistician.Kappa `yaml:"kappa_linear,omitempty" json:"kappa_linear,omitempty"`
	Leniency    *Leniency           `yaml:"leniency,omitempty" json:"leniency,omitempty"`
	// LightPassRate is light's pass rate over the NLight runs; DeepPassRate
	// deep's, corrected for the runs deep did not inspect.
	LightPassRate *Rate `yaml:"light_pass_rate,omitempty" json:"light_pass_rate,omitempty"`
	DeepPassRate  *Rate `yaml:"deep_pass_rate,omitempty" json:"deep_pass_rate,omitempty"`
}

// Leniency is the slice's verdict-level leniency at the pass line: runs
// light passes and deep does not, the reverse, and McNemar's exact p
// (statistician.McNemarExact; null with no discordant run).
type Leniency struct {
	LightPassDeepNot int      `yaml:"light_pass_deep_not" json:"light_pass_deep_not"`
	DeepPassLightNot int      `yaml:"deep_pass_light_not" json:"deep_pass_light_not"`
	McNemarP         *float64 `yaml:"mcnemar_p" json:"mcnemar_p"`
	Direction        string   `yaml:"direction" json:"direction"`
}

// The estimators of a slice's pass rate.
const (
	MethodClassical = "classical" // the share of the runs, every run labelled
	MethodPPI       = "ppi++"     // PPI++ from deep's subset and light's forecasts
	MethodLight     = "light"     // light's own verdicts
	// MethodHajek (hajek.go): the labels weighted by 1/pi, deep's subset
	// drawn with unequal probabilities within the slice.
)

// Rate is a pass rate in percent with its standard error and 95% interval
// (percent), by Method; null figures and a Reason when not defined. The
// target is the process producing the slice's runs (a comparison of
// systems is about the systems, not about these runs), so the interval is
// not finite-population corrected.
type Rate struct {
	Method      string                 `yaml:"method" json:"method"`
	Percent     *float64               `yaml:"percent" json:"percent"`
	SE          *float64               `yaml:"se" json:"se"`
	CI95        *statistician.Interval `yaml:"ci95" json:"ci95"`
	NLabelled   int                    `yaml:"n_labelled" json:"n_labelled"`
	NUnlabelled int                    `yaml:"n_unlabelled" json:"n_unlabelled"`
	Reason      string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// Compute slices runs by each field in order (inspection.Field: "system"
// is the run's system, any other name a metadata field). Slices are
// sorted by value; runs without the field are counted as Missing.
func Compute(runs []Run, fields []string) []Field {
	return ComputeWith(runs, fields, Options{})
}

// ComputeWith is Compute for a deep subset drawn as opts says.
func ComputeWith(runs []Run, fields []string, opts Options) []Field {
	out := make([]Field, 0, len(fields))
	for _, f := range fields {
		out = append(out, computeField(runs, f, opts))
	}
	return out
}

func computeField(runs []Run, field string, opts Options) Field {
	f := Field{Field: field, Slices: []Slice{}, Comparisons: []Comparison{}, Misjudged: []string{}}
	// Each group sized once from a first count: grown by appending, a
	// million runs' groups took twice their size (issue 26).
	value := make([]string, len(runs))
	has := make([]bool, len(runs))
	count := map[string]int{}
	for i, r := range runs {
		value[i], has[i] = inspection.Field(r.System, r.Metadata, field)
		if !has[i] {
			f.Missing++
			continue
		}
		f.Runs++
		count[value[i]]++
	}
	groups := make(map[string][]Run, len(count))
	for v, n := range count {
		groups[v] = make([]Run, 0, n)
	}
	for i, r := range runs {
		if has[i] {
			groups[value[i]] = append(groups[value[i]], r)
		}
	}
	values := make([]string, 0, len(groups))
	for v, rs := range groups {
		values = append(values, v)
		// By id: PPI++'s cross-fitting folds depend on order.
		slices.SortFunc(rs, func(a, b Run) int { return cmp.Compare(a.ID, b.ID) })
	}
	slices.Sort(values)
	for _, v := range values {
		if pairedCount(groups[v]) >= MinRuns {
			f.Tested++
		}
	}
	zk := statistician.BonferroniZ(statistician.Z95, max(f.Tested, 1))
	for _, v := range values {
		f.Slices = append(f.Slices, computeSlice(v, groups[v], zk, opts))
	}
	if f.Tested > MaxCompared {
		f.ComparisonsLeftOut = fmt.Sprintf("%d slices are tested, more than %d: their %d pairs are not compared", f.Tested, MaxCompared, f.Tested*(f.Tested-1)/2)
		return f
	}
	f.Comparisons, f.Misjudged = compare(f.Slices)
	return f
}

func pairedCount(rs []Run) int {
	n := 0
	for _, r := range rs {
		if r.paired() {
			n++
		}
	}
	return n
}

// computeSlice fills one slice; zk is the simultaneous z.
func computeSlice(value string, rs []Run, zk float64, opts Options) Slice {
	s := Slice{Value: value, NLight: len(rs)}
	var rows, cols []int
	var lenc Leniency
	lightPass := 0
	var y, fl, fu, pl []float64
	for _, r := range rs {
		lp := r.LightVerdict == inspection.VerdictPass
		if lp {
			lightPass++
		}
		if !r.paired() {
			fu = append(fu, r.Forecast)
			continue
		}
		s.N++
		if r.LightVerdict == r.DeepVerdict {
			s.Matches++
		}
		dp := r.DeepVerdict == inspection.VerdictPass
		switch {
		case lp && !dp:
			lenc.LightPassDeepNot++
		case dp && !lp:
			lenc.DeepPassLightNot++
		}
		rows, cols = append(rows, verdictIndex(r.LightVerdict)), append(cols, verdictIndex(r.DeepVerdict))
		yv := 0.0
		if dp {
			yv = 1
		}
		y, fl, pl = append(y, yv), append(fl, r.Forecast), append(pl, r.Pi)
	}
	agreementOf(&s, zk)
	if !s.Tested {
		return s
	}
	if table, err := statistician.ConfusionMatrix(rows, cols, 3); err == nil {
		k := statistician.CohenKappa(table, statistician.Linear)
		s.KappaLinear = &k
	}
	m := statistician.McNemarExact(lenc.LightPassDeepNot, lenc.DeepPassLightNot)
	lenc.Direction = m.Direction
	if m.Discordant > 0 {
		p := m.P
		lenc.McNemarP = &p
	}
	s.Leniency = &lenc
	s.LightPassRate = lightRate(lightPass, len(rs))
	s.DeepPassRate = deepRate(y, fl, fu)
	switch why := subsetInvalid(rs, opts); {
	case why == "" || len(fu) == 0:
	case opts.NotRandom == "":
		// Unequal inclusion probabilities: Hájek's weighted mean of the
		// labels.
		s.DeepPassRate = Hajek(y, pl)
		s.DeepPassRate.NUnlabelled = len(fu)
	default:
		s.DeepPassRate = &Rate{Method: MethodPPI, NLabelled: len(y), NUnlabelled: len(fu), Reason: why}
	}
	return s
}

// agreementOf fills s's agreement figures from its N and Matches: the
// Percent (when N > 0) and, for a slice of at least MinRuns paired runs,
// Tested, the Wilson 95% interval and the simultaneous one at zk (the
// Bonferroni z over the field's tested slices); else the Reason. The one
// computation of a slice's agreement: Compute and Agreements share it.
func agreementOf(s *Slice, zk float64) {
	if s.N > 0 {
		p := 100 * float64(s.Matches) / float64(s.N)
		s.Percent = &p
	}
	if s.N < MinRuns {
		s.Reason = fmt.Sprintf("%d paired runs, fewer than %d: listed, not tested", s.N, MinRuns)
		return
	}
	s.Tested = true
	s.Wilson95 = wilsonPercent(s.Matches, s.N, statistician.Z95)
	s.Simultaneous95 = wilsonPercent(s.Matches, s.N, zk)
}

// Agreements is the agreement part of Compute for one field: the slices
// of runs by field (sorted by value, those with a paired run only), each
// with N, NLight, Matches and the figures agreementOf fills, the
// simultaneous intervals over the field's tested slices. The figures
// equal those of Compute's slices of the same field (the same runs give
// the same k, since only paired runs count towards it); aggregate's
// agreement_by_system is Agreements by system, so the report gives one
// interval per system.
func Agreements(runs []Run, field string) []Slice {
	groups := map[string]*Slice{}
	for _, r := range runs {
		v, ok := inspection.Field(r.System, r.Metadata, field)
		if !ok {
			continue
		}
		s := groups[v]
		if s == nil {
			s = &Slice{Value: v}
			groups[v] = s
		}
		s.NLight++
		if !r.paired() {
			continue
		}
		s.N++
		if r.LightVerdict == r.DeepVerdict {
			s.Matches++
		}
	}
	values := make([]string, 0, len(groups))
	tested := 0
	for v, s := range groups {
		if s.N == 0 {
			continue
		}
		values = append(values, v)
		if s.N >= MinRuns {
			tested++
		}
	}
	slices.Sort(values)
	zk := statistician.BonferroniZ(statistician.Z95, max(tested, 1))
	out := make([]Slice, 0, len(values))
	for _, v := range values {
		s := groups[v]
		agreementOf(s, zk)
		out = append(out, *s)
	}
	return out
}

// subsetInvalid says why PPI++ does not hold for the slice's deep subset:
// the subset is not random (opts: no estimate), or the recorded inclusion
// probabilities differ within the slice (PPI++ needs a uniform random
// subset of the slice; a subset stratified by system is uniform within a
// system's slice; computeSlice then gives Hajek). "" when it holds.
func subsetInvalid(rs []Run, opts Options) string {
	if opts.NotRandom != "" {
		return "not estimated: " + opts.NotRandom
	}
	first := 0.0
	for _, r := range rs {
		switch {
		case r.Pi <= 0:
		case first == 0:
			first = r.Pi
		case math.Abs(r.Pi-first) > 1e-12:
			return "not valid here: deep's subset was drawn with unequal probabilities within this slice (see the estimate section's ipw)"
		}
	}
	return ""
}

// verdictIndex orders the verdicts fail 0, partial 1, pass 2 (the
// ordinal scale of the linear kappa).
func verdictIndex(v string) int {
	switch v {
	case inspection.VerdictPass:
		return 2
	case inspection.VerdictPartial:
		return 1
	}
	return 0
}

// wilsonPercent is the Wilson interval at z in percent, nil when not
// defined.
func wilsonPercent(k, n int, z float64) *statistician.Interval {
	iv, err := statistician.WilsonInterval(k, n, z)
	if err != nil {
		return nil
	}
	return &statistician.Interval{Lower: 100 * iv.Lower, Upper: 100 * iv.Upper}
}

// lightRate is light's pass rate over n runs: the share, its binomial SE
// sqrt(p(1-p)/n) and the Wilson 95% interval (statistician.ClassicalRate
// on light's verdicts).
func lightRate(passes, n int) *Rate {
	y := make([]float64, n)
	for i := range passes {
		y[i] = 1
	}
	r := rateOf(statistician.ClassicalRate(y, level))
	r.Method = MethodLight
	return r
}

// deepRate is deep's pass rate of a slice: with no unlabelled run the
// classical rate (share, binomial SE, Wilson interval); else PPI++
// (statistician.PPIMean, the process target, light's forecast as the
// predictor, clamped to [0, 1]). When PPI++ has no interval (deep's
// labels in the slice are all equal, so its variance is 0), the classical
// rate of the labels stands in: its Wilson interval is still defined.
func deepRate(y, fl, fu []float64) *Rate {
	if len(fu) == 0 {
		return rateOf(statistician.ClassicalRate(y, level))
	}
	r := rateOf(statistician.PPIMean(y, fl, fu, level).ClampTo(0, 1))
	if r.Percent != nil && r.CI95 == nil {
		return rateOf(statistician.ClassicalRate(y, level))
	}
	r.Method = MethodPPI
	return r
}

// rateOf turns an estimate of a rate into a Rate in percent.
func rateOf(e statistician.Estimate) *Rate {
	r := &Rate{Method: e.Method, NLabelled: e.NLabelled, NUnlabelled: e.NUnlabelled, Reason: e.Reason}
	if e.Method == statistician.MethodPPI {
		r.Method = MethodPPI
	} else {
		r.Method = MethodClassical
	}
	if e.Reason != "" && e.Value == 0 && e.CI == (statistician.Interval{}) {
		return r
	}
	p := 100 * e.Value
	r.Percent = &p
	if e.SE > 0 {
		se := 100 * e.SE
		r.SE = &se
		r.CI95 = &statistician.Interval{Lower: 100 * e.CI.Lower, Upper: 100 * e.CI.Upper}
	} else if e.CI != (statistician.Interval{}) {
		// A classical rate at 0 or 100%: binomial SE 0, Wilson still
		// defined.
		zero := 0.0
		r.SE = &zero
		r.CI95 = &statistician.Interval{Lower: 100 * e.CI.Lower, Upper: 100 * e.CI.Upper}
	}
	return r
}
