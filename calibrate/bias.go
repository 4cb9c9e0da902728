package calibrate

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
)

// biasLevel is the confidence level of the bias regressions' intervals.
const biasLevel = 0.95

// SameFamilyAlpha is the level at which a same-family coefficient is
// significant in one of the two bias regressions: 0.05 split between the
// score-gap and the leniency regression (Bonferroni), so that the trust
// cap fires on a judge without a family bias at most 5% of the time.
const SameFamilyAlpha = 0.025

// Descriptions of the bias section's variables.
const (
	biasScore  = "the mean of runtime_fidelity and task_effectiveness, 0-100"
	biasLength = "the run's size in bytes (sample.runs[].size_bytes): a run directory's files, an imported sample's record, a saved run's inspection lines"
	// biasLengthMetadata is Length when every run gives metadata.output_length.
	biasLengthMetadata = "metadata.output_length, the judged output's length as the runs' source gives it"
)

// biasSection is the report's bias section over the paired runs of data
// (see report.Bias): each comparison's scores and verdicts, its length
// (runLengths), and whether its model family is the light judge's
// (runFamilies). Runs without a positive length are left
// out and counted.
func biasSection(rep *report.Report, data Data) *report.Bias {
	b := &report.Bias{Score: biasScore, Length: biasLength, Slice: biasSliceField(rep), Omitted: []string{}}
	b.JudgeFamily, b.JudgeFamilySource = judgeFamily(rep.Inputs.JudgeFamily, rep.Inputs.Light.Spec)
	lengths, what := runLengths(rep, data.Comparisons)
	b.Length = what
	fam := runFamilies(rep, data.Comparisons)
	b.Families = fam.list
	runs := make([]statistician.BiasRun, 0, len(data.Comparisons))
	for i, c := range data.Comparisons {
		n := lengths[i]
		if !(n > 0) {
			b.NoLength++
			continue
		}
		same := b.JudgeFamily != "" && fam.byRun[i] == b.JudgeFamily
		if same {
			b.SameFamilyRuns++
		}
		runs = append(runs, statistician.BiasRun{
			LightScore: meanScore(c.Light), DeepScore: meanScore(c.Deep),
			LightPass: c.LightVerdict == inspection.VerdictPass, DeepPass: c.DeepVerdict == inspection.VerdictPass,
			Length: n, SameFamily: same, Slice: biasSliceOf(b.Slice, c),
		})
	}
	b.Runs = len(runs)
	a := statistician.BiasRegression(runs, biasLevel)
	b.ScoreGap, b.Leniency, b.ReferenceSlice = report.RegressionOf(a.ScoreGap), report.RegressionOf(a.Leniency), a.ReferenceSlice
	b.Omitted = append(b.Omitted, a.Omitted...)
	b.SameFamily = sameFamilyEffect(b)
	return b
}

// biasSliceField is the field of the bias section's slice indicators:
// the first --by field, else system.
func biasSliceField(rep *report.Report) string {
	if len(rep.Inputs.By) > 0 {
		return rep.Inputs.By[0]
	}
	return inspection.SystemField
}

// noSlice is the slice of a run without the slice field.
const noSlice = "(none)"

// biasSliceOf is comparison c's value of the slice field, noSlice when it
// has none.
func biasSliceOf(field string, c comparator.Comparison) string {
	if v, ok := inspection.Field(c.System, c.Metadata, field); ok {
		return v
	}
	return noSlice
}

// meanScore is the mean of a side's two scores.
func meanScore(s comparator.Scores) float64 { return (s.RuntimeFidelity + s.TaskEffectiveness) / 2 }

// sameFamilyEffect tests the same_family coefficient of both regressions
// at SameFamilyAlpha and says what it found in words.
func sameFamilyEffect(b *report.Bias) report.SameFamilyEffect {
	e := report.SameFamilyEffect{Alpha: SameFamilyAlpha}
	switch {
	case b.JudgeFamily == "":
		e.Words = "the light judge's model family is not known (give --judge-family), so no same-family effect is tested"
		return e
	case b.SameFamilyRuns == 0:
		e.Words = fmt.Sprintf("no run is of the light judge's family (%s), so no same-family effect is tested", b.JudgeFamily)
		return e
	case b.SameFamilyRuns == b.Runs:
		e.Words = fmt.Sprintf("every run is of the light judge's family (%s), so no same-family effect can be told apart", b.JudgeFamily)
		return e
	}
	gap, okGap := coefficient(b.ScoreGap, statistician.BiasSameFamily)
	lenient, okLen := coefficient(b.Leniency, statistician.BiasSameFamily)
	if !okGap && !okLen {
		e.Words = "the same-family coefficient is not defined: " + firstReason(b.ScoreGap, b.Leniency)
		return e
	}
	e.Tested = true
	p := math.Inf(1)
	for _, c := range []struct {
		ok bool
		c  report.Coefficient
	}{{okGap, gap}, {okLen, lenient}} {
		if c.ok {
			p = math.Min(p, c.c.P)
		}
	}
	e.P = &p
	e.Significant = p < SameFamilyAlpha
	var parts []string
	if okGap {
		parts = append(parts, fmt.Sprintf("scores %+.2f points against deep (p = %.3g)", gap.Estimate, gap.P))
	}
	if okLen {
		parts = append(parts, fmt.Sprintf("a lenient verdict %+.1f%% more often (p = %.3g)", 100*lenient.Estimate, lenient.P))
	}
	what := fmt.Sprintf("on the %d runs of its own family (%s), at equal length, the light judge %s", b.SameFamilyRuns, b.JudgeFamily, joinAnd(parts))
	if e.Significant {
		e.Words = fmt.Sprintf("same-family effect: %s; significant at p < %g", what, SameFamilyAlpha)
	} else {
		e.Words = fmt.Sprintf("no significant same-family effect: %s", what)
	}
	return e
}

// coefficient finds the named coefficient of r.
func coefficient(r report.Regression, name string) (report.Coefficient, bool) {
	for _, c := range r.Coefficients {
		if c.Name == name {
			return c, c.SE > 0
		}
	}
	return report.Coefficient{}, false
}

func firstReason(rs ...report.Regression) string {
	for _, r := range rs {
		if r.Reason != "" {
			return r.Reason
		}
	}
	return "the column was left out"
}

func joinAnd(parts []string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0]
	}
	return parts[0] + " and " + parts[1]
}

// families is each run's model family (byRun: in the order of the
// comparisons it was computed from).
type families struct {
	byRun []string
	list  []report.SystemFamily
}

// ModelFamilyField is the metadata field that names a run's model family.
const ModelFamilyField = "model_family"

// runFamilies is the model family of each run of cs: --family
// SYSTEM=FAMILY for its system (rep's inputs) first, else its
// metadata.model_family, else the family its system's name gives by
// ModelFamily ("gpt-4o" is openai), else none. The list names each
// system's families and their sources, sorted.
func runFamilies(rep *report.Report, cs []comparator.Comparison) families {
	f := families{byRun: make([]string, len(cs)), list: []report.SystemFamily{}}
	seen := map[report.SystemFamily]bool{}
	for i, c := range cs {
		sf := report.SystemFamily{System: c.System}
		if fam, ok := rep.Inputs.Families[c.System]; ok {
			sf.Family, sf.Source = fam, FamilyFromFlag
		} else if fam := c.Metadata[ModelFamilyField]; fam != "" {
			sf.Family, sf.Source = fam, FamilyFromMetadata
		} else if fam := ModelFamily(c.System); fam != "" {
			sf.Family, sf.Source = fam, FamilyFromName
		}
		f.byRun[i] = sf.Family
		if !seen[sf] {
			seen[sf] = true
			f.list = append(f.list, sf)
		}
	}
	sort.Slice(f.list, func(i, j int) bool {
		a, b := f.list[i], f.list[j]
		if a.System != b.System {
			return a.System < b.System
		}
		if a.Family != b.Family {
			return a.Family < b.Family
		}
		return a.Source < b.Source
	})
	return f
}

// OutputLengthField is the metadata field that gives the length of the
// judged output (characters or tokens).
const OutputLengthField = "output_length"

// runLengths is the length of each run of cs (in its order) for the bias
// regression and what it is: metadata.output_length when every run of cs
// has a positive one, else the run's size in bytes from rep's sample (0
// when unknown). (No map by run id: at a million runs three of them were
// a tenth of the statistics' CPU.)
func runLengths(rep *report.Report, cs []comparator.Comparison) ([]float64, string) {
	out := make([]float64, len(cs))
	all := len(cs) > 0
	for i, c := range cs {
		v, err := strconv.ParseFloat(c.Metadata[OutputLengthField], 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			all = false
			break
		}
		out[i] = v
	}
	if all {
		return out, biasLengthMetadata
	}
	clear(out)
	runs := rep.Sample.Runs
	if slices.IsSortedFunc(runs, func(a, b report.SampleRun) int { return strings.Compare(a.ID, b.ID) }) &&
		slices.IsSortedFunc(cs, func(a, b comparator.Comparison) int { return strings.Compare(a.RunID, b.RunID) }) {
		// Both by run id, as they come: one walk.
		k := 0
		for i, c := range cs {
			for k < len(runs) && runs[k].ID < c.RunID {
				k++
			}
			if k < len(runs) && runs[k].ID == c.RunID {
				out[i] = float64(runs[k].SizeBytes)
			}
		}
		return out, biasLength
	}
	size := make(map[string]int64, len(runs))
	for _, r := range runs {
		size[r.ID] = r.SizeBytes
	}
	for i, c := range cs {
		out[i] = float64(size[c.RunID])
	}
	return out, biasLength
}
