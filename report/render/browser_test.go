package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reporttest"
	"github.com/evalcal/evalcal/statistician"
)

// chromiumPath finds Debian's chromium; the browser tests skip only when
// it is not installed (CI installs it: apt-get install -y chromium).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (apt-get install -y chromium)")
	return ""
}

// screenshot loads page in headless chromium with networking disabled
// and every host unresolvable, and returns the console messages the page
// logged and the screenshot.
func screenshot(t *testing.T, page []byte, width, height int) (console []string, shot []byte) {
	t.Helper()
	bin := chromiumPath(t)
	dir := t.TempDir()
	htmlPath := filepath.Join(dir, "page.html")
	pngPath := filepath.Join(dir, "shot.png")
	if err := os.WriteFile(htmlPath, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"),
		"--host-resolver-rules=MAP * ~NOTFOUND",
		"--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height),
		"--screenshot="+pngPath, "--enable-logging=stderr", "--v=0",
		"file://"+htmlPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		// Console messages are logged as [pid:tid:time:LEVEL:CONSOLE(line)].
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	shot, err := os.ReadFile(pngPath)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, stderr.String())
	}
	return console, shot
}

// countColor counts pixels within tol of the RGB colour c.
func countColor(t *testing.T, shot []byte, r, g, b uint8, tol int) int {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	near := func(a uint32, b uint8) bool { d := int(a>>8) - int(b); return d <= tol && d >= -tol }
	n := 0
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y++ {
		for x := bounds.Min.X; x < bounds.Max.X; x++ {
			pr, pg, pb, _ := img.At(x, y).RGBA()
			if near(pr, r) && near(pg, g) && near(pb, b) {
				n++
			}
		}
	}
	return n
}

// The HTML report opens in a real browser without a console message, and
// its charts are drawn: the screenshot holds the charts' point colour and
// the confusion matrix's darkest cell.
func TestHTMLReportRendersInChromiumWithoutConsoleErrors(t *testing.T) {
	page, err := HTML(reporttest.Fixture(0))
	if err != nil {
		t.Fatal(err)
	}
	console, shot := screenshot(t, page, 1280, 5200)
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	if n := countColor(t, shot, 0x1f, 0x5f, 0xa8, 8); n < 2000 {
		t.Errorf("only %d pixels of the chart colour: charts not drawn?", n)
	}
}

// The check above can fail: a page that logs an error is caught.
func TestBrowserCheckCatchesConsoleErrors(t *testing.T) {
	console, _ := screenshot(t, []byte(`<!DOCTYPE html><title>x</title><script>console.error("boom")</script>`), 400, 300)
	if len(console) == 0 || !strings.Contains(strings.Join(console, "\n"), "boom") {
		t.Errorf("console error not caught: %q", console)
	}
}

func TestScoreHTMLRendersInChromiumWithoutConsoleErrors(t *testing.T) {
	page, err := ScoreHTML(scoreDoc(t))
	if err != nil {
		t.Fatal(err)
	}
	console, shot := screenshot(t, page, 1280, 3000)
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	if n := countColor(t, shot, 0x1f, 0x5f, 0xa8, 8); n < 500 {
		t.Errorf("only %d pixels of the chart colour: diagrams not drawn?", n)
	}
}

// pageLayout is what layoutScript measures in the browser: the viewport,
// bounding boxes ([left, top, right, bottom] in CSS pixels, null when the
// element is missing) and, per figure, its caption, its SVG's rendered
// box and how many count labels it draws with a visible size.
type pageLayout struct {
	W, H     float64
	Banner   []float64
	Contents []float64
	RecsLink []float64
	Rec1     []float64
	Figures  []struct {
		Caption string
		Box     []float64
		Counts  int
		// Markers and Labels are the rendered boxes of the run markers
		// (translucent circles) and of the count labels.
		Markers [][]float64
		Labels  [][]float64
	}
}

// layoutScript measures the page after layout and writes the result as
// JSON into a <pre id="layout-result"> that --dump-dom prints.
const layoutScript = `<script>(function(){
function box(e){if(!e)return null;var r=e.getBoundingClientRect();return [r.left,r.top,r.right,r.bottom];}
var figs=[];document.querySelectorAll('figure').forEach(function(f){
 var svg=f.querySelector('svg'),cap=f.querySelector('figcaption'),n=0,marks=[],labels=[];
 if(svg){svg.querySelectorAll('text').forEach(function(t){var s=t.getAttribute('style')||'';var r=t.getBoundingClientRect();
  if(s.indexOf('fill:#0B2545')>=0&&r.width>0&&r.height>0){n++;labels.push(box(t));}});
  svg.querySelectorAll('path').forEach(function(p){var s=p.getAttribute('style')||'';
  if(s.indexOf('fill-opacity:0.37647')>=0)marks.push(box(p));});}
 figs.push({Caption:cap?cap.textContent:'',Box:box(svg),Counts:n,Markers:marks,Labels:labels});});
var out={W:window.innerWidth,H:window.innerHeight,Banner:box(document.getElementById('verdict')),
 Contents:box(document.getElementById('contents')),RecsLink:box(document.querySelector('#contents a[href="#recommendations"]')),
 Rec1:box(document.querySelector('#recommendations li')),Figures:figs};
var pre=document.createElement('pre');pre.id='layout-result';pre.textContent=JSON.stringify(out);document.body.appendChild(pre);})();</script>`

// layoutOf loads page, with layoutScript appended, in headless chromium at
// width x height and returns the measurements and the console messages
// the page logged (the script logs none).
func layoutOf(t *testing.T, page []byte, width, height int) (pageLayout, []string) {
	t.Helper()
	bin := chromiumPath(t)
	dir := t.TempDir()
	htmlPath := filepath.Join(dir, "page.html")
	withScript := bytes.Replace(page, []byte("</body>"), []byte(layoutScript+"</body>"), 1)
	if err := os.WriteFile(htmlPath, withScript, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin,
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"),
		"--host-resolver-rules=MAP * ~NOTFOUND",
		"--window-size="+strconv.Itoa(width)+","+strconv.Itoa(height),
		"--enable-logging=stderr", "--v=0", "--dump-dom",
		"file://"+htmlPath)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	var console []string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, ":CONSOLE") {
			console = append(console, line)
		}
	}
	_, after, ok := strings.Cut(stdout.String(), `<pre id="layout-result">`)
	res, _, ok2 := strings.Cut(after, "</pre>")
	if !ok || !ok2 {
		t.Fatalf("no layout in the dumped DOM (did the script run?)\n%s", stderr.String())
	}
	var l pageLayout
	if err := json.Unmarshal([]byte(html.UnescapeString(res)), &l); err != nil {
		t.Fatalf("layout %q: %v", res, err)
	}
	return l, console
}

// aboveTheFold says what is wrong with a page's first screen in a
// 1280x800 window (the viewport, shorter than the window, is the bound):
// the banner must end on it, and the first recommendation or its link in
// the contents must be on it.
func aboveTheFold(l pageLayout) []string {
	var out []string
	fold := math.Min(800, l.H)
	if l.W != 1280 || l.H < 500 {
		return []string{fmt.Sprintf("viewport %vx%v", l.W, l.H)}
	}
	if len(l.Banner) != 4 || l.Banner[1] > 20 || l.Banner[3] > fold {
		out = append(out, fmt.Sprintf("banner %v is not at the top above the fold (%v px)", l.Banner, fold))
	}
	recOnScreen := len(l.Rec1) == 4 && l.Rec1[1] < fold
	linkOnScreen := len(l.RecsLink) == 4 && l.RecsLink[3] <= fold && len(l.Rec1) == 4
	if !recOnScreen && !linkOnScreen {
		out = append(out, fmt.Sprintf("neither the first recommendation %v nor its link in the contents %v is above the fold (%v px)", l.Rec1, l.RecsLink, fold))
	}
	return out
}

// At 1280x800 the banner (verdict, failed gates, what is set aside) is
// above the fold and the recommendations are one click away; the page
// logs nothing; the scatter plots are square on the page and show their
// counts. Checked on the golden report with every section and on a
// report with a failed gate.
func TestHTMLBannerIsAboveTheFoldAt1280x800(t *testing.T) {
	golden, err := os.ReadFile("../../testdata/render/trust-monitor.html")
	if err != nil {
		t.Fatal(err)
	}
	r := reporttest.Fixture(0)
	gs, err := gates.Parse([]string{"agreement.lower >= 80", "kappa.linear.lower >= 0.7"})
	if err != nil {
		t.Fatal(err)
	}
	r.Gates = gates.Check(gs, r)
	report.Summarize(r)
	withGates, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	for name, page := range map[string][]byte{"trust-monitor.html": golden, "failed gates": withGates} {
		l, console := layoutOf(t, page, 1280, 800)
		if len(console) > 0 {
			t.Errorf("%s: console messages:\n%s", name, strings.Join(console, "\n"))
		}
		for _, p := range aboveTheFold(l) {
			t.Errorf("%s: %s", name, p)
		}
		scatters := 0
		for _, f := range l.Figures {
			if !strings.HasPrefix(f.Caption, "light vs deep") {
				continue
			}
			scatters++
			if len(f.Box) != 4 {
				t.Errorf("%s: scatter %q not drawn", name, f.Caption)
				continue
			}
			if w, h := f.Box[2]-f.Box[0], f.Box[3]-f.Box[1]; w < 100 || math.Abs(w-h) > 0.5 {
				t.Errorf("%s: scatter %q is %vx%v px on the page, want square", name, f.Caption, w, h)
			}
		}
		if scatters != 2 {
			t.Errorf("%s: %d scatter plots, want 2", name, scatters)
		}
	}
}

// The layout check can fail: a page whose banner is pushed below the fold
// is caught.
func TestAboveTheFoldCheckCatchesALowBanner(t *testing.T) {
	page := []byte(`<!DOCTYPE html><html><body><div style="height:900px">filler</div><header id="verdict">late</header></body></html>`)
	l, _ := layoutOf(t, page, 1280, 800)
	if len(aboveTheFold(l)) == 0 {
		t.Error("a banner 900 px down passed the check")
	}
}

// The charts show their counts in the browser: the corpus-like scatter
// draws a visible count label for every place with more than one run.
func TestScatterCountsAreVisibleInChromium(t *testing.T) {
	cs := clusteredComparisons([]int{12, 9, 7, 6, 5, 3, 2, 1, 1})
	svg, err := scatterSVG(cs, "runtime_fidelity")
	if err != nil {
		t.Fatal(err)
	}
	page := []byte(`<!DOCTYPE html><html><head><title>s</title></head><body><figure>` + string(svg) + `<figcaption>light vs deep</figcaption></figure></body></html>`)
	l, console := layoutOf(t, page, 1280, 800)
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	if len(l.Figures) != 1 || l.Figures[0].Counts != 7 {
		t.Errorf("figures %+v: want one with 7 visible count labels", l.Figures)
	}
}

// chartProblems says what is wrong with a chart's markers and labels on
// the page: a marker or a label that leaves the chart (clipped by its
// edge), or a label drawn across a marker's edge (a number too big for a
// small marker must be beside it).
func chartProblems(box []float64, markers, labels [][]float64) []string {
	const tol = 0.5 // px
	var out []string
	inside := func(r, outer []float64) bool {
		return r[0] >= outer[0]-tol && r[1] >= outer[1]-tol && r[2] <= outer[2]+tol && r[3] <= outer[3]+tol
	}
	overlaps := func(a, b []float64) bool {
		return a[0] < b[2]-tol && b[0] < a[2]-tol && a[1] < b[3]-tol && b[1] < a[3]-tol
	}
	for _, m := range markers {
		if !inside(m, box) {
			out = append(out, fmt.Sprintf("marker %v leaves the chart %v", m, box))
		}
	}
	for _, l := range labels {
		if !inside(l, box) {
			out = append(out, fmt.Sprintf("label %v leaves the chart %v", l, box))
		}
		for _, m := range markers {
			if overlaps(l, m) && !inside(l, m) {
				out = append(out, fmt.Sprintf("label %v crosses the edge of marker %v", l, m))
				break
			}
		}
	}
	return out
}

// The charts keep their largest marker and every count label inside their
// margins, and a count too big for its marker is written beside it (issue
// 28: large bubbles were clipped at the top, numbers overflowed small
// markers). Checked in chromium on runs at the corners of the scatter and
// the Bland-Altman plot, where the markers are largest and smallest.
func TestChartsHoldMarkersAndLabelsInChromium(t *testing.T) {
	var cs []comparator.Comparison
	add := func(n int, l, d float64) {
		for k := 0; k < n; k++ {
			cs = append(cs, comparator.Comparison{RunID: fmt.Sprintf("r%03d", len(cs)),
				Light: comparator.Scores{RuntimeFidelity: l, TaskEffectiveness: l},
				Deep:  comparator.Scores{RuntimeFidelity: d, TaskEffectiveness: d}})
		}
	}
	add(40, 100, 100) // the largest marker, in the top right corner
	add(25, 0, 0)
	add(2, 100, 0) // small markers with a count
	add(2, 0, 100)
	add(3, 50, 55)
	ba := report.BlandAltmanResult{N: len(cs), Bias: 1.5, Lower: -60, Upper: 63}
	scatter, err := scatterSVG(cs, "runtime_fidelity")
	if err != nil {
		t.Fatal(err)
	}
	bland, err := blandAltmanSVG(cs, "runtime_fidelity", ba)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := reliabilitySVG([]report.ReliabilityBin{
		{Lower: 0, Upper: 0.1, Count: 60, MeanForecast: ptrTo(0.02), ObservedRate: ptrTo(0.98), RateCI95: &statistician.Interval{Lower: 0.9, Upper: 1}},
		{Lower: 0.9, Upper: 1, Count: 2, MeanForecast: ptrTo(0.99), ObservedRate: ptrTo(0.0), RateCI95: &statistician.Interval{Lower: 0, Upper: 0.6}},
	})
	if err != nil {
		t.Fatal(err)
	}
	page := []byte(`<!DOCTYPE html><html><head><title>c</title></head><body>` +
		`<figure>` + string(scatter) + `<figcaption>scatter</figcaption></figure>` +
		`<figure>` + string(bland) + `<figcaption>bland</figcaption></figure>` +
		`<figure>` + string(rel) + `<figcaption>reliability</figcaption></figure></body></html>`)
	l, console := layoutOf(t, page, 1280, 800)
	if len(console) > 0 {
		t.Errorf("console messages:\n%s", strings.Join(console, "\n"))
	}
	if len(l.Figures) != 3 {
		t.Fatalf("%d figures, want 3", len(l.Figures))
	}
	for _, f := range l.Figures {
		if len(f.Box) != 4 || len(f.Markers) == 0 || len(f.Labels) == 0 {
			t.Errorf("%s: box %v, %d markers, %d labels", f.Caption, f.Box, len(f.Markers), len(f.Labels))
			continue
		}
		for _, p := range chartProblems(f.Box, f.Markers, f.Labels) {
			t.Errorf("%s: %s", f.Caption, p)
		}
	}
}

// The chart check can fail: a marker past the edge and a label across a
// marker's edge are caught.
func TestChartCheckCatchesClippingAndOverflow(t *testing.T) {
	box := []float64{0, 0, 100, 100}
	if len(chartProblems(box, [][]float64{{90, -5, 110, 15}}, nil)) == 0 {
		t.Error("a marker past the corner passed")
	}
	if len(chartProblems(box, [][]float64{{40, 40, 46, 46}}, [][]float64{{42, 40, 52, 48}})) == 0 {
		t.Error("a label across a small marker's edge passed")
	}
	if p := chartProblems(box, [][]float64{{40, 40, 70, 70}}, [][]float64{{50, 50, 58, 58}, {72, 40, 80, 48}}); len(p) > 0 {
		t.Errorf("a label inside a marker and one beside it: %v", p)
	}
}
