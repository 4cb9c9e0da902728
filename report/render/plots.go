package render

import (
	"bytes"
	"cmp"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/forecast"
	"github.com/evalcal/evalcal/report"
)

// Chart sizes. gonum/plot's SVG canvas writes coordinates with %g and
// references fonts by name without embedding them, so the same data give
// byte-identical SVG. Scatter plots are square (squareSize) with a square
// data area, so that equal axes put the identity line at 45 degrees.
const (
	chartWidth  = 4.2 * vg.Inch
	chartHeight = 3.4 * vg.Inch
	squareSize  = 4.2 * vg.Inch
)

var (
	pointColor    = color.RGBA{R: 0x1f, G: 0x5f, B: 0xa8, A: 0xff}
	identityColor = color.RGBA{R: 0x88, G: 0x88, B: 0x88, A: 0xff}
	biasColor     = color.RGBA{R: 0xc0, G: 0x39, B: 0x2b, A: 0xff}
	// runColor fills run markers translucently, so that markers that
	// overlap stay visible.
	runColor = color.NRGBA{R: 0x1f, G: 0x5f, B: 0xa8, A: 0x60}
	// countLabelColor writes how many runs or forecasts a marker stands for;
	// tests find the counts by it.
	countLabelColor = color.RGBA{R: 0x0b, G: 0x25, B: 0x45, A: 0xff}
)

// Marker sizes: a marker's area is proportional to the runs (or
// forecasts) it stands for. One run is unitRadius, unless the largest
// marker would then exceed maxMarkerRadius; the smallest marker of a
// reliability diagram is never below minMarkerRadius, so that it stays
// visible (its count is written beside it).
const (
	unitRadius      = 3 // points
	maxMarkerRadius = 16
	minMarkerRadius = 1.5
)

// chartTypeface and chartVariant name the charts' font: Liberation Sans,
// which gonum/plot embeds for measuring text and the HTML pages name
// first in fontFamily.
const (
	chartTypeface = "Liberation"
	chartVariant  = "Sans"
)

// svgFontFamily is fontFamily as the SVG style attributes write it
// (inside double quotes, so the family name takes single ones).
var svgFontFamily = strings.ReplaceAll(fontFamily, `"`, `'`)

// newPlot is plot.New with every text in the charts' font.
func newPlot() *plot.Plot {
	p := plot.New()
	for _, f := range []*font.Font{
		&p.Title.TextStyle.Font, &p.Legend.TextStyle.Font,
		&p.X.Label.TextStyle.Font, &p.X.Tick.Label.Font,
		&p.Y.Label.TextStyle.Font, &p.Y.Tick.Label.Font,
	} {
		f.Typeface, f.Variant = chartTypeface, chartVariant
	}
	return p
}

// chartText is a text style in the charts' font.
func chartText(size vg.Length, c color.Color) draw.TextStyle {
	return draw.TextStyle{
		Font:    font.Font{Typeface: chartTypeface, Variant: chartVariant, Size: size},
		Handler: plot.DefaultTextHandler,
		Color:   c,
		XAlign:  draw.XCenter,
		YAlign:  draw.YCenter,
	}
}

// svgOf draws p on a w x h SVG canvas; see svgCanvasBytes.
func svgOf(p *plot.Plot, w, h vg.Length) ([]byte, error) {
	c := vgsvg.New(w, h)
	p.Draw(draw.New(c))
	return svgCanvasBytes(c)
}

// squareSVGOf draws p on a square canvas with a square data area: the
// canvas is cropped on the side where the data area would be longer, so
// that one unit on the x axis is as long as one on the y axis when the
// axes' ranges are equal.
func squareSVGOf(p *plot.Plot) ([]byte, error) {
	c := vgsvg.New(squareSize, squareSize)
	dc := draw.New(c)
	da := p.DataCanvas(dc)
	w, h := da.Max.X-da.Min.X, da.Max.Y-da.Min.Y
	switch {
	case w > h:
		dc = draw.Crop(dc, 0, -(w - h), 0, 0)
	case h > w:
		dc = draw.Crop(dc, 0, 0, 0, -(h - w))
	}
	p.Draw(dc)
	return svgCanvasBytes(c)
}

// svgCanvasBytes returns the canvas's <svg> element without the XML
// prolog, ready to inline in HTML, with the font family widened to
// fontFamily so that charts and page share their font wherever Liberation
// Sans is missing.
func svgCanvasBytes(c *vgsvg.Canvas) ([]byte, error) {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, fmt.Errorf("report: draw svg: %w", err)
	}
	b := buf.Bytes()
	if i := bytes.Index(b, []byte("<svg")); i >= 0 {
		b = b[i:]
	}
	return bytes.ReplaceAll(b, []byte("font-family:Liberation Sans;"), []byte("font-family:"+svgFontFamily+";")), nil
}

// scoreOf returns the light and deep values of a score named as in the
// report ("runtime_fidelity" or "task_effectiveness").
func scoreOf(c comparator.Comparison, name string) (light, deep float64) {
	if name == "runtime_fidelity" {
		return c.Light.RuntimeFidelity, c.Deep.RuntimeFidelity
	}
	return c.Light.TaskEffectiveness, c.Deep.TaskEffectiveness
}

// cloudPoint is a place in a chart and how many runs sit on it.
type cloudPoint struct {
	X, Y float64
	N    int
}

// runCloud draws runs that share a place as one marker whose area is
// proportional to their number, with the number written on it when it is
// more than one: 46 runs on 9 places show as 9 markers and their counts,
// not as 9 dots.
type runCloud struct {
	points []cloudPoint
	unit   vg.Length // radius of a one-run marker
}

// newRunCloud groups xys by place (exact coordinates), in x then y order.
func newRunCloud(xys plotter.XYs) runCloud {
	counts := map[[2]float64]int{}
	for _, p := range xys {
		counts[[2]float64{p.X, p.Y}]++
	}
	rc := runCloud{points: make([]cloudPoint, 0, len(counts))}
	most := 0
	for k, n := range counts {
		rc.points = append(rc.points, cloudPoint{X: k[0], Y: k[1], N: n})
		most = max(most, n)
	}
	slices.SortFunc(rc.points, func(a, b cloudPoint) int { return cmp.Or(cmp.Compare(a.X, b.X), cmp.Compare(a.Y, b.Y)) })
	rc.unit = vg.Points(unitRadius)
	if most > 0 {
		rc.unit = min(rc.unit, vg.Points(maxMarkerRadius)/vg.Length(math.Sqrt(float64(most))))
	}
	return rc
}

// radius is the radius of a marker standing for n runs: area ∝ n.
func (rc runCloud) radius(n int) vg.Length { return rc.unit * vg.Length(math.Sqrt(float64(n))) }

// countLabelSize is the size of a marker's count label; a marker smaller
// than the label (insideLabelRadius) has it written beside it, outside,
// so that the number is not drawn over the marker's edge (issue 28).
const (
	countLabelSize    = 8 // points
	insideLabelRadius = 7 // points
)

// countLabelWidth is about how wide the count label of n is: digits of
// Liberation Sans are 0.56 em.
func countLabelWidth(n int) vg.Length {
	return vg.Points(countLabelSize * 0.56 * float64(len(strconv.Itoa(n))))
}

// labelOutside reports whether a marker of radius r has its count beside it.
func labelOutside(r vg.Length) bool { return r < vg.Points(insideLabelRadius) }

// markerBox is the box around a marker of radius r at (x, y) in the
// plot's normalized coordinates, the count label beside it included when
// it is written outside: plot.Plot pads the data area by such boxes, so
// the largest marker and every label stay inside the chart.
func markerBox(plt *plot.Plot, x, y float64, r vg.Length, n int, labelled bool) plot.GlyphBox {
	right := r
	if labelled && labelOutside(r) {
		right = r + vg.Points(2) + countLabelWidth(n)
	}
	return plot.GlyphBox{X: plt.X.Norm(x), Y: plt.Y.Norm(y),
		Rectangle: vg.Rectangle{Min: vg.Point{X: -r, Y: -max(r, vg.Points(countLabelSize/2))}, Max: vg.Point{X: right, Y: max(r, vg.Points(countLabelSize/2))}}}
}

// drawCount writes n on a marker of radius r at pt, or beside it when the
// marker is smaller than the label.
func drawCount(c draw.Canvas, pt vg.Point, r vg.Length, n int) {
	label := chartText(vg.Points(countLabelSize), countLabelColor)
	if labelOutside(r) {
		label.XAlign = draw.XLeft
		pt.X += r + vg.Points(2)
	}
	c.FillText(label, pt, strconv.Itoa(n))
}

// Plot implements plot.Plotter.
func (rc runCloud) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for _, p := range rc.points {
		pt := vg.Point{X: trX(p.X), Y: trY(p.Y)}
		c.DrawGlyph(draw.GlyphStyle{Color: runColor, Radius: rc.radius(p.N), Shape: draw.CircleGlyph{}}, pt)
		if p.N > 1 {
			drawCount(c, pt, rc.radius(p.N), p.N)
		}
	}
}

// GlyphBoxes implements plot.GlyphBoxer: the chart keeps room for every
// marker and count label.
func (rc runCloud) GlyphBoxes(plt *plot.Plot) []plot.GlyphBox {
	out := make([]plot.GlyphBox, len(rc.points))
	for i, p := range rc.points {
		out[i] = markerBox(plt, p.X, p.Y, rc.radius(p.N), p.N, p.N > 1)
	}
	return out
}

// DataRange implements plot.DataRanger.
func (rc runCloud) DataRange() (xmin, xmax, ymin, ymax float64) {
	if len(rc.points) == 0 {
		return 0, 0, 0, 0
	}
	xmin, ymin = math.Inf(1), math.Inf(1)
	xmax, ymax = math.Inf(-1), math.Inf(-1)
	for _, p := range rc.points {
		xmin, xmax = math.Min(xmin, p.X), math.Max(xmax, p.X)
		ymin, ymax = math.Min(ymin, p.Y), math.Max(ymax, p.Y)
	}
	return xmin, xmax, ymin, ymax
}

// scatterSVG plots deep against light for one score on equal 0..100 axes
// in a square, with the identity line deep = light at 45 degrees: points
// below it are runs light scored higher than deep. Runs at one place are
// one marker sized and labelled by their number (see runCloud).
func scatterSVG(cs []comparator.Comparison, name string) ([]byte, error) {
	xys := make(plotter.XYs, len(cs))
	for i, c := range cs {
		xys[i].X, xys[i].Y = scoreOf(c, name)
	}
	rc := newRunCloud(xys)
	p := newPlot()
	p.Title.Text = fmt.Sprintf("light vs deep: %s (%d runs at %d points)", name, len(cs), len(rc.points))
	p.X.Label.Text = "light " + name
	p.Y.Label.Text = "deep " + name
	// Equal ranges on both axes, with room around 0..100 for the largest
	// marker (16 pt is about 7 units on this chart).
	p.X.Min, p.X.Max, p.Y.Min, p.Y.Max = -7, 107, -7, 107
	id, err := plotter.NewLine(plotter.XYs{{X: -7, Y: -7}, {X: 107, Y: 107}})
	if err != nil {
		return nil, fmt.Errorf("report: scatter %s: %w", name, err)
	}
	id.Color = identityColor
	id.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(id)
	if len(rc.points) > 0 {
		p.Add(rc)
	}
	return squareSVGOf(p)
}

// blandAltmanSVG plots, for one score, deep - light against the mean of
// light and deep per run, with horizontal lines at the report's bias and
// 95% limits of agreement; runs at one place are one marker sized and
// labelled by their number. With no analysis (ba.Reason set) only the
// points are drawn.
func blandAltmanSVG(cs []comparator.Comparison, name string, ba report.BlandAltmanResult) ([]byte, error) {
	xys := make(plotter.XYs, len(cs))
	lo, hi := 0.0, 0.0
	for i, c := range cs {
		l, d := scoreOf(c, name)
		// Plot coordinates only: the statistics come from ba.
		xys[i].X, xys[i].Y = (l+d)/2, d-l
		lo, hi = math.Min(lo, xys[i].Y), math.Max(hi, xys[i].Y)
	}
	rc := newRunCloud(xys)
	p := newPlot()
	p.Title.Text = fmt.Sprintf("Bland-Altman: %s (%d runs at %d points)", name, len(cs), len(rc.points))
	p.X.Label.Text = "mean of light and deep"
	p.Y.Label.Text = "deep - light"
	p.X.Min, p.X.Max = 0, 100
	if ba.Reason == "" && ba.N > 0 {
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
		// The figures go under the title, not in a legend that would sit
		// on the title or the markers (issue 28).
		p.Title.Text += "\nbias " + fmtScore(ba.Bias) + " (solid), limits of agreement " + fmtScore(ba.Lower) + " to " + fmtScore(ba.Upper) + " (dashed)"
	}
	pad := math.Max(5, (hi-lo)*0.1)
	p.Y.Min, p.Y.Max = lo-pad, hi+pad
	if len(rc.points) > 0 {
		p.Add(rc)
	}
	return svgOf(p, chartWidth, chartHeight)
}

// heatCells draws a k x k count matrix as shaded cells with the count
// written in each, row 0 at the top as in a table: cell (i, j) is row i
// (y = k-1-i), column j (x = j).
type heatCells struct {
	counts [][]int
	max    int
}

// Plot implements plot.Plotter.
func (h heatCells) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	sty := chartText(vg.Points(14), color.Black)
	k := len(h.counts)
	for i, row := range h.counts {
		y := float64(k - 1 - i)
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
			y0, y1 := trY(y-0.5), trY(y+0.5)
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

// confusionSVG draws the verdict confusion matrix as a heat map in the
// order of its table: light's verdicts as rows from the top, deep's as
// columns from the left, both in c.Order.
func confusionSVG(c report.Confusion) ([]byte, error) {
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
	p := newPlot()
	p.Title.Text = "verdicts: " + c.Rows + " (rows) vs " + c.Columns + " (columns)"
	p.X.Label.Text = c.Columns + " verdict"
	p.Y.Label.Text = c.Rows + " verdict"
	p.Add(h)
	p.NominalX(c.Order...)
	rowsUp := slices.Clone(c.Order)
	slices.Reverse(rowsUp) // NominalY puts its first name at the bottom
	p.NominalY(rowsUp...)
	return svgOf(p, chartWidth, chartHeight)
}

// reliabilityMarkers draws the non-empty bins of a reliability table at
// (mean forecast, observed rate), each marker's area proportional to the
// bin's count (never below minMarkerRadius), with the count beside it.
type reliabilityMarkers struct {
	bins []report.ReliabilityBin
	unit vg.Length
}

func (r reliabilityMarkers) radius(n int) vg.Length {
	return max(vg.Points(minMarkerRadius), r.unit*vg.Length(math.Sqrt(float64(n))))
}

// Plot implements plot.Plotter.
func (r reliabilityMarkers) Plot(c draw.Canvas, plt *plot.Plot) {
	trX, trY := plt.Transforms(&c)
	for _, b := range r.bins {
		pt := vg.Point{X: trX(*b.MeanForecast), Y: trY(*b.ObservedRate)}
		rad := r.radius(b.Count)
		c.DrawGlyph(draw.GlyphStyle{Color: runColor, Radius: rad, Shape: draw.CircleGlyph{}}, pt)
		c.DrawGlyph(draw.GlyphStyle{Color: pointColor, Radius: rad, Shape: draw.RingGlyph{}}, pt)
		drawCount(c, pt, rad, b.Count)
	}
}

// GlyphBoxes implements plot.GlyphBoxer: the chart keeps room for every
// marker and count label.
func (r reliabilityMarkers) GlyphBoxes(plt *plot.Plot) []plot.GlyphBox {
	out := make([]plot.GlyphBox, len(r.bins))
	for i, b := range r.bins {
		out[i] = markerBox(plt, *b.MeanForecast, *b.ObservedRate, r.radius(b.Count), b.Count, true)
	}
	return out
}

// reliabilityPoints are the non-empty bins of a reliability table as
// (mean forecast, observed rate) with the Wilson interval as error bar.
type reliabilityPoints []report.ReliabilityBin

func (r reliabilityPoints) Len() int { return len(r) }
func (r reliabilityPoints) XY(i int) (x, y float64) {
	return *r[i].MeanForecast, *r[i].ObservedRate
}
func (r reliabilityPoints) YError(i int) (low, high float64) {
	return *r[i].ObservedRate - r[i].RateCI95.Lower, r[i].RateCI95.Upper - *r[i].ObservedRate
}

// reliabilitySVG draws a reliability diagram: each bin's observed rate
// against its mean forecast, as a marker whose area is proportional to
// the bin's count (written beside it), with the bin's Wilson 95% interval
// as a bar, and the diagonal of perfect calibration. An empty bin (Count
// 0) has no rate and draws nothing.
func reliabilitySVG(bins []report.ReliabilityBin) ([]byte, error) {
	p := newPlot()
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
	most := 0
	for _, b := range bins {
		if b.Count > 0 && b.MeanForecast != nil && b.ObservedRate != nil && b.RateCI95 != nil {
			pts = append(pts, b)
			most = max(most, b.Count)
		}
	}
	if len(pts) > 0 {
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return nil, fmt.Errorf("report: reliability diagram: %w", err)
		}
		bars.Color = pointColor
		unit := vg.Points(9) / vg.Length(math.Sqrt(float64(most)))
		p.Add(bars, reliabilityMarkers{bins: pts, unit: unit})
	}
	return svgOf(p, chartWidth, chartHeight)
}

// murphyTrendSVG plots a learning trend: the Murphy reliability,
// resolution and uncertainty of each window against the window index
// (score --trend W). Learning shows as a rising resolution line; a
// falling reliability line alone is better calibration, not learning.
func murphyTrendSVG(key string, tr forecast.TrendResult) ([]byte, error) {
	p := newPlot()
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
	return svgOf(p, chartWidth, chartHeight)
}
