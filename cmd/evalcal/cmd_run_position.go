package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/pairwise"
	"github.com/evalcal/evalcal/programs/all"
	"github.com/evalcal/evalcal/programs/llm"
	"github.com/evalcal/evalcal/programs/spec"
	"github.com/evalcal/evalcal/report"
)

// positionFlags are run's pairwise and perturbation flags (README.md,
// "Pairwise judges on run" and "Perturbation tests").
type positionFlags struct {
	Pairwise bool
	Pairs    string
	Orders   int
	Perturb  []string
}

func (p *positionFlags) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&p.Pairwise, "pairwise", false, "also ask the light LLM judge which run of each --pairs pair did the task better, in both orders; adds the position section")
	fs.StringVar(&p.Pairs, "pairs", "", "with --pairwise: pairs `FILE` (JSONL: {\"pair_id\", \"run_a\", \"run_b\"}, pair_id optional)")
	fs.IntVar(&p.Orders, "orders", 2, "with --pairwise: ask each pair in `N` orders: 2 (ab and ba) or 1 (ab only)")
	fs.StringArrayVar(&p.Perturb, "perturb", nil, "judge every run again under a perturbation of the light judge, `KIND` order or rubric=FILE (repeatable; needs --repeat 2 or more); adds the perturbation section")
}

// validate checks the flags against each other and run's other flags.
func (p *positionFlags) validate(o *runOptions) error {
	switch {
	case p.Pairwise && p.Pairs == "":
		return usageErrorf("run: --pairwise needs --pairs FILE")
	case p.Pairs != "" && !p.Pairwise:
		return usageErrorf("run: --pairs needs --pairwise")
	case p.Orders != 1 && p.Orders != 2:
		return usageErrorf("run: --orders must be 1 or 2, got %d", p.Orders)
	case (p.Pairwise || len(p.Perturb) > 0) && o.Shard != "":
		return usageErrorf("run: --pairwise and --perturb judge across the whole sample: give them to an unsharded run")
	case len(p.Perturb) > 0 && o.Repeat < 2:
		return usageErrorf("run: --perturb compares with the noise across repeats: it needs --repeat 2 or more, got %d", o.Repeat)
	}
	for _, s := range p.Perturb {
		if _, _, err := parsePerturb(s); err != nil {
			return usageErrorf("run: --perturb: %v", err)
		}
	}
	return nil
}

// inputs are the files the flags read (never to be overwritten by -o).
func (p *positionFlags) inputs() []string {
	out := []string{p.Pairs}
	for _, s := range p.Perturb {
		if _, file, err := parsePerturb(s); err == nil && file != "" {
			out = append(out, file)
		}
	}
	return out
}

// parsePerturb reads "order" or "rubric=FILE".
func parsePerturb(s string) (kind, file string, err error) {
	switch k, f, _ := strings.Cut(s, "="); {
	case s == report.PerturbOrder:
		return report.PerturbOrder, "", nil
	case k == report.PerturbRubric && f != "":
		return report.PerturbRubric, f, nil
	}
	return "", "", fmt.Errorf("%q is not order or rubric=FILE", s)
}

// configure adds the pairwise judge and the perturbed judges to cfg.
func (p *positionFlags) configure(ctx context.Context, o *runOptions, s *sides, cfg *calibrate.Config) error {
	if p.Pairwise {
		pj, ok := inspection.As[calibrate.PairJudge](s.light)
		if !ok {
			return usageErrorf("run: --pairwise needs an LLM light judge (openai:MODEL or anthropic:MODEL), got %q", o.Light)
		}
		pairs, bad, err := readPairsFile(ctx, p.Pairs)
		if err != nil {
			return inputError(fmt.Errorf("run: --pairs: %w", err))
		}
		cfg.Pairwise = &calibrate.Pairwise{Judge: pj, Pairs: pairs, PairsFile: p.Pairs, BadLines: bad, Orders: p.Orders}
	}
	for _, text := range p.Perturb {
		kind, file, _ := parsePerturb(text) // checked by validate
		in, err := perturbed(ctx, o, s, kind, file)
		if err != nil {
			return err
		}
		if c, ok := inspection.As[io.Closer](in); ok {
			s.closers = append(s.closers, c)
		}
		cfg.Perturb = append(cfg.Perturb, calibrate.Perturbation{Kind: kind, File: file, Judge: in})
	}
	return nil
}

// readPairsFile reads a --pairs file.
func readPairsFile(ctx context.Context, path string) ([]pairwise.Pair, []pairwise.BadLine, error) {
	fh, err := openRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	return pairwise.ReadPairs(ctx, fh, path, pairwise.DefaultLimits)
}

// envSetter is an exec: judge that can run with extra variables
// (programs/exec's WithEnv).
type envSetter interface {
	WithEnv(vars ...string) inspection.Inspector
}

// perturbed is the light judge under a perturbation. An LLM judge: order
// shuffles the run's files with the --seed (llm.ShuffledFiles), rubric
// opens the light spec again with FILE as its light prompt template. An
// exec: judge runs with EVALCAL_PERTURB=order and EVALCAL_PERTURB_SEED,
// or EVALCAL_PERTURB=rubric and EVALCAL_PERTURB_FILE (an absolute path),
// and applies the perturbation itself. Other judges cannot be perturbed.
func perturbed(ctx context.Context, o *runOptions, s *sides, kind, file string) (inspection.Inspector, error) {
	if e, ok := inspection.As[envSetter](s.light); ok {
		if kind == report.PerturbOrder {
			return e.WithEnv("EVALCAL_PERTURB=order", "EVALCAL_PERTURB_SEED="+strconv.FormatInt(o.Seed, 10)), nil
		}
		abs, err := filepath.Abs(file)
		if err != nil {
			return nil, inputError(fmt.Errorf("run: --perturb: %w", err))
		}
		if err := checkRegular(abs); err != nil {
			return nil, inputError(fmt.Errorf("run: --perturb: %w", err))
		}
		return e.WithEnv("EVALCAL_PERTURB=rubric", "EVALCAL_PERTURB_FILE="+abs), nil
	}
	j, ok := inspection.As[*llm.Judge](s.light)
	if !ok {
		return nil, usageErrorf("run: --perturb needs an LLM (openai:, anthropic:) or exec: light judge, got %q", o.Light)
	}
	if kind == report.PerturbOrder {
		return llm.ShuffledFiles(j, uint64(o.Seed)), nil
	}
	k, arg, err := all.Kinds().Parse(o.Light)
	if err != nil {
		return nil, checkSpec("light", o.Light)
	}
	settings := o.LLM.judge("light")
	settings.LightPrompt = spec.Input{Path: file, Flag: "perturb"}
	got, err := k.Open(ctx, arg, spec.Env{Judge: settings})
	if err != nil {
		return nil, inputError(fmt.Errorf("run: --perturb %s=%s: %w", kind, file, err))
	}
	return got.Inspector, nil
}
