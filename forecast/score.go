package forecast

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sort"

	"golang.org/x/sync/errgroup"

	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/internal/lines"
	"github.com/evalcal/evalcal/statistician"
)

// ScoreSchemaVersion is the version of the ScoreReport layout.
const ScoreSchemaVersion = 1

// Labels of a group's forecasts (issue 2).
const (
	LabelCandidate     = "candidate"
	LabelSupported     = "supported"
	LabelIndistinguish = "indistinguishable_from_luck"
)

// MinLabelForecasts is the fewest binary forecasts a group needs before it
// is labelled anything but candidate.
const MinLabelForecasts = 8

// ScoreOptions says how Score groups and scores forecasts.
type ScoreOptions struct {
	// By is the field forecasts are grouped by: "agent", "id", or any
	// top-level field of the input (Forecast.Fields).
	By string
	// MinResolved is the fewest binary forecasts for which a calibration
	// score is reported.
	MinResolved int
	// Bins and Binning set the binned Murphy decomposition.
	Bins    int
	Binning statistician.Binning
	// BaselineRate, when set, is the frozen base rate every group's Brier
	// skill score is measured against; nil means each group's own rate.
	BaselineRate *float64
	// Seed and Resamples drive the bootstrap of the skill score.
	Seed      uint64
	Resamples int
	// TrendWindow, when at least 2, adds each group's learning trend: the
	// Murphy decomposition per consecutive window of TrendWindow binary
	// forecasts by time (see Trend). The scorer then keeps the forecasts.
	TrendWindow int
}

// DefaultScoreOptions returns the defaults of evalcal score.
func DefaultScoreOptions() ScoreOptions {
	return ScoreOptions{
		By:          "agent",
		MinResolved: 5,
		Bins:        10,
		Binning:     statistician.EqualFrequencyBins,
		Seed:        1,
		Resamples:   1000,
	}
}

// Validate checks the options, naming the option at fault.
func (o ScoreOptions) Validate() error {
	switch {
	case o.By == "":
		return fmt.Errorf("forecast: score: by must name a field")
	case o.MinResolved < 0:
		return fmt.Errorf("forecast: score: min-resolved must be >= 0, got %d", o.MinResolved)
	case o.Bins < 1 || o.Bins > 1000:
		return fmt.Errorf("forecast: score: bins must be in [1, 1000], got %d", o.Bins)
	case o.Resamples < 1 || o.Resamples > statistician.MaxBootstrapResamples:
		return fmt.Errorf("forecast: score: resamples must be in [1, %d], got %d", statistician.MaxBootstrapResamples, o.Resamples)
	case o.BaselineRate != nil && !(*o.BaselineRate > 0 && *o.BaselineRate < 1):
		return fmt.Errorf("forecast: score: baseline-rate must be in (0, 1), got %v", *o.BaselineRate)
	case o.TrendWindow < 0 || o.TrendWindow == 1:
		return fmt.Errorf("forecast: score: trend window must be 0 (off) or at least 2, got %d", o.TrendWindow)
	}
	if _, err := statistician.ParseBinning(string(o.Binning)); err != nil {
		return fmt.Errorf("forecast: score: binning: %w", err)
	}
	return nil
}

// ScoreReport is the document evalcal score prints. Score fills Options,
// Groups and Warnings; the caller fills the rest.
type ScoreReport struct {
	SchemaVersion int    `yaml:"schema_version" json:"schema_version"`
	GeneratedBy   string `yaml:"generated_by" json:"generated_by"`
	// GatesFailed is gates.Summary of Gates, first so a reader sees it:
	// "GATES FAILED: ..."; absent when every gate passed.
	GatesFailed string       `yaml:"gates_failed,omitempty" json:"gates_failed,omitempty"`
	Inputs      []ScoreInput `yaml:"inputs" json:"inputs"`
	// CommandLine is the command's arguments without -o, so the document
	// can be reproduced.
	CommandLine []string      `yaml:"command_line" json:"command_line"`
	Options     ReportOptions `yaml:"options" json:"options"`
	// LowestCalibration is the group with the lowest measured
	// calibration (see Derive); absent when none was measured.
	LowestCalibration *Lowest       `yaml:"lowest_calibration,omitempty" json:"lowest_calibration,omitempty"`
	Groups            []ScoredGroup `yaml:"groups" json:"groups"`
	BadLines          BadLines      `yaml:"bad_lines" json:"bad_lines"`
	Warnings          []string      `yaml:"warnings" json:"warnings"`
	// Trend compares the groups with a baseline document (score
	// --baseline); absent without one.
	Trend *ScoreTrend `yaml:"trend,omitempty" json:"trend,omitempty"`
	// Gates records each requested gate (--require) and its outcome.
	Gates []gates.GateRecord `yaml:"gates,omitempty" json:"gates,omitempty"`
}

// ScoreInput is one input file and the SHA-256 of its bytes.
type ScoreInput struct {
	Path   string `yaml:"path" json:"path"`
	SHA256 string `yaml:"sha256" json:"sha256"`
}

// BadLines counts the input lines that were not scored and lists them.
type BadLines = lines.BadLines

// ReportOptions records the options a report was made with.
type ReportOptions struct {
	By           string   `yaml:"by" json:"by"`
	MinResolved  int      `yaml:"min_resolved" json:"min_resolved"`
	Bins         int      `yaml:"bins" json:"bins"`
	Binning      string   `yaml:"binning" json:"binning"`
	BaselineRate *float64 `yaml:"baseline_rate" json:"baseline_rate"`
	Seed         uint64   `yaml:"seed" json:"seed"`
	Resamples    int      `yaml:"resamples" json:"resamples"`
	TrendWindow  int      `yaml:"trend_window,omitempty" json:"trend_window,omitempty"`
}

// ScoredGroup is the score of one group's forecasts. A number that is not
// defined is null with a reason beside it. Numbers are rounded to 12
// decimal places (the core computes them to about 1e-15).
type ScoredGroup struct {
	Key string `yaml:"key" json:"key"`
	// N counts the group's resolved forecasts; Binary and Ordinal split it.
	N       int `yaml:"n" json:"n"`
	Binary  int `yaml:"binary" json:"binary"`
	Ordinal int `yaml:"ordinal" json:"ordinal"`

	Brier       *float64 `yaml:"brier" json:"brier"`
	BrierReason string   `yaml:"brier_reason,omitempty" json:"brier_reason,omitempty"`
	// BrierSE is the Brier score's standard error, SD(squared errors) /
	// sqrt(n) (n-1 denominator); null under 2 binary forecasts. It gives
	// the interval of a change against a baseline document.
	BrierSE           *float64 `yaml:"brier_se" json:"brier_se"`
	Calibration       *float64 `yaml:"calibration" json:"calibration"`
	CalibrationReason string   `yaml:"calibration_reason,omitempty" json:"calibration_reason,omitempty"`
	BaseRate          *float64 `yaml:"base_rate" json:"base_rate"`
	// BaselineRate is the frozen base rate BSS is measured against.
	BaselineRate *float64               `yaml:"baseline_rate" json:"baseline_rate"`
	BSS          *float64               `yaml:"bss" json:"bss"`
	BSSReason    string                 `yaml:"bss_reason,omitempty" json:"bss_reason,omitempty"`
	BSSCI95      *statistician.Interval `yaml:"bss_ci95" json:"bss_ci95"`
	BSSCIReason  string                 `yaml:"bss_ci95_reason,omitempty" json:"bss_ci95_reason,omitempty"`
	// BSSCIMethod says how BSSCI95 was computed: multinomial, index or
	// cornish-fisher (see BootstrapMultinomial and the others).
	BSSCIMethod string `yaml:"bss_ci95_method,omitempty" json:"bss_ci95_method,omitempty"`

	Murphy       *MurphyScores `yaml:"murphy" json:"murphy"`
	MurphyReason string        `yaml:"murphy_reason,omitempty" json:"murphy_reason,omitempty"`
	CORP         *CORPScores   `yaml:"corp" json:"corp"`
	CORPReason   string        `yaml:"corp_reason,omitempty" json:"corp_reason,omitempty"`
	RPS          *RPSScores    `yaml:"rps,omitempty" json:"rps,omitempty"`

	Label       string `yaml:"label" json:"label"`
	LabelReason string `yaml:"label_reason" json:"label_reason"`

	// Learning is the group's learning trend (score --trend W): the Murphy
	// decomposition per window and whether resolution is rising.
	Learning       *TrendResult `yaml:"learning,omitempty" json:"learning,omitempty"`
	LearningReason string       `yaml:"learning_reason,omitempty" json:"learning_reason,omitempty"`
	// CompositeError is the distribution of composite_error over the
	// group's rows (score --sqlite only).
	CompositeError *ErrorDistribution `yaml:"composite_error,omitempty" json:"composite_error,omitempty"`

	Warnings []string `yaml:"warnings,omitempty" json:"warnings,omitempty"`
}

// MurphyScores holds the exact and binned Murphy decompositions.
type MurphyScores struct {
	Exact  MurphyTerms  `yaml:"exact" json:"exact"`
	Binned BinnedScores `yaml:"binned" json:"binned"`
}

// MurphyTerms are the three terms of the exact decomposition:
// brier = reliability - resolution + uncertainty.
type MurphyTerms struct {
	Reliability float64 `yaml:"reliability" json:"reliability"`
	Resolution  float64 `yaml:"resolution" json:"resolution"`
	Uncertainty float64 `yaml:"uncertainty" json:"uncertainty"`
}

// BinnedScores is the binned decomposition: brier = reliability -
// resolution + uncertainty + within_bin_variance - within_bin_covariance.
type BinnedScores struct {
	Method              string `yaml:"method" json:"method"`
	Bins                int    `yaml:"bins" json:"bins"`
	MurphyTerms         `yaml:",inline"`
	WithinBinVariance   float64    `yaml:"within_bin_variance" json:"within_bin_variance"`
	WithinBinCovariance float64    `yaml:"within_bin_covariance" json:"within_bin_covariance"`
	Table               []BinScore `yaml:"table" json:"table"`
}

// BinScore is one row of a reliability table; an empty bin has count 0
// and null rates with a reason.
type BinScore struct {
	Lower        float64                `yaml:"lower" json:"lower"`
	Upper        float64                `yaml:"upper" json:"upper"`
	Count        int                    `yaml:"count" json:"count"`
	MeanForecast *float64               `yaml:"mean_forecast" json:"mean_forecast"`
	ObservedRate *float64               `yaml:"observed_rate" json:"observed_rate"`
	RateCI95     *statistician.Interval `yaml:"rate_ci95" json:"rate_ci95"`
	Reason       string                 `yaml:"reason,omitempty" json:"reason,omitempty"`
}

// CORPScores is the CORP decomposition: brier = mcb - dsc + unc.
type CORPScores struct {
	MCB float64 `yaml:"mcb" json:"mcb"`
	DSC float64 `yaml:"dsc" json:"dsc"`
	UNC float64 `yaml:"unc" json:"unc"`
}

// RPSScores is the ranked probability score of a group's ordinal
// forecasts and its skill against climatology (the group's observed
// category frequencies).
type RPSScores struct {
	N           int       `yaml:"n" json:"n"`
	Categories  int       `yaml:"categories" json:"categories"`
	Mean        float64   `yaml:"mean" json:"mean"`
	Baseline    []float64 `yaml:"baseline" json:"baseline"`
	BaselineRPS float64   `yaml:"baseline_rps" json:"baseline_rps"`
	RPSS        *float64  `yaml:"rpss" json:"rpss"`
	RPSSReason  string    `yaml:"rpss_reason,omitempty" json:"rpss_reason,omitempty"`
}

// groupData is what a group keeps until it is scored: binary forecasts in
// a statistician.BinarySample (8 bytes each: equal-frequency bins, CORP
// and the label's bootstrap need the values) and ordinal ones through a
// streaming accumulator.
type groupData struct {
	bin statistician.BinarySample
	// binary keeps the binary forecasts when a learning trend is wanted.
	binary []Forecast
	rps    *statistician.RPSAccumulator
	// otherK counts ordinal forecasts skipped because their number of
	// categories differs from the group's first.
	otherK int
}

// Scorer scores forecasts from any source: Add them one at a time, then
// Report. It keeps 8 bytes per binary forecast (with --trend, the
// forecasts too) and O(categories) per group for ordinal ones. The report
// depends on the multiset of forecasts only, never on the order they were
// added in.
type Scorer struct {
	opts    ScoreOptions
	groups  map[string]*groupData
	missing int
}

// NewScorer returns a Scorer; it returns an error when opts are not valid.
func NewScorer(opts ScoreOptions) (*Scorer, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	return &Scorer{opts: opts, groups: make(map[string]*groupData)}, nil
}

// groupKey is the value of the grouping field, and whether it is present.
func groupKey(f Forecast, by string) (string, bool) {
	if v, ok := f.Fields[by]; ok {
		return v, true
	}
	switch by {
	case "agent":
		return f.Agent, f.Agent != ""
	case "id":
		return f.ID, f.ID != ""
	}
	return "", false
}

// Add records one resolved forecast. A forecast without the grouping field
// is counted and reported as a warning, as is an ordinal forecast whose
// number of categories differs from its group's first. It returns an error when the
// forecast is not valid (probability outside [0, 1], bad outcome, bad
// probs).
func (s *Scorer) Add(f Forecast) error {
	key, ok := groupKey(f, s.opts.By)
	if !ok {
		s.missing++
		return nil
	}
	g := s.groups[key]
	if g == nil {
		g = &groupData{}
		s.groups[key] = g
	}
	switch f.Kind {
	case Binary:
		if !(f.Confidence >= 0 && f.Confidence <= 1) || (f.Outcome != 0 && f.Outcome != 1) {
			return fmt.Errorf("forecast: %s:%d: binary forecast %v with outcome %d", f.Source, f.Line, f.Confidence, f.Outcome)
		}
		if err := g.bin.Add(f.Confidence, f.Outcome); err != nil {
			return fmt.Errorf("forecast: %s:%d: %w", f.Source, f.Line, err)
		}
		if s.opts.TrendWindow >= 2 {
			g.binary = append(g.binary, Forecast{ID: f.ID, At: f.At, Kind: Binary, Confidence: f.Confidence, Outcome: f.Outcome})
		}
	case Ordinal:
		if g.rps == nil {
			acc, err := statistician.NewRPSAccumulator(len(f.Probs))
			if err != nil {
				return fmt.Errorf("forecast: %s:%d: %w", f.Source, f.Line, err)
			}
			g.rps = acc
		}
		if len(f.Probs) != g.rps.Categories() {
			g.otherK++
			return nil
		}
		if err := g.rps.Add(f.Probs, f.Outcome); err != nil {
			return fmt.Errorf("forecast: %s:%d: %w", f.Source, f.Line, err)
		}
	default:
		return fmt.Errorf("forecast: %s:%d: unknown forecast kind %d", f.Source, f.Line, f.Kind)
	}
	return nil
}

// Report scores every group, concurrently, and returns them sorted by
// key with the report-level warnings. It is ReportContext without a
// deadline.
func (s *Scorer) Report() (groups []ScoredGroup, warnings []string, err error) {
	return s.ReportContext(context.Background())
}

// ReportContext is Report that stops with ctx.Err() when ctx is done: the
// sort and the bootstrap look at ctx at least every few milliseconds.
func (s *Scorer) ReportContext(ctx context.Context) (groups []ScoredGroup, warnings []string, err error) {
	keys := make([]string, 0, len(s.groups))
	for k := range s.groups {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	groups = make([]ScoredGroup, len(keys))
	eg, ctx := errgroup.WithContext(ctx)
	eg.SetLimit(runtime.GOMAXPROCS(0))
	for i, k := range keys {
		eg.Go(func() error {
			g, err := scoreGroup(ctx, k, s.groups[k], s.opts)
			groups[i] = g
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, nil, err
	}
	warnings = []string{}
	if s.missing > 0 {
		warnings = append(warnings, fmt.Sprintf("%d forecasts have no %q field and were not scored", s.missing, s.opts.By))
	}
	if len(groups) == 0 {
		warnings = append(warnings, "no forecasts to score")
	}
	return groups, warnings, nil
}

// Score groups forecasts by opts.By and scores each group (see
// ScoredGroup); it is the entry point for every forecast source. It is
// ScoreContext without a deadline.
func Score(fs []Forecast, opts ScoreOptions) (ScoreReport, error) {
	return ScoreContext(context.Background(), fs, opts)
}

// ScoreContext is Score that stops with ctx.Err() when ctx is done.
func ScoreContext(ctx context.Context, fs []Forecast, opts ScoreOptions) (ScoreReport, error) {
	s, err := NewScorer(opts)
	if err != nil {
		return ScoreReport{}, err
	}
	for i, f := range fs {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return ScoreReport{}, err
			}
		}
		if err := s.Add(f); err != nil {
			return ScoreReport{}, err
		}
	}
	return s.ScoreReportContext(ctx)
}

func reportOptions(o ScoreOptions) ReportOptions {
	return ReportOptions{
		By: o.By, MinResolved: o.MinResolved, Bins: o.Bins, Binning: string(o.Binning),
		BaselineRate: o.BaselineRate, Seed: o.Seed, Resamples: o.Resamples, TrendWindow: o.TrendWindow,
	}
}

// ScoreReport returns the whole report (see Score): Options, Groups and
// Warnings filled, Inputs and BadLines empty; the caller fills
// GeneratedBy, Inputs and BadLines. It is ScoreReportContext without a
// deadline.
func (s *Scorer) ScoreReport() (ScoreReport, error) {
	return s.ScoreReportContext(context.Background())
}

// ScoreReportContext is ScoreReport that stops with ctx.Err() when ctx is
// done (see ReportContext).
func (s *Scorer) ScoreReportContext(ctx context.Context) (ScoreReport, error) {
	groups, warnings, err := s.ReportContext(ctx)
	if err != nil {
		return ScoreReport{}, err
	}
	doc := ScoreReport{
		SchemaVersion: ScoreSchemaVersion,
		Inputs:        []ScoreInput{},
		CommandLine:   []string{},
		Options:       reportOptions(s.opts),
		Groups:        groups,
		BadLines:      BadLines{Lines: []BadLine{}},
		Warnings:      warnings,
	}
	doc.Derive()
	return doc, nil
}

// reportDigits is the number of decimal places a report keeps: the
// identities hold to 1e-12, and rounding there keeps rounding residue
// (31.999999999999996, -2.2e-16) out of reports and golden files.
const reportDigits = 1e12

// rounded rounds x to 12 decimal places, with -0 as 0.
func rounded(x float64) float64 {
	if math.Abs(x) >= 1e6 {
		return x
	}
	r := math.Round(x*reportDigits) / reportDigits
	if r == 0 {
		return 0
	}
	return r
}

// ptr returns a pointer to x rounded for the report.
func ptr(x float64) *float64 { r := rounded(x); return &r }

func roundedInterval(iv statistician.Interval) *statistician.Interval {
	return &statistician.Interval{Lower: rounded(iv.Lower), Upper: rounded(iv.Upper)}
}

// scoreGroup computes every statistic of one group.
func scoreGroup(ctx context.Context, key string, g *groupData, opts ScoreOptions) (ScoredGroup, error) {
	out := ScoredGroup{Key: key, Binary: g.bin.Len()}
	if g.otherK > 0 {
		out.Warnings = append(out.Warnings, fmt.Sprintf("%d ordinal forecasts not scored: their number of categories differs from the group's first forecast's", g.otherK))
	}
	if g.rps != nil {
		r, err := g.rps.Result()
		if err != nil {
			return out, fmt.Errorf("forecast: score group %q: %w", key, err)
		}
		out.Ordinal = r.N
		for i := range r.Baseline {
			r.Baseline[i] = rounded(r.Baseline[i])
		}
		out.RPS = &RPSScores{N: r.N, Categories: len(r.Baseline), Mean: rounded(r.Mean), Baseline: r.Baseline, BaselineRPS: rounded(r.BaselineRPS)}
		if r.Skill.Defined() {
			out.RPS.RPSS = ptr(r.Skill.Value)
		} else {
			out.RPS.RPSSReason = r.Skill.Reason
		}
	}
	out.N = out.Binary + out.Ordinal
	if out.Binary == 0 {
		const none = "no binary forecasts"
		out.BrierReason, out.CalibrationReason, out.BSSReason, out.BSSCIReason = none, none, none, none
		out.MurphyReason, out.CORPReason = none, none
		out.Label, out.LabelReason = LabelCandidate, fmt.Sprintf("%d binary forecasts, the label needs at least %d", 0, MinLabelForecasts)
		return out, nil
	}
	sorted, err := g.bin.Sorted(ctx)
	if err != nil {
		return out, fmt.Errorf("forecast: score group %q: %w", key, err)
	}
	if err := scoreBinary(ctx, &out, sorted, opts); err != nil {
		return out, fmt.Errorf("forecast: score group %q: %w", key, err)
	}
	if opts.TrendWindow >= 2 {
		tr, err := Trend(g.binary, opts.TrendWindow)
		if err != nil {
			out.LearningReason = err.Error()
		} else {
			roundTrend(&tr)
			out.Learning = &tr
		}
	}
	return out, nil
}

func scoreBinary(ctx context.Context, out *ScoredGroup, t statistician.SortedBinary, opts ScoreOptions) error {
	n := t.N()
	m, c, err := t.MurphyAndCORP()
	if err != nil {
		return err
	}
	em := t.ErrorMoments(m.Brier)
	out.Brier = ptr(m.Brier)
	if n >= 2 {
		out.BrierSE = ptr(em.BrierSE())
	}
	if n < opts.MinResolved {
		out.CalibrationReason = fmt.Sprintf("%d resolved forecasts, fewer than min-resolved %d", n, opts.MinResolved)
	} else {
		out.Calibration = ptr(statistician.CalibrationScore(m.Brier))
	}
	out.BaseRate = ptr(m.BaseRate)
	b := m.BaseRate
	if opts.BaselineRate != nil {
		b = *opts.BaselineRate
	}
	out.BaselineRate = ptr(b)
	bss := statistician.BrierSkill(m.Brier, b)
	if opts.BaselineRate == nil && bss.Defined() {
		// Against the group's own rate, 1 - BS/UNC = (RES - REL)/UNC
		// exactly; this form has no cancellation residue.
		bss.Value = (m.Resolution - m.Reliability) / m.Uncertainty
	}
	if bss.Defined() {
		out.BSS = ptr(bss.Value)
	} else {
		out.BSSReason = bss.Reason
	}
	binned, err := t.Binned(opts.Bins, opts.Binning)
	if err != nil {
		return err
	}
	out.Murphy = &MurphyScores{
		Exact:  roundedTerms(m.Reliability, m.Resolution, m.Uncertainty),
		Binned: binnedScores(binned),
	}
	out.CORP = &CORPScores{MCB: rounded(c.MCB), DSC: rounded(c.DSC), UNC: rounded(c.UNC)}
	return labelGroup(ctx, out, t, em, b, bss, c, opts)
}

// roundTrend rounds a learning trend's figures for the report, as every
// other figure of the document is (the verdict was decided unrounded).
func roundTrend(tr *TrendResult) {
	for i := range tr.Windows {
		w := &tr.Windows[i]
		w.Brier, w.Reliability, w.Resolution, w.Uncertainty = rounded(w.Brier), rounded(w.Reliability), rounded(w.Resolution), rounded(w.Uncertainty)
	}
	for _, s := range []*Slope{tr.Resolution, tr.Reliability} {
		if s != nil {
			s.Estimate, s.SE = rounded(s.Estimate), rounded(s.SE)
			s.CI95 = statistician.Interval{Lower: rounded(s.CI95.Lower), Upper: rounded(s.CI95.Upper)}
		}
	}
}

func roundedTerms(rel, res, unc float64) MurphyTerms {
	return MurphyTerms{Reliability: rounded(rel), Resolution: rounded(res), Uncertainty: rounded(unc)}
}

func binnedScores(b statistician.BinnedMurphy) BinnedScores {
	out := BinnedScores{
		Method: string(b.Method), Bins: b.Bins,
		MurphyTerms:       roundedTerms(b.Reliability, b.Resolution, b.Uncertainty),
		WithinBinVariance: rounded(b.WithinBinVariance), WithinBinCovariance: rounded(b.WithinBinCovariance),
		Table: make([]BinScore, len(b.Table)),
	}
	for i, r := range b.Table {
		row := BinScore{Lower: rounded(r.Lower), Upper: rounded(r.Upper), Count: r.Count, Reason: r.Reason}
		if r.Count > 0 {
			row.MeanForecast, row.ObservedRate, row.RateCI95 = ptr(*r.MeanForecast), ptr(*r.ObservedRate), roundedInterval(*r.RateCI95)
		}
		out.Table[i] = row
	}
	return out
}

// ErrorDistribution counts an agent's settled rows in the window by
// composite_error level (issue 4): < 0.2 as expected, < 0.5 minor miss,
// < 0.8 clear miss, otherwise severe miss. Missing counts rows without a
// composite_error. A composite error is >= 0: predictionlog.ReadResult reports a
// negative one as a bad row, never as "as expected".
type ErrorDistribution struct {
	AsExpected int `yaml:"as_expected" json:"as_expected"`
	MinorMiss  int `yaml:"minor_miss" json:"minor_miss"`
	ClearMiss  int `yaml:"clear_miss" json:"clear_miss"`
	SevereMiss int `yaml:"severe_miss" json:"severe_miss"`
	Missing    int `yaml:"missing" json:"missing"`
}

// Add counts one composite error, which must be >= 0 (a negative one is
// counted as expected; callers reject it first).
func (d *ErrorDistribution) Add(compositeError float64) {
	switch {
	case compositeError < 0.2:
		d.AsExpected++
	case compositeError < 0.5:
		d.MinorMiss++
	case compositeError < 0.8:
		d.ClearMiss++
	default:
		d.SevereMiss++
	}
}
