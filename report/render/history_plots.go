package render

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/statistician"
)

// History chart size: wide, one point per report.
const (
	historyWidth  = 9 * vg.Inch
	historyHeight = 3.2 * vg.Inch
	// historyMaxLabels is the most report names the x axis writes; with
	// more reports, every k-th is named.
	historyMaxLabels = 12
)

// failColor marks the reports whose gates failed; tests find them by it.
var failColor = color.RGBA{R: 0xb4, G: 0x23, B: 0x18, A: 0xff}

// historyMetric is one figure of the series: its value and 95% interval
// per report (ok false when the report has none), the trust bars drawn as
// dashed lines (the figure's caption names them), and the y range (NaN:
// from the data).
type historyMetric struct {
	title, ylabel string
	value         func(reportio.HistoryNight) (v float64, ci statistician.Interval, ok bool)
	bars          []float64
	ymin, ymax    float64
}

// historyAgreement is the agreement rate in percent with its Wilson
// interval, against the monitoring and gating bars of advisor.Trust.
func historyAgreement() historyMetric {
	return historyMetric{
		title: "verdict agreement per report", ylabel: "agreement (%)",
		value: func(n reportio.HistoryNight) (float64, statistician.Interval, bool) {
			if n.Agreement == nil || n.AgreementCI == nil {
				return 0, statistician.Interval{}, false
			}
			return *n.Agreement, *n.AgreementCI, true
		},
		bars: []float64{advisor.MonitorAgreement, advisor.GateAgreement},
		ymin: 0, ymax: 100,
	}
}

// historyKappa is the linear kappa with its interval, against the kappa
// bars of advisor.Trust.
func historyKappa() historyMetric {
	return historyMetric{
		title: "linear kappa per report", ylabel: "linear kappa",
		value: func(n reportio.HistoryNight) (float64, statistician.Interval, bool) {
			if n.Kappa == nil || n.KappaCI == nil {
				return 0, statistician.Interval{}, false
			}
			return *n.Kappa, *n.KappaCI, true
		},
		bars: []float64{advisor.MonitorKappa, advisor.GateKappa},
		ymin: math.NaN(), ymax: 1,
	}
}

// historyEstimate is the deep pass rate over all runs in percent.
func historyEstimate() historyMetric {
	return historyMetric{
		title: "deep pass rate over all runs (estimate) per report", ylabel: "deep pass rate (%)",
		value: func(n reportio.HistoryNight) (float64, statistician.Interval, bool) {
			if n.Estimate == nil {
				return 0, statistician.Interval{}, false
			}
			e := n.Estimate
			return 100 * e.Point, statistician.Interval{Lower: 100 * e.Lower, Upper: 100 * e.Upper}, true
		},
		ymin: 0, ymax: 100,
	}
}

// historyPoints are the reports with a value, at x = the report's index,
// with the interval as error bar.
type historyPoints []struct {
	x, y float64
	ci   statistician.Interval
}

func (h historyPoints) Len() int                { return len(h) }
func (h historyPoints) XY(i int) (x, y float64) { return h[i].x, h[i].y }
func (h historyPoints) YError(i int) (lo, hi float64) {
	return h[i].y - h[i].ci.Lower, h[i].ci.Upper - h[i].y
}

// historyTicks names the reports on the x axis: every k-th, so that at
// most historyMaxLabels names are written, and always the last.
type historyTicks []string

// Ticks implements plot.Ticker.
func (t historyTicks) Ticks(min, max float64) []plot.Tick {
	step := (len(t) + historyMaxLabels - 1) / historyMaxLabels
	var out []plot.Tick
	for i, name := range t {
		if i%step == 0 || i == len(t)-1 {
			out = append(out, plot.Tick{Value: float64(i), Label: name})
		} else {
			out = append(out, plot.Tick{Value: float64(i)})
		}
	}
	return out
}

// historySVG draws one figure of the series over the reports in order:
// each report's value with its 95% interval as an error bar, the values
// joined by a thin line, the trust bars dashed, and the reports whose
// gates failed as red triangles (failColor) instead of blue dots.
func historySVG(nights []reportio.HistoryNight, metric func() historyMetric) ([]byte, error) {
	m := metric()
	p := newPlot()
	p.Title.Text = m.title
	p.Y.Label.Text = m.ylabel
	p.X.Label.Text = "report (in order)"
	names := make(historyTicks, len(nights))
	var ok, failed historyPoints
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, n := range nights {
		names[i] = n.Label
		v, ci, has := m.value(n)
		if !has {
			continue
		}
		pt := struct {
			x, y float64
			ci   statistician.Interval
		}{float64(i), v, ci}
		if len(n.GatesFailed) > 0 {
			failed = append(failed, pt)
		} else {
			ok = append(ok, pt)
		}
		lo, hi = math.Min(lo, ci.Lower), math.Max(hi, ci.Upper)
	}
	p.X.Tick.Marker = names
	if len(nights) > 6 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	p.X.Min, p.X.Max = -0.5, float64(len(nights))-0.5
	for _, b := range m.bars {
		lo, hi = math.Min(lo, b), math.Max(hi, b)
	}
	if !math.IsNaN(m.ymin) {
		lo = m.ymin
	}
	if !math.IsNaN(m.ymax) {
		hi = math.Max(hi, m.ymax)
	}
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		lo, hi = 0, 1
	}
	p.Y.Min, p.Y.Max = lo, hi
	for i, b := range m.bars {
		ln, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: b}, {X: p.X.Max, Y: b}})
		if err != nil {
			return nil, fmt.Errorf("report: history chart: %w", err)
		}
		ln.Color = identityColor
		ln.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		if i == len(m.bars)-1 {
			ln.Dashes = []vg.Length{vg.Points(8), vg.Points(3)}
		}
		p.Add(ln)
	}
	all := append(append(historyPoints(nil), ok...), failed...)
	if len(all) == 0 {
		return svgOf(p, historyWidth, historyHeight)
	}
	line := make(plotter.XYs, 0, len(all))
	for i, n := range nights {
		if v, _, has := m.value(n); has {
			line = append(line, plotter.XY{X: float64(i), Y: v})
		}
	}
	if len(line) > 1 {
		ln, err := plotter.NewLine(line)
		if err != nil {
			return nil, fmt.Errorf("report: history chart: %w", err)
		}
		ln.Color = color.RGBA{R: 0xb0, G: 0xc4, B: 0xde, A: 0xff}
		p.Add(ln)
	}
	bars, err := plotter.NewYErrorBars(all)
	if err != nil {
		return nil, fmt.Errorf("report: history chart: %w", err)
	}
	bars.Color = pointColor
	p.Add(bars)
	if len(ok) > 0 {
		sc, err := plotter.NewScatter(ok)
		if err != nil {
			return nil, fmt.Errorf("report: history chart: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: pointColor, Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
		p.Add(sc)
	}
	if len(failed) > 0 {
		sc, err := plotter.NewScatter(failed)
		if err != nil {
			return nil, fmt.Errorf("report: history chart: %w", err)
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: failColor, Radius: vg.Points(5), Shape: draw.PyramidGlyph{}}
		p.Add(sc)
	}
	return svgOf(p, historyWidth, historyHeight)
}
