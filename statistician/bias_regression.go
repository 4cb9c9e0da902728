package statistician

import (
	"fmt"
	"math"
	"slices"
)

// Column names of the bias regressions.
const (
	BiasIntercept  = "intercept"
	BiasLogLength  = "log_length"
	BiasSameFamily = "same_family"
	// BiasSlicePrefix starts the name of a slice indicator column:
	// "slice:" + the slice's name.
	BiasSlicePrefix = "slice:"
)

// BiasRun is one run with both verdicts, as the bias regressions see it.
type BiasRun struct {
	// LightScore and DeepScore are the two evaluators' scores; NaN when a
	// run has no score (the score regression leaves it out).
	LightScore, DeepScore float64
	LightPass, DeepPass   bool
	// Length is the length of the judged output (characters or tokens),
	// > 0.
	Length float64
	// SameFamily is whether the light judge's model family is the run's
	// system's family.
	SameFamily bool
	// Slice is the run's slice (system, or the --by field's value).
	Slice string
}

// BiasAttribution is the two bias regressions: ScoreGap of light's score
// minus deep's, Leniency of light passing a run deep does not pass.
// ReferenceSlice is the slice the slice indicators are relative to;
// Omitted names the columns left out, each with the reason.
type BiasAttribution struct {
	ScoreGap       Regression `yaml:"score_gap" json:"score_gap"`
	Leniency       Regression `yaml:"leniency" json:"leniency"`
	ReferenceSlice string     `yaml:"reference_slice,omitempty" json:"reference_slice,omitempty"`
	Omitted        []string   `yaml:"omitted,omitempty" json:"omitted,omitempty"`
}

// Reasons a bias regression column is left out, in BiasAttribution.Omitted.
const (
	omitConstant   = "%s: the same for every run"
	omitConfounded = "%s: same_family is constant within every slice (slices are systems), so slice and family effects cannot be separated; the same_family coefficient includes the family's systems' other differences"
)

// BiasRegression attributes light's errors against deep to the length of
// the judged output, the judge judging its own model family, and the
// slice, by two linear regressions with HC3 standard errors (OLSHC3) on
// the same columns:
//
//	score gap:  LightScore - DeepScore                 (runs with both scores)
//	leniency:   [LightPass and not DeepPass]           (every run; a linear probability model)
//	columns:    intercept, log(Length), [SameFamily], [Slice = s] for each slice s
//	            but the first in sorted order (ReferenceSlice)
//
// The coefficient of log_length is the change in the gap (or in the
// probability of a lenient verdict) when the output is e = 2.72 times
// longer; same_family the difference between runs the judge's own family
// produced and the others, at equal length and slice. These are the
// biases Zheng et al. (2023, "Judging LLM-as-a-judge with MT-Bench and
// Chatbot Arena", NeurIPS, section 3.3: verbosity and self-enhancement
// bias) describe; the regression separates them from slice differences.
// A linear probability model with HC3 errors is used for the binary
// outcome because its coefficients are differences in probability, and
// HC3 makes their standard errors valid under the heteroskedasticity a
// binary outcome has (Long and Ervin 2000); the simulation
// (TestBiasRegressionPower) shows a planted length effect found with over
// 90% power and false positives at most 5.5% without one.
//
// A column that does not vary over the runs (no run of the judge's
// family, one slice) is left out of both fits and named in Omitted. When
// same_family is constant within every slice (the slices are systems and
// the family is a system's), the slice indicators and same_family are
// collinear; the slice indicators are then left out, so that the
// same-family effect the trust rule looks at is estimated, and Omitted
// says that it includes those systems' other differences. A Length that is not positive and finite is an invalid
// input: both regressions get the Reason.
func BiasRegression(runs []BiasRun, level float64) BiasAttribution {
	var b BiasAttribution
	for i, r := range runs {
		if !(r.Length > 0) || math.IsInf(r.Length, 0) {
			reason := fmt.Sprintf("invalid input: run %d has length %v, need a positive length", i, r.Length)
			b.ScoreGap = Regression{N: len(runs), Level: level, Covariance: "HC3", Reason: reason}
			b.Leniency = b.ScoreGap
			return b
		}
	}
	sliceNames := sortedSlices(runs)
	if len(sliceNames) > 0 {
		b.ReferenceSlice = sliceNames[0]
	}
	names, row := biasColumns(runs, sliceNames, &b.Omitted)
	var xs, xl [][]float64
	var ys, yl []float64
	for _, r := range runs {
		x := row(r)
		lenient := 0.0
		if r.LightPass && !r.DeepPass {
			lenient = 1
		}
		xl, yl = append(xl, x), append(yl, lenient)
		if !math.IsNaN(r.LightScore) && !math.IsNaN(r.DeepScore) {
			xs, ys = append(xs, x), append(ys, r.LightScore-r.DeepScore)
		}
	}
	b.ScoreGap = OLSHC3(xs, ys, names, level)
	b.Leniency = OLSHC3(xl, yl, names, level)
	return b
}

// sortedSlices returns the distinct slice names of runs in sorted order.
func sortedSlices(runs []BiasRun) []string {
	var s []string
	for _, r := range runs {
		s = append(s, r.Slice)
	}
	slices.Sort(s)
	return slices.Compact(s)
}

// biasColumns returns the column names of the bias regressions and a
// function building a run's row; columns that do not vary over runs are
// appended to omitted instead.
func biasColumns(runs []BiasRun, sliceNames []string, omitted *[]string) ([]string, func(BiasRun) []float64) {
	names := []string{BiasIntercept}
	lengths := make([]float64, len(runs))
	family := 0
	for i, r := range runs {
		lengths[i] = r.Length
		if r.SameFamily {
			family++
		}
	}
	withLength := len(runs) > 0 && !allEqual(lengths)
	if withLength {
		names = append(names, BiasLogLength)
	} else {
		*omitted = append(*omitted, fmt.Sprintf(omitConstant, BiasLogLength))
	}
	withFamily := family > 0 && family < len(runs)
	if withFamily {
		names = append(names, BiasSameFamily)
	} else {
		*omitted = append(*omitted, fmt.Sprintf(omitConstant, BiasSameFamily))
	}
	sliceCol := make(map[string]int)
	if len(sliceNames) > 1 {
		confounded := withFamily && familyConstantWithinSlices(runs)
		for _, s := range sliceNames[1:] {
			if confounded {
				*omitted = append(*omitted, fmt.Sprintf(omitConfounded, BiasSlicePrefix+s))
				continue
			}
			sliceCol[s] = len(names)
			names = append(names, BiasSlicePrefix+s)
		}
	}
	k := len(names)
	return names, func(r BiasRun) []float64 {
		x := make([]float64, k)
		x[0] = 1
		j := 1
		if withLength {
			x[j] = math.Log(r.Length)
			j++
		}
		if withFamily && r.SameFamily {
			x[j] = 1
		}
		if c, ok := sliceCol[r.Slice]; ok {
			x[c] = 1
		}
		return x
	}
}

// familyConstantWithinSlices reports whether every slice's runs all have
// the same SameFamily.
func familyConstantWithinSlices(runs []BiasRun) bool {
	first := make(map[string]bool)
	for _, r := range runs {
		if f, ok := first[r.Slice]; ok && f != r.SameFamily {
			return false
		}
		first[r.Slice] = r.SameFamily
	}
	return true
}
