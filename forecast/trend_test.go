package forecast

import (
	"testing"
	"time"

	"github.com/evalcal/evalcal/statistician"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestOLSSlopeMatchesScipyLinregress(t *testing.T) {
	// scipy 1.10.1: r = stats.linregress(range(n), y); the interval is
	// r.slope -/+ stats.t.ppf(0.975, n-2) * r.stderr. gonum's t quantile
	// at 1 degree of freedom differs from scipy's by ~1e-11, hence 1e-10.
	tests := []struct {
		y    []float64
		want Slope
	}{
		{[]float64{0, 0, 0.0625, 0.0625, 0.25, 0.25}, Slope{0.057142857142857134, 0.012285575857470416, 4,
			statistician.Interval{Lower: 0.02303263018884715, Upper: 0.09125308409686711}}},
		{[]float64{0.16, 0.09, 0.04, 0.01, 0}, Slope{-0.04000000000000001, 0.006831300510639714, 3,
			statistician.Interval{Lower: -0.06174024707037186, Upper: -0.018259752929628153}}},
		{[]float64{0, 0.0625, 0.25}, Slope{0.125, 0.036084391824351594, 1,
			statistician.Interval{Lower: -0.3334956703098478, Upper: 0.5834956703098477}}},
	}
	for _, tt := range tests {
		got, err := OLSSlope(tt.y)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(0, 1e-10)); diff != "" {
			t.Errorf("OLSSlope(%v) (-want +got):\n%s", tt.y, diff)
		}
	}
	if _, err := OLSSlope([]float64{1, 2}); err == nil {
		t.Error("two points: no error")
	}
}

// windowForecasts returns forecasts p[i] with outcomes y[i], at hours
// start, start+1, ...
func windowForecasts(start int, p []float64, y []int) []Forecast {
	var fs []Forecast
	for i := range p {
		fs = append(fs, Forecast{Kind: Binary, Confidence: p[i], Outcome: y[i],
			At: time.Date(2026, 1, 1, start+i, 0, 0, 0, time.UTC)})
	}
	return fs
}

// Hand-worked windows of 4 (Murphy 1973 with distinct forecast values):
//
//	flat:  p = .5 .5 .5 .5, y = 1 0 1 0: one group, o_k = o = .5: REL 0, RES 0, UNC .25
//	some:  p = .8 .8 .2 .2, y = 1 0 0 0: o = .25; o_.8 = .5, o_.2 = 0:
//	       REL = (2(.3)^2 + 2(.2)^2)/4 = .065, RES = (2(.25)^2 + 2(.25)^2)/4 = .0625, UNC = .1875
//	sharp: p = .8 .8 .2 .2, y = 1 1 0 0: o = .5: REL = (2(.2)^2 + 2(.2)^2)/4 = .04,
//	       RES = .25, UNC = .25
var (
	flatP, flatY   = []float64{.5, .5, .5, .5}, []int{1, 0, 1, 0}
	someP, someY   = []float64{.8, .8, .2, .2}, []int{1, 0, 0, 0}
	sharpP, sharpY = []float64{.8, .8, .2, .2}, []int{1, 1, 0, 0}
)

func TestTrendRisingResolutionIsLearning(t *testing.T) {
	var fs []Forecast
	// Given newest first: Trend must sort by time.
	fs = append(fs, windowForecasts(20, sharpP, sharpY)...)
	fs = append(fs, windowForecasts(16, sharpP, sharpY)...)
	fs = append(fs, windowForecasts(12, someP, someY)...)
	fs = append(fs, windowForecasts(8, someP, someY)...)
	fs = append(fs, windowForecasts(4, flatP, flatY)...)
	fs = append(fs, windowForecasts(0, flatP, flatY)...)
	fs = append(fs, Forecast{Kind: Binary, Confidence: .9, Outcome: 1, At: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)})
	got, err := Trend(fs, 4)
	if err != nil {
		t.Fatal(err)
	}
	var res, rel []float64
	for _, w := range got.Windows {
		res = append(res, w.Resolution)
		rel = append(rel, w.Reliability)
	}
	opt := cmpopts.EquateApprox(0, 1e-12)
	if diff := cmp.Diff([]float64{0, 0, .0625, .0625, .25, .25}, res, opt); diff != "" {
		t.Errorf("resolution per window (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]float64{0, 0, .065, .065, .04, .04}, rel, opt); diff != "" {
		t.Errorf("reliability per window (-want +got):\n%s", diff)
	}
	// Slope interval from scipy (see TestOLSSlopeMatchesScipyLinregress).
	if got.Resolution == nil || got.Resolution.CI95.Lower < 0.0230326 || got.Resolution.CI95.Lower > 0.0230327 {
		t.Errorf("resolution slope %+v, want lower bound 0.0230326", got.Resolution)
	}
	if !got.Learning || got.Verdict != VerdictResolutionRising || got.Dropped != 1 {
		t.Errorf("learning %v verdict %s dropped %d; want true, %s, 1", got.Learning, got.Verdict, got.Dropped, VerdictResolutionRising)
	}
	if w := got.Windows[0]; !w.From.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) || !w.To.Equal(time.Date(2026, 1, 1, 3, 0, 0, 0, time.UTC)) {
		t.Errorf("first window spans %v..%v", w.From, w.To)
	}
}

func TestTrendFallingReliabilityAloneIsNotLearning(t *testing.T) {
	// Stated p falls from .9 to .5 on a 50% base rate: reliability
	// (p - .5)^2 = .16, .09, .04, .01, 0 falls, resolution stays 0.
	var fs []Forecast
	for w, p := range []float64{.9, .8, .7, .6, .5} {
		fs = append(fs, windowForecasts(4*w, []float64{p, p, p, p}, []int{1, 0, 1, 0})...)
	}
	got, err := Trend(fs, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got.Learning || got.Verdict != VerdictReliabilityFallingOnly {
		t.Errorf("learning %v verdict %s; want false, %s", got.Learning, got.Verdict, VerdictReliabilityFallingOnly)
	}
	want := &Slope{-0.04000000000000001, 0.006831300510639714, 3, statistician.Interval{Lower: -0.06174024707037186, Upper: -0.018259752929628153}}
	if diff := cmp.Diff(want, got.Reliability, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("reliability slope (-want +got):\n%s", diff)
	}
}

func TestTrendFlatIsNeitherAndFewWindowsSaySo(t *testing.T) {
	var fs []Forecast
	for w := 0; w < 4; w++ {
		fs = append(fs, windowForecasts(4*w, sharpP, sharpY)...)
	}
	got, err := Trend(fs, 4)
	if err != nil {
		t.Fatal(err)
	}
	if got.Learning || got.Verdict != VerdictNeither {
		t.Errorf("constant windows: learning %v verdict %s", got.Learning, got.Verdict)
	}
	got, err = Trend(fs[:9], 4)
	if err != nil {
		t.Fatal(err)
	}
	if got.Verdict != VerdictTooFewWindows || got.Resolution != nil || len(got.Windows) != 2 || got.Dropped != 1 || len(got.Warnings) != 1 {
		t.Errorf("two windows: %+v", got)
	}
}

func TestTrendRejectsBadInput(t *testing.T) {
	if _, err := Trend(nil, 1); err == nil {
		t.Error("window 1: no error")
	}
	if _, err := Trend([]Forecast{{Kind: Ordinal, Probs: []float64{.5, .5}}}, 2); err == nil {
		t.Error("ordinal forecast: no error")
	}
	if _, err := Trend([]Forecast{{Kind: Binary, Confidence: 2}, {Kind: Binary}}, 2); err == nil {
		t.Error("confidence 2: no error")
	}
}
