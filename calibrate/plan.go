package calibrate

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// PlanSchemaVersion is the version of the plan document's layout.
const PlanSchemaVersion = 1

// PlanOptions says what to plan for.
type PlanOptions struct {
	// HalfWidth is the wanted half-width of the deep pass rate's 95%
	// interval, a proportion in (0, 1) (0.05: plus or minus 5 points).
	HalfWidth float64
	// AgreementTarget is the level, in percent, the agreement's Wilson
	// lower bound should clear (the gating bar is 80).
	AgreementTarget float64
	// LightRuns is the number of runs light will inspect; 0 means the
	// pilot's. The plans are for the mean over these runs
	// (finite-population corrected, as the report's intervals).
	LightRuns int
	// Assurance is the probability, in [0.5, 1), that the realised
	// half-width is at most HalfWidth at the planned n, counting the
	// pilot's own uncertainty (statistician.PlanClassicalRateAssuredOfRuns,
	// PlanPPIRateAssuredOfRuns); 0 means 0.5, the plan on average.
	Assurance float64
	// Report names the pilot report, for the document.
	Report string
}

// PlanDocument answers, from a pilot report, how many deep inspections to
// pay for.
type PlanDocument struct {
	SchemaVersion int    `yaml:"schema_version" json:"schema_version"`
	GeneratedBy   string `yaml:"generated_by" json:"generated_by"`
	Pilot         Pilot  `yaml:"pilot" json:"pilot"`
	// HalfWidth and LightRuns are what was planned for.
	HalfWidth float64 `yaml:"half_width" json:"half_width"`
	LightRuns int     `yaml:"light_runs" json:"light_runs"`
	// Assurance is the probability the planned n reaches HalfWidth (0.5:
	// on average).
	Assurance float64 `yaml:"assurance" json:"assurance"`
	// DeepLabels are the deep inspections the pass rate's interval needs,
	// by estimator.
	DeepLabels []PlanRow `yaml:"deep_labels" json:"deep_labels"`
	// Allocation recommends how to split the deep inspections among the
	// strata light verdict x system (--deep-policy stratified).
	Allocation *Allocation `yaml:"allocation,omitempty" json:"allocation,omitempty"`
	// Agreement is the paired runs the agreement's lower bound needs.
	Agreement PlanRow  `yaml:"agreement" json:"agreement"`
	Notes     []string `yaml:"notes" json:"notes"`
}

// Pilot is what the plan was computed from.
type Pilot struct {
	Report string `yaml:"report" json:"report"`
	// NPaired runs have both depths; NLight have light.
	NPaired int `yaml:"n_paired" json:"n_paired"`
	NLight  int `yaml:"n_light" json:"n_light"`
	// DeepPassRate is the share of deep passes among the paired runs;
	// AgreementPercent the share of matching verdicts, in percent.
	DeepPassRate     *float64 `yaml:"deep_pass_rate" json:"deep_pass_rate"`
	AgreementPercent *float64 `yaml:"agreement_percent" json:"agreement_percent"`
}

// PlanRow is one planner's answer: N (deep inspections, or paired runs for
// agreement), what it achieves (the half-width, or the Wilson lower bound
// in percent), and the rate it was planned at.
type PlanRow struct {
	Method string `yaml:"method" json:"method"`
	// AtRate is the pass rate (or agreement, in percent) the plan
	// assumes.
	AtRate   *float64 `yaml:"at_rate" json:"at_rate"`
	N        *int     `yaml:"n" json:"n"`
	Achieved *float64 `yaml:"achieved" json:"achieved"`
	Lambda   *float64 `yaml:"lambda,omitempty" json:"lambda,omitempty"`
	Reason   string   `yaml:"reason,omitempty" json:"reason,omitempty"`
	Note     string   `yaml:"note,omitempty" json:"note,omitempty"`
}

// Allocation is a Neyman allocation of N deep inspections among strata.
type Allocation struct {
	N      int             `yaml:"n" json:"n"`
	Rule   string          `yaml:"rule" json:"rule"`
	Strata []AllocationRow `yaml:"strata" json:"strata"`
}

// AllocationRow is one stratum's share: its runs (scaled to the planned
// light runs), the pilot's deep labels in it and their standard
// deviation, and the deep inspections to give it.
type AllocationRow struct {
	Stratum     string  `yaml:"stratum" json:"stratum"`
	Runs        int     `yaml:"runs" json:"runs"`
	PilotLabels int     `yaml:"pilot_labels" json:"pilot_labels"`
	SD          float64 `yaml:"sd" json:"sd"`
	N           int     `yaml:"n" json:"n"`
}

// allocate recommends a Neyman allocation of n deep inspections among the
// strata light verdict x system of the pilot (statistician.
// NeymanAllocation, at least 2 per stratum): N_h is the stratum's share of
// the pilot's light runs scaled to lightRuns, S_h the standard deviation
// of the pilot's deep pass labels in it (n-1; from light's mean forecast,
// sqrt(p(1-p)), when it has fewer than 2 labels).
func allocate(rep *report.Report, n, lightRuns int) *Allocation {
	type stratum struct {
		runs int
		y    []float64
		f    float64
	}
	by := map[string]*stratum{}
	get := func(h string) *stratum {
		if by[h] == nil {
			by[h] = &stratum{}
		}
		return by[h]
	}
	total := 0
	for _, c := range rep.Comparisons {
		p, d := aggregate.LightForecast(c)
		s := get(aggregate.StratumOf(c.LightVerdict, c.System))
		s.runs++
		s.y, s.f = append(s.y, float64(d)), s.f+p
		total++
	}
	for _, l := range rep.LightOnly {
		s := get(aggregate.StratumOf(l.LightVerdict, l.System))
		s.runs++
		s.f += (l.Light.RuntimeFidelity + l.Light.TaskEffectiveness) / 200
		total++
	}
	if len(by) < 2 || n <= 0 || total == 0 {
		return nil
	}
	names := make([]string, 0, len(by))
	for h := range by {
		names = append(names, h)
	}
	slices.Sort(names)
	a := &Allocation{N: n, Rule: "Neyman: n_h proportional to N_h S_h, S_h the sd of the pilot's deep pass labels in the stratum (light's forecast when it has fewer than 2), at least 2 per stratum; run with --deep-policy stratified"}
	sizes, sd := make([]int, len(names)), make([]float64, len(names))
	for i, h := range names {
		s := by[h]
		sizes[i] = max(1, int(math.Round(float64(s.runs)*float64(lightRuns)/float64(total))))
		if len(s.y) >= 2 {
			sd[i] = statistician.SampleSD(s.y)
		} else {
			p := s.f / float64(s.runs)
			sd[i] = math.Sqrt(math.Max(0, p*(1-p)))
		}
	}
	alloc := statistician.NeymanAllocation(n, sizes, sd, 2)
	for i, h := range names {
		a.Strata = append(a.Strata, AllocationRow{Stratum: h, Runs: sizes[i], PilotLabels: len(by[h].y), SD: sd[i], N: alloc[i]})
	}
	return a
}

// Plan reads a pilot report and answers, for the classical and the PPI++
// estimators, how many deep inspections give a 95% interval of half-width
// opts.HalfWidth for the deep pass rate over the opts.LightRuns runs (the
// report's finite-population corrected intervals:
// statistician.PlanClassicalRateAssuredOfRuns at the observed rate and at
// the pilot's worst case, PlanPPIRateAssuredOfRuns with the pilot's light
// predictions and deep labels), and how many paired runs make
// the agreement's Wilson lower bound clear opts.AgreementTarget at the
// observed rate (statistician.PlanAgreement).
func Plan(rep *report.Report, opts PlanOptions, generatedBy string) (PlanDocument, error) {
	switch {
	case !(opts.HalfWidth > 0 && opts.HalfWidth < 1):
		return PlanDocument{}, fmt.Errorf("plan: half-width must be in (0, 1), got %v", opts.HalfWidth)
	case !(opts.AgreementTarget > 0 && opts.AgreementTarget < 100):
		return PlanDocument{}, fmt.Errorf("plan: agreement target must be in (0, 100) percent, got %v", opts.AgreementTarget)
	case opts.LightRuns < 0 || opts.LightRuns > statistician.MaxPlanN:
		return PlanDocument{}, fmt.Errorf("plan: light runs must be in [0, %d], got %d", statistician.MaxPlanN, opts.LightRuns)
	case opts.Assurance != 0 && !(opts.Assurance >= 0.5 && opts.Assurance < 1):
		return PlanDocument{}, fmt.Errorf("plan: assurance must be in [0.5, 1), got %v", opts.Assurance)
	}
	if opts.Assurance == 0 {
		opts.Assurance = 0.5
	}
	doc := PlanDocument{SchemaVersion: PlanSchemaVersion, GeneratedBy: generatedBy, HalfWidth: opts.HalfWidth,
		Assurance: opts.Assurance, DeepLabels: []PlanRow{}, Notes: []string{}}
	var y, f []float64
	passes, matches := 0, 0
	for _, c := range rep.Comparisons {
		p, d := aggregate.LightForecast(c)
		y, f = append(y, float64(d)), append(f, p)
		passes += d
		if c.VerdictMatch {
			matches++
		}
	}
	n := len(rep.Comparisons)
	doc.Pilot = Pilot{Report: opts.Report, NPaired: n, NLight: n + len(rep.LightOnly)}
	doc.LightRuns = opts.LightRuns
	if doc.LightRuns == 0 {
		doc.LightRuns = doc.Pilot.NLight
	}
	if n == 0 {
		return doc, fmt.Errorf("plan: %s: the pilot report has no run with both depths", opts.Report)
	}
	rate := float64(passes) / float64(n)
	agree := 100 * float64(matches) / float64(n)
	doc.Pilot.DeepPassRate, doc.Pilot.AgreementPercent = &rate, &agree

	const lvl = 0.95
	P := opts.Assurance
	doc.DeepLabels = append(doc.DeepLabels, planRow(statistician.PlanClassicalRateAssuredOfRuns(rate, passes, n, doc.LightRuns, opts.HalfWidth, lvl, P), rate,
		"at the pilot's deep pass rate"))
	if worst, err := statistician.WorstCaseRate(passes, n, statistician.Z95); err == nil && worst != rate {
		// The worst case already covers the pilot's uncertainty: only the
		// sampling of the n labels is assured.
		doc.DeepLabels = append(doc.DeepLabels, planRow(statistician.PlanClassicalRateAssuredOfRuns(worst, 0, 0, doc.LightRuns, opts.HalfWidth, lvl, P), worst,
			"at the rate in the pilot's 95% interval closest to 0.5: enough whatever the rate turns out to be"))
	}
	ppi := planRow(statistician.PlanPPIRateAssuredOfRuns(y, f, doc.LightRuns, opts.HalfWidth, lvl, P), rate,
		fmt.Sprintf("with light on all %d runs, light's predictive power as in the pilot", doc.LightRuns))
	doc.DeepLabels = append(doc.DeepLabels, ppi)
	if ppi.N != nil {
		doc.Allocation = allocate(rep, *ppi.N, doc.LightRuns)
	} else if doc.DeepLabels[0].N != nil {
		doc.Allocation = allocate(rep, *doc.DeepLabels[0].N, doc.LightRuns)
	}

	target := opts.AgreementTarget / 100
	ap := statistician.PlanAgreement(agree/100, target, statistician.Z95)
	doc.Agreement = planRow(ap, agree, fmt.Sprintf("paired runs for the Wilson lower bound to clear %g%%", opts.AgreementTarget))
	if doc.Agreement.Achieved != nil {
		v := 100 * *doc.Agreement.Achieved
		doc.Agreement.Achieved = &v
	}
	if P != 0.5 {
		doc.Notes = append(doc.Notes, fmt.Sprintf("assurance %g: at the planned n the realised half-width is at most %g with probability %g, counting the pilot's own uncertainty; at 0.5 it is about %g on average", P, opts.HalfWidth, P, opts.HalfWidth))
	}
	if n < 30 {
		doc.Notes = append(doc.Notes, fmt.Sprintf("the pilot has %d paired runs: its rates are rough, so the plans are too; plan with the worst case", n))
	}
	if rep.Inputs.Repeat > 1 {
		doc.Notes = append(doc.Notes, "the pilot used --repeat: the plans count runs, each inspected as many times")
	}
	return doc, nil
}

// planRow is a statistician.Plan in the document's form.
func planRow(p statistician.Plan, at float64, note string) PlanRow {
	r := PlanRow{Method: p.Method, Lambda: p.Lambda, Reason: p.Reason, Note: note}
	a := at
	r.AtRate = &a
	if p.N > 0 {
		n := p.N
		r.N = &n
	}
	if !math.IsNaN(p.Achieved) && !math.IsInf(p.Achieved, 0) && (p.N > 0 || p.Achieved != 0) {
		v := p.Achieved
		r.Achieved = &v
	}
	return r
}

// Markdown renders the plan as a short Markdown page: the pilot, one table
// of deep inspections by estimator, and the agreement plan.
func (d PlanDocument) Markdown() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "# How many deep inspections?\n\n")
	fmt.Fprintf(&b, "Pilot `%s`: %d runs with both depths, %d with light", d.Pilot.Report, d.Pilot.NPaired, d.Pilot.NLight)
	if d.Pilot.DeepPassRate != nil && d.Pilot.AgreementPercent != nil {
		fmt.Fprintf(&b, "; deep pass rate %s, agreement %.2f%%", stat(*d.Pilot.DeepPassRate), *d.Pilot.AgreementPercent)
	}
	fmt.Fprintf(&b, ".\n\n## Deep pass rate to within ±%s (95%%), light on %d runs", stat(d.HalfWidth), d.LightRuns)
	if d.Assurance != 0.5 && d.Assurance != 0 {
		fmt.Fprintf(&b, ", with probability %s", stat(d.Assurance))
	}
	b.WriteString("\n\n")
	b.WriteString("| estimator | at rate | deep inspections | half-width reached | note |\n|---|---|---|---|---|\n")
	for _, r := range d.DeepLabels {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.Method, optStat(r.AtRate), optInt(r.N), optStat(r.Achieved), rowNote(r))
	}
	if al := d.Allocation; al != nil {
		fmt.Fprintf(&b, "\n## Stratified allocation of %d deep inspections\n\n%s.\n\n| stratum | runs | pilot labels | sd | deep inspections |\n|---|---|---|---|---|\n", al.N, al.Rule)
		for _, r := range al.Strata {
			fmt.Fprintf(&b, "| %s | %d | %d | %s | %d |\n", r.Stratum, r.Runs, r.PilotLabels, stat(r.SD), r.N)
		}
	}
	a := d.Agreement
	fmt.Fprintf(&b, "\n## Agreement\n\n| observed | paired runs | lower bound reached | note |\n|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", optPercent(a.AtRate), optInt(a.N), optPercent(a.Achieved), rowNote(a))
	for _, n := range d.Notes {
		fmt.Fprintf(&b, "\n> %s\n", n)
	}
	return []byte(b.String())
}

func rowNote(r PlanRow) string {
	if r.Reason != "" {
		return r.Reason
	}
	return r.Note
}

// stat writes a proportion or statistic to 6 significant digits.
func stat(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

func optStat(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return stat(*x)
}

func optPercent(x *float64) string {
	if x == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2f%%", *x)
}

func optInt(n *int) string {
	if n == nil {
		return "n/a"
	}
	return strconv.Itoa(*n)
}
