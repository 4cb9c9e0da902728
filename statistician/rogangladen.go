package statistician

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// PassCounts is the 2 x 2 table of light's and deep's pass verdicts on
// the runs that have both: light pass and deep pass (BothPass), light pass
// and deep not pass (LightOnly), light not pass and deep pass (DeepOnly),
// and neither (NeitherPass). "Not pass" is partial or fail.
type PassCounts struct {
	BothPass    int `yaml:"both_pass" json:"both_pass"`
	LightOnly   int `yaml:"light_only_pass" json:"light_only_pass"`
	DeepOnly    int `yaml:"deep_only_pass" json:"deep_only_pass"`
	NeitherPass int `yaml:"neither_pass" json:"neither_pass"`
}

// N returns the number of runs in the table.
func (c PassCounts) N() int { return c.BothPass + c.LightOnly + c.DeepOnly + c.NeitherPass }

// MinYoudenJ is the smallest bootstrap lower bound of Youden's
// J = Se + Sp - 1 for which RoganGladen reports a corrected rate. The
// correction divides light's pass rate by J, so it amplifies light's
// sampling error by 1/J and is undefined at J = 0 (Rogan and Gladen 1978;
// on the breakdown of the estimator and its intervals as Se + Sp - 1
// approaches 0 see Lang and Reiczigel 2014, Prev. Vet. Med. 113(1)). Our
// threshold 0.1 bounds that amplification to 10 at the lower end of J's
// interval; it is a choice, not a published constant.
const MinYoudenJ = 0.1

// RoganGladenEstimate is the Rogan-Gladen corrected pass rate with the
// light verdict's sensitivity and specificity against deep, and Youden's
// J with its bootstrap lower bound, which decides whether the corrected
// rate is reported.
type RoganGladenEstimate struct {
	Estimate     `yaml:",inline"`
	Sensitivity  float64 `yaml:"sensitivity" json:"sensitivity"`
	Specificity  float64 `yaml:"specificity" json:"specificity"`
	YoudenJ      float64 `yaml:"youden_j" json:"youden_j"`
	YoudenJLower float64 `yaml:"youden_j_lower" json:"youden_j_lower"`
	Resamples    int     `yaml:"resamples" json:"resamples"`
}

// RoganGladen returns the deep pass rate over all runs corrected from
// light's pass rate with light's sensitivity Se and specificity Sp
// against deep (Rogan and Gladen 1978, Am. J. Epidemiol. 107(1)):
//
//	p_obs = light's pass rate over all N runs
//	      = (BothPass + LightOnly + unlabelledPass) / (n + unlabelledN)
//	Se    = BothPass / (BothPass + DeepOnly)
//	Sp    = NeitherPass / (NeitherPass + LightOnly)
//	p     = clip((p_obs + Sp - 1) / (Se + Sp - 1), 0, 1)
//
// labelled is the table of the n runs with both verdicts; unlabelledPass
// of the unlabelledN runs with only light's verdict passed it.
//
// The interval is a stratified bootstrap percentile interval (type 7
// quantiles, as Bootstrap) at opts.Level: each resample draws the n
// labelled pairs with replacement (a multinomial on the four cells) and,
// independently, the unlabelledN light-only runs (a binomial on their pass
// share), from a PCG source seeded with opts.Seed (rand.NewPCG(Seed,
// Seed)), and recomputes p. SE is the standard deviation of the
// resampled p, and EffectiveN = s_Y^2/SE^2 with s_Y^2 the variance of the
// deep labels. Resamples where Se or Sp is undefined (no deep pass or no
// deep non-pass drawn) or J <= 0 are dropped; Resamples counts those kept.
//
// The corrected rate is reported only when J is clearly above 0: the
// bootstrap's 2.5% quantile of J (over resamples where J is defined) must
// exceed MinYoudenJ; otherwise Value is 0 and Reason says why, with
// Sensitivity, Specificity and both J figures still filled in.
//
// Reasons without numbers: no labelled run with a deep pass or none with
// a deep non-pass (Se or Sp undefined), a negative count, unlabelledPass
// outside [0, unlabelledN], or invalid options (see BootstrapOptions;
// Clusters must be nil).
func RoganGladen(labelled PassCounts, unlabelledPass, unlabelledN int, opts BootstrapOptions) RoganGladenEstimate {
	var r RoganGladenEstimate
	r.Method = MethodRoganGladen
	n := labelled.N()
	r.NLabelled, r.NUnlabelled = n, unlabelledN
	if opts.Resamples == 0 {
		opts.Resamples = 1000
	}
	if opts.Level == 0 {
		opts.Level = 0.95
	}
	r.Level = opts.Level
	switch {
	case labelled.BothPass < 0 || labelled.LightOnly < 0 || labelled.DeepOnly < 0 || labelled.NeitherPass < 0:
		r.Reason = fmt.Sprintf("invalid input: negative count in %+v", labelled)
		return r
	case unlabelledN < 0 || unlabelledPass < 0 || unlabelledPass > unlabelledN:
		r.Reason = fmt.Sprintf("invalid input: %d light passes among %d unlabelled runs", unlabelledPass, unlabelledN)
		return r
	case opts.Resamples < 0 || opts.Resamples > MaxBootstrapResamples:
		r.Reason = fmt.Sprintf("invalid input: bootstrap resamples %d outside [0, %d]", opts.Resamples, MaxBootstrapResamples)
		return r
	case !(opts.Level > 0 && opts.Level < 1):
		r.Reason = fmt.Sprintf("invalid input: confidence level %v must be in (0, 1)", opts.Level)
		return r
	case opts.Clusters != nil:
		r.Reason = "invalid input: the Rogan-Gladen bootstrap resamples runs, not clusters"
		return r
	case labelled.BothPass+labelled.DeepOnly == 0:
		r.Reason = "undefined: no labelled run passed deep, so light's sensitivity is undefined"
		return r
	case labelled.NeitherPass+labelled.LightOnly == 0:
		r.Reason = "undefined: every labelled run passed deep, so light's specificity is undefined"
		return r
	}

	se, sp, j, p, pointOK := roganGladenPoint(labelled, unlabelledPass, unlabelledN)
	r.Sensitivity, r.Specificity, r.YoudenJ = se, sp, j

	bin := binomialSampler{rng: rand.New(rand.NewPCG(opts.Seed, opts.Seed))}
	cells := [4]int{labelled.BothPass, labelled.LightOnly, labelled.DeepOnly, labelled.NeitherPass}
	js := make([]float64, 0, opts.Resamples)
	ps := make([]float64, 0, opts.Resamples)
	for b := 0; b < opts.Resamples; b++ {
		var drawn [4]int
		left, mass := n, n
		for k, c := range cells {
			switch {
			case left == 0 || c == 0:
			case c == mass:
				drawn[k] = left
			default:
				drawn[k] = bin.draw(left, float64(c)/float64(mass))
			}
			left -= drawn[k]
			mass -= c
		}
		up := 0
		if unlabelledN > 0 {
			up = bin.draw(unlabelledN, float64(unlabelledPass)/float64(unlabelledN))
		}
		t := PassCounts{BothPass: drawn[0], LightOnly: drawn[1], DeepOnly: drawn[2], NeitherPass: drawn[3]}
		if t.BothPass+t.DeepOnly == 0 || t.NeitherPass+t.LightOnly == 0 {
			continue
		}
		_, _, jb, pb, ok := roganGladenPoint(t, up, unlabelledN)
		js = append(js, jb)
		if ok {
			ps = append(ps, pb)
		}
	}
	if len(js) < 2 {
		r.Reason = fmt.Sprintf("insufficient data: sensitivity and specificity were defined on %d of %d resamples, need at least 2", len(js), opts.Resamples)
		return r
	}
	alpha := 1 - opts.Level
	slices.Sort(js)
	r.YoudenJLower = quantileType7(js, 0.025)
	if !(r.YoudenJLower > MinYoudenJ) || !pointOK {
		r.Reason = fmt.Sprintf("undefined: light's verdict barely separates deep's (Youden J = %.3g, bootstrap 2.5%% bound %.3g, need above %g)", j, r.YoudenJLower, MinYoudenJ)
		return r
	}
	if len(ps) < 2 {
		r.Reason = fmt.Sprintf("insufficient data: the corrected rate was defined on %d of %d resamples, need at least 2", len(ps), opts.Resamples)
		return r
	}
	r.Resamples = len(ps)
	r.Value = p
	_, sd := meanSD(ps)
	slices.Sort(ps)
	r.CI = Interval{Lower: quantileType7(ps, alpha/2), Upper: quantileType7(ps, 1-alpha/2)}
	r.SE = sd
	// The deep labels are 0/1 with d passes among n: s_Y^2 = d(n-d)/(n(n-1)).
	if d := float64(labelled.BothPass + labelled.DeepOnly); n >= 2 && sd > 0 {
		r.EffectiveN = d * (float64(n) - d) / (float64(n) * float64(n-1)) / (sd * sd)
	}
	return r
}

// roganGladenPoint returns Se, Sp, J and the clipped corrected rate of a
// table whose Se and Sp are defined; ok is false when J <= 0.
func roganGladenPoint(t PassCounts, unlabelledPass, unlabelledN int) (se, sp, j, p float64, ok bool) {
	se = float64(t.BothPass) / float64(t.BothPass+t.DeepOnly)
	sp = float64(t.NeitherPass) / float64(t.NeitherPass+t.LightOnly)
	j = se + sp - 1
	if !(j > 0) {
		return se, sp, j, 0, false
	}
	pObs := float64(t.BothPass+t.LightOnly+unlabelledPass) / float64(t.N()+unlabelledN)
	return se, sp, j, clamp01((pObs + sp - 1) / j), true
}
