package render

import (
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// Headings of the sections the banner's notes and the warnings point at.
const (
	headingFailures   = "Failed inspections"
	headingInvalid    = "Runs set aside as invalid"
	headingReadInPart = "Runs read only in part"
	headingRejected   = "Rejected lines"
	headingLightOnly  = "Runs inspected at light depth only"
)

// MarkdownDisagreementRows caps each per-run table of the Markdown
// summary (disagreements, light-only runs, inclusion probabilities,
// repeats), which must fit a pull-request comment (65,536 characters on
// GitHub); the HTML report and the YAML list them all.
const MarkdownDisagreementRows = 50

// trustBadge is each trust level's badge, its style and, in one short
// sentence, what it lets a team do; the banner's reasons (summary.why)
// say which bars of advisor.Trust the bounds clear.
func trustBadge(trust string) (badge, level, meaning string) {
	switch trust {
	case advisor.TrustGate:
		return "GATE", "gate", "Light can gate CI in deep's place."
	case advisor.TrustMonitor:
		return "MONITOR", "monitor", "Use light for trends and dashboards, not to gate CI."
	case advisor.TrustExplore:
		return "EXPLORE", "explore", "Light is not yet a proxy for deep: keep deep in the loop."
	case advisor.TrustInsufficient:
		return "INSUFFICIENT EVIDENCE", "insufficient", "Too little evidence to tell whether light can stand in for deep."
	}
	return "NO VERDICT", "none", "This report carries no trust verdict; the figures below still hold."
}

// calibrationPage lays out a calibration report in the order a reader
// needs it: the verdict, the headline figures and the recommendations,
// the statistics, and the per-run listings last. With plots it adds the
// charts (HTML).
func calibrationPage(r *report.Report, plots bool) page {
	p := page{Title: "evalcal calibration report", Contents: true, Banner: calibrationBanner(r)}
	p.Sections = append(p.Sections, headlineSection(r), recommendationSection(r))
	if r.Gates != nil {
		p.Sections = append(p.Sections, gatesSection(r.Gates))
	}
	if r.Trend != nil {
		p.Sections = append(p.Sections, trendSection(*r.Trend))
	}
	p.Sections = append(p.Sections, agreementSection(r, plots))
	if len(r.Slices) > 0 {
		p.Sections = append(p.Sections, slicesSection(r.Slices))
	}
	if r.Estimate != nil {
		p.Sections = append(p.Sections, estimateSection(*r.Estimate))
	}
	for _, sc := range []struct {
		name string
		corr report.Correlation
		d    report.ScoreDelta
	}{
		{"runtime_fidelity", r.ScoreCorrelation.RuntimeFidelity, r.MeanScoreDelta.RuntimeFidelity},
		{"task_effectiveness", r.ScoreCorrelation.TaskEffectiveness, r.MeanScoreDelta.TaskEffectiveness},
	} {
		s := scoreSection(sc.name, sc.corr, sc.d)
		if plots {
			s.Blocks = append(s.Blocks,
				block{Figure: drawFigure("light vs deep "+sc.name+" on equal axes, with the identity line (deep = light) at 45 degrees; "+
					"marker area grows with the runs at a point, and a number gives them when more than one",
					func() ([]byte, error) { return scatterSVG(r.Comparisons, sc.name) })},
				block{Figure: drawFigure("Bland-Altman plot of "+sc.name+": deep - light against the pair's mean, with the bias and the 95% limits of agreement; "+
					"marker area and number as in the scatter",
					func() ([]byte, error) { return blandAltmanSVG(r.Comparisons, sc.name, sc.d.BlandAltman) })},
			)
		}
		p.Sections = append(p.Sections, s)
	}
	p.Sections = append(p.Sections, forecastSection(r.Forecast, plots))
	if r.Bias != nil {
		p.Sections = append(p.Sections, biasSection(*r.Bias))
	}
	if r.Repeatability != nil {
		p.Sections = append(p.Sections, repeatabilitySection(*r.Repeatability))
	}
	if r.Escalation != nil {
		p.Sections = append(p.Sections, escalationPageSection(*r.Escalation, plots))
	}
	if r.Position != nil {
		p.Sections = append(p.Sections, positionPageSection(*r.Position))
	}
	if len(r.Perturbations) > 0 {
		p.Sections = append(p.Sections, perturbationPageSection(r.Perturbations))
	}
	p.Sections = append(p.Sections, costSection(r.Cost), warningSection(r.Warnings))
	// The per-run listings.
	p.Sections = append(p.Sections, disagreementSection(r, !plots))
	if r.LightOnly != nil {
		p.Sections = append(p.Sections, lightOnlySection(r.LightOnly, !plots))
	}
	if r.Inclusion != nil {
		p.Sections = append(p.Sections, inclusionSection(r.Inclusion, !plots))
	}
	if r.Repeats != nil {
		p.Sections = append(p.Sections, repeatsSection(r.Repeats, !plots))
	}
	p.Sections = append(p.Sections, failureSection(r), invalidSection(r.Sample.Invalid), readInPartSection(r.Sample.Runs))
	if len(r.Sample.Rejected) > 0 {
		p.Sections = append(p.Sections, section{ID: "rejected", Heading: headingRejected, Blocks: []block{
			{Text: "Saved-inspection lines that name no readable run and depth, so that no inspection could be charged with them:"},
			{Items: append([]string(nil), r.Sample.Rejected...)}}})
	}
	p.Sections = append(p.Sections, inputsSection(r))
	return p
}

// calibrationBanner is the verdict: the trust badge and its meaning, the
// summary sentence (or, for a report without one, the agreement line), the
// failed gates, the reasons, and what the report sets aside.
func calibrationBanner(r *report.Report) banner {
	var bn banner
	bn.Badge, bn.Level, bn.Meaning = trustBadge(r.Summary.Trust)
	if r.Summary.Sentence != "" {
		bn.Text = []string{r.Summary.Sentence}
	} else {
		bn.Text = []string{agreementLine(r)}
	}
	gateAlerts(&bn, r.Gates)
	if len(bn.Alerts) == 0 && r.Summary.GatesFailed > 0 {
		// A report whose gate records were dropped still says so.
		bn.AlertTitle = fmt.Sprintf("GATES FAILED: %d", r.Summary.GatesFailed)
		bn.Alerts = []string{"see the report's gates"}
	}
	bn.Why = append([]string(nil), r.Summary.Why...)
	bn.Advice = r.Summary.Advice
	if n := len(r.Failures); n > 0 {
		bn.Notes = append(bn.Notes, note{plural(n, "failed inspection", "failed inspections"), "failures"})
	}
	if n := len(r.Sample.Invalid); n > 0 {
		bn.Notes = append(bn.Notes, note{plural(n, "run set aside as invalid", "runs set aside as invalid"), "invalid"})
	}
	if n := r.Sample.ReadInPart; n > 0 {
		bn.Notes = append(bn.Notes, note{plural(n, "sampled run read only in part", "sampled runs read only in part"), "read-in-part"})
	}
	if n := len(r.LightOnly); n > 0 {
		bn.Notes = append(bn.Notes, note{plural(n, "run inspected at light depth only", "runs inspected at light depth only"), "light-only"})
	}
	if n := len(r.Sample.Rejected); n > 0 {
		bn.Notes = append(bn.Notes, note{plural(n, "rejected inspection line", "rejected inspection lines"), "rejected"})
	}
	if n := len(r.Warnings); n > 0 {
		bn.Notes = append(bn.Notes, note{plural(n, "warning", "warnings"), "warnings"})
	}
	return bn
}

// agreementLine is the report in one line when it carries no summary
// sentence.
func agreementLine(r *report.Report) string {
	a := r.AgreementRate
	var s string
	if a.Percent == nil || a.Wilson95 == nil {
		s = "Light and deep were compared on no run: agreement " + fmtNA(a.Reason)
	} else {
		s = fmt.Sprintf("Light agrees with deep on %s of runs (%d of %d, Wilson 95%% %s)", fmtPercent(*a.Percent), a.Matches, a.N, fmtPercentCI(*a.Wilson95))
	}
	s += "; confidence " + r.Confidence + "; bias " + r.BiasDirection
	if r.Preliminary {
		s += "; preliminary"
	}
	if r.Partial {
		s += "; partial"
	}
	return s + "."
}

// headlineSection is the report's figures at a glance: agreement, the
// clustered agreement, linear kappa, leniency, the deep pass-rate
// estimate, the cost per run, and what was compared.
func headlineSection(r *report.Report) section {
	a := r.AgreementRate
	t := table{Header: []string{"figure", "value", "95% interval", "note"}}
	if a.Percent != nil && a.Wilson95 != nil {
		t.Rows = append(t.Rows, []string{"verdict agreement", fmtPercent(*a.Percent), fmtPercentCI(*a.Wilson95),
			fmt.Sprintf("%d of %d runs agree (Wilson interval)", a.Matches, a.N)})
	} else {
		t.Rows = append(t.Rows, []string{"verdict agreement", fmtNA(firstNonEmpty(a.Reason, "no run has both verdicts")), "", ""})
	}
	t.Rows = append(t.Rows, clusteredRow(r.AgreementClustered, a.N))
	k := r.Kappa.Linear
	if k.Reason == "" && k.N > 0 {
		t.Rows = append(t.Rows, []string{"linear kappa", fmtStat(k.Value), fmtStatCI(k.CI95), "verdicts ordered fail < partial < pass"})
	} else {
		t.Rows = append(t.Rows, []string{"linear kappa", fmtNA(k.Reason), "", ""})
	}
	t.Rows = append(t.Rows, leniencyRow(r.Leniency, a.N))
	if e := r.Estimate; e != nil {
		if b := e.Best; b != nil {
			t.Rows = append(t.Rows, []string{fmt.Sprintf("deep pass rate over all %d runs (estimate)", e.NLight), fmtPercent(100 * b.Point),
				fmtPercentCI(statistician.Interval{Lower: 100 * b.Lower, Upper: 100 * b.Upper}),
				fmt.Sprintf("%s, from %d deep inspections", b.Method, e.NDeep)})
		} else {
			t.Rows = append(t.Rows, []string{"deep pass rate over all runs (estimate)", fmtNA("no estimator has a valid interval"), "", ""})
		}
	}
	t.Rows = append(t.Rows, costRow(r.Cost))
	compared := fmt.Sprintf("%d sampled", len(r.Sample.Runs))
	if n := len(r.Failures); n > 0 {
		compared += ", " + plural(n, "failed inspection", "failed inspections")
	}
	if n := len(r.LightOnly); n > 0 {
		compared += fmt.Sprintf(", %d light only", n)
	}
	if n := len(r.Sample.Invalid); n > 0 {
		compared += fmt.Sprintf(", %d set aside as invalid", n)
	}
	t.Rows = append(t.Rows,
		[]string{"runs compared", fmtCount(a.N), "", compared},
		[]string{"confidence", r.Confidence, "", confidenceNote(r)},
		[]string{"bias of light's scores", r.BiasDirection, "", "mean deep - light over both scores; optimistic below -5 points, pessimistic above 5"})
	return section{ID: "headline", Heading: "Headline figures", Blocks: []block{{Table: &t}}}
}

func confidenceNote(r *report.Report) string {
	var parts []string
	if r.Preliminary {
		parts = append(parts, "preliminary: 5 runs or fewer")
	}
	if r.Partial {
		parts = append(parts, "partial: some inspections failed")
	}
	if len(parts) == 0 {
		return "high: 20+ runs and agreement > 90%; medium: 10+ and > 75%"
	}
	return strings.Join(parts, "; ")
}

// notComputed is the reason a section of a report that was written
// without it (all zero, with runs compared) has no figures.
const notComputed = "not computed in this report"

// clusteredRow is the agreement with runs of one system not taken as
// independent; compared is the number of runs compared.
func clusteredRow(c report.ClusteredRate, compared int) []string {
	if c.Percent == nil || c.CI95 == nil {
		reason := c.Reason
		if reason == "" && compared > 0 {
			reason = notComputed
		}
		return []string{clusterLabel(c), fmtNA(reason), "", ""}
	}
	return []string{clusterLabel(c), fmtPercent(*c.Percent), fmtPercentCI(*c.CI95), clusteredNote(c)}
}

// leniencyRow says which way light errs at the pass line; compared is
// the number of runs compared.
func leniencyRow(l report.Leniency, compared int) []string {
	if l.N == 0 {
		reason := "no run has both verdicts"
		if compared > 0 {
			reason = notComputed
		}
		return []string{"leniency at the pass line", fmtNA(reason), "", ""}
	}
	var value string
	switch l.Direction {
	case aggregate.Lenient:
		value = fmt.Sprintf("lenient: light passes %s deep does not, misses %s", plural(l.LightPassDeepNot, "run", "runs"), plural(l.DeepPassLightNot, "deep pass", "deep passes"))
	case aggregate.Strict:
		value = fmt.Sprintf("strict: light misses %s, passes %s deep does not", plural(l.DeepPassLightNot, "deep pass", "deep passes"), plural(l.LightPassDeepNot, "run", "runs"))
	default:
		value = fmt.Sprintf("balanced: %s each way", plural(l.LightPassDeepNot, "run", "runs"))
	}
	note := "McNemar p = " + fmtNA("no discordant run")
	if l.McNemarP != nil {
		note = "McNemar p = " + fmtP(*l.McNemarP)
		if l.Significant {
			note += ", significant at 5%"
		} else {
			note += ", not significant at 5%"
		}
	}
	return []string{"leniency at the pass line", value, "", note}
}

// costRow is what a run costs on each side.
func costRow(c report.Cost) []string {
	if c.Light.PerRun == nil && c.Deep.PerRun == nil {
		return []string{"cost per run", fmtNA("the inspectors reported no cost"), "", ""}
	}
	value := "light " + optUSD(c.Light.PerRun) + ", deep " + optUSD(c.Deep.PerRun)
	note := ""
	if c.DeepToLightPerRun != nil {
		note = "deep costs " + fmtStat(*c.DeepToLightPerRun) + " times light per run"
	}
	return []string{"cost per run", value, "", note}
}

func optUSD(x *float64) string {
	if x == nil {
		return "n/a (unknown)"
	}
	return fmtUSD(*x)
}

// recommendationSection lists the recommendations in the document's
// order (by priority), each with the agreement it would reach, then the
// document's note on their two kinds of expected impact.
func recommendationSection(r *report.Report) section {
	s := section{ID: "recommendations", Heading: "Recommendations"}
	if len(r.Recommendations) == 0 {
		s.Blocks = append(s.Blocks, block{Text: "None."})
		return s
	}
	var items []string
	for _, rec := range r.Recommendations {
		im := rec.ExpectedImpact
		cur, agr := fmtPercent(im.CurrentPercent), fmtPercent(im.AgreementPercent)
		if im.CurrentCI95 != nil && im.AgreementCI95 != nil {
			cur, agr = cur+" "+fmtPercentCI(*im.CurrentCI95), agr+" "+fmtPercentCI(*im.AgreementCI95)
		}
		item := fmt.Sprintf("P%d %s: %s. Change: %s. Expected impact: agreement %s → %s (+%s points, %d of %d verdicts",
			rec.Priority, rec.Target, rec.Rationale, rec.ProposedChange, cur, agr, fmtScore(im.GainPoints), im.VerdictsResolved, im.N)
		if im.Basis != "" {
			item += "; " + im.Basis
		}
		items = append(items, item+")."+report.TestClause(rec.Test))
	}
	s.Blocks = append(s.Blocks, block{Items: items})
	if r.RecommendationsNote != "" {
		s.Blocks = append(s.Blocks, block{Text: r.RecommendationsNote})
	}
	return s
}

// slicedBySystem says whether r's slices section slices by system: its
// figures are agreement_by_system's (segment.Agreements), shown there
// once.
func slicedBySystem(r *report.Report) bool {
	for _, f := range r.Slices {
		if f.Field == inspection.SystemField {
			return true
		}
	}
	return false
}

// agreementSection holds the verdict-level statistics: agreement by
// system, kappa, leniency, the disagreement types and the confusion
// matrix (with its heat map in HTML, in the table's row and column order).
func agreementSection(r *report.Report, plots bool) section {
	s := section{ID: "agreement", Heading: "Verdict agreement"}
	if slicedBySystem(r) {
		s.Blocks = append(s.Blocks, block{Text: "Agreement by system: see Slices below."})
	} else if len(r.AgreementBySystem) > 0 {
		st := table{Header: []string{"system", "agreement", "runs", "95% interval", "simultaneous 95% (tested systems)"}}
		for _, sa := range r.AgreementBySystem {
			st.Rows = append(st.Rows, []string{sa.System, fmtPercent(sa.Percent), fmt.Sprintf("%d/%d", sa.Matches, sa.N),
				optCI(sa.Wilson95), optCI(sa.Simultaneous)})
		}
		s.Blocks = append(s.Blocks, block{Table: &st})
	}
	s.Blocks = append(s.Blocks, kappaBlocks(r.Kappa)...)
	if r.AgreementRobust != nil {
		s.Blocks = append(s.Blocks, robustBlocks(*r.AgreementRobust)...)
	}
	if l := r.Leniency; l.N > 0 {
		lt := table{Header: []string{"at the pass line", "runs"}, Rows: [][]string{
			{"light passes, deep does not", fmtCount(l.LightPassDeepNot)},
			{"deep passes, light does not", fmtCount(l.DeepPassLightNot)},
			{"runs with both verdicts", fmtCount(l.N)},
		}}
		s.Blocks = append(s.Blocks, block{Table: &lt}, block{Text: fmt.Sprintf("Pass rates over the same runs: light %s, deep %s; light is %s (%s).",
			optPercent(l.LightPassRate, ""), optPercent(l.DeepPassRate, ""), l.Direction, leniencyRow(l, l.N)[3])})
	} else {
		s.Blocks = append(s.Blocks, block{Text: "Leniency at the pass line: " + leniencyRow(l, r.AgreementRate.N)[1] + "."})
	}
	b := r.DisagreementBreakdown
	bd := table{Header: []string{"disagreement type", "runs"}, Rows: [][]string{
		{string(comparator.VerdictSplit), fmtCount(b.VerdictSplit)},
		{string(comparator.FalseNegative), fmtCount(b.FalseNegative)},
		{string(comparator.SeverityMismatch), fmtCount(b.SeverityMismatch)},
		{string(comparator.FalsePositive), fmtCount(b.FalsePositive)},
	}}
	s.Blocks = append(s.Blocks, block{Table: &bd})
	s.Blocks = append(s.Blocks, confusionBlocks(r.Confusion)...)
	if plots {
		s.Blocks = append(s.Blocks, block{Figure: drawFigure("verdict confusion matrix: rows light, columns deep, in the table's order",
			func() ([]byte, error) { return confusionSVG(r.Confusion) })})
	}
	return s
}

func kappaBlocks(k report.KappaSection) []block {
	row := func(name string, v statistician.Kappa) []string {
		if v.Reason != "" || v.N == 0 {
			return []string{name, fmtNA(v.Reason), "", "", fmtCount(v.N)}
		}
		return []string{name, fmtStat(v.Value), fmtStatCI(v.CI95), fmtStat(v.SE), fmtCount(v.N)}
	}
	t := table{Header: []string{"Cohen's kappa", "value", "95% interval", "SE", "n"}, Rows: [][]string{
		row("unweighted", k.Unweighted), row("linear", k.Linear), row("quadratic", k.Quadratic),
	}}
	// Raw agreement is the verdict agreement of the headline, shown as it
	// is there (a percentage), not as a second form of the same figure.
	text := fmt.Sprintf("Raw agreement %s, prevalence- and bias-adjusted kappa (PABAK) %s.", fmtPercent(100*k.RawAgreement), fmtStat(k.PABAK))
	if k.Linear.N == 0 {
		text = "Raw agreement and PABAK: n/a (no run has both verdicts)."
	}
	return []block{{Table: &t}, {Text: text}}
}

func confusionBlocks(c report.Confusion) []block {
	header := []string{c.Rows + " \\ " + c.Columns}
	for _, o := range c.Order {
		header = append(header, c.Columns+" "+o)
	}
	var rows [][]string
	for i, o := range c.Order {
		row := []string{c.Rows + " " + o}
		for j := range c.Order {
			v := 0
			if i < len(c.Counts) && j < len(c.Counts[i]) {
				v = c.Counts[i][j]
			}
			row = append(row, fmtCount(v))
		}
		rows = append(rows, row)
	}
	return []block{
		{Table: &table{Header: header, Rows: rows}},
		{Items: []string{
			"light pass, deep fail: " + listOrNone(c.LightPassDeepFail),
			"light fail, deep pass: " + listOrNone(c.LightFailDeepPass),
		}},
	}
}

// estimateSection is what deep would say over every sampled run: per
// target and method, the estimate, its 95% interval and the effective
// number of deep inspections it is worth.
func estimateSection(e report.Estimate) section {
	s := section{ID: "estimate", Heading: "Deep's verdict over all runs (estimate)"}
	s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("Deep inspected %d of the %d runs light inspected (%s); light predicts deep by %s.",
		e.NDeep, e.NLight, e.Design, e.Predictor)})
	t := table{Header: []string{"target", "method", "estimate", "95% interval", "SE", "effective n"}}
	add := func(target string, set report.EstimateSet, pass bool) {
		for _, m := range []struct {
			name string
			est  *report.MethodEstimate
		}{{"classical", &set.Classical}, {"ppi", &set.PPI}, {"ipw", set.IPW}, {"rogan_gladen", set.RoganGladen},
			{"stratified_ppi", set.StratPPI}, {calibratedName(set.Predictor), set.PPICalibrated}} {
			if m.est == nil {
				continue
			}
			t.Rows = append(t.Rows, estimateRow(target, m.name, *m.est, pass))
		}
		if e.Cluster != nil {
			t.Rows = append(t.Rows, clusteredEstimateRows(target, set, pass, e.Cluster.Field)...)
		}
	}
	add("deep pass rate", e.PassRate, true)
	add("deep runtime_fidelity (points)", e.RuntimeFidelity, false)
	add("deep task_effectiveness (points)", e.TaskEffectiveness, false)
	s.Blocks = append(s.Blocks, block{Table: &t})
	if b := e.Best; b != nil {
		s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("The summary quotes %s for the pass rate: the narrowest valid interval the design supports.", b.Method)})
	}
	if len(e.Notes) > 0 {
		s.Blocks = append(s.Blocks, block{Items: append([]string(nil), e.Notes...)})
	}
	var off []string
	for _, c := range e.Transport {
		if !c.Transports && c.MeanResidual != nil && c.CI95 != nil {
			off = append(off, fmt.Sprintf("%s: deep minus the calibrated prediction %s, 95%% interval %s (%d labels)",
				c.System, fmtPercent(100**c.MeanResidual), fmtPercentCI(statistician.Interval{Lower: 100 * c.CI95.Lower, Upper: 100 * c.CI95.Upper}), c.N))
		}
	}
	if len(off) > 0 {
		s.Blocks = append(s.Blocks, block{Text: "Light's calibration map (ppi_calibrated) does not transport to these systems:"}, block{Items: off})
	}
	return s
}

// calibratedName names the calibrated PPI++ row with the predictor it
// used.
func calibratedName(predictor string) string {
	if predictor == "" {
		return "ppi_calibrated"
	}
	return "ppi_calibrated (" + predictor + " map)"
}

// estimateRow is one estimator's row: a pass rate (a proportion) in
// percent, a mean score in points; lambda, when the method tunes one, in
// the method's name.
func estimateRow(target, method string, m report.MethodEstimate, pass bool) []string {
	if m.Point == nil || m.CI95 == nil {
		return []string{target, method, fmtNA(m.Reason), "", "", ""}
	}
	if m.Lambda != nil {
		method += " (lambda " + fmtStat(*m.Lambda) + ")"
	}
	if m.Pooled {
		method += ", pooled: PPI++ over all runs was narrower"
	}
	point, ci := fmtScore(*m.Point), fmtScoreCI(*m.CI95)
	se := optScore(m.SE, "")
	if pass {
		point, ci = fmtPercent(100**m.Point), fmtPercentCI(statistician.Interval{Lower: 100 * m.CI95.Lower, Upper: 100 * m.CI95.Upper})
		se = "n/a"
		if m.SE != nil {
			se = fmtPercent(100 * *m.SE)
		}
	}
	return []string{target, method, point, ci, se, optStat(m.EffectiveN, "")}
}

func scoreSection(name string, c report.Correlation, d report.ScoreDelta) section {
	var rows [][]string
	switch {
	case c.R != nil:
		ci := ""
		if c.CI95 != nil {
			ci = fmtStatCI(*c.CI95)
		}
		note := ""
		if c.P != nil {
			note = "p = " + fmtP(*c.P)
		}
		rows = append(rows, []string{"Pearson r", fmtStat(*c.R), ci, fmtCount(c.N), note})
		if c.Spearman != nil {
			rows = append(rows, []string{"Spearman rho", fmtStat(*c.Spearman), "", fmtCount(c.N), ""})
		}
	default:
		rows = append(rows, []string{"Pearson r", fmtNA(firstNonEmpty(c.Insufficient, c.Undefined)), "", fmtCount(c.N), ""})
	}
	switch {
	case d.CI95 != nil:
		rows = append(rows, []string{"mean delta (deep - light, points)", fmtScore(d.Mean), fmtScoreCI(*d.CI95), fmtCount(d.N), d.Direction})
	case d.N > 0:
		rows = append(rows, []string{"mean delta (deep - light, points)", fmtScore(d.Mean), fmtNA(d.Reason), fmtCount(d.N), d.Direction})
	default:
		rows = append(rows, []string{"mean delta (deep - light, points)", fmtNA(d.Reason), "", fmtCount(d.N), ""})
	}
	ba := d.BlandAltman
	if ba.Reason == "" && ba.N > 0 {
		rows = append(rows,
			[]string{"Bland-Altman bias (points)", fmtScore(ba.Bias), fmtScoreCI(ba.BiasCI), fmtCount(ba.N), ""},
			[]string{"lower limit of agreement (points)", fmtScore(ba.Lower), fmtScoreCI(ba.LowerCI), "", ""},
			[]string{"upper limit of agreement (points)", fmtScore(ba.Upper), fmtScoreCI(ba.UpperCI), "", ""})
	} else {
		rows = append(rows, []string{"Bland-Altman", fmtNA(ba.Reason), "", fmtCount(ba.N), ""})
	}
	if d.CCC.Reason == "" && d.CCC.N > 0 {
		rows = append(rows, []string{"Lin's CCC", fmtStat(d.CCC.Value), fmtStatCI(d.CCC.CI95), fmtCount(d.CCC.N), ""})
	} else {
		rows = append(rows, []string{"Lin's CCC", fmtNA(d.CCC.Reason), "", fmtCount(d.CCC.N), ""})
	}
	return section{ID: "score-" + anchorOf(name), Heading: "Score: " + name, Blocks: []block{{Table: &table{Header: []string{"statistic", "value", "95% interval", "n", "note"}, Rows: rows}}}}
}

func forecastSection(f report.Forecast, plots bool) section {
	s := section{ID: "forecast", Heading: "Light's score as a forecast of a deep pass"}
	base := "n/a"
	if f.N > 0 {
		base = fmtStat(f.BaseRate)
	}
	s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("Forecast p = %s of \"%s\"; %d runs, %d deep passes (base rate %s).",
		f.Probability, f.Of, f.N, f.DeepPasses, base)})
	if f.Reason != "" {
		s.Blocks = append(s.Blocks, block{Text: "Not fully scored: " + f.Reason})
	}
	rows := [][]string{
		{"Brier score", optStat(f.Brier, f.Reason)},
		{"calibration (0-100)", optScore(f.Calibration, f.Reason)},
	}
	if f.CORP != nil {
		rows = append(rows,
			[]string{"CORP miscalibration (MCB)", fmtStat(f.CORP.MCB)},
			[]string{"CORP discrimination (DSC)", fmtStat(f.CORP.DSC)},
			[]string{"CORP uncertainty (UNC)", fmtStat(f.CORP.UNC)})
	}
	s.Blocks = append(s.Blocks, block{Table: &table{Header: []string{"score", "value"}, Rows: rows}})
	if f.Reliability != nil {
		s.Blocks = append(s.Blocks, block{Table: reliabilityTable(*f.Reliability, true)})
		if plots {
			bins := f.Reliability.Table
			s.Blocks = append(s.Blocks, block{Figure: drawFigure("reliability diagram of light's score as a forecast of a deep pass: marker area by the bin's runs, Wilson 95% bars, empty bins not drawn",
				func() ([]byte, error) { return reliabilitySVG(bins) })})
		}
	}
	return s
}

// repeatabilitySection is each side's agreement with itself over K
// repeats.
func repeatabilitySection(rp report.Repeatability) section {
	t := table{Header: []string{"side", "runs", "flip rate", "pass all K", "Fleiss kappa", "95% interval", "score spread RF (points)", "score spread TE (points)"}}
	for _, sd := range []struct {
		name string
		s    report.SideRepeatability
	}{{"light", rp.Light}, {"deep", rp.Deep}} {
		s := sd.s
		if s.Reason != "" && s.FlipRate == nil {
			t.Rows = append(t.Rows, []string{sd.name, fmtCount(s.Runs), fmtNA(s.Reason), "", "", "", "", ""})
			continue
		}
		ci := fmtNA(s.Reason)
		if s.FleissCI95 != nil {
			ci = fmtStatCI(*s.FleissCI95)
		}
		t.Rows = append(t.Rows, []string{sd.name, fmtCount(s.Runs), optStat(s.FlipRate, ""), optStat(s.PassAllK, ""),
			optStat(s.FleissKappa, s.Reason), ci, optScore(s.ScoreSpread.RuntimeFidelity, ""), optScore(s.ScoreSpread.TaskEffectiveness, "")})
	}
	return section{ID: "repeatability", Heading: "Repeatability", Blocks: []block{
		{Text: fmt.Sprintf("Each side inspected each run %d times. The flip rate is the share of runs whose verdicts were not unanimous; "+
			"pass all K the share every repeat passed; the score spread the mean within-run standard deviation. %s", rp.K, rp.Rule)},
		{Table: &t},
	}}
}

// costSection is what each side's inspections cost.
func costSection(c report.Cost) section {
	t := table{Header: []string{"side", "inspections", "calls", "cache hits", "retries", "failed", "tokens", "USD", "USD per run", "seconds"}}
	for _, sd := range []struct {
		name string
		s    report.SideCost
	}{{"light", c.Light}, {"deep", c.Deep}} {
		s := sd.s
		name := sd.name
		if s.Identity != "" {
			name += " (" + s.Identity + ")"
		}
		// Tokens are a model's: an inspector that is not billed per token
		// (builtin counts the log tokens it read) shows none (issue 28).
		tokens := "–"
		if s.Model != "" || s.Usage.Calls > 0 {
			tokens = fmtCount64(s.Tokens)
		}
		t.Rows = append(t.Rows, []string{name, fmtCount(s.Inspections), fmtCount(s.Calls), fmtCount(s.CacheHits), fmtCount(s.Retries),
			fmtCount(s.Failed), tokens, optUSD(s.USD), optUSD(s.PerRun), fmtStat(s.Seconds)})
	}
	s := section{ID: "cost", Heading: "Cost", Blocks: []block{{Table: &t}}}
	var items []string
	if c.DeepToLightPerRun != nil {
		items = append(items, "deep costs "+fmtStat(*c.DeepToLightPerRun)+" times light per run")
	} else {
		items = append(items, "deep / light cost per run: n/a (a side's cost is unknown or light's is 0)")
	}
	for _, sd := range []struct {
		name string
		s    report.SideCost
	}{{"light", c.Light}, {"deep", c.Deep}} {
		if u := sd.s.Usage; u.Calls > 0 {
			items = append(items, fmt.Sprintf("%s usage (%s): %d calls, %d input tokens (%d cached), %d output tokens (%d reasoning)",
				sd.name, firstNonEmpty(u.Model, "model unnamed"), u.Calls, u.Input, u.CachedInput, u.Output, u.Reasoning))
		}
		if p := sd.s.Price; p != nil {
			items = append(items, fmt.Sprintf("%s priced at $%s per million input tokens, $%s per million output tokens", sd.name, fmtStat(p.Input), fmtStat(p.Output)))
		}
	}
	if c.BudgetUSD != nil {
		b := "budget (--max-cost) " + fmtUSD(*c.BudgetUSD)
		if c.BudgetStopped {
			b += ": it stopped calls from starting; the runs not inspected are listed under \"" + headingFailures + "\""
		} else {
			b += ": not reached"
		}
		items = append(items, b)
	}
	s.Blocks = append(s.Blocks, block{Items: items})
	return s
}
