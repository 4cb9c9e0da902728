package render

import (
	"fmt"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
)

// robustBlocks is the agreement_robust section as a table of its figures,
// each with a one-line plain-words reading, and a line on who the raters
// are.
func robustBlocks(a report.RobustAgreement) []block {
	optCI := func(iv *statistician.Interval) string {
		if iv == nil {
			return ""
		}
		return fmtStatCI(*iv)
	}
	alphaRow := func(name string, x report.Alpha, says string) []string {
		return []string{name, optStat(x.Value, x.Reason), "", fmt.Sprintf("%d runs", x.Units), says}
	}
	rateRow := func(name string, p report.Proportion, says string) []string {
		return []string{name, optStat(p.Value, p.Reason), optCI(p.Wilson95), fmt.Sprintf("%d/%d", p.Successes, p.N), says}
	}
	ac1 := a.AC1.Value
	ac1Reason := a.AC1.Reason
	if ac1 != nil && a.AC1.CI95 == nil {
		ac1Reason = ""
	}
	cw := a.ClassWise
	t := table{Header: []string{"chance-robust and class-wise agreement", "value", "95% interval", "n", "what it says"}, Rows: [][]string{
		alphaRow("Krippendorff's alpha, nominal", a.AlphaNominal,
			"1 is full agreement, 0 no better than chance; verdicts as unordered labels"),
		alphaRow("Krippendorff's alpha, ordinal", a.AlphaOrdinal,
			"the same, counting how far apart verdicts lie on fail < partial < pass"),
		{"Gwet's AC1", optStat(ac1, ac1Reason), optCI(a.AC1.CI95), fmt.Sprintf("%d runs", a.AC1.Units),
			"agreement beyond chance that, unlike kappa, does not collapse when one verdict dominates"},
		rateRow("sensitivity", cw.Sensitivity, "share of the runs deep passes that light passes too"),
		rateRow("specificity", cw.Specificity, "share of the runs deep does not pass that light does not pass either"),
		{"balanced accuracy", optStat(cw.BalancedAccuracy, cw.Reason), optCI(cw.BalancedCI95), "",
			"mean of sensitivity and specificity; 0.5 is a judge blind to the run"},
		rateRow("base rate", cw.BaseRate, "share of runs deep passes; near 0 or 1, raw agreement is easy"),
	}}
	text := fmt.Sprintf("Raters: %s (%d verdicts on %d runs); class-wise figures at the pass line, deep's pass the positive class. Not used by the trust verdict.",
		a.Raters, a.Ratings, a.Units)
	return []block{{Table: &t}, {Text: text}}
}
