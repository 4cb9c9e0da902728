package render

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/internal/english"
	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/statistician"
)

// HistoryMarkdown renders a series as Markdown: a first line naming the
// nights and the latest verdict, the nights whose gates failed, and one
// table row per night (verdict, runs, agreement, linear kappa, the deep
// pass-rate estimate, each with its 95% interval, and the failed gates).
// Figures follow the precision rule; undefined ones show "n/a" with the
// reason.
func HistoryMarkdown(h reportio.History) ([]byte, error) {
	if len(h.Nights) == 0 {
		return nil, fmt.Errorf("report: history markdown: %w", reportio.ErrNoHistory)
	}
	return writeMarkdown(historyPage(h, false)), nil
}

// HistoryHTML renders a series as one self-contained HTML page: the
// Markdown's table and, over the nights in report order, the agreement,
// the linear kappa and (when any night has one) the deep pass-rate
// estimate as points with 95% error bars and the trust bars as dashed
// lines; a night whose gates failed is a red triangle.
func HistoryHTML(h reportio.History) ([]byte, error) {
	if len(h.Nights) == 0 {
		return nil, fmt.Errorf("report: history html: %w", reportio.ErrNoHistory)
	}
	return writeHTML(historyPage(h, true))
}

func historyPage(h reportio.History, plots bool) page {
	p := page{Title: "evalcal nightly history", Contents: plots}
	first, last := h.Nights[0], h.Nights[len(h.Nights)-1]
	failedNights := h.FailedNights()
	lead := fmt.Sprintf("%s, %s to %s · gates failed on %d of them", english.Count(len(h.Nights), "report", "reports"), first.Label, last.Label, failedNights)
	p.Banner = banner{Lead: lead, Level: "none"}
	latest := fmt.Sprintf("Latest (%s): %s", last.Label, trustWords(last.Trust))
	if last.Agreement != nil {
		latest += fmt.Sprintf("; agreement %s %s over %d runs", fmtPercent(*last.Agreement), fmtPercentCI(*last.AgreementCI), last.N)
	}
	if last.Kappa != nil {
		latest += fmt.Sprintf("; linear kappa %s %s", fmtStat(*last.Kappa), fmtStatCI(*last.KappaCI))
	}
	p.Banner.Text = []string{latest + "."}
	if failedNights > 0 {
		p.Banner.AlertTitle = fmt.Sprintf("GATES FAILED on %d of %s", failedNights, english.Count(len(h.Nights), "report", "reports"))
		for _, n := range h.Nights {
			if len(n.GatesFailed) > 0 {
				p.Banner.Alerts = append(p.Banner.Alerts, n.Label+": "+strings.Join(n.GatesFailed, "; "))
			}
		}
	}
	if len(h.Skipped) > 0 {
		p.Banner.Notes = append(p.Banner.Notes, note{plural(len(h.Skipped), "report not read", "reports not read"), "skipped"})
	}
	p.Banner.Why = append(p.Banner.Why, h.Changes()...)
	t := table{Header: []string{"report", "trust", "runs", "agreement", "95% interval", "linear kappa", "95% interval",
		"deep pass rate (estimate)", "95% interval", "gates"}}
	for _, n := range h.Nights {
		row := []string{n.Label, firstNonEmpty(n.Trust, "none"), fmtCount(n.N)}
		if n.Agreement != nil {
			row = append(row, fmtPercent(*n.Agreement), fmtPercentCI(*n.AgreementCI))
		} else {
			row = append(row, fmtNA(n.AgreementReason), "")
		}
		if n.Kappa != nil {
			row = append(row, fmtStat(*n.Kappa), fmtStatCI(*n.KappaCI))
		} else {
			row = append(row, fmtNA(n.KappaReason), "")
		}
		if e := n.Estimate; e != nil {
			row = append(row, fmtPercent(100*e.Point)+" ("+e.Method+", "+fmtCount(n.EstimateRuns)+" runs)",
				fmtPercentCI(statistician.Interval{Lower: 100 * e.Lower, Upper: 100 * e.Upper}))
		} else {
			row = append(row, fmtNA("deep ran on every run"), "")
		}
		switch {
		case len(n.GatesFailed) > 0:
			row = append(row, fmt.Sprintf("FAILED %d of %d: %s", len(n.GatesFailed), max(n.Gates, len(n.GatesFailed)), strings.Join(n.GatesFailed, "; ")))
		case n.Gates > 0:
			row = append(row, fmt.Sprintf("all %d passed", n.Gates))
		default:
			row = append(row, "none requested")
		}
		t.Rows = append(t.Rows, row)
	}
	nights := section{ID: "nights", Heading: "Reports in order", Blocks: []block{
		{Text: "One row per report, in the order given (a directory's reports by file name)."},
		{Table: &t}}}
	if plots {
		p.Sections = append(p.Sections, historyCharts(h))
	}
	p.Sections = append(p.Sections, nights)
	if len(h.Skipped) > 0 {
		st := table{Header: []string{"file", "why it was not read"}}
		for _, s := range h.Skipped {
			st.Rows = append(st.Rows, []string{s.Path, s.Reason})
		}
		p.Sections = append(p.Sections, section{ID: "skipped", Heading: "Reports not read", Blocks: []block{{Table: &st}}})
	}
	return p
}

// trustWords is a trust level as the history's banner says it.
func trustWords(trust string) string {
	if trust == "" {
		return "no trust verdict"
	}
	badge, _, meaning := trustBadge(trust)
	return badge + " (" + strings.TrimSuffix(meaning, ".") + ")"
}

// barWords names the trust bars a history chart draws (advisor.Trust's,
// the ones historyAgreement and historyKappa draw): "the monitoring (60%)
// and gating (80%) bars".
func barWords(monitor, gate float64, unit string) string {
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) + unit }
	return "the monitoring (" + g(monitor) + ") and gating (" + g(gate) + ") bars"
}

// historyCharts is the figures of the series: agreement, linear kappa,
// and the deep pass-rate estimate when any night has one.
func historyCharts(h reportio.History) section {
	nights := h.Nights
	s := section{ID: "charts", Heading: "Over time"}
	mark := "; a red triangle marks a report whose gates failed"
	s.Blocks = append(s.Blocks,
		block{Figure: drawFigure("verdict agreement (percent) per report with its Wilson 95% interval; dashed: "+
			barWords(advisor.MonitorAgreement, advisor.GateAgreement, "%")+mark,
			func() ([]byte, error) { return historySVG(nights, historyAgreement) })},
		block{Figure: drawFigure("linear kappa per report with its 95% interval; dashed: "+barWords(advisor.MonitorKappa, advisor.GateKappa, "")+mark,
			func() ([]byte, error) { return historySVG(nights, historyKappa) })})
	for _, n := range nights {
		if n.Estimate != nil {
			s.Blocks = append(s.Blocks, block{Figure: drawFigure("deep's pass rate over all runs (percent), estimated from a deep subset, with its 95% interval"+mark,
				func() ([]byte, error) { return historySVG(nights, historyEstimate) })})
			break
		}
	}
	s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("%s; %d with failed gates. The x axis is the reports' order, labelled by file name.", english.Count(len(nights), "report", "reports"), h.FailedNights())})
	return s
}
