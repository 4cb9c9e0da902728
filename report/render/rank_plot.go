package render

import (
	"cmp"
	"fmt"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/evalcal/evalcal/rank"
)

// rankPoints are the candidates with an agreement: x their cost on the
// document's cost axis (their position in the ranking when there is
// none), y their agreement in percent with its Wilson 95% interval.
type rankPoints struct {
	xy     plotter.XYs
	lo, hi []float64
	names  []string
}

func (r rankPoints) Len() int                         { return len(r.xy) }
func (r rankPoints) XY(i int) (x, y float64)          { return r.xy[i].X, r.xy[i].Y }
func (r rankPoints) YError(i int) (low, high float64) { return r.lo[i], r.hi[i] }
func (r rankPoints) Label(i int) string               { return r.names[i] }

// rankSVG draws agreement (Wilson 95% bars) against cost per 1,000 runs,
// one labelled point per candidate, and the Pareto front as a line through
// its candidates in cost order.
func rankSVG(doc *rank.Document) ([]byte, error) {
	p := newPlot()
	p.Title.Text = "agreement with deep against cost"
	p.Y.Label.Text = "agreement with deep (%)"
	switch doc.Summary.CostAxis {
	case rank.AxisUSD:
		p.X.Label.Text = "USD per 1,000 runs"
	case rank.AxisSeconds:
		p.X.Label.Text = "seconds per 1,000 runs"
	default:
		p.X.Label.Text = "candidate (by agreement; no cost known for every candidate)"
	}
	var pts rankPoints
	onFront := map[string]bool{}
	for _, n := range doc.Pareto {
		onFront[n] = true
	}
	var front plotter.XYs
	for i, c := range doc.Candidates {
		if c.Agree.Percent == nil || c.Agree.Wilson95 == nil {
			continue
		}
		x := float64(i + 1)
		switch doc.Summary.CostAxis {
		case rank.AxisUSD:
			x = *c.Cost.USDPer1k
		case rank.AxisSeconds:
			x = *c.Cost.SecondsPer1k
		}
		y := *c.Agree.Percent
		pts.xy = append(pts.xy, plotter.XY{X: x, Y: y})
		pts.lo, pts.hi = append(pts.lo, y-c.Agree.Wilson95.Lower), append(pts.hi, c.Agree.Wilson95.Upper-y)
		pts.names = append(pts.names, c.Name)
		if onFront[c.Name] {
			front = append(front, plotter.XY{X: x, Y: y})
		}
	}
	if len(pts.xy) == 0 {
		return nil, fmt.Errorf("report: rank chart: no candidate has an agreement")
	}
	bars, err := plotter.NewYErrorBars(pts)
	if err != nil {
		return nil, fmt.Errorf("report: rank chart: %w", err)
	}
	bars.Color = pointColor
	dots, err := plotter.NewScatter(pts.xy)
	if err != nil {
		return nil, fmt.Errorf("report: rank chart: %w", err)
	}
	dots.Color = pointColor
	labels, err := plotter.NewLabels(pts)
	if err != nil {
		return nil, fmt.Errorf("report: rank chart: %w", err)
	}
	for i := range labels.TextStyle {
		labels.TextStyle[i] = chartText(vg.Points(8), countLabelColor)
		labels.TextStyle[i].XAlign = 0 // left of the label at the point
	}
	labels.Offset = vg.Point{X: vg.Points(5), Y: vg.Points(5)}
	p.Add(bars, dots, labels)
	if len(front) > 1 {
		slices.SortFunc(front, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
		line, err := plotter.NewLine(front)
		if err != nil {
			return nil, fmt.Errorf("report: rank chart: %w", err)
		}
		line.Color = biasColor
		line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		p.Add(line)
	}
	return svgOf(p, chartWidth, chartHeight)
}
