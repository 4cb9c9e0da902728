// Package calibrate is evalcal's pipeline: completed runs and two
// inspectors in, a calibration report out. Its body reads as the stages of
// docs/DESIGN.md: the sampler picks runs, the runner inspects them at light and
// deep depth, the comparator compares each run's pair, the statistician
// aggregates, the advisor recommends. cmd/evalcal parses flags and calls
// Run; a Go program can embed evalcal the same way.
package calibrate

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
)

// Config is one calibration.
type Config struct {
	// Paths are run directories or folders holding them. When empty, Runs
	// is used as given (runs known from saved inspections).
	Paths []string
	Runs  []inspection.Run
	// Light and Deep are the two inspectors; Spec says how the user named
	// each ("builtin", "openai:gpt-5-mini", "saved:human.jsonl"), for the
	// report.
	Light, Deep         inspection.Inspector
	LightSpec, DeepSpec string
	// Sample picks the calibration sample among the valid runs.
	Sample sampler.SelectOptions
	// ShardIndex (1-based) and ShardCount select shard i of n of the
	// sample; ShardCount <= 1 means the whole sample.
	ShardIndex, ShardCount int
	// ShardSource says where the shard came from ("flag", "EVALCAL_SHARD",
	// "GitLab CI_NODE_INDEX/CI_NODE_TOTAL", ...); it is recorded with the
	// shard (ShardCount > 1) as inputs.shard_source, and changes nothing
	// else.
	ShardSource string
	// ShardOwnRuns says that Runs are the shard's own runs only (a source
	// opened with spec.Env.MemberOnly), not the whole job's: the sample is
	// drawn as a part (sampler.SelectOptions.Part), and the report says so
	// (inputs.shard_scope "own"), so that merge recomputes the content
	// hash and the composition over the union. It needs a job that samples
	// every valid run (Sample.N = 0) and draws no deep subset.
	ShardOwnRuns bool
	// Subset runs deep on a subset of the sampled runs.
	Subset Subset
	// Runner configures the inspections (jobs, retries, cache, rates,
	// prices, budget, repeats). DeepRuns and SelectDeep are set by Run.
	Runner runner.Options
	// Bins is the number of bins of the light-score reliability table.
	Bins int
	// By are the fields the slices section slices runs by (run --by); nil
	// slices by system (DefaultBy).
	By []string
	// GeneratedBy names the program and version ("evalcal 0.2.0").
	GeneratedBy string
	// CommandLine is the command's arguments without those that cannot
	// change the result, for the report's inputs.
	CommandLine []string
	// DescribeCache is the directory where run descriptions and content
	// hashes are kept between runs (sampler.DiscoverOptions.HashCache);
	// "" keeps none.
	DescribeCache string
	// Judges, when not nil, adds to the report's inputs what each side's
	// judge identity is a hash of (an LLM judge's provider, base URL,
	// model, parameters and prompt hash), before Finish compares them with
	// a baseline's; cmd/evalcal sets it.
	Judges func(light, deep *report.Side)
	// LastUse says Run is the inspectors' last use (evalcal run): a source
	// that holds its inspections in memory (saved inspections: a
	// million runs hold some 1.2 GB) is told to let them go once the
	// runner is done with them (Releaser). Leave it false when the
	// inspectors serve again (rank calibrates every candidate against one
	// deep inspector).
	LastUse bool
	// Finish completes the report: the trend against a baseline and the
	// CI gates.
	Finish Finish
	// Cluster is the field the runs are clustered by (run --cluster; ""
	// clusters the agreement by system and leaves the trust verdict and
	// the estimates unclustered). Families maps a system to its model
	// family (--family), JudgeFamily names the light judge's (--judge-family);
	// both feed the bias section.
	Cluster     string
	Families    map[string]string
	JudgeFamily string
	// Escalation asks for the trust-or-escalate section: a threshold
	// calibrated on the runs with both depths, or, in cascade mode, a saved
	// policy applied (deep only on the runs below its threshold; Subset
	// must then be empty).
	Escalation *report.EscalationInputs
	// Pairwise, when set, asks the light judge about pairs of runs
	// (run --pairwise): the report's position section (position.go).
	Pairwise *Pairwise
	// Perturb lists perturbation tests of the light judge (run --perturb,
	// perturbation.go).
	Perturb []Perturbation
	// Notify, when not nil, receives notices that are not part of the
	// report (how many runs were described again, cache problems).
	Notify func(string)
}

// Releaser is a source of inspections held in memory that can let them
// go (saved.Inspector): Run calls Release after the runner when
// Config.LastUse says nothing will ask for them again.
type Releaser interface {
	Release()
}

// SampleError is returned when no calibration sample could be drawn; it
// carries the runs set aside, so a command can list them.
type SampleError struct {
	Invalid []inspection.Run
	Err     error
}

func (e *SampleError) Error() string { return e.Err.Error() }
func (e *SampleError) Unwrap() error { return e.Err }

// Run calibrates cfg.Light against cfg.Deep: discovery and selection,
// inspection, comparison, statistics, recommendations, then cfg.Finish
// (trend, gates) and the summary. It returns the
// report, also when inspections failed (the report says which) or the
// budget stopped the calls (Report.Cost.BudgetStopped). The error is
// ctx.Err() when interrupted (the report then holds what finished), a
// *runner.StopError when a side was misconfigured (with the report of what
// finished when some runs got both inspections, else none), a
// *SampleError when no sample could be drawn, or a discovery error.
func Run(ctx context.Context, cfg Config) (*report.Report, error) {
	if cfg.Light == nil || cfg.Deep == nil {
		return nil, errors.New("calibrate: a light and a deep inspector are needed")
	}
	if err := cfg.Subset.check(); err != nil {
		return nil, err
	}
	if err := checkClusterField(cfg.Cluster); err != nil {
		return nil, err
	}
	cfg.Subset.Cluster = cfg.Cluster

	// 1. sampler: discover, validate, describe; pick a diverse sample.
	runs, err := cfg.discover(ctx)
	if err != nil {
		return nil, err
	}
	cfg.Runs = nil // runs has them (and lets them go below)
	// A saved or imported side of another corpus fails here, before any
	// call is paid for (issue 28, item 6).
	if err := checkMatch(runs, [2]inspection.Inspector{cfg.Light, cfg.Deep}, [2]string{cfg.LightSpec, cfg.DeepSpec}); err != nil {
		return nil, err
	}
	runs, uncovered := coveredByLight(runs, cfg.Light)
	if runs, err = cfg.ownRuns(runs); err != nil {
		return nil, err
	}
	sample, err := sampler.Select(runs, cfg.Sample)
	if err != nil {
		return nil, &SampleError{Invalid: sample.Invalid, Err: err}
	}

	// 2. runner: light then deep on every run of this shard; deep on the
	// subset when one is asked for.
	design := cfg.Subset.design(sample.Runs, cfg.Deep)
	design.by = cfg.By // the stratified policy's strata
	opts := cfg.Runner
	opts.DeepRuns, opts.SelectDeep = design.deepRuns, design.selectDeep(len(sample.Runs))
	if e := cfg.Escalation; e != nil && e.Mode == report.EscalationCascade {
		opts.SelectDeep = selectEscalated(e)
	}
	shard := shardRuns(sample.Runs, cfg.ShardIndex, cfg.ShardCount)
	listing, hash := sampleListing(shard), sampleHash(sample.Runs)
	source := cfg.compact(shard, listing)
	if _, ok := source.(compactRuns); ok {
		runs, sample.Runs, shard = nil, nil, nil // the listing holds them now
	}
	// 3. comparator: one comparison per run with both depths.
	res, data, runErr := cfg.inspect(ctx, source, opts, &design)
	var stop *runner.StopError
	if errors.As(runErr, &stop) && res.Paired == 0 {
		return nil, runErr
	}
	paired := res.Paired

	// 4 and 5. statistician and advisor, on a report that says what it was
	// computed from.
	rep := newReport(cfg, sample, listing, hash, design)
	if u, ok := inspection.As[inspection.Unattributed](cfg.Deep); ok {
		rep.Sample.Rejected = u.Unattributed()
	} else if u, ok := inspection.As[inspection.Unattributed](cfg.Light); ok {
		rep.Sample.Rejected = u.Unattributed()
	}
	Fill(rep, data)
	if stop != nil {
		// Stopped after some good calls (a key revoked mid-run): the
		// report of what finished is written, as after a budget stop.
		rep.Partial = true
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("the run stopped (%v) after %d runs got both inspections; %d runs were not inspected and the statistics cover the finished ones only",
			stop, paired, res.Interrupted))
	}
	rep.Warnings = append(rep.Warnings, res.Warnings...)
	if uncovered > 0 {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("%d runs have no light inspection in the light source (%s) and were left out",
			uncovered, cfg.LightSpec))
	}
	if cfg.Judges != nil {
		cfg.Judges(&rep.Inputs.Light, &rep.Inputs.Deep)
	}
	if err := sideTests(ctx, cfg, runs, res, rep); err != nil {
		return rep, err
	}
	cfg.Finish.apply(rep)
	return rep, runErr
}

// inspect runs the runner on the shard's runs and compares each pair as
// the runner finishes it (only the perturbation tests read the pairs
// again), then lets go of the sides' inspections (release).
func (cfg Config) inspect(ctx context.Context, shard runner.Runs, opts runner.Options, design *design) (runner.Result, Data, error) {
	col := pairs{comparisons: make([]comparator.Comparison, 0, shard.Len()), keepIDs: design.policy != PolicyAll}
	if len(cfg.Perturb) == 0 {
		opts.OnPair = col.add
	}
	res, err := runner.RunSource(ctx, shard, runner.Sides{Light: cfg.Light, Deep: cfg.Deep}, opts)
	cfg.release()
	for _, p := range res.Pairs {
		col.add(p)
	}
	comparator.SortByRunID(col.comparisons)
	return res, Data{
		Comparisons: col.comparisons,
		Failures:    res.Failures,
		LightOnly:   lightOnly(res.LightOnly),
		Repeats:     repeats(col.repeats, res.LightOnly),
		Cost:        costOf(res, opts),
		Inclusion:   design.inclusion(col.ids, res.LightOnly),
	}, err
}

// ownRuns returns the runs a shard that reads its own runs only
// (ShardOwnRuns) samples, as a part (cfg.Sample.Part): its own, whether
// the source left the others out or not; runs as they are otherwise.
func (cfg *Config) ownRuns(runs []inspection.Run) ([]inspection.Run, error) {
	if !cfg.ShardOwnRuns {
		return runs, nil
	}
	if cfg.ShardCount <= 1 || cfg.Sample.N != 0 || cfg.Subset.N != 0 || cfg.Subset.Fraction != 0 || cfg.Escalation != nil {
		return nil, errors.New("calibrate: ShardOwnRuns needs a shard of a job that samples every valid run and draws no deep subset")
	}
	cfg.Sample.Part = true
	return shardRuns(runs, cfg.ShardIndex, cfg.ShardCount), nil
}

// release tells the sides that hold their inspections in memory
// (Releaser) to let them go, when Run is their last use and no side test
// asks the light side again.
func (cfg Config) release() {
	if !cfg.LastUse || len(cfg.Perturb) > 0 || cfg.Pairwise != nil {
		return
	}
	for _, in := range []inspection.Inspector{cfg.Light, cfg.Deep} {
		if r, ok := inspection.As[Releaser](in); ok {
			r.Release()
		}
	}
}

// discover returns cfg.Runs, or the runs found under cfg.Paths (with a
// note of how many were described and every discovery warning).
func (cfg Config) discover(ctx context.Context) ([]inspection.Run, error) {
	runs := cfg.Runs
	if len(cfg.Paths) > 0 {
		d, err := sampler.DiscoverContext(ctx, cfg.Paths, sampler.DiscoverOptions{HashCache: cfg.DescribeCache})
		if err != nil {
			return nil, err
		}
		runs = d.Runs
		cfg.notify(fmt.Sprintf("%d runs found: %d described, %d unchanged since the last run", len(runs), d.Described, d.Cached))
		for _, w := range d.Warnings {
			cfg.notify(w)
		}
	}
	return runs, ctx.Err()
}

// coveredByLight keeps the runs a light source that covers some runs only
// (imported results, a saved file) has a say on, and counts the others:
// they are left out, not failed (the deep side's coverage is the deep
// subset instead).
func coveredByLight(runs []inspection.Run, light inspection.Inspector) ([]inspection.Run, int) {
	cov, ok := inspection.As[inspection.Coverage](light)
	if !ok {
		return runs, 0
	}
	// The runs are copied from the first one left out only: when every
	// run is covered (a million runs are 320 MB), none is.
	var kept []inspection.Run
	uncovered := 0
	for i, r := range runs {
		switch {
		case !cov.Covers(r.ID, inspection.Light):
			if uncovered == 0 {
				kept = append(make([]inspection.Run, 0, len(runs)-1), runs[:i]...)
			}
			uncovered++
		case uncovered > 0:
			kept = append(kept, r)
		}
	}
	if uncovered == 0 {
		return runs, 0
	}
	return kept, uncovered
}

func (cfg Config) notify(msg string) {
	if cfg.Notify != nil {
		cfg.Notify(msg)
	}
}

// newReport starts a report: what it was computed from, the sample's
// composition and its runs: the whole sample, or in a shard's report the
// shard's own runs (mine; issue 26: 64 shards of a million runs would
// otherwise list 64 million), as sampleListing lists them.
// inputs.content_hash (contentHash: sampleHash of the whole sample)
// covers the whole sample in every shard, and merge checks the union of
// the shards' runs against it.
func newReport(cfg Config, sample sampler.Sample, mine []report.SampleRun, contentHash string, d design) *report.Report {
	rep := &report.Report{
		SchemaVersion: report.SchemaVersion,
		GeneratedBy:   cfg.GeneratedBy,
		Inputs: report.Inputs{
			Paths:       nonNil(cfg.Paths),
			Inspector:   identityOf(cfg),
			Light:       report.Side{Spec: cfg.LightSpec, Identity: cfg.Light.Identity()},
			Deep:        report.Side{Spec: cfg.DeepSpec, Identity: cfg.Deep.Identity()},
			Seed:        uint64(cfg.Sample.Seed),
			SampleLimit: cfg.Sample.N,
			Bins:        cfg.Bins,
			Repeat:      max(cfg.Runner.Repeat, 1),
			By:          cfg.By,
			DeepSubset:  d.inputs(),
			ContentHash: contentHash,
			CommandLine: nonNil(cfg.CommandLine),
			Escalation:  cfg.Escalation,
			Cluster:     cfg.Cluster,
			Families:    cfg.Families,
			JudgeFamily: cfg.JudgeFamily,
		},
	}
	if cfg.ShardCount > 1 {
		rep.Inputs.Shard = fmt.Sprintf("%d/%d", cfg.ShardIndex, cfg.ShardCount)
		rep.Inputs.ShardSource = cfg.ShardSource
		if cfg.ShardOwnRuns {
			rep.Inputs.ShardScope = report.ShardScopeOwn
		}
	}
	rep.Sample = report.Sample{Composition: sample.Composition, Runs: mine, Invalid: []report.Invalid{}}
	for _, r := range sample.Invalid {
		rep.Sample.Invalid = append(rep.Sample.Invalid, report.Invalid{ID: r.ID, Path: filepath.ToSlash(r.Path), Reason: r.Invalid})
	}
	return rep
}

// identityOf is the report's single inspector identity: the one identity
// when both sides are the same inspector (the report before --light and
// --deep existed), else "LIGHT | DEEP".
func identityOf(cfg Config) string {
	l, d := cfg.Light.Identity(), cfg.Deep.Identity()
	if l == d {
		return l
	}
	return l + " | " + d
}

// lightOnly lists the runs inspected at light depth only.
func lightOnly(rs []runner.LightRun) []report.LightOnlyRun {
	if len(rs) == 0 {
		return nil
	}
	out := make([]report.LightOnlyRun, 0, len(rs))
	for _, r := range rs {
		out = append(out, report.LightOnlyRun{RunID: r.Run.ID, System: r.Light.System, LightVerdict: r.Light.Verdict,
			Light:    comparator.Scores{RuntimeFidelity: r.Light.RuntimeFidelity, TaskEffectiveness: r.Light.TaskEffectiveness},
			Metadata: r.Run.Metadata})
	}
	return out
}

// pairs collects what the calibration keeps of the runner's pairs (from
// runner.Options.OnPair, one at a time): each pair's comparison, its
// repeats, and with a deep subset its run id (design.inclusion).
type pairs struct {
	compare     comparator.Comparer
	comparisons []comparator.Comparison
	repeats     []report.RunRepeats
	keepIDs     bool
	ids         []string
}

func (c *pairs) add(p runner.Pair) {
	c.comparisons = append(c.comparisons, c.compare.Compare(p))
	if len(p.LightRepeats) > 0 || len(p.DeepRepeats) > 0 {
		c.repeats = append(c.repeats, report.RunRepeats{RunID: p.Run.ID, Light: repeatList(p.LightRepeats), Deep: repeatList(p.DeepRepeats)})
	}
	if c.keepIDs {
		c.ids = append(c.ids, p.Run.ID)
	}
}

// repeats lists each run's repeated verdicts and scores per side (only
// with --repeat K > 1): the pairs' and the light-only runs', sorted by
// run id.
func repeats(paired []report.RunRepeats, lightOnly []runner.LightRun) []report.RunRepeats {
	out := paired
	for _, l := range lightOnly {
		if len(l.LightRepeats) > 0 {
			out = append(out, report.RunRepeats{RunID: l.Run.ID, Light: repeatList(l.LightRepeats), Deep: repeatList(nil)})
		}
	}
	slices.SortFunc(out, func(a, b report.RunRepeats) int { return cmp.Compare(a.RunID, b.RunID) })
	return out
}

func repeatList(is []inspection.Inspection) []report.Repeat {
	out := make([]report.Repeat, 0, len(is))
	for _, in := range is {
		out = append(out, report.Repeat{Verdict: in.Verdict,
			Scores: comparator.Scores{RuntimeFidelity: in.RuntimeFidelity, TaskEffectiveness: in.TaskEffectiveness}})
	}
	return out
}

// costOf is the report's cost section from the runner's per-side costs.
func costOf(res runner.Result, opts runner.Options) report.Cost {
	c := report.Cost{Light: report.SideCost{SideCost: res.Cost.Light, Price: opts.Light.Price},
		Deep: report.SideCost{SideCost: res.Cost.Deep, Price: opts.Deep.Price}, BudgetStopped: res.BudgetStopped}
	if opts.MaxUSD > 0 {
		b := opts.MaxUSD
		c.BudgetUSD = &b
	}
	return c
}

// shardRuns keeps the runs of shard i of n (ShardOf), in sample order.
// n <= 1 keeps every run.
func shardRuns(runs []inspection.Run, i, n int) []inspection.Run {
	if n <= 1 {
		return runs
	}
	var out []inspection.Run
	for _, r := range runs {
		if ShardOf(r.ID, n) == i {
			out = append(out, r)
		}
	}
	return out
}

// sampleHash is the SHA-256 over the runs' ids and content hashes in id
// order: it changes when any sampled run changes.
func sampleHash(runs []inspection.Run) string {
	lines := make([]string, 0, len(runs))
	for _, r := range runs {
		lines = append(lines, r.ID+"\x00"+r.ContentHash)
	}
	return hashLines(lines)
}

// reportSampleHash is sampleHash over a report's sample runs.
func reportSampleHash(runs []report.SampleRun) string {
	lines := make([]string, 0, len(runs))
	for _, r := range runs {
		lines = append(lines, r.ID+"\x00"+r.ContentHash)
	}
	return hashLines(lines)
}

// hashLines is the SHA-256 of the lines sorted, each ended by a newline.
func hashLines(lines []string) string {
	sort.Strings(lines)
	h := sha256.New()
	for _, l := range lines {
		_, _ = io.WriteString(h, l+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
