package calibrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/perturb"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
)

// Perturbation is one perturbation test of the light judge (run
// --perturb): Judge is the light judge under the perturbation (its own
// identity, so its calls are cached apart).
type Perturbation struct {
	Kind  string // report.PerturbOrder or report.PerturbRubric
	File  string // the alternative template (rubric)
	Judge inspection.Inspector
}

// sideTests adds the sections that ask the light judge more than the
// calibration did: the position section (run --pairwise) and the
// perturbation tests (run --perturb).
func sideTests(ctx context.Context, cfg Config, runs []inspection.Run, res runner.Result, rep *report.Report) error {
	if cfg.Pairwise != nil {
		if err := positionSection(ctx, cfg, runs, rep); err != nil {
			return err
		}
	}
	for _, p := range cfg.Perturb {
		sec, err := perturbationSection(ctx, cfg, p, res, rep)
		if err != nil {
			return err
		}
		rep.Perturbations = append(rep.Perturbations, sec)
	}
	return nil
}

// perturbationSection judges every run that has at least two light
// repeats once more under the perturbation (light depth, through the
// runner: cache, retries, the budget left), and computes the excess flip
// rate of the perturbed verdict over the repeats' (perturb.Excess, seeded
// with the sample seed).
func perturbationSection(ctx context.Context, cfg Config, p Perturbation, res runner.Result, rep *report.Report) (report.Perturbation, error) {
	sec := report.Perturbation{Kind: p.Kind, File: p.File, Identity: p.Judge.Identity()}
	base := map[string][]string{}
	var runs []inspection.Run
	add := func(run inspection.Run, repeats []inspection.Inspection) {
		if len(repeats) < 2 {
			sec.Missing++
			return
		}
		vs := make([]string, 0, len(repeats))
		for _, r := range repeats {
			vs = append(vs, r.Verdict)
		}
		base[run.ID] = vs
		runs = append(runs, run)
	}
	for _, pr := range res.Pairs {
		add(pr.Run, pr.LightRepeats)
	}
	for _, l := range res.LightOnly {
		add(l.Run, l.LightRepeats)
	}
	slices.SortFunc(runs, func(a, b inspection.Run) int { return cmp.Compare(a.ID, b.ID) })
	opts := cfg.Runner
	opts.DeepRuns, opts.SelectDeep = map[string]bool{}, nil
	opts.Repeat, opts.Progress = 1, nil
	if opts.MaxUSD > 0 {
		opts.MaxUSD -= rep.SpentUSD()
		if opts.MaxUSD <= 0 {
			sec.Reason = "not run: the --max-cost budget is spent"
			rep.Cost.BudgetStopped = true
			return sec, nil
		}
	}
	var pres runner.Result
	if len(runs) > 0 {
		var err error
		pres, err = runner.RunSides(ctx, runs, runner.Sides{Light: p.Judge, Deep: p.Judge}, opts)
		var stop *runner.StopError
		switch {
		case errors.As(err, &stop):
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("the %s perturbation's calls stopped: %v", p.Kind, stop))
		case err != nil:
			return sec, err
		}
	}
	if pres.BudgetStopped {
		rep.Cost.BudgetStopped = true
	}
	rep.Warnings = append(rep.Warnings, pres.Warnings...)
	sec.Cost = report.SideCost{SideCost: pres.Cost.Light, Price: cfg.Runner.Light.Price}
	if u := sec.Cost.USD; u != nil && sec.Cost.Inspections > 0 {
		v := *u / float64(sec.Cost.Inspections)
		sec.Cost.PerRun = &v
	}
	var obs []perturb.Observation
	for _, l := range pres.LightOnly {
		obs = append(obs, perturb.Observation{Run: l.Run.ID, Base: base[l.Run.ID], Perturbed: l.Light.Verdict})
	}
	sec.Missing += len(runs) - len(obs)
	sec.Runs = len(obs)
	if len(obs) == 0 {
		sec.Reason = "no run has a perturbed verdict and two or more unperturbed ones (--repeat 2 or more is needed)"
		return sec, nil
	}
	r, err := perturb.Excess(obs, perturb.Options{Seed: uint64(cfg.Sample.Seed)})
	if err != nil {
		sec.Reason = err.Error()
		return sec, nil
	}
	sec.Result = &r
	return sec, nil
}
