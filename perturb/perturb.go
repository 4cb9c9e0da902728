// Package perturb measures how much a pointwise judge's verdicts move under
// a perturbation that should not matter (the run's files shown in another
// order, a meaning-preserving rewrite of the prompt) beyond the noise of
// asking it again: the excess flip rate of README.md, "Position bias".
package perturb

import (
	"errors"
	"fmt"
	"sort"

	"github.com/evalcal/evalcal/statistician"
)

// Observation is one run's verdicts: Base holds the verdicts of at least
// two repeats under the unperturbed prompt (as --repeat gives them), and
// Perturbed the verdict under the perturbation.
type Observation struct {
	Run       string
	Base      []string
	Perturbed string
}

// Options configure Excess; the zero value is 2000 resamples, seed 0,
// level 0.95.
type Options struct {
	Resamples int
	Seed      uint64
	Level     float64
}

// Result is the excess flip rate of one perturbation.
//
// For run i, with b1 and b2 its first two unperturbed verdicts and p its
// perturbed one,
//
//	flip_i  = 1[p != b1]          (moved by the perturbation)
//	noise_i = 1[b2 != b1]         (moved by asking again)
//	d_i     = flip_i - noise_i    in {-1, 0, 1}
//
// FlipRate and NoiseRate are the means of flip_i and noise_i, Excess the
// mean of d_i = FlipRate - NoiseRate. Both rates compare one verdict with
// b1, so they have the same noise under the null hypothesis that the
// perturbation does not matter (E d_i = 0). CI is the percentile bootstrap
// interval of Excess over runs (statistician.BootstrapCounts on the counts
// of d_i = -1, 0, 1, which draws exactly the index bootstrap); Significant
// is CI.Lower > 0, a one-sided test at (1 - level)/2. Flipped lists the
// runs with flip_i = 1, sorted.
type Result struct {
	N           int                   `yaml:"n" json:"n"`
	FlipRate    float64               `yaml:"flip_rate" json:"flip_rate"`
	NoiseRate   float64               `yaml:"noise_rate" json:"noise_rate"`
	Excess      float64               `yaml:"excess" json:"excess"`
	CI          statistician.Interval `yaml:"ci" json:"ci"`
	Significant bool                  `yaml:"significant" json:"significant"`
	Flipped     []string              `yaml:"flipped" json:"flipped"`
}

// Excess computes the excess flip rate of obs. It returns an error when
// obs is empty or a run has fewer than two unperturbed verdicts (the
// noise needs --repeat 2 or more), or the options are invalid.
func Excess(obs []Observation, opts Options) (Result, error) {
	if len(obs) == 0 {
		return Result{}, errors.New("perturb: no run")
	}
	// counts[0], [1], [2]: d = -1, 0, +1.
	counts := make([]int, 3)
	res := Result{N: len(obs), Flipped: []string{}}
	flips, noise := 0, 0
	for _, o := range obs {
		if len(o.Base) < 2 {
			return Result{}, fmt.Errorf("perturb: run %q has %d unperturbed verdicts; the noise needs at least 2 (--repeat 2)", o.Run, len(o.Base))
		}
		f, n := 0, 0
		if o.Perturbed != o.Base[0] {
			f = 1
			res.Flipped = append(res.Flipped, o.Run)
		}
		if o.Base[1] != o.Base[0] {
			n = 1
		}
		flips, noise = flips+f, noise+n
		counts[f-n+1]++
	}
	sort.Strings(res.Flipped)
	nf := float64(len(obs))
	res.FlipRate, res.NoiseRate = float64(flips)/nf, float64(noise)/nf
	res.Excess = float64(flips-noise) / nf
	resamples := opts.Resamples
	if resamples == 0 {
		resamples = 2000
	}
	bs, err := statistician.BootstrapCounts(counts, func(c []int) (float64, bool) {
		return float64(c[2]-c[0]) / float64(c[0]+c[1]+c[2]), true
	}, statistician.BootstrapOptions{Resamples: resamples, Seed: opts.Seed, Level: opts.Level})
	if err != nil {
		return Result{}, fmt.Errorf("perturb: bootstrap: %w", err)
	}
	res.CI = bs.CI
	res.Significant = bs.Reason == "" && bs.CI.Lower > 0
	return res, nil
}
