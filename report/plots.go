package report

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// Chart size. gonum/plot's SVG canvas writes coordinates with %g and
// references fonts by name without embedding them, so the same data give
// byte-identical SVG.
const (
	chartWidth  = 4.2 * vg.Inch
	chartHeight = 3.4 * vg.Inch
)

var (
	pointColor    = color.RGBA{R: 0x1f, G: 0x5f, B: 0xa8, A: 0xff}
	identityColor = color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}
	biasColor     = color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff}
	// runColor fills run points translucently, so that runs at the same
	// place darken the point instead of hiding each other.
	runColor = color.NRGBA{R: 0x1f, G: 0x5f, B: 0xa8, A: 0x60}
)

// runPoints is a scatter of runs: translucent filled circles.
func runPoints(xys plotter.XYs) (*plotter.Scatter, error) {
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color = runColor
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Radius = vg.Points(3)
	return sc, nil
}

// svgOf draws p on an SVG canvas and returns the <svg> element without
// the XML prolog, ready to inline in HTML.
func svgOf(p *plot.Plot) ([]byte, error) {
	c := vgsvg.New(chartWidth, chartHeight)
	p.Draw(draw.New(c))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("report: draw svg: %w", err)
	}
	b := buf.Bytes()
	if i := bytes.Index(b, []byte("<svg")); i >= 0 {
		b = b[i:]
	}
	return b, nil
}

// scoreOf returns the light and deep values of a score named as in the
// report ("runtime_fidelity" or "task_effectiveness").
func scoreOf(c comparator.Comparison, name string) (light, deep float64) {
	if name == "runtime_fidelity" {
		return c.Light.RuntimeFidelity, c.Deep.RuntimeFidelity
	}
	return c.Light.TaskEffectiveness, c.Deep.TaskEffectiveness
}

// scatterSVG plots deep against light for one score on 0..100 axes, with
// the identity line deep = light: points below it are runs light scored
// higher than deep.
func scatterSVG(cs []comparator.Comparison, name string) ([]byte, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("light vs deep: %s (%d runs)", name, len(cs))
	p.X.Label.Text = "light " + name
	p.Y.Label.Text = "deep " + name
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 100, 0, 100
	id, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 100, Y: 100}})
	if err != nil {
		return nil, fmt.Errorf("report: scatter %s: %w", name, err)
	}
	id.Color = identityColor
	id.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(id)
	if len(cs) > 0 {
		xys := make(plotter.XYs, len(cs))
		for i, c := range cs {
			xys[i].X, xys[i].Y = scoreOf(c, name)
		}
		sc, err := runPoints(xys)
		if err != nil {
			return nil, fmt.Errorf("report: scatter %s: %w", name, err)
		}
		p.Add(sc)
	}
	return svgOf(p)
}

// blandAltmanSVG plots, for one score, deep - light against the mean of
// light and deep per run, with horizontal lines at the report's bias and
// 95% limits of agreement. With no analysis (ba.Reason set) only the
// points are drawn.
func blandAltmanSVG(cs []comparator.Comparison, name string, ba statistician.BlandAltmanResult) ([]byte, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Bland-Altman: %s (%d runs)", name, len(cs))
	p.X.Label.Text = "mean of light and deep"
	p.Y.Label.Text = "deep - light"
	p.X.Min, p.X.Max = 0, 100
	xys := make(plotter.XYs, len(cs))
	lo, hi := 0.0, 0.0
	for i, c := range cs {
		l, d := scoreOf(c, name)
		// Plot coordinates only: the statistics come from ba.
		xys[i].X, xys[i].Y = (l+d)/2, d-l
		lo, hi = math.Min(lo, xys[i].Y), math.Max(hi, xys[i].Y)
	}
	if ba.Reason == "" {
		for _, h := range []struct {
			y      float64
			dashed bool
		}{{ba.Bias, false}, {ba.Lower, true}, {ba.Upper, true}} {
			ln, err := plotter.NewLine(plotter.XYs{{X: 0, Y: h.y}, {X: 100, Y: h.y}})
			if err != nil {
				return nil, fmt.Errorf("report: bland-altman %s: %w", name, err)
			}
			ln.Color = biasColor
			if h.dashed {
				ln.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			}
			p.Add(ln)
			lo, hi = math.Min(lo, h.y), math.Max(hi, h.y)
		}
		p.Legend.Add("bias "+num(ba.Bias, 1)+", limits "+num(ba.Lower, 1)+" to "+num(ba.Upper, 1), &plotter.Line{LineStyle: draw.LineStyle{Color: biasColor, Width: vg.Points(1)}})
		p.Legend.Top = true
	}
	pad := math.Max(5, (hi-lo)*0.1)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	if len(xys) > 0 {
		sc, err := runPoints(xys)
		if err != nil {
			return nil, fmt.Errorf("report: bland-altman %s: %w", name, err)
		}
		p.Add(sc)
	}
	return svgOf(p)
}

// heatCells draws a k x k count matrix as shaded cells with the count
// written in each: cell (i, j) is row i (y = i), column j (x = j).
type heatCells struct {
	counts [][]int
	max    int
}

// Plot implements plot.Plotter.
func (h heatCells) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := draw.TextStyle{
		Font:    font.From(plot.DefaultFont, vg.Points(14)),
		Handler: plot.DefaultTextHandler,
		XAlign:  draw.XCenter,
		YAlign:  draw.YCenter,
	}
	for i, row := range h.counts {
		for j, n := range row {
			shade := 0.0
			if h.max > 0 {
				shade = float64(n) / float64(h.max)
			}
			fill := color.RGBA{
				R: uint8(255 - shade*(255-0x1f)),
				G: uint8(255 - shade*(255-0x5f)),
				B: uint8(255 - shade*(255-0xa8)),
				A: 0xff,
			}
			x0, x1 := trX(float64(j)-0.5), trX(float64(j)+0.5)
			y0, y1 := trY(float64(i)-0.5), trY(float64(i)+0.5)
			c.FillPolygon(fill, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}})
			c.StrokeLines(draw.LineStyle{Color: color.White, Width: vg.Points(1)}, []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}})
			sty.Color = color.Black
			if shade > 0.6 {
				sty.Color = color.White
			}
			c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, strconv.Itoa(n))
		}
	}
}

// DataRange implements plot.DataRanger.
func (h heatCells) DataRange() (xmin, xmax, ymin, ymax float64) {
	k := float64(len(h.counts))
	return -0.5, k - 0.5, -0.5, k - 0.5
}

// confusionSVG draws the verdict confusion matrix as a heat map, light's
// verdict on the y axis and deep's on the x axis, in c.Order.
func confusionSVG(c aggregate.Confusion) ([]byte, error) {
	k := len(c.Order)
	if k == 0 {
		return nil, fmt.Errorf("report: confusion matrix has no categories")
	}
	h := heatCells{counts: make([][]int, k)}
	for i := range h.counts {
		h.counts[i] = make([]int, k)
		for j := range h.counts[i] {
			if i < len(c.Counts) && j < len(c.Counts[i]) {
				h.counts[i][j] = c.Counts[i][j]
			}
			h.max = max(h.max, h.counts[i][j])
		}
	}
	p := plot.New()
	p.Title.Text = "verdicts: " + c.Rows + " (rows) vs " + c.Columns + " (columns)"
	p.X.Label.Text = c.Columns + " verdict"
	p.Y.Label.Text = c.Rows + " verdict"
	p.Add(h)
	p.NominalX(c.Order...)
	p.NominalY(c.Order...)
	return svgOf(p)
}

// reliabilityPoints are the non-empty bins of a reliability table as
// (mean forecast, observed rate) with the Wilson interval as error bar.
type reliabilityPoints []statistician.ReliabilityBin

func (r reliabilityPoints) Len() int { return len(r) }
func (r reliabilityPoints) XY(i int) (x, y float64) {
	return r[i].MeanForecast, r[i].ObservedRate
}
func (r reliabilityPoints) YError(i int) (low, high float64) {
	return r[i].ObservedRate - r[i].RateCI95.Lower, r[i].RateCI95.Upper - r[i].ObservedRate
}

// reliabilitySVG draws a reliability diagram: each bin's observed rate
// against its mean forecast, with the bin's Wilson 95% interval as a bar,
// and the diagonal of perfect calibration. An empty bin (Count 0) has no
// rate and draws nothing.
func reliabilitySVG(bins []statistician.ReliabilityBin) ([]byte, error) {
	p := plot.New()
	p.Title.Text = "reliability diagram"
	p.X.Label.Text = "forecast probability (bin mean)"
	p.Y.Label.Text = "observed frequency"
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = 0, 1, 0, 1
	diag, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		return nil, fmt.Errorf("report: reliability diagram: %w", err)
	}
	diag.Color = identityColor
	diag.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(diag)
	var pts reliabilityPoints
	for _, b := range bins {
		if b.Count > 0 {
			pts = append(pts, b)
		}
	}
	if len(pts) > 0 {
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, fmt.Errorf("report: reliability diagram: %w", err)
		}
		bars.Color = pointColor
		sc, err := plotter.NewScatter(pts)
		if err != nil {
			return nil, fmt.Errorf("report: reliability diagram: %w", err)
		}
		sc.GlyphStyle.Color = pointColor
		sc.GlyphStyle.Radius = vg.Points(3)
		p.Add(bars, sc)
	}
	return svgOf(p)
}

// murphyTrendSVG plots a learning trend: the Murphy reliability,
// resolution and uncertainty of each window against the window index
// (score --trend W). Learning shows as a rising resolution line; a
// falling reliability line alone is better calibration, not learning.
func murphyTrendSVG(key string, tr forecast.TrendResult) ([]byte, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Murphy terms over time: %s (windows of %d)", key, tr.Window)
	p.X.Label.Text = "window (oldest first)"
	p.Y.Label.Text = "term"
	p.Y.Min = 0
	p.Legend.Top = false
	terms := []struct {
		name  string
		value func(forecast.TrendWindow) float64
		dash  []vg.Length
	}{
		{"resolution", func(w forecast.TrendWindow) float64 { return w.Resolution }, nil},
		{"reliability", func(w forecast.TrendWindow) float64 { return w.Reliability }, []vg.Length{vg.Points(4), vg.Points(3)}},
		{"uncertainty", func(w forecast.TrendWindow) float64 { return w.Uncertainty }, []vg.Length{vg.Points(1), vg.Points(2)}},
	}
	for _, term := range terms {
		xys := make(plotter.XYs, len(tr.Windows))
		for i, w := range tr.Windows {
			xys[i].X, xys[i].Y = float64(w.Index), term.value(w)
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("report: murphy trend %s: %w", key, err)
		}
		line.Dashes = term.dash
		p.Add(line, points)
		p.Legend.Add(term.name, line)
	}
	return svgOf(p)
}
