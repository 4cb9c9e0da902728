package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/internal/judgeserver"
	"github.com/evalcal/evalcal/pairwise"
	"github.com/evalcal/evalcal/report"
)

// pairsFile writes the pairs of the first n runs of testdata/runs that
// evalcal takes as valid (every pair once, run_a the earlier id) and
// returns its path and the pairs' count.
func pairsFile(t *testing.T, n int) (string, int) {
	t.Helper()
	entries, err := os.ReadDir("testdata/runs")
	if err != nil {
		t.Fatal(err)
	}
	invalid := map[string]bool{"20260116-160716-34eb5c": true, "20260311-035610-88752e": true, "20260601-121549-570be1": true}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && !invalid[e.Name()] && len(ids) < n {
			ids = append(ids, e.Name())
		}
	}
	var b strings.Builder
	count := 0
	for i := range ids {
		for j := i + 1; j < len(ids); j++ {
			line, _ := json.Marshal(map[string]string{"run_a": ids[i], "run_b": ids[j]})
			b.Write(line)
			b.WriteByte('\n')
			count++
		}
	}
	path := filepath.Join(t.TempDir(), "pairs.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, count
}

// pairwiseRun runs evalcal run --pairwise through the binary against a
// judge server that prefers the first slot on a share of the requests,
// and returns the report and the server's request count.
func pairwiseRun(t *testing.T, share float64, pairs string, extra ...string) (*report.Report, int64) {
	t.Helper()
	return pairwiseRunOn(t, judgeServer(t, judgeserver.Options{FirstSlot: share}), pairs, extra...)
}

// pairwiseRunOn is pairwiseRun on a running server s; the count is of
// this run's requests.
func pairwiseRunOn(t *testing.T, s *judgeserver.Server, pairs string, extra ...string) (*report.Report, int64) {
	t.Helper()
	before := s.Requests()
	out := filepath.Join(t.TempDir(), "r.json")
	args := append([]string{"run", "--quiet", "--light", "openai:judge-mini", "--deep", "builtin", "--price", "judge-mini=0.15/0.6",
		"--pairwise", "--pairs", pairs, "--format", "json", "-o", out}, extra...)
	r := runBinary(t, binOptions{}, append(args, "testdata/runs")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	return readReport(t, out), s.Requests() - before
}

// winners maps "pair_id/order" to the winner named.
func winners(p *report.Position) map[string]string {
	m := map[string]string{}
	for _, v := range p.Verdicts {
		m[v.PairID+"/"+v.Order] = v.Winner
	}
	return m
}

// TestRunPairwiseBothOrdersThroughTheJudgeServer asks the bundled judge
// server about every pair of 14 runs in both orders, first unbiased, then
// told to answer the first slot always, then on 30% of the requests, and
// checks the position figures against what the planted bias implies.
func TestRunPairwiseBothOrdersThroughTheJudgeServer(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of 91 pairs in two orders through the binary")
	}
	t.Chdir(repoRoot(t))
	pairs, n := pairsFile(t, 14)
	const runs = 46 // the valid runs of testdata/runs: one light call each

	// Unbiased: the judge names the better run whatever the order, so
	// every pair is consistent, and each pair it decides is won once
	// from the first slot (ab or ba) and once from the second.
	fair, requests := pairwiseRun(t, 0, pairs, "--no-cache")
	p := fair.Position
	if p == nil || p.Pairs != n || p.Judge.BothOrders != n || len(p.Verdicts) != 2*n || len(p.Failures) != 0 {
		t.Fatalf("position %+v", p)
	}
	if requests != int64(runs+2*n) {
		t.Errorf("%d requests, want %d (a light call a run, two a pair)", requests, runs+2*n)
	}
	if c := p.Judge.Consistency; c.Count != n || c.N != n {
		t.Errorf("unbiased consistency %d/%d, want %d/%d", c.Count, c.N, n, n)
	}
	fs := p.Judge.FirstSlot
	if fs.N == 0 || 2*fs.Count != fs.N || fs.P != 1 {
		t.Errorf("unbiased first slot %d/%d p = %v, want half, p = 1", fs.Count, fs.N, fs.P)
	}
	merit := winners(p)
	ties := 0
	for _, v := range p.Verdicts {
		if v.Winner == pairwise.WinnerTie && v.Order == pairwise.OrderAB {
			ties++
		}
	}

	// Costs are counted per order: one call a pair in each, priced.
	if len(p.CostByOrder) != 2 || p.CostByOrder[0].Order != "ab" || p.CostByOrder[1].Order != "ba" {
		t.Fatalf("cost by order %+v", p.CostByOrder)
	}
	for _, c := range p.CostByOrder {
		if c.Calls != n || c.Inspections != n || c.USD == nil || *c.USD <= 0 || c.Usage.Input <= 0 {
			t.Errorf("order %s: %d calls, %d inspections, usage %+v, usd %v", c.Order, c.Calls, c.Inspections, c.Usage, c.USD)
			continue
		}
		// USD is the order's tokens at the price (no cached price given:
		// cached input at the input price).
		want := (float64(c.Usage.Input)*0.15 + float64(c.Usage.Output)*0.6) / 1e6
		if math.Abs(*c.USD-want) > 1e-9*want {
			t.Errorf("order %s: $%v, want $%v", c.Order, *c.USD, want)
		}
	}

	// Always the first slot: no pair is consistent, the first slot wins
	// every verdict.
	always, _ := pairwiseRun(t, 1, pairs, "--no-cache")
	if c := always.Position.Judge.Consistency; c.Count != 0 || c.N != n {
		t.Errorf("first-slot judge: consistency %d/%d, want 0/%d", c.Count, c.N, n)
	}
	if fs := always.Position.Judge.FirstSlot; fs.Count != 2*n || fs.N != 2*n {
		t.Errorf("first-slot judge: first slot %d/%d, want all %d", fs.Count, fs.N, 2*n)
	}
	if !slices.ContainsFunc(always.Summary.Why, func(w string) bool { return strings.Contains(w, "depends on the order the runs are shown in") }) {
		t.Errorf("summary does not say why: %q", always.Summary.Why)
	}

	// 30% of the requests: each verdict is either the unbiased one or the
	// run shown first; a decided pair is consistent with probability 0.7,
	// a tied one 0.49; the first slot wins 1.3 of a decided pair's 2
	// verdicts and every verdict of a tied pair that names a winner.
	const s = 0.3
	some, _ := pairwiseRun(t, s, pairs, "--no-cache")
	sp := some.Position
	for _, v := range sp.Verdicts {
		first := v.Winner == pairwise.WinnerA && v.Order == pairwise.OrderAB || v.Winner == pairwise.WinnerB && v.Order == pairwise.OrderBA
		if v.Winner != merit[v.PairID+"/"+v.Order] && !first {
			t.Errorf("pair %s order %s: winner %s is neither the unbiased %s nor the first slot", v.PairID, v.Order, v.Winner, merit[v.PairID+"/"+v.Order])
		}
	}
	decided := float64(n - ties)
	wantConsistent := decided*(1-s) + float64(ties)*(1-s)*(1-s)
	varConsistent := decided*s*(1-s) + float64(ties)*(1-s)*(1-s)*(1-(1-s)*(1-s))
	if got := float64(sp.Judge.Consistency.Count); math.Abs(got-wantConsistent) > 4*math.Sqrt(varConsistent) {
		t.Errorf("consistency %v of %d pairs, the planted bias implies %.1f ± %.1f", got, n, wantConsistent, 4*math.Sqrt(varConsistent))
	}
	wantFirst := decided*(1+s) + float64(ties)*2*s
	if got := float64(sp.Judge.FirstSlot.Count); math.Abs(got-wantFirst) > 4*math.Sqrt(2*float64(n)*s*(1-s)) {
		t.Errorf("first slot won %v times, the planted bias implies %.1f", got, wantFirst)
	}
}

// TestRunPairwiseCacheKeysHoldTheOrder: --orders 1 asks ab only; a rerun
// with both orders on the same cache asks only ba.
func TestRunPairwiseCacheKeysHoldTheOrder(t *testing.T) {
	t.Chdir(repoRoot(t))
	pairs, n := pairsFile(t, 5)
	cache := t.TempDir()
	s := judgeServer(t, judgeserver.Options{})
	one, requests := pairwiseRunOn(t, s, pairs, "--cache", cache, "--orders", "1")
	p := one.Position
	if p.Orders != 1 || len(p.CostByOrder) != 1 || p.CostByOrder[0].Calls != n || p.Judge.BothOrders != 0 || p.Judge.Consistency.CI95 != nil {
		t.Fatalf("--orders 1: %+v", p)
	}
	if requests != int64(46+n) {
		t.Errorf("--orders 1: %d requests, want %d", requests, 46+n)
	}
	two, requests := pairwiseRunOn(t, s, pairs, "--cache", cache)
	if requests != int64(n) {
		t.Errorf("rerun in both orders: %d requests, want %d (ba only)", requests, n)
	}
	if c := two.Position.CostByOrder; c[0].CacheHits != n || c[1].Calls != n {
		t.Errorf("cost by order %+v", c)
	}
}

// TestRunPerturbThroughAnExecJudge: an exec: judge that fails the runs
// whose id ends in 0-7 when told EVALCAL_PERTURB=order and ignores the
// rubric perturbation; its noise across --repeat 2 is a fail on repeat 1
// of the runs whose id ends in 0. The flipped runs, the rates and the
// excess are those counts, and only the order perturbation is
// significant and caps the trust verdict.
func TestRunPerturbThroughAnExecJudge(t *testing.T) {
	t.Chdir(repoRoot(t))
	rubric := filepath.Join(t.TempDir(), "rubric.tmpl")
	if err := os.WriteFile(rubric, []byte("another wording\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	r := runBinary(t, binOptions{}, "run", "--no-cache", "--quiet", "--repeat", "2", "--inspector", "exec:sh testdata/inspectors/perturbed.sh",
		"--perturb", "order", "--perturb", "rubric="+rubric, "--format", "json", "-o", out, "testdata/runs")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep := readReport(t, out)
	if len(rep.Perturbations) != 2 {
		t.Fatalf("perturbations %+v", rep.Perturbations)
	}
	var ids, sensitive []string
	noise := 0
	for _, c := range rep.Comparisons {
		ids = append(ids, c.RunID)
		if strings.ContainsRune("01234567", rune(c.RunID[len(c.RunID)-1])) {
			sensitive = append(sensitive, c.RunID)
		}
		if strings.HasSuffix(c.RunID, "0") {
			noise++
		}
	}
	n := len(ids)
	order, rub := rep.Perturbations[0], rep.Perturbations[1]
	if order.Kind != "order" || order.Result == nil || rub.Kind != "rubric" || rub.Result == nil {
		t.Fatalf("perturbations %+v %+v", order, rub)
	}
	// The rates are written at 6 significant digits.
	near := func(got float64, count int) bool { return math.Abs(got-float64(count)/float64(n)) <= 5e-7 }
	if o := order.Result; o.N != n || !slices.Equal(o.Flipped, sensitive) || !near(o.FlipRate, len(sensitive)) ||
		!near(o.NoiseRate, noise) || !near(o.Excess, len(sensitive)-noise) || !o.Significant {
		t.Errorf("order perturbation %+v; want %d runs, flipped %v, noise %d", o, n, sensitive, noise)
	}
	if o := rub.Result; len(o.Flipped) != 0 || o.Significant || o.Excess > 0 {
		t.Errorf("rubric perturbation %+v: the judge ignores it", o)
	}
	if order.Identity == rub.Identity || !strings.HasPrefix(order.Identity, "exec:") {
		t.Errorf("identities %q, %q", order.Identity, rub.Identity)
	}
	if !slices.ContainsFunc(rep.Summary.Why, func(w string) bool { return strings.Contains(w, "under the order perturbation") }) {
		t.Errorf("summary does not say why: %q", rep.Summary.Why)
	}
}

// TestRunPairwiseFlagErrors: the flags' misuses are usage errors.
func TestRunPairwiseFlagErrors(t *testing.T) {
	t.Chdir(repoRoot(t))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--pairwise"}, "--pairwise needs --pairs"},
		{[]string{"--pairs", "x.jsonl"}, "--pairs needs --pairwise"},
		{[]string{"--pairwise", "--pairs", "x.jsonl", "--orders", "3"}, "--orders must be 1 or 2"},
		{[]string{"--perturb", "order"}, "needs --repeat 2"},
		{[]string{"--perturb", "shuffle", "--repeat", "2"}, `"shuffle" is not order or rubric=FILE`},
		{[]string{"--pairwise", "--pairs", "x.jsonl", "--shard", "1/2"}, "unsharded"},
	} {
		stderr, code := runCLIPrinted(t, append(append([]string{"run", "--no-cache"}, c.args...), "testdata/runs")...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	// Pairwise needs an LLM light judge.
	pairs, _ := pairsFile(t, 3)
	stderr, code := runCLIPrinted(t, "run", "--no-cache", "--quiet", "--pairwise", "--pairs", pairs, "testdata/runs")
	if code != 2 || !strings.Contains(stderr, "needs an LLM light judge") {
		t.Errorf("builtin light: exit %d, %q", code, stderr)
	}
}

// TestRunPerturbAnLLMJudgeThroughTheJudgeServer: both perturbations of an
// LLM judge reach the bundled judge server as calls of their own (one a
// run each, besides the two repeats), under identities of their own; the
// server scores a run whatever the order of its files and ignores the
// system prompt, so nothing flips and the trust verdict is not capped.
func TestRunPerturbAnLLMJudgeThroughTheJudgeServer(t *testing.T) {
	t.Chdir(repoRoot(t))
	s := judgeServer(t, judgeserver.Options{})
	rubric := filepath.Join(t.TempDir(), "alt.tmpl")
	if err := os.WriteFile(rubric, []byte("You are the light inspector; answer with the inspection JSON.\nDepth: {{.Depth}}\n{{.Schema}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "r.json")
	r := runBinary(t, binOptions{}, "run", "--no-cache", "--quiet", "--repeat", "2", "--light", "openai:judge-mini", "--deep", "builtin",
		"--perturb", "order", "--perturb", "rubric="+rubric, "--format", "json", "-o", out, "testdata/runs")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep := readReport(t, out)
	const runs = 46
	if got := s.Requests(); got != 4*runs {
		t.Errorf("%d requests, want %d (two repeats and one call per perturbation a run)", got, 4*runs)
	}
	if len(rep.Perturbations) != 2 {
		t.Fatalf("perturbations %+v", rep.Perturbations)
	}
	light := rep.Inputs.Light.Identity
	for _, p := range rep.Perturbations {
		if p.Result == nil || p.Result.N != runs || p.Result.Excess != 0 || p.Result.Significant || len(p.Result.Flipped) != 0 || p.Cost.Calls != runs {
			t.Errorf("%s: %+v %+v", p.Kind, p.Result, p.Cost)
		}
		if p.Identity == light {
			t.Errorf("%s: the perturbed judge has the light identity", p.Kind)
		}
	}
	if got := rep.Perturbations[0].Identity; got != light+"/perturb=order@1" {
		t.Errorf("order identity %q", got)
	}
	if slices.ContainsFunc(rep.Summary.Why, func(w string) bool { return strings.Contains(w, "perturbation") }) {
		t.Errorf("why %q", rep.Summary.Why)
	}
}

// TestRunPairwiseKeepsTheBudget: --max-cost is one budget over the
// pointwise and the pairwise calls: the pairwise calls it stops are
// failures saying so, the run exits 4, and the spending it reports holds
// the pairwise calls'.
func TestRunPairwiseKeepsTheBudget(t *testing.T) {
	t.Chdir(repoRoot(t))
	pairs, n := pairsFile(t, 10)
	judgeServer(t, judgeserver.Options{})
	out := filepath.Join(t.TempDir(), "r.json")
	r := runBinary(t, binOptions{}, "run", "--no-cache", "--quiet", "--light", "openai:judge-mini", "--deep", "builtin", "--price", "judge-mini=0.15/0.6",
		"--max-cost", "0.045", "--pairwise", "--pairs", pairs, "--format", "json", "-o", out, "testdata/runs")
	if r.code != 4 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep := readReport(t, out)
	p := rep.Position
	if !rep.Cost.BudgetStopped || p == nil || len(p.Failures) == 0 || len(p.Verdicts)+len(p.Failures) != 2*n {
		t.Fatalf("budget stopped %v, position %+v", rep.Cost.BudgetStopped, p)
	}
	if !strings.Contains(p.Failures[0].Reason, "--max-cost") {
		t.Errorf("failure %+v", p.Failures[0])
	}
	pairwiseUSD := 0.0
	for _, c := range p.CostByOrder {
		pairwiseUSD += *c.USD
	}
	if pairwiseUSD <= 0 || rep.SpentUSD() > 0.045 {
		t.Errorf("pairwise $%v, spent $%v of $0.045", pairwiseUSD, rep.SpentUSD())
	}
	if want := "(spent $" + strconv.FormatFloat(rep.SpentUSD(), 'f', 4, 64) + ")"; !strings.Contains(r.stderr, want) {
		t.Errorf("stderr lacks %q: %s", want, r.stderr)
	}
}

// TestRunPerturbIsTheSameWhateverJobs: the perturbation section (its
// bootstrap interval included) is byte-identical at --jobs 1 and 4.
func TestRunPerturbIsTheSameWhateverJobs(t *testing.T) {
	t.Chdir(repoRoot(t))
	var reports [2][]byte
	for i, jobs := range []string{"1", "4"} {
		out := filepath.Join(t.TempDir(), "r.yaml")
		r := runBinary(t, binOptions{}, "run", "--no-cache", "--quiet", "--jobs", jobs, "--repeat", "2",
			"--inspector", "exec:sh testdata/inspectors/perturbed.sh", "--perturb", "order", "-o", out, "testdata/runs")
		if r.code != 0 {
			t.Fatalf("--jobs %s: exit %d: %s", jobs, r.code, r.stderr)
		}
		var err error
		if reports[i], err = os.ReadFile(out); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(reports[0], reports[1]) || !bytes.Contains(reports[0], []byte("perturbations:")) {
		t.Errorf("the reports at --jobs 1 and 4 differ or lack the section")
	}
}

// TestRunPerturbDetectsAnOrderSensitiveLLMJudge: the judge server told
// to turn over the verdict of 30% of the runs whose files it sees out of
// path order is caught by --perturb order: the excess flip rate is
// significant (no noise across repeats: the server is deterministic), the
// flips are a plausible 30% of the runs, and the trust verdict is capped.
func TestRunPerturbDetectsAnOrderSensitiveLLMJudge(t *testing.T) {
	t.Chdir(repoRoot(t))
	judgeServer(t, judgeserver.Options{OrderSensitive: 0.3})
	out := filepath.Join(t.TempDir(), "r.json")
	r := runBinary(t, binOptions{}, "run", "--no-cache", "--quiet", "--repeat", "2", "--light", "openai:judge-mini", "--deep", "builtin",
		"--perturb", "order", "--format", "json", "-o", out, "testdata/runs")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	rep := readReport(t, out)
	res := rep.Perturbations[0].Result
	if res == nil || res.NoiseRate != 0 || !res.Significant {
		t.Fatalf("result %+v", res)
	}
	// Binomial(46, 0.3): mean 13.8, sd 3.1; 4 sd either side.
	if n := len(res.Flipped); n < 2 || n > 26 {
		t.Errorf("%d of %d runs flipped, the planted 30%% implies 2..26", n, res.N)
	}
	if !slices.ContainsFunc(rep.Summary.Why, func(w string) bool { return strings.Contains(w, "under the order perturbation") }) {
		t.Errorf("why %q", rep.Summary.Why)
	}
}
