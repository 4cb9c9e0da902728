package report

import (
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// SetStatistics sets r's statistics sections from the computed results:
// the one mapping from statistician/aggregate's types to the report's
// own (sections.go). calibrate.Fill calls it for run and merge, and the
// trend for a baseline whose figures it recomputes. A section whose
// fields match the computed type one for one is a conversion, which
// stops compiling when either side changes a field: the mapping is then
// written out here, field by field, and the document stays as it is.
func (r *Report) SetStatistics(st aggregate.Stats) {
	r.SampleSize = st.SampleSize
	r.AgreementRate = AgreementRate(st.AgreementRate)
	r.AgreementClustered = ClusteredRate(st.AgreementClustered)
	r.AgreementBySystem = systemAgreements(st.AgreementBySystem)
	r.Kappa = KappaSection(st.Kappa)
	r.Leniency = Leniency(st.Leniency)
	robust := robustAgreement(st.AgreementRobust)
	r.AgreementRobust = &robust
	r.Confusion = Confusion(st.Confusion)
	r.Confidence = st.Confidence
	r.Preliminary = st.Preliminary
	r.BiasDirection = st.BiasDirection
	r.ScoreCorrelation = ScoreCorrelation{RuntimeFidelity: Correlation(st.ScoreCorrelation.RuntimeFidelity),
		TaskEffectiveness: Correlation(st.ScoreCorrelation.TaskEffectiveness)}
	r.MeanScoreDelta = MeanScoreDelta{RuntimeFidelity: scoreDelta(st.MeanScoreDelta.RuntimeFidelity),
		TaskEffectiveness: scoreDelta(st.MeanScoreDelta.TaskEffectiveness)}
	r.DisagreementBreakdown = Breakdown(st.DisagreementBreakdown)
	r.Forecast = forecastSection(st.Forecast)
	r.Estimate = estimate(st.Estimate)
	r.Repeatability = repeatability(st.Repeatability)
	r.Disagreements = st.Disagreements
}

func systemAgreements(in []aggregate.SystemAgreement) []SystemAgreement {
	if in == nil {
		return nil
	}
	out := make([]SystemAgreement, len(in))
	for i, a := range in {
		out[i] = SystemAgreement(a)
	}
	return out
}

func robustAgreement(a aggregate.RobustAgreement) RobustAgreement {
	return RobustAgreement{Raters: a.Raters, Units: a.Units, Ratings: a.Ratings,
		AlphaNominal: Alpha(a.AlphaNominal), AlphaOrdinal: Alpha(a.AlphaOrdinal), AC1: AC1(a.AC1),
		ClassWise: ClassWise{Sensitivity: Proportion(a.ClassWise.Sensitivity), Specificity: Proportion(a.ClassWise.Specificity),
			BalancedAccuracy: a.ClassWise.BalancedAccuracy, BalancedCI95: a.ClassWise.BalancedCI95,
			BaseRate: Proportion(a.ClassWise.BaseRate), Reason: a.ClassWise.Reason}}
}

func estimate(e *aggregate.Estimate) *Estimate {
	if e == nil {
		return nil
	}
	out := &Estimate{Design: e.Design, NLight: e.NLight, NDeep: e.NDeep, Predictor: e.Predictor,
		PassRate: estimateSet(e.PassRate), RuntimeFidelity: estimateSet(e.RuntimeFidelity),
		TaskEffectiveness: estimateSet(e.TaskEffectiveness), Notes: e.Notes}
	if e.Best != nil {
		b := BestEstimate(*e.Best)
		out.Best = &b
	}
	if e.Transport != nil {
		out.Transport = make([]TransportCheck, len(e.Transport))
		for i, t := range e.Transport {
			out.Transport[i] = TransportCheck(t)
		}
	}
	if e.Cluster != nil {
		c := ClusterDesign(*e.Cluster)
		out.Cluster = &c
	}
	return out
}

func estimateSet(s aggregate.EstimateSet) EstimateSet {
	out := EstimateSet{Classical: MethodEstimate(s.Classical), PPI: MethodEstimate(s.PPI),
		IPW: methodEstimate(s.IPW), RoganGladen: methodEstimate(s.RoganGladen), StratPPI: methodEstimate(s.StratPPI),
		PPICalibrated: methodEstimate(s.PPICalibrated), Predictor: s.Predictor}
	if c := s.Clustered; c != nil {
		out.Clustered = &ClusteredEstimates{Classical: MethodEstimate(c.Classical), PPI: MethodEstimate(c.PPI), DF: c.DF}
	}
	return out
}

func methodEstimate(m *aggregate.MethodEstimate) *MethodEstimate {
	if m == nil {
		return nil
	}
	out := MethodEstimate(*m)
	return &out
}

func repeatability(r *aggregate.Repeatability) *Repeatability {
	if r == nil {
		return nil
	}
	return &Repeatability{K: r.K, Light: sideRepeatability(r.Light), Deep: sideRepeatability(r.Deep), Rule: r.Rule}
}

func sideRepeatability(s aggregate.SideRepeatability) SideRepeatability {
	return SideRepeatability{Runs: s.Runs, FlipRate: s.FlipRate, PassAllK: s.PassAllK, FleissKappa: s.FleissKappa,
		FleissCI95: s.FleissCI95, ScoreSpread: ScoreSpread(s.ScoreSpread), Reason: s.Reason}
}

func scoreDelta(d aggregate.ScoreDelta) ScoreDelta {
	return ScoreDelta{Mean: d.Mean, CI95: d.CI95, SD: d.SD, N: d.N, Direction: d.Direction, Reason: d.Reason,
		BlandAltman: BlandAltmanResult(d.BlandAltman), CCC: CCC(d.CCC)}
}

func forecastSection(f aggregate.Forecast) Forecast {
	out := Forecast{Of: f.Of, Probability: f.Probability, N: f.N, DeepPasses: f.DeepPasses, BaseRate: f.BaseRate,
		Brier: f.Brier, Calibration: f.Calibration, Reason: f.Reason}
	if f.CORP != nil {
		c := CORPDecomposition(*f.CORP)
		out.CORP = &c
	}
	if b := f.Reliability; b != nil {
		out.Reliability = &BinnedMurphy{Method: string(b.Method), Bins: b.Bins, N: b.N, Brier: b.Brier,
			Reliability: b.Reliability, Resolution: b.Resolution, Uncertainty: b.Uncertainty,
			WithinBinVariance: b.WithinBinVariance, WithinBinCovariance: b.WithinBinCovariance}
		if b.Table != nil {
			out.Reliability.Table = make([]ReliabilityBin, len(b.Table))
			for i, bin := range b.Table {
				out.Reliability.Table[i] = ReliabilityBin(bin)
			}
		}
	}
	return out
}

// RegressionOf is the report's copy of a regression of the scoring core
// (the bias section's score_gap and leniency).
func RegressionOf(r statistician.Regression) Regression {
	out := Regression{N: r.N, DF: r.DF, Level: r.Level, Covariance: r.Covariance, Reason: r.Reason}
	if r.Coefficients != nil {
		out.Coefficients = make([]Coefficient, len(r.Coefficients))
		for i, c := range r.Coefficients {
			out.Coefficients[i] = Coefficient(c)
		}
	}
	return out
}
