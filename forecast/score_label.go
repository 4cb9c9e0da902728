package forecast

import (
	"context"
	"fmt"

	"github.com/evalcal/evalcal/statistician"
)

// How the label's 95% interval of the Brier skill score is computed
// (ScoredGroup.BSSCIMethod). The skill score against a frozen base rate b,
// BSS = 1 - mean(e) / (b (1 - b)) with e = (p - y)^2, depends on a group's
// forecasts only through the multiset of their squared errors, so every
// method resamples (or takes the ideal resampling of) that multiset; all
// three estimate the same percentile interval of the same bootstrap.
const (
	// BootstrapMultinomial draws the counts of the k distinct squared
	// errors of a resample as a multinomial (statistician.BootstrapCounts):
	// exactly the distribution of the index bootstrap, at O(k) binomial
	// draws per resample, seeded. Used where it is cheaper than the index
	// bootstrap: k <= MaxMultinomialCells and each cell repeats at least
	// MultinomialMinRepeats times on average, or k <= MultinomialAnyCells.
	// It comes before the analytic interval (cheaper still where it
	// applies), which keeps the intervals and labels of stated
	// confidences as they were.
	BootstrapMultinomial = "multinomial"
	// BootstrapIndex resamples the n squared errors (in ascending order,
	// so the result does not depend on input order) by index
	// (statistician.BootstrapMeanOf): O(n) per resample, seeded. Used
	// where the multinomial is not and the analytic interval is not
	// either: n < MinIdealBootstrapForecasts, or the resampled mean too
	// skewed for the expansion.
	BootstrapIndex = "index"
	// BootstrapCornishFisher is the percentile interval of the ideal
	// bootstrap (infinitely many resamples) computed by the Cornish-Fisher
	// expansion of the resampled mean's exact cumulants
	// (statistician.IdealMeanBootstrapInterval): O(k), no seed. Used where
	// the multinomial is not, n >= MinIdealBootstrapForecasts and the
	// resampled mean's skewness is at most MaxIdealBootstrapSkewness.
	BootstrapCornishFisher = "cornish-fisher"
)

const (
	// MaxMultinomialCells is the most distinct squared errors a group may
	// have for the multinomial bootstrap: 1,024 cells cost about 100 ms
	// for 1,000 resamples. Confidences to 2 decimals stay below it (at
	// most 202 squared errors); to 3 decimals they pass it (up to 2,002:
	// p^2 and (1-p)^2 of complementary p round apart).
	MaxMultinomialCells = 1024
	// MultinomialMinRepeats is how many forecasts a distinct squared error
	// must hold on average for the multinomial: measured on this project's
	// machine, a binomial draw costs 80 ns at one forecast a cell, 160 ns
	// at 16, 134 at 32 and 113 at 64 (4.2 and 1.7 ns a forecast at 32 and
	// 64), an index draw 2.5-3 ns a forecast, so the two break even near
	// 48 forecasts a cell. With continuous probabilities every cell holds
	// one, and the multinomial was 30 times slower.
	MultinomialMinRepeats = 48
	// MultinomialAnyCells is the number of cells up to which the
	// multinomial runs whatever the repeats: a resample is at most 16
	// binomial draws, and small groups keep the intervals they had.
	MultinomialAnyCells = 16
	// MinIdealBootstrapForecasts is the fewest forecasts for which the
	// analytic interval replaces resampling: from here on the expansion's
	// error, O(n^-3/2), is far below the Monte Carlo error of 1,000
	// resamples (0.085 standard errors at the 2.5% quantile). The tests
	// check it against exact ideal-bootstrap quantiles from n = 1,000
	// (within 0.02 standard errors plus one lattice step), against B =
	// 2,000 index bootstraps from n = 1,000 (within 0.24) and by coverage
	// simulations at n = 1,000 and 10,000; before it was chosen, numpy
	// 100,000-resample bootstraps of squared errors agreed within 0.02
	// standard errors from n = 200 wherever the skewness bound held. It
	// was 10,000: below that, continuous groups take the index bootstrap,
	// O(n) per resample (1M forecasts in groups of 5,000: 2.5 s of CPU
	// against nothing for the expansion). (The 30 s that 1M continuous
	// forecasts in groups of 1,000 took came from the multinomial; see
	// MultinomialMinRepeats.)
	MinIdealBootstrapForecasts = 1_000
	// MaxIdealBootstrapSkewness bounds the skewness of the resampled mean
	// (the sample's skewness over sqrt(n)) for the analytic interval; past
	// it (rare events among many forecasts) the index bootstrap runs.
	MaxIdealBootstrapSkewness = 0.1
)

// labelGroup computes the 95% interval of the Brier skill score against
// the frozen base rate b (see the Bootstrap* methods for how) and labels
// the group: candidate while n < MinLabelForecasts; supported when the
// interval's lower bound is above 0 and CORP DSC is above 0;
// indistinguishable_from_luck otherwise.
func labelGroup(ctx context.Context, out *ScoredGroup, t statistician.SortedBinary, em statistician.ErrorMoments, b float64, bss statistician.SkillScore, c statistician.CORPDecomposition, opts ScoreOptions) error {
	n := t.N()
	if !bss.Defined() {
		out.BSSCIReason = bss.Reason
	} else {
		iv, method, reason, err := skillInterval(ctx, t, em, b, opts)
		if err != nil {
			return err
		}
		out.BSSCIMethod = method
		if reason != "" {
			out.BSSCIReason = reason
		} else {
			out.BSSCI95 = roundedInterval(iv)
		}
	}
	switch {
	case n < MinLabelForecasts:
		out.Label = LabelCandidate
		out.LabelReason = fmt.Sprintf("%d binary forecasts, the label needs at least %d", n, MinLabelForecasts)
	case out.BSSCI95 == nil:
		out.Label = LabelIndistinguish
		out.LabelReason = "no bootstrap interval for the skill score: " + out.BSSCIReason
	case out.BSSCI95.Lower > 0 && c.DSC > 0:
		out.Label = LabelSupported
		out.LabelReason = fmt.Sprintf("bootstrap 95%% lower bound of BSS %.4g > 0 and CORP DSC %.4g > 0", out.BSSCI95.Lower, c.DSC)
	default:
		out.Label = LabelIndistinguish
		out.LabelReason = fmt.Sprintf("bootstrap 95%% lower bound of BSS %.4g, CORP DSC %.4g: both must be > 0", out.BSSCI95.Lower, c.DSC)
	}
	return nil
}

// skillInterval returns the 95% bootstrap percentile interval of
// BSS = 1 - mean(e) / (b (1 - b)), the method that computed it, or a
// reason when there is none. em holds the squared errors' moments about
// their mean, the Brier score (t.ErrorMoments).
func skillInterval(ctx context.Context, t statistician.SortedBinary, em statistician.ErrorMoments, b float64, opts ScoreOptions) (iv statistician.Interval, method, reason string, err error) {
	ref := b * (1 - b)
	bopts := statistician.BootstrapOptions{Resamples: opts.Resamples, Seed: opts.Seed}
	k, n := em.Distinct, t.N()
	if k <= MaxMultinomialCells && (k <= MultinomialAnyCells || n >= MultinomialMinRepeats*k) {
		sq := make([]float64, 0, k)
		counts := make([]int, 0, k)
		for e, c := range t.SquaredErrors() {
			sq = append(sq, e)
			counts = append(counts, c)
		}
		stat := func(c []int) (float64, bool) {
			s, m := 0.0, 0
			for j, x := range c {
				s += float64(x) * sq[j]
				m += x
			}
			return 1 - s/float64(m)/ref, true
		}
		res, err := statistician.BootstrapCountsContext(ctx, counts, stat, bopts)
		return res.CI, BootstrapMultinomial, res.Reason, err
	}
	if n >= MinIdealBootstrapForecasts {
		nf := float64(n)
		ideal, err := statistician.IdealMeanBootstrapFromMoments(n, em.Center, em.Sum2/nf, em.Sum3/nf, em.Sum4/nf, 0.95)
		if err != nil {
			return iv, "", "", err
		}
		if ideal.Skewness <= MaxIdealBootstrapSkewness && ideal.Skewness >= -MaxIdealBootstrapSkewness {
			// BSS falls as the mean squared error rises: the upper
			// quantile of the mean gives the lower bound.
			return statistician.Interval{Lower: 1 - ideal.CI.Upper/ref, Upper: 1 - ideal.CI.Lower/ref}, BootstrapCornishFisher, "", nil
		}
	}
	items := make([]float64, 0, n)
	for e, c := range t.SquaredErrors() {
		for range c {
			items = append(items, e)
		}
	}
	res, err := statistician.BootstrapMeanOfContext(ctx, items, func(mean float64) float64 { return 1 - mean/ref }, bopts)
	return res.CI, BootstrapIndex, res.Reason, err
}
