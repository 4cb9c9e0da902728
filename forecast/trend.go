package forecast

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/evalcal/evalcal/internal/english"
	"github.com/evalcal/evalcal/statistician"
)

// Trend verdicts: only rising resolution counts as learning (issue 4).
const (
	// VerdictResolutionRising: the resolution slope's 95% interval lies
	// above 0: the forecasts separate outcomes better over time.
	VerdictResolutionRising = "resolution_rising"
	// VerdictReliabilityFallingOnly: resolution is not rising, but the
	// reliability term falls (the slope's interval lies below 0): the
	// forecaster got better calibrated, e.g. by moving towards the base
	// rate, which is not learning.
	VerdictReliabilityFallingOnly = "reliability_falling_only"
	// VerdictNeither: neither trend is clear.
	VerdictNeither = "neither"
	// VerdictTooFewWindows: fewer than 3 windows, no slope interval.
	VerdictTooFewWindows = "too_few_windows"
)

// TrendWindow is the Murphy decomposition of one window of forecasts.
type TrendWindow struct {
	Index int `yaml:"index" json:"index"`
	N     int `yaml:"n" json:"n"`
	// From and To are the first and last forecast times in the window.
	From        time.Time `yaml:"from" json:"from"`
	To          time.Time `yaml:"to" json:"to"`
	Brier       float64   `yaml:"brier" json:"brier"`
	Reliability float64   `yaml:"reliability" json:"reliability"`
	Resolution  float64   `yaml:"resolution" json:"resolution"`
	Uncertainty float64   `yaml:"uncertainty" json:"uncertainty"`
}

// Slope is a least-squares slope over window index with its 95% t
// interval.
type Slope struct {
	Estimate float64               `yaml:"estimate" json:"estimate"`
	SE       float64               `yaml:"se" json:"se"`
	DF       int                   `yaml:"df" json:"df"`
	CI95     statistician.Interval `yaml:"ci95" json:"ci95"`
}

// TrendResult is the learning trend of a forecaster.
type TrendResult struct {
	Window  int           `yaml:"window" json:"window"`
	Windows []TrendWindow `yaml:"windows" json:"windows"`
	// Resolution and Reliability are the slopes of those terms over
	// window index; nil under 3 windows.
	Resolution  *Slope `yaml:"resolution_slope" json:"resolution_slope"`
	Reliability *Slope `yaml:"reliability_slope" json:"reliability_slope"`
	// Learning is true only when the resolution slope's interval lies
	// above 0; Verdict says which trend happened.
	Learning bool   `yaml:"learning" json:"learning"`
	Verdict  string `yaml:"verdict" json:"verdict"`
	// Dropped counts the newest forecasts that did not fill a window.
	Dropped  int      `yaml:"dropped" json:"dropped"`
	Warnings []string `yaml:"warnings" json:"warnings"`
}

// Trend splits Binary forecasts, sorted by At (ties by ID, then
// confidence and outcome, so that the input's order does not matter), into consecutive windows of window forecasts, computes each
// window's exact Murphy decomposition (statistician.MurphyExact), and fits
// least-squares lines to resolution and to reliability over the window
// index (OLSSlope). The trailing forecasts that do not fill a window are
// dropped. Learning is reported only when the resolution slope's 95%
// interval lies above 0; a falling reliability alone is reported as
// VerdictReliabilityFallingOnly. It returns an error when window < 2, a
// forecast is not Binary, or a confidence is outside [0, 1].
func Trend(fs []Forecast, window int) (TrendResult, error) {
	if window < 2 {
		return TrendResult{}, fmt.Errorf("forecast: trend window %d must be at least 2", window)
	}
	sorted := make([]Forecast, len(fs))
	copy(sorted, fs)
	undated := 0
	for _, f := range sorted {
		if f.Kind != Binary {
			return TrendResult{}, fmt.Errorf("forecast: trend: forecast %q (%s:%d) is not binary", f.ID, f.Source, f.Line)
		}
		if f.At.IsZero() {
			undated++
		}
	}
	slices.SortStableFunc(sorted, func(a, b Forecast) int {
		return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Confidence, b.Confidence), cmp.Compare(a.Outcome, b.Outcome))
	})

	res := TrendResult{Window: window, Windows: []TrendWindow{}, Warnings: []string{}}
	if undated > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s no time and sort first", english.Count(undated, "forecast has", "forecasts have")))
	}
	m := len(sorted) / window
	res.Dropped = len(sorted) - m*window
	p := make([]float64, window)
	y := make([]int, window)
	var rel, resol []float64
	for w := 0; w < m; w++ {
		chunk := sorted[w*window : (w+1)*window]
		for i, f := range chunk {
			p[i], y[i] = f.Confidence, f.Outcome
		}
		d, err := statistician.MurphyExact(p, y)
		if err != nil {
			return TrendResult{}, fmt.Errorf("forecast: trend window %d: %w", w, err)
		}
		res.Windows = append(res.Windows, TrendWindow{
			Index: w, N: window, From: chunk[0].At, To: chunk[window-1].At,
			Brier: d.Brier, Reliability: d.Reliability, Resolution: d.Resolution, Uncertainty: d.Uncertainty,
		})
		rel = append(rel, d.Reliability)
		resol = append(resol, d.Resolution)
	}
	if m < 3 {
		res.Verdict = VerdictTooFewWindows
		res.Warnings = append(res.Warnings, fmt.Sprintf("%s of %d; a slope interval needs at least 3 windows (%d forecasts)", english.Count(m, "window", "windows"), window, 3*window))
		return res, nil
	}
	rs, err := OLSSlope(resol)
	if err != nil {
		return TrendResult{}, fmt.Errorf("forecast: trend: %w", err)
	}
	ls, err := OLSSlope(rel)
	if err != nil {
		return TrendResult{}, fmt.Errorf("forecast: trend: %w", err)
	}
	res.Resolution, res.Reliability = &rs, &ls
	switch {
	case rs.CI95.Lower > 0:
		res.Learning, res.Verdict = true, VerdictResolutionRising
	case ls.CI95.Upper < 0:
		res.Verdict = VerdictReliabilityFallingOnly
	default:
		res.Verdict = VerdictNeither
	}
	return res, nil
}

// OLSSlope fits y[i] = a + b*i by least squares (gonum stat.LinearRegression)
// and returns b with its standard error and 95% t interval:
//
//	Sxx = sum (i - mean(i))^2
//	s^2 = sum (y[i] - a - b*i)^2 / (n - 2)
//	SE  = sqrt(s^2 / Sxx)
//	CI  = b -/+ t(0.975, n - 2) * SE
//
// (the textbook OLS slope variance; e.g. Draper and Smith, Applied
// Regression Analysis, sec. 1.4). It returns an error with fewer than 3
// points or a non-finite value.
func OLSSlope(y []float64) (Slope, error) {
	n := len(y)
	if n < 3 {
		return Slope{}, errors.New("slope interval needs at least 3 points")
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = float64(i)
		if math.IsNaN(y[i]) || math.IsInf(y[i], 0) {
			return Slope{}, fmt.Errorf("slope: point %d is %v", i, y[i])
		}
	}
	a, b := stat.LinearRegression(x, y, nil, false)
	xbar := float64(n-1) / 2
	sxx, ssr := 0.0, 0.0
	for i := range x {
		dx := x[i] - xbar
		sxx += dx * dx
		r := y[i] - a - b*x[i]
		ssr += r * r
	}
	df := n - 2
	se := math.Sqrt(ssr / float64(df) / sxx)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(0.975)
	return Slope{Estimate: b, SE: se, DF: df, CI95: statistician.Interval{Lower: b - t*se, Upper: b + t*se}}, nil
}
