package advisor

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// judged is one run as an LLM judge or a human label gives it: a verdict
// and scores, no flags, an optional summary and a system.
type judged struct {
	id, system                string
	light, deep               string
	lightRF, lightTE          float64
	deepScore                 float64
	lightSummary, deepSummary string
}

func compareJudged(rs []judged) ([]comparator.Comparison, aggregate.Stats) {
	var pairs []runner.Pair
	for _, r := range rs {
		sys := r.system
		if sys == "" {
			sys = "sys"
		}
		pairs = append(pairs, runner.Pair{
			Light: inspection.Inspection{RunID: r.id, System: sys, Depth: inspection.Light, Verdict: r.light,
				RuntimeFidelity: r.lightRF, TaskEffectiveness: r.lightTE, Summary: r.lightSummary},
			Deep: inspection.Inspection{RunID: r.id, System: sys, Depth: inspection.Deep, Verdict: r.deep,
				RuntimeFidelity: r.deepScore, TaskEffectiveness: r.deepScore, Summary: r.deepSummary},
		})
	}
	cs := comparator.Compare(pairs)
	return cs, aggregate.ComputeAll(aggregate.Input{Comparisons: cs}, aggregate.DefaultOptions())
}

func score(v string) float64 {
	switch v {
	case inspection.VerdictPass:
		return 100
	case inspection.VerdictPartial:
		return 50
	}
	return 0
}

// splitRuns builds n runs of which b light passes and deep fails, c the
// reverse, and the rest agree (half pass, half fail); scores are binary,
// as an LLM judge's pass/fail gives them.
func splitRuns(n, b, c int) []judged {
	var rs []judged
	for i := 0; i < n; i++ {
		l, d := inspection.VerdictPass, inspection.VerdictPass
		switch {
		case i < b:
			d = inspection.VerdictFail
		case i < b+c:
			l = inspection.VerdictFail
		case i%2 == 0:
			l, d = inspection.VerdictFail, inspection.VerdictFail
		}
		rs = append(rs, judged{id: fmt.Sprintf("r%04d", i), light: l, deep: d, lightRF: score(l), lightTE: score(l), deepScore: score(d)})
	}
	return rs
}

func findRule(recs []Recommendation, rule string) *Recommendation {
	for i := range recs {
		if recs[i].Rule == rule {
			return &recs[i]
		}
	}
	return nil
}

type reference struct {
	McNemar []struct {
		B, C int
		P    float64
	} `json:"mcnemar"`
	Threshold []struct {
		Name string `json:"name"`
		Runs []struct {
			ID      string  `json:"id"`
			LightRF float64 `json:"light_rf"`
			LightTE float64 `json:"light_te"`
			Light   string  `json:"light"`
			Deep    string  `json:"deep"`
		} `json:"runs"`
		Fires          bool    `json:"fires"`
		FailBelow      float64 `json:"fail_below"`
		PassAt         float64 `json:"pass_at"`
		FittedMatches  int     `json:"fitted_matches"`
		HeldoutMatches int     `json:"heldout_matches"`
		LightMatches   int     `json:"light_matches"`
		Gained, Lost   int
		P              float64    `json:"p"`
		HeldoutWilson  [2]float64 `json:"heldout_wilson95"`
		LightWilson    [2]float64 `json:"light_wilson95"`
	} `json:"threshold"`
}

func loadReference(t *testing.T) reference {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference", "advisor_values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	return ref
}

func closeP(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(math.Abs(want), 1e-300) || math.Abs(got-want) < 1e-15
}

// The leniency rule's p-value is McNemar's exact test as scipy and
// statsmodels compute it; it fires at p < 0.05 only, one way or the
// other, and a balanced split stays silent.
func TestLeniencyRuleFiresOnlyOnASignificantSplit(t *testing.T) {
	ref := loadReference(t)
	if len(ref.McNemar) == 0 {
		t.Fatal("no McNemar references")
	}
	for _, m := range ref.McNemar {
		for _, flip := range []bool{false, true} {
			b, c := m.B, m.C
			if flip {
				b, c = c, b
			}
			n := b + c + 400
			cs, st := compareJudged(splitRuns(n, b, c))
			rec := findRule(advise(cs, st), "leniency")
			want := m.P < Alpha
			if (rec != nil) != want {
				t.Errorf("b=%d c=%d (p=%.3g): fired %v, want %v", b, c, m.P, rec != nil, want)
				continue
			}
			if rec == nil {
				continue
			}
			if rec.Test == nil || rec.Test.P == nil || !closeP(*rec.Test.P, m.P) {
				t.Errorf("b=%d c=%d: test %+v, want p %v", b, c, rec.Test, m.P)
			}
			// Light's pass rate minus deep's is (b - c)/n, in points.
			gap := fmt.Sprintf("%.2f points", math.Abs(100*float64(b-c)/float64(n)))
			if !strings.Contains(rec.Rationale, gap) {
				t.Errorf("b=%d c=%d: rationale %q lacks %q", b, c, rec.Rationale, gap)
			}
			wantTarget := "light's pass bar (too lenient)"
			wantRuns := b
			if b < c {
				wantTarget, wantRuns = "light's pass bar (too strict)", c
			}
			if rec.Target != wantTarget || len(rec.Addresses) != wantRuns {
				t.Errorf("b=%d c=%d: target %q with %d runs, want %q with %d", b, c, rec.Target, len(rec.Addresses), wantTarget, wantRuns)
			}
			// Impact: the excess |b - c| of split runs agreeing.
			im := rec.ExpectedImpact
			matches := n - b - c
			if im.Basis != BasisImbalance || im.VerdictsResolved != abs(b-c) ||
				math.Abs(im.AgreementPercent-100*float64(matches+abs(b-c))/float64(n)) > 1e-9 {
				t.Errorf("b=%d c=%d: impact %+v", b, c, im)
			}
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Deep's summaries of the runs light passes too easily name what light
// does not look at; the rule names those words.
func TestLeniencyRuleNamesDeepsCriteriaFromSummaries(t *testing.T) {
	rs := splitRuns(300, 40, 10)
	for i := 0; i < 40; i++ {
		rs[i].lightSummary = "The answer is clear and well written."
		rs[i].deepSummary = "Well written, but the citation is fabricated and unsupported by the source."
		if i%2 == 0 {
			rs[i].deepSummary = "Clear answer; no tests were run, so the claim is unverified."
		}
	}
	cs, st := compareJudged(rs)
	rec := findRule(advise(cs, st), "leniency")
	if rec == nil {
		t.Fatal("leniency did not fire on 40 against 10")
	}
	for _, w := range []string{`"citation" (20 of 40 runs; light's 0)`, `"tests" (20 of 40 runs; light's 0)`} {
		if !strings.Contains(rec.ProposedChange, w) {
			t.Errorf("proposed change %q lacks %s", rec.ProposedChange, w)
		}
	}
	for _, w := range []string{`"written"`, `"clear"`, `"answer"`} {
		if strings.Contains(rec.ProposedChange, w) {
			t.Errorf("proposed change names %s, which light's summaries use as well (or a stop word): %q", w, rec.ProposedChange)
		}
	}
}

func TestDistinctiveTerms(t *testing.T) {
	own := []string{"Missing tests; TESTS absent", "tests missing", "no tests", "", "unrelated words here"}
	other := []string{"looks fine", "fine", "tests ok", "", ""}
	got := DistinctiveTerms(own, other)
	// tests: 3 of 4 summaries (counted once each) against 1; missing: 2
	// against 0 (difference 2, as tests); absent, unrelated, words, here:
	// once only, dropped ("here" is a stop word too).
	want := []Term{{"tests", 3, 1}, {"missing", 2, 0}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if DistinctiveTerms([]string{"", " "}, nil) != nil {
		t.Error("terms from empty summaries")
	}
}

// The threshold rule against the independent brute-force reference
// (advisor_ref.py): the same decision, the same cuts and the same
// held-out agreement and test on four datasets, including binary scores
// (no threshold is proposed) and a light whose verdicts are already the
// best cut (held-out cuts cannot beat it).
func TestThresholdRuleMatchesReference(t *testing.T) {
	ref := loadReference(t)
	if len(ref.Threshold) != 4 {
		t.Fatalf("%d threshold cases, want 4", len(ref.Threshold))
	}
	for _, tc := range ref.Threshold {
		t.Run(tc.Name, func(t *testing.T) {
			var rs []judged
			x := make([]float64, len(tc.Runs))
			deep := make([]string, len(tc.Runs))
			for i, r := range tc.Runs {
				rs = append(rs, judged{id: r.ID, light: r.Light, deep: r.Deep, lightRF: r.LightRF, lightTE: r.LightTE, deepScore: score(r.Deep)})
				x[i], deep[i] = math.Min(r.LightRF, r.LightTE), r.Deep
			}
			c, m, ok := FitCuts(x, deep)
			if !ok || c.FailBelow != tc.FailBelow || c.PassAt != tc.PassAt || m != tc.FittedMatches {
				t.Errorf("FitCuts = %+v, %d, %v; reference %v/%v with %d matches", c, m, ok, tc.FailBelow, tc.PassAt, tc.FittedMatches)
			}
			cs, st := compareJudged(rs)
			rec := findRule(advise(cs, st), "threshold")
			if (rec != nil) != tc.Fires {
				t.Fatalf("fired %v, reference %v", rec != nil, tc.Fires)
			}
			if rec == nil {
				return
			}
			n := len(tc.Runs)
			im := rec.ExpectedImpact
			if rec.Cuts == nil || *rec.Cuts != (Cuts{tc.FailBelow, tc.PassAt}) {
				t.Errorf("cuts %+v, reference %v/%v", rec.Cuts, tc.FailBelow, tc.PassAt)
			}
			if im.Basis != BasisCrossValidated || im.N != n ||
				math.Abs(im.AgreementPercent-100*float64(tc.HeldoutMatches)/float64(n)) > 1e-9 ||
				math.Abs(im.CurrentPercent-100*float64(tc.LightMatches)/float64(n)) > 1e-9 ||
				im.VerdictsResolved != tc.HeldoutMatches-tc.LightMatches {
				t.Errorf("impact %+v, reference held-out %d light %d of %d", im, tc.HeldoutMatches, tc.LightMatches, n)
			}
			if rec.Test == nil || rec.Test.P == nil || !closeP(*rec.Test.P, tc.P) ||
				!strings.Contains(rec.Test.Detail, fmt.Sprintf("%d runs right only under the new cuts, %d only", tc.Gained, tc.Lost)) {
				t.Errorf("test %+v, reference p %v gained %d lost %d", rec.Test, tc.P, tc.Gained, tc.Lost)
			}
			// The intervals are statsmodels' Wilson intervals, in percent.
			near := func(got float64, want float64) bool { return math.Abs(got-100*want) < 1e-9 }
			if im.AgreementCI95 == nil || im.CurrentCI95 == nil ||
				!near(im.AgreementCI95.Lower, tc.HeldoutWilson[0]) || !near(im.AgreementCI95.Upper, tc.HeldoutWilson[1]) ||
				!near(im.CurrentCI95.Lower, tc.LightWilson[0]) || !near(im.CurrentCI95.Upper, tc.LightWilson[1]) {
				t.Errorf("intervals %v %v; statsmodels %v %v (x100)", im.AgreementCI95, im.CurrentCI95, tc.HeldoutWilson, tc.LightWilson)
			}
		})
	}
}

// The cross-validated impact is what the proposed cuts deliver on runs
// they were not fitted to: on fresh runs from the same judges, the
// agreement of the proposed cuts falls inside the rule's interval about
// as often as a 95% interval should, and the held-out estimate is not
// biased upward the way the fitted (in-sample) agreement is.
func TestThresholdImpactHoldsOnFreshRuns(t *testing.T) {
	gen := func(r *rand.Rand, n int, prefix string) []judged {
		rs := make([]judged, n)
		for i := range rs {
			x := 100 * r.Float64()
			q := x + 8*r.NormFloat64()
			d := inspection.VerdictPartial
			if q >= 85 {
				d = inspection.VerdictPass
			} else if q < 55 {
				d = inspection.VerdictFail
			}
			rf, te := x, math.Min(100, x+3*r.Float64())
			l := inspection.VerdictPartial
			if math.Min(rf, te) >= 70 {
				l = inspection.VerdictPass
			} else if math.Min(rf, te) < 40 {
				l = inspection.VerdictFail
			}
			rs[i] = judged{id: fmt.Sprintf("%s-%05d", prefix, i), light: l, deep: d, lightRF: rf, lightTE: te, deepScore: score(d)}
		}
		return rs
	}
	const sims = 60
	covered, fired := 0, 0
	var cvBias, fitBias float64
	for s := 0; s < sims; s++ {
		r := rand.New(rand.NewPCG(uint64(s), 7))
		train := gen(r, 300, fmt.Sprintf("t%d", s))
		cs, st := compareJudged(train)
		rec := findRule(advise(cs, st), "threshold")
		if rec == nil {
			continue
		}
		fired++
		fresh := gen(r, 20000, fmt.Sprintf("f%d", s))
		hit := 0
		for _, f := range fresh {
			if rec.Cuts.Verdict(math.Min(f.lightRF, f.lightTE)) == f.deep {
				hit++
			}
		}
		realised := 100 * float64(hit) / float64(len(fresh))
		if rec.ExpectedImpact.AgreementCI95.Contains(realised) {
			covered++
		}
		x := make([]float64, len(train))
		deep := make([]string, len(train))
		for i, tr := range train {
			x[i], deep[i] = math.Min(tr.lightRF, tr.lightTE), tr.deep
		}
		_, fitM, _ := FitCuts(x, deep)
		cvBias += rec.ExpectedImpact.AgreementPercent - realised
		fitBias += 100*float64(fitM)/float64(len(train)) - realised
	}
	if fired < sims*9/10 {
		t.Fatalf("the rule fired in %d of %d simulations of a clearly miscalibrated light", fired, sims)
	}
	cvBias /= float64(fired)
	fitBias /= float64(fired)
	t.Logf("fired %d/%d; fresh agreement inside the interval %d times; mean bias: held-out %+.2f points, fitted %+.2f points", fired, sims, covered, cvBias, fitBias)
	// A 95% interval over ~57 simulations: under 85% coverage would be a
	// miscalibrated interval (binomial 5% tail), not bad luck.
	if float64(covered) < 0.85*float64(fired) {
		t.Errorf("fresh agreement inside the interval in %d of %d simulations", covered, fired)
	}
	if math.Abs(cvBias) > 1.5 {
		t.Errorf("held-out estimate biased by %+.2f points", cvBias)
	}
	if fitBias <= cvBias {
		t.Errorf("the fitted agreement (%+.2f) should flatter the cuts more than the held-out one (%+.2f)", fitBias, cvBias)
	}
}

// A system whose agreement is below the others' beyond the simultaneous
// interval is named with its disagreeing runs; a system merely somewhat
// lower is not.
func TestWeakSystemRule(t *testing.T) {
	build := func(sizes map[string][2]int) []judged {
		var rs []judged
		for _, sys := range []string{"alpha", "beta", "gamma"} {
			sz, ok := sizes[sys]
			if !ok {
				continue
			}
			for i := 0; i < sz[0]; i++ {
				d := inspection.VerdictPass
				if i%2 == 1 {
					d = inspection.VerdictFail
				}
				l := d
				if i < sz[1] { // disagree
					l = inspection.VerdictFail
					d = inspection.VerdictPass
				}
				rs = append(rs, judged{id: fmt.Sprintf("%s-%03d", sys, i), system: sys, light: l, deep: d, lightRF: score(l), lightTE: score(l), deepScore: score(d)})
			}
		}
		return rs
	}
	// gamma: 20 of 40 agree; alpha and beta: 76 of 80 each.
	cs, st := compareJudged(build(map[string][2]int{"alpha": {80, 4}, "beta": {80, 4}, "gamma": {40, 20}}))
	recs := advise(cs, st)
	var weak []Recommendation
	for _, r := range recs {
		if r.Rule == "weak-system" {
			weak = append(weak, r)
		}
	}
	if len(weak) != 1 || weak[0].Target != "light on system gamma" || len(weak[0].Addresses) != 20 {
		t.Fatalf("weak-system recommendations %+v, want gamma alone with its 20 disagreeing runs", weak)
	}
	// Impact: gamma's 40 runs agreeing at the others' 152/160 = 95%.
	im := weak[0].ExpectedImpact
	if im.Basis != BasisRestRate || math.Abs(im.AgreementPercent-100*(152+0.95*40)/200) > 1e-9 || im.VerdictsResolved != 18 {
		t.Errorf("impact %+v", im)
	}
	// The other systems' simultaneous interval, from statsmodels 0.13.5:
	// proportion_confint(152, 160, alpha=0.05/3, method='wilson') =
	// (0.8910248354017097, 0.9778523148061914); gamma's,
	// proportion_confint(20, 40, ...) = (0.3229954316033302, 0.6770045683966698).
	if weak[0].Test == nil || !strings.Contains(weak[0].Test.Name, "over 3 tested systems") || weak[0].Test.Detail != "[32.30, 67.70] below [89.10, 97.79]" {
		t.Errorf("test %+v", weak[0].Test)
	}
	// gamma at 36 of 40 (90%) against 95%: lower, but its simultaneous
	// interval reaches above 95% (and the rest's lower bound): silent.
	cs, st = compareJudged(build(map[string][2]int{"alpha": {80, 4}, "beta": {80, 4}, "gamma": {40, 4}}))
	for _, s := range st.AgreementBySystem {
		if s.System == "gamma" && (s.Simultaneous == nil || s.Simultaneous.Upper < 95) {
			t.Fatalf("test data: gamma's simultaneous interval %v lies below 95%%", s.Simultaneous)
		}
	}
	if r := findRule(advise(cs, st), "weak-system"); r != nil {
		t.Errorf("fired on a difference within chance: %+v", r)
	}
	// gamma with 9 runs, none agreeing: under the 10 paired runs a system
	// needs to be tested (segment.MinRuns, the slices section's), it has
	// no interval and is not flagged; alpha and beta alone are tested.
	cs, st = compareJudged(build(map[string][2]int{"alpha": {80, 4}, "beta": {80, 4}, "gamma": {9, 9}}))
	if r := findRule(advise(cs, st), "weak-system"); r != nil {
		t.Errorf("fired on a system under 10 runs: %+v", r)
	}
	// One system: nothing to compare with.
	cs, st = compareJudged(build(map[string][2]int{"gamma": {40, 20}}))
	if r := findRule(advise(cs, st), "weak-system"); r != nil {
		t.Errorf("fired with one system: %+v", r)
	}
}

// With a tested finding, the edge-cases rule no longer tells the team to
// keep light's criteria.
func TestEdgeCasesGiveWayToATestedFinding(t *testing.T) {
	cs, st := compareJudged(splitRuns(1000, 60, 20)) // 92% agreement, p < 0.05
	recs := advise(cs, st)
	if findRule(recs, "leniency") == nil {
		t.Fatal("leniency did not fire")
	}
	if r := findRule(recs, "edge-cases"); r != nil {
		t.Errorf("edge-cases beside a significant leniency: %+v", r)
	}
	cs, st = compareJudged(splitRuns(1000, 20, 20)) // 96%, balanced
	recs = advise(cs, st)
	if findRule(recs, "edge-cases") == nil || findRule(recs, "leniency") != nil {
		t.Errorf("balanced split at 96%%: want edge-cases alone, got %+v", recs)
	}
}

func TestFoldsDependOnIDsAlone(t *testing.T) {
	ids := []string{"c", "a", "b", "e", "d", "f", "g"}
	f1 := Fold(ids, 3)
	rev := make([]string, len(ids))
	for i, id := range ids {
		rev[len(ids)-1-i] = id
	}
	f2 := Fold(rev, 3)
	sizes := map[int]int{}
	for i, id := range ids {
		if f1[i] != f2[len(ids)-1-i] {
			t.Errorf("run %s: fold %d, %d after reordering", id, f1[i], f2[len(ids)-1-i])
		}
		sizes[f1[i]]++
	}
	if sizes[0] != 3 || sizes[1] != 2 || sizes[2] != 2 {
		t.Errorf("fold sizes %v, want 3/2/2", sizes)
	}
}

// No rule fires on noise: when light and deep are equally good judges of
// the same quality, with light's cuts already the right ones, each tested
// rule fires in about Alpha of the datasets or fewer.
func TestTestedRulesStayQuietUnderTheNull(t *testing.T) {
	const sims, n = 300, 240
	fires := map[string]int{}
	for s := 0; s < sims; s++ {
		r := rand.New(rand.NewPCG(uint64(s), 99))
		rs := make([]judged, n)
		for i := range rs {
			q := 100 * r.Float64()
			lx := math.Max(0, math.Min(100, q+5*r.NormFloat64()))
			dx := math.Max(0, math.Min(100, q+5*r.NormFloat64()))
			lv, dv := verdictOf(lx), verdictOf(dx)
			rs[i] = judged{id: fmt.Sprintf("s%d-%04d", s, i), system: []string{"a", "b", "c", "d"}[i%4],
				light: lv, deep: dv, lightRF: lx, lightTE: lx, deepScore: dx}
		}
		cs, st := compareJudged(rs)
		for _, rec := range advise(cs, st) {
			if rec.Test != nil {
				fires[rec.Rule]++
			}
		}
	}
	t.Logf("fired in %d datasets of the null: %v", sims, fires)
	// Binomial(300, 0.05) exceeds 24 (8%) with probability under 1%.
	for rule, k := range fires {
		if k > sims*8/100 {
			t.Errorf("%s fired in %d of %d null datasets", rule, k, sims)
		}
	}
}

// verdictOf is docs/DESIGN.md's verdict on a score without flags.
func verdictOf(x float64) string { return Cuts{inspection.FailBelow, inspection.PassAt}.Verdict(x) }
