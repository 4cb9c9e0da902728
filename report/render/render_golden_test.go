package render_test

import (
	"testing"

	"github.com/evalcal/evalcal/report/render"
)

// One Markdown golden per trust level, each from a synthetic report built
// by the real stages; monitor's carries every optional section (estimate,
// repeatability, cost, failed gates, invalid runs, runs read in part,
// light-only runs, failures). Regenerate with -update.
func TestMarkdownGoldenPerTrustLevel(t *testing.T) {
	for _, level := range trustLevels {
		t.Run(level, func(t *testing.T) {
			b, err := render.Markdown(trustReport(t, level))
			if err != nil {
				t.Fatal(err)
			}
			render.CheckGolden(t, "testdata/render/trust-"+level+".md", b)
		})
	}
}

// The HTML of the report with every section.
func TestHTMLGoldenOfTheFullReport(t *testing.T) {
	b, err := render.HTML(trustReport(t, "monitor"))
	if err != nil {
		t.Fatal(err)
	}
	render.CheckGolden(t, "testdata/render/trust-monitor.html", b)
}
