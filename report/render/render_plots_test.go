package render

import (
	"fmt"
	"html"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reporttest"
	"github.com/evalcal/evalcal/statistician"
)

// svgText is a text element of a gonum/plot SVG: its anchor in SVG user
// units (y grows downwards on the page: gonum writes y = -Y inside a
// flipped group, so a smaller y is higher), its style and its text.
type svgText struct {
	x, y  float64
	style string
	text  string
}

var (
	svgTextRE   = regexp.MustCompile(`(?s)<text x="([-0-9.e+]+)" y="([-0-9.e+]+)"[^>]*?style="([^"]*)">([^<]*)</text>`)
	svgCircleRE = regexp.MustCompile(`<path d="M([-0-9.e+]+),([-0-9.e+]+)A([-0-9.e+]+),[-0-9.e+]+ 0 1 1 [^"]*Z" style="([^"]*)"`)
	svgSizeRE   = regexp.MustCompile(`<svg width="([0-9.]+)pt" height="([0-9.]+)pt"`)
	svgDashRE   = regexp.MustCompile(`<path d="M([-0-9.e+]+),([-0-9.e+]+)L([-0-9.e+]+),([-0-9.e+]+)" style="fill:none;stroke:#888888;stroke-dasharray:4,3" />`)
)

func parseFloat(t *testing.T, s string) float64 {
	t.Helper()
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func svgTexts(t *testing.T, svg []byte) []svgText {
	t.Helper()
	var out []svgText
	for _, m := range svgTextRE.FindAllStringSubmatch(string(svg), -1) {
		out = append(out, svgText{parseFloat(t, m[1]), parseFloat(t, m[2]), m[3], html.UnescapeString(m[4])})
	}
	return out
}

// svgCircle is a filled circle: a marker.
type svgCircle struct{ cx, cy, r float64 }

// svgCircles returns the circles whose style contains fill.
func svgCircles(t *testing.T, svg []byte, fill string) []svgCircle {
	t.Helper()
	var out []svgCircle
	for _, m := range svgCircleRE.FindAllStringSubmatch(string(svg), -1) {
		if !strings.Contains(m[4], fill) {
			continue
		}
		r := parseFloat(t, m[3])
		out = append(out, svgCircle{parseFloat(t, m[1]) - r, parseFloat(t, m[2]), r})
	}
	return out
}

// markerFill is the style a translucent run marker is written with.
const markerFill = "fill:#1E5EA7;fill-opacity:0.37647"

// countsOf returns the numbers written in countLabelColor.
func countsOf(t *testing.T, svg []byte) []int {
	t.Helper()
	var out []int
	for _, tx := range svgTexts(t, svg) {
		if strings.Contains(tx.style, "fill:#0B2545") {
			n, err := strconv.Atoi(tx.text)
			if err != nil {
				t.Fatalf("count label %q is not a number", tx.text)
			}
			out = append(out, n)
		}
	}
	return out
}

// clusteredComparisons puts runs on places with the given counts, as the
// bundled corpus does (46 runs on 9 places).
func clusteredComparisons(counts []int) []comparator.Comparison {
	var cs []comparator.Comparison
	for i, n := range counts {
		for k := 0; k < n; k++ {
			l, d := 85-float64(i)*7, 80-float64(i)*9
			cs = append(cs, comparator.Comparison{RunID: fmt.Sprintf("r%02d-%02d", i, k),
				Light: comparator.Scores{RuntimeFidelity: l, TaskEffectiveness: l - 5},
				Deep:  comparator.Scores{RuntimeFidelity: d, TaskEffectiveness: d + 3}})
		}
	}
	return cs
}

// The scatter is square with a square data area, so the identity line is
// at 45 degrees, and it shows how many runs sit on each place: one marker
// per place, its area proportional to its runs, and the number written
// on it when above 1. The counts add up to the runs.
func TestScatterIsSquareAndShowsTheRunsAtEachPoint(t *testing.T) {
	counts := []int{12, 9, 7, 6, 5, 3, 2, 1, 1}
	cs := clusteredComparisons(counts)
	if len(cs) != 46 {
		t.Fatalf("%d runs", len(cs))
	}
	svg, err := scatterSVG(cs, "runtime_fidelity")
	if err != nil {
		t.Fatal(err)
	}
	size := svgSizeRE.FindSubmatch(svg)
	if size == nil || string(size[1]) != string(size[2]) {
		t.Fatalf("scatter svg is not square: %q", size)
	}
	id := svgDashRE.FindSubmatch(svg)
	if id == nil {
		t.Fatal("no identity line")
	}
	dx := parseFloat(t, string(id[3])) - parseFloat(t, string(id[1]))
	dy := parseFloat(t, string(id[4])) - parseFloat(t, string(id[2]))
	if dx <= 0 || math.Abs(dx-dy) > 0.01 {
		t.Errorf("identity line is not at 45 degrees: dx %v, dy %v", dx, dy)
	}
	markers := svgCircles(t, svg, markerFill)
	if len(markers) != len(counts) {
		t.Fatalf("%d markers, want one per place (%d)", len(markers), len(counts))
	}
	labels := countsOf(t, svg)
	sum, labelled := 0, 0
	for _, n := range labels {
		sum += n
		labelled++
		if n < 2 {
			t.Errorf("a marker of %d run is labelled", n)
		}
	}
	sum += len(markers) - labelled // the unlabelled markers stand for one run each
	if sum != len(cs) {
		t.Errorf("the markers stand for %d runs, want %d (labels %v)", sum, len(cs), labels)
	}
	wantLabels := []int{12, 9, 7, 6, 5, 3, 2}
	slices.Sort(labels)
	slices.Sort(wantLabels)
	if !slices.Equal(labels, wantLabels) {
		t.Errorf("labels %v, want %v", labels, wantLabels)
	}
	// Area ∝ runs: radius² / runs is the same for every marker.
	radii := make([]float64, len(markers))
	for i, m := range markers {
		radii[i] = m.r
	}
	sort.Float64s(radii)
	sorted := slices.Clone(counts)
	slices.Sort(sorted)
	for i := range radii {
		ratio := radii[i] * radii[i] / float64(sorted[i])
		want := radii[0] * radii[0] / float64(sorted[0])
		if math.Abs(ratio-want) > 0.01*want {
			t.Errorf("marker of %d runs has radius %v: area not proportional to runs", sorted[i], radii[i])
		}
	}
	if !strings.Contains(string(svg), "46 runs at 9 points") {
		t.Error("the title does not say how many runs and places")
	}
}

// The heat map has the table's order: light's verdicts as rows from the
// top, deep's as columns from the left, and each count in its cell.
func TestConfusionHeatMapFollowsTheTableOrder(t *testing.T) {
	c := report.Confusion{Order: []string{"fail", "partial", "pass"}, Rows: "light", Columns: "deep",
		Counts: [][]int{{11, 12, 13}, {21, 22, 23}, {31, 32, 33}}}
	svg, err := confusionSVG(c)
	if err != nil {
		t.Fatal(err)
	}
	texts := svgTexts(t, svg)
	// Each verdict name is written twice: the y tick (left of the cells)
	// and the x tick (under its column).
	yTick, xTick := map[string]svgText{}, map[string]svgText{}
	for _, tx := range texts {
		if !slices.Contains(c.Order, tx.text) {
			continue
		}
		if prev, ok := yTick[tx.text]; !ok || tx.x < prev.x {
			if ok {
				xTick[tx.text] = prev
			}
			yTick[tx.text] = tx
		} else {
			xTick[tx.text] = tx
		}
	}
	byY := slices.Clone(c.Order)
	sort.Slice(byY, func(i, j int) bool { return yTick[byY[i]].y < yTick[byY[j]].y })
	if !slices.Equal(byY, c.Order) {
		t.Errorf("rows from the top: %v, want the table's %v", byY, c.Order)
	}
	byX := slices.Clone(c.Order)
	sort.Slice(byX, func(i, j int) bool { return xTick[byX[i]].x < xTick[byX[j]].x })
	if !slices.Equal(byX, c.Order) {
		t.Errorf("columns from the left: %v, want the table's %v", byX, c.Order)
	}
	// The cell counts, read top to bottom and left to right, are the
	// table's rows.
	var cells []svgText
	for _, tx := range texts {
		if n, err := strconv.Atoi(tx.text); err == nil && n > 10 {
			cells = append(cells, tx)
		}
	}
	sort.Slice(cells, func(i, j int) bool {
		if math.Abs(cells[i].y-cells[j].y) > 1 {
			return cells[i].y < cells[j].y
		}
		return cells[i].x < cells[j].x
	})
	var read []string
	for _, tx := range cells {
		read = append(read, tx.text)
	}
	if got := strings.Join(read, " "); got != "11 12 13 21 22 23 31 32 33" {
		t.Errorf("cells read %s", got)
	}
}

// Reliability markers: area proportional to the bin's count, the count
// written beside each, empty bins not drawn.
func TestReliabilityMarkersAreSizedByBinCount(t *testing.T) {
	bins := []report.ReliabilityBin{
		{Lower: 0, Upper: 0.3, Count: 4, Hits: 1, MeanForecast: ptrTo(0.2), ObservedRate: ptrTo(0.25), RateCI95: &statistician.Interval{Lower: 0.04, Upper: 0.7}},
		{Lower: 0.3, Upper: 0.6, Count: 0, Reason: "empty bin"},
		{Lower: 0.6, Upper: 0.8, Count: 16, Hits: 11, MeanForecast: ptrTo(0.7), ObservedRate: ptrTo(0.6875), RateCI95: &statistician.Interval{Lower: 0.44, Upper: 0.86}},
		{Lower: 0.8, Upper: 1, Count: 64, Hits: 58, MeanForecast: ptrTo(0.9), ObservedRate: ptrTo(0.90625), RateCI95: &statistician.Interval{Lower: 0.81, Upper: 0.96}},
	}
	svg, err := reliabilitySVG(bins)
	if err != nil {
		t.Fatal(err)
	}
	markers := svgCircles(t, svg, markerFill)
	if len(markers) != 3 {
		t.Fatalf("%d markers, want 3 (the empty bin draws none)", len(markers))
	}
	sort.Slice(markers, func(i, j int) bool { return markers[i].cx < markers[j].cx })
	// Counts 4, 16, 64: radii in the ratio 1:2:4.
	if r := markers[1].r / markers[0].r; math.Abs(r-2) > 0.01 {
		t.Errorf("radius ratio 16/4 runs = %v, want 2", r)
	}
	if r := markers[2].r / markers[0].r; math.Abs(r-4) > 0.01 {
		t.Errorf("radius ratio 64/4 runs = %v, want 4", r)
	}
	labels := countsOf(t, svg)
	slices.Sort(labels)
	if !slices.Equal(labels, []int{4, 16, 64}) {
		t.Errorf("count labels %v, want 4, 16, 64", labels)
	}
}

var fontFamilyRE = regexp.MustCompile(`font-family:\s*([^;}]+)`)

// Page and charts name one font family, the one gonum/plot measures the
// charts' text with first.
func TestPageAndChartsShareOneFontFamily(t *testing.T) {
	h, err := HTML(reporttest.Fixture(0))
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]int{}
	for _, m := range fontFamilyRE.FindAllStringSubmatch(string(h), -1) {
		family := strings.NewReplacer(`"`, "", "'", "", "&#34;", "", "&#39;", "").Replace(strings.TrimSpace(m[1]))
		found[family]++
	}
	if len(found) != 1 {
		t.Fatalf("font families: %v", found)
	}
	for family, n := range found {
		if family != "Liberation Sans, Arial, Helvetica, sans-serif" || n < 20 {
			t.Errorf("family %q used %d times", family, n)
		}
	}
	if strings.Contains(string(h), "Liberation Serif") {
		t.Error("a chart still uses gonum/plot's default serif font")
	}
}

// ptrTo returns a pointer to a copy of v.
func ptrTo[T any](v T) *T { return &v }
