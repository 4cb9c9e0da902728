package report

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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
	page, err := HTML(buildReport(fixtureRuns))
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
