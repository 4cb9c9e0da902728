package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/programs/panel"
	"github.com/evalcal/evalcal/rank"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/render"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
	"github.com/evalcal/evalcal/statistician"
)

// rankOptions are evalcal rank's flags: run's (the deep side, the runs,
// sample, shard, cache, jobs, prices, budget, repeats, deep subset, LLM
// settings) except those that name one light side or judge one report,
// and the candidates.
type rankOptions struct {
	run    runOptions
	Lights []string // NAME=SPEC, as given
	cands  []rankCandidate
}

// rankCandidate is one --light NAME=SPEC.
type rankCandidate struct{ name, spec string }

// rankDropped are run's flags rank does not take: --light is rank's own
// (repeatable NAME=SPEC), and the others judge or shape one calibration
// report (gates, a baseline, the reliability bins, the pairwise and
// perturbation tests; a shard, which only
// merge could recombine) or make the deep subset
// depend on the light side (--deep-policy uncertain), which would give
// each candidate another deep subset.
var rankDropped = map[string]bool{"inspector": true, "inspections": true, "light": true, "require": true,
	"baseline": true, "bins": true, "by": true, "deep-policy": true, "shard": true,
	"target-agreement": true, "risk": true, "confidence": true, "escalate": true,
	"cluster": true, "family": true, "judge-family": true,
	"pairwise": true, "pairs": true, "orders": true, "perturb": true}

// rankFormats are the formats of a ranking document.
var rankFormats = []string{"yaml", "json", "markdown", "md", "html"}

// candidateName is the form of a candidate's NAME.
var candidateName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// newCmdRank builds `evalcal rank`. runF, when not nil, replaces the
// command's body.
func newCmdRank(f *factory, runF func(context.Context, *rankOptions) error) *cobra.Command {
	o := &rankOptions{}
	o.run.io = f.io
	c := &cobra.Command{
		Use:   "rank [flags] --deep SPEC --light NAME=SPEC --light NAME=SPEC... [PATH...]",
		Short: "rank candidate light judges against one deep judge on the same runs",
		Long: `Calibrate every candidate light judge against the same deep judge on the same runs
(the sample, shard, deep subset and cache of evalcal run), then rank them: agreement
with deep and its Wilson interval, linear kappa, leniency, cost per 1,000 runs, the
deep labels evalcal plan would ask for; every pair tested with McNemar's exact test
(Holm-adjusted); the tie groups; the Pareto front of agreement against cost; and which
candidate to use: the cheapest of those no test separates from the best.

Each candidate inspects each run once and deep inspects each run once, whatever the
number of candidates; inspections are cached under the keys evalcal run uses, so
ranking judges already calibrated calls nothing. A candidate may be a panel:
panel:SPEC,SPEC,SPEC[?agg=majority|median] (README "Choosing a judge").`,
		Example: `  evalcal rank --deep saved:labels.jsonl --light strict='exec:sh strict.sh {run} {depth}' --light lax='exec:sh lax.sh {run} {depth}' runs/
  evalcal rank --deep openai:gpt-5 --light mini=openai:gpt-5-mini --light jury='panel:openai:gpt-5-nano,anthropic:claude-haiku-4-5,openai:gpt-4.1-nano' -o rank.html runs/`,
		RunE: func(c *cobra.Command, args []string) error {
			o.run.args, o.run.Paths = f.args, args
			o.run.Output.formatGiven = c.Flags().Changed("format")
			o.run.retriesGiven = c.Flags().Changed("retries")
			o.run.LLM.seedGiven = c.Flags().Changed("judge-seed")
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return runRank(c.Context(), o)
		},
	}
	o.addFlags(c.Flags())
	return c
}

// addFlags defines rank's flags: run's, less rankDropped, and --light.
func (o *rankOptions) addFlags(fs *pflag.FlagSet) {
	runFlags := pflag.NewFlagSet("run", pflag.ContinueOnError)
	o.run.addFlags(runFlags)
	runFlags.VisitAll(func(fl *pflag.Flag) {
		if rankDropped[fl.Name] {
			return
		}
		switch fl.Name {
		case "deep":
			fl.Usage = "`SPEC` of the deep inspector every candidate is compared with (required); saved:FILE ranks against your labels"
		case "output":
			fl.Usage = strings.Replace(fl.Usage, "the report", "the ranking", 1)
		}
		fs.AddFlag(fl)
	})
	fs.StringArrayVar(&o.Lights, "light", nil, "candidate `NAME=SPEC` (repeatable, at least 2); SPEC: "+specKinds())
}

// validate checks the candidates, then run's checks on the shared flags.
func (o *rankOptions) validate() error {
	if o.run.Deep == "" {
		return usageErrorHint("Run 'evalcal rank --help' for usage.", "rank: --deep SPEC is required")
	}
	if len(o.Lights) < 2 {
		return usageErrorHint("Run 'evalcal rank --help' for usage.", "rank: give at least two --light NAME=SPEC candidates, got %d", len(o.Lights))
	}
	seen := map[string]bool{}
	allBring := true
	o.cands = nil
	for _, l := range o.Lights {
		name, spec, ok := strings.Cut(l, "=")
		switch {
		case !ok || !candidateName.MatchString(name):
			return usageErrorf("rank: --light must be NAME=SPEC with NAME of letters, digits, '.', '_' or '-' (at most 64), got %q", l)
		case seen[name]:
			return usageErrorf("rank: --light: the name %q is given twice", name)
		}
		if err := checkSpec("light", spec); err != nil {
			return err
		}
		seen[name] = true
		allBring = allBring && bringsRuns(spec)
		o.cands = append(o.cands, rankCandidate{name, spec})
	}
	// run's checks: the light side stands for the candidates (its
	// saved-or-not decides whether run PATHs are needed).
	o.run.Light = "builtin"
	if allBring {
		o.run.Light = o.cands[0].spec
	}
	return o.run.validate()
}

// runRank is evalcal rank's body: one calibration per candidate (a panel's
// members first), deep shared through one memo, then the ranking.
func runRank(ctx context.Context, o *rankOptions) error {
	defer tuneGC(os.Getenv, rootFS())()
	stderr := o.run.io.ErrOut
	var cache *runner.Cache
	if !o.run.NoCache {
		cache = openCache(o.run.CacheDir, stderr)
	}
	r := &ranker{o: o, cache: cache, memos: map[string]*memoInspector{}, warned: map[string]bool{}}
	defer r.close()
	r.memberSpecs = map[string]bool{}
	for _, c := range o.cands {
		if rest, ok := strings.CutPrefix(c.spec, "panel:"); ok {
			specs, _, _ := panel.ParseSpec(rest) // checked by validate
			for _, m := range specs {
				r.memberSpecs[m] = true
			}
		}
	}
	var inputs []rank.Input
	for _, c := range o.cands {
		in, err := r.candidate(ctx, c)
		if err != nil {
			return err
		}
		inputs = append(inputs, in)
	}
	doc, err := rank.Rank(inputs)
	if err != nil {
		return err
	}
	doc.GeneratedBy = "evalcal " + version
	doc.Inputs = rank.Inputs{Deep: rank.Side{Spec: o.run.Deep, Identity: r.deepIdentity}, Paths: nonNilStrings(o.run.Paths),
		CommandLine: append([]string{"evalcal", "rank"}, dropFlags(o.run.args, volatileRunFlags...)...)}
	doc.Warnings = append(doc.Warnings, r.warnings...)
	fmt.Fprintf(stderr, "evalcal: %d inspector calls, %d from cache, %d failures\n", r.calls, r.hits, r.failures)
	summarise(stderr, len(doc.Warnings), "warning", "warnings", doc.Warnings)
	if err := o.run.Output.stream(o.run.io.Out, rankEncoder(o.run.Output.Format, &doc)); err != nil {
		return err
	}
	if o.run.Output.toFile() {
		fmt.Fprintf(stderr, "evalcal: ranking written to %s\n", o.run.Output.Path)
	}
	fmt.Fprintf(stderr, "evalcal: %s\n", doc.Summary.Sentence)
	if r.budgetStopped {
		return budgetError(fmt.Errorf("rank: the --max-cost budget stopped calls; the ranking covers what was inspected"))
	}
	return nil
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// rankEncoder writes the ranking document in format.
func rankEncoder(format string, doc *rank.Document) func(w io.Writer) error {
	return func(w io.Writer) error {
		var data []byte
		var err error
		switch format {
		case "markdown", "md":
			data, err = render.RankMarkdown(doc)
		case "html":
			data, err = render.RankHTML(doc)
		case "json":
			data, err = reportenc.EncodeJSON(doc)
		default:
			data, err = reportenc.EncodeYAML(doc)
		}
		if err != nil {
			return fmt.Errorf("rank: %w", err)
		}
		_, err = w.Write(data)
		return err
	}
}

// ranker holds what the candidates' calibrations share: the deep memo,
// the members' memos, the cache, the budget spent, the counts.
type ranker struct {
	o             *rankOptions
	cache         *runner.Cache
	deep          *memoInspector
	deepIdentity  string
	memos         map[string]*memoInspector // panel members by spec
	memberSpecs   map[string]bool           // the specs of every panel's members
	closers       []func()
	spent         float64
	budgetStopped bool
	calls, hits   int
	failures      int
	warnings      []string
	warned        map[string]bool
}

func (r *ranker) close() {
	for _, c := range r.closers {
		c()
	}
}

// candidate calibrates one candidate (a panel: each member, then the
// panel over the members' memos) and returns its ranking input.
func (r *ranker) candidate(ctx context.Context, c rankCandidate) (rank.Input, error) {
	ro := r.o.run
	ro.Light = c.spec
	first := r.deep == nil
	if !first {
		// Deep is the first candidate's, behind its memo: a placeholder
		// that costs nothing to open stands in (a saved deep file is not
		// read again for every candidate).
		ro.Deep = "builtin"
	}
	s, err := openSides(ctx, &ro)
	ro.Deep = r.o.run.Deep
	if err != nil {
		return rank.Input{}, err
	}
	if first {
		r.deep = newMemo(s.deep, r.cache)
		r.deepIdentity = s.deep.Identity()
	}
	p, isPanel := s.light.(*panel.Inspector)
	if first || isPanel || r.memberSpecs[c.spec] {
		// Memos hold these inspectors until the end.
		r.closers = append(r.closers, s.Close)
	} else {
		// Released as soon as the candidate is ranked: memory holds one
		// candidate's source at a time.
		defer s.Close()
	}
	if !isPanel {
		light := s.light
		if r.memberSpecs[c.spec] {
			// Also a panel's member: one memo serves both, so the
			// member is not inspected again (even with --no-cache).
			memo := newMemo(light, r.cache)
			r.memos[c.spec] = memo
			light = memo.sideOf()
		}
		rep, err := r.calibrate(ctx, &ro, s, light, c.name, c.spec)
		if err != nil {
			return rank.Input{}, err
		}
		return r.inputOf(c.name, c.spec, rep), nil
	}
	return r.panelCandidate(ctx, &ro, s, p, c)
}

// panelCandidate calibrates each member of panel p against deep (through
// its memo), then the panel over the members' memos, and returns the
// panel's ranking input with its panel section.
func (r *ranker) panelCandidate(ctx context.Context, ro *runOptions, s sides, p *panel.Inspector, c rankCandidate) (rank.Input, error) {
	specs, _, _ := panel.ParseSpec(strings.TrimPrefix(c.spec, "panel:")) // checked by validate
	var members []inspection.Inspector
	var memberInputs []rank.Input
	for i, m := range p.Members() {
		memo, ok := r.memos[specs[i]]
		if !ok {
			memo = newMemo(m, r.cache)
			r.memos[specs[i]] = memo
		}
		members = append(members, memo.sideOf())
		rep, err := r.calibrate(ctx, ro, s, memo.sideOf(), c.name+" member "+specs[i], specs[i])
		memo.sealed.Store(true)
		var stop *runner.StopError
		switch {
		case errors.As(err, &stop):
			// A member that fails every call abstains on every run.
			r.warnings = append(r.warnings, fmt.Sprintf("%s: member %s abstains on every run: %v", c.name, specs[i], err))
			memberInputs = append(memberInputs, rank.Input{Name: specs[i], Spec: specs[i], Identity: m.Identity()})
			continue
		case err != nil:
			return rank.Input{}, err
		}
		memberInputs = append(memberInputs, r.inputOf(specs[i], specs[i], rep))
	}
	memoPanel, err := panel.New(p.Aggregation(), members)
	if err != nil {
		return rank.Input{}, err
	}
	rep, err := r.calibrate(ctx, ro, s, memoPanel, c.name, c.spec)
	if err != nil {
		return rank.Input{}, err
	}
	in := r.inputOf(c.name, c.spec, rep)
	// The panel section covers the runs the panel was compared on (a
	// verdict and deep's): a member with no verdict there abstained.
	var runs []string
	for _, cmp := range rep.Comparisons {
		runs = append(runs, cmp.RunID)
	}
	sec := rank.PanelOf(p.Aggregation(), memberInputs, runs)
	in.Panel = &sec
	// The panel's cost is its members'.
	in.USDPer1k, in.SecondsPer1k = sec.Cost.USDPer1k, sec.Cost.SecondsPer1k
	return in, nil
}

// calibrate runs one calibration of light against the shared deep, as
// evalcal run does, with what is left of the --max-cost budget.
func (r *ranker) calibrate(ctx context.Context, ro *runOptions, s sides, light inspection.Inspector, name, spec string) (*report.Report, error) {
	s.light, s.deep = light, r.deep.sideOf()
	opts, err := ro.runnerOptions(s)
	if err != nil {
		return nil, err
	}
	if ro.MaxCost > 0 {
		opts.MaxUSD = ro.MaxCost - r.spent
		if opts.MaxUSD <= 0 {
			r.budgetStopped = true
			opts.MaxUSD = 1e-300 // no call can start
		}
	}
	opts.Cache = r.cache
	cfg := calibrate.Config{
		Paths: ro.Paths, Runs: s.runs, Light: light, Deep: s.deep, LightSpec: spec, DeepSpec: ro.Deep,
		Sample:     sampler.SelectOptions{N: ro.Sample, Seed: ro.Seed, AllowHomogeneous: ro.AllowHomogeneous || s.imported},
		ShardIndex: ro.shardIndex, ShardCount: ro.shardCount, ShardSource: ro.shardSource,
		Subset: calibrate.Subset{N: ro.DeepSample, Fraction: ro.DeepFraction, Policy: calibrate.PolicyUniform,
			Seed: uint64(ro.Seed), Chosen: ro.DeepSubset},
		Runner: opts, Bins: 10, GeneratedBy: "evalcal " + version,
	}
	if r.cache != nil {
		cfg.DescribeCache = filepath.Join(r.cache.Dir(), "describe")
	}
	if !ro.Quiet {
		fmt.Fprintf(ro.io.ErrOut, "evalcal: candidate %s\n", name)
	}
	rep, err := calibrate.Run(ctx, cfg)
	var sampleErr *calibrate.SampleError
	var stop *runner.StopError
	switch {
	case errors.As(err, &sampleErr):
		return nil, inputError(sampleErr.Err)
	case errors.As(err, &stop):
		r.calls += r.deep.takeCalls()
		return nil, inputError(fmt.Errorf("rank: %s: stopped: %w", name, err))
	case err != nil:
		return nil, inputError(fmt.Errorf("rank: %s: %w", name, err))
	}
	// Calls through a memo (deep, panel members) are counted by it; a
	// plain candidate's by the caller. The runner prices what a memo
	// served again as if it were called: only the real calls' share of a
	// side's USD was spent.
	r.hits += rep.Cost.Light.CacheHits + rep.Cost.Deep.CacheHits
	r.failures += len(rep.Failures)
	deepCalls := r.deep.takeCalls()
	lightCalls := rep.Cost.Light.Calls
	memoCalls := 0
	for _, m := range r.memos {
		memoCalls += m.takeCalls()
	}
	if _, isPanel := light.(*panel.Inspector); isPanel || isMemo(light) {
		lightCalls = memoCalls
	} else {
		r.calls += lightCalls // not a memo: the runner's count is the calls
	}
	r.spent += spentShare(rep.Cost.Light.USD, lightCalls, rep.Cost.Light.Calls) + spentShare(rep.Cost.Deep.USD, deepCalls, rep.Cost.Deep.Calls)
	r.calls += deepCalls + memoCalls
	r.budgetStopped = r.budgetStopped || rep.Cost.BudgetStopped
	if n := len(rep.Failures); n > 0 {
		r.warnings = append(r.warnings, fmt.Sprintf("%s: %d inspections failed (the candidate is ranked on the runs it inspected)", name, n))
	}
	// The sample's warnings are the same for every candidate: each once.
	for _, w := range rep.Warnings {
		if !r.warned[w] {
			r.warned[w] = true
			r.warnings = append(r.warnings, w)
		}
	}
	return rep, nil
}

// isMemo reports whether in is a memo (billed or not).
func isMemo(in inspection.Inspector) bool {
	switch in.(type) {
	case *memoInspector, billedMemo:
		return true
	}
	return false
}

// spentShare is the share of usd that real calls spent: usd times real
// over the calls the runner counted.
func spentShare(usd *float64, real, counted int) float64 {
	if usd == nil || counted == 0 {
		return 0
	}
	return *usd * float64(min(real, counted)) / float64(counted)
}

// inputOf turns a candidate's calibration report into its ranking input:
// the verdicts of every run with both depths, the cost of 1,000 runs and
// evalcal plan's deep labels for ±0.05.
func (r *ranker) inputOf(name, spec string, rep *report.Report) rank.Input {
	in := rank.Input{Name: name, Spec: spec, Identity: rep.Inputs.Light.Identity}
	for _, c := range rep.Comparisons {
		in.Outcomes = append(in.Outcomes, rank.Outcome{RunID: c.RunID, Light: verdictLevel(c.LightVerdict), Deep: verdictLevel(c.DeepVerdict)})
	}
	in.USDPer1k, in.SecondsPer1k = r.costPer1k(rep)
	if plan, err := calibrate.Plan(rep, calibrate.PlanOptions{HalfWidth: 0.05, AgreementTarget: 80}, ""); err == nil {
		for _, row := range plan.DeepLabels {
			if row.Method == statistician.MethodPPI {
				in.DeepLabels, in.DeepLabelsNote = row.N, row.Reason
			}
		}
	}
	return in
}

// verdictLevel maps a verdict to rank's levels.
func verdictLevel(v string) int8 {
	switch v {
	case inspection.VerdictPass:
		return rank.Pass
	case inspection.VerdictPartial:
		return rank.Partial
	}
	return rank.Fail
}

// costPer1k is the cost of 1,000 runs at light depth from a candidate's
// report: USD and seconds over the inspections had. Inspections served by
// the cache cost nothing now but did when they were made: their recorded
// cost (cost.usd, cost.seconds) is read back from the cache, so a ranking
// from a warm cache shows the judges' real cost. USD is null when the
// candidate is billed and has no price; seconds are null when the
// inspector reports no time (builtin).
func (r *ranker) costPer1k(rep *report.Report) (usd, sec *float64) {
	c := rep.Cost.Light
	if c.Inspections == 0 {
		return nil, nil
	}
	u, s := 0.0, c.Seconds
	if c.USD != nil {
		u = *c.USD
	}
	if c.CacheHits > 0 && r.cache != nil {
		hashes := map[string]string{}
		for _, sr := range rep.Sample.Runs {
			hashes[sr.ID] = sr.ContentHash
		}
		// The runs calls were made for are counted in c already: only
		// the cached ones are read back, and a call's inspection was
		// put in the cache too, so all are read and c's sums replaced.
		u, s = 0, 0
		for _, cmp := range rep.Comparisons {
			if insp, ok := r.cache.Get(c.Identity, inspection.Light, hashes[cmp.RunID]); ok {
				u += insp.Cost.USD
				s += insp.Cost.Seconds
			}
		}
		for _, lo := range rep.LightOnly {
			if insp, ok := r.cache.Get(c.Identity, inspection.Light, hashes[lo.RunID]); ok {
				u += insp.Cost.USD
				s += insp.Cost.Seconds
			}
		}
	}
	n := float64(c.Inspections)
	if c.USD != nil {
		v := 1000 * u / n
		usd = &v
	}
	if s > 0 {
		v := 1000 * s / n
		sec = &v
	}
	return usd, sec
}
