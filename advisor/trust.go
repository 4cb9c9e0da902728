package advisor

import (
	"fmt"

	"github.com/evalcal/evalcal/statistician"
)

// Trust levels: what a team may do with the light eval.
const (
	// TrustGate: light can gate CI in deep's place.
	TrustGate = "gate"
	// TrustMonitor: light is good for trends and dashboards, not for
	// gating.
	TrustMonitor = "monitor"
	// TrustExplore: light is not yet a proxy for deep.
	TrustExplore = "explore"
	// TrustInsufficient: the runs do not tell which of the three it is.
	TrustInsufficient = "insufficient_evidence"
)

// Thresholds of the trust rule. The kappa bands follow the fitness bands
// for a proxy rater in the spirit of Landis and Koch (1977), who call
// 0.41-0.60 moderate and 0.61-0.80 substantial agreement, and of McHugh
// (2012, "Interrater reliability: the kappa statistic", Biochem Med 22(3)),
// who asks for more than that where decisions depend on it: below 0.4 a
// proxy is for exploration, 0.4 to 0.7 for monitoring, 0.7 and above for
// gating. The agreement thresholds are the raw-agreement counterparts a
// reader checks first. All are applied to the LOWER 95% bounds, so the
// verdict is what the data support, not what the point estimate hopes.
const (
	GateKappa        = 0.7
	MonitorKappa     = 0.4
	GateAgreement    = 80.0 // percent
	MonitorAgreement = 60.0 // percent
	// MinTrustRuns is the fewest paired runs a verdict other than
	// insufficient_evidence is given on.
	MinTrustRuns = 10
)

// TrustInput is what the trust rule reads: the linearly weighted kappa
// over the ordinal verdicts (fail < partial < pass, so a pass for a fail
// costs more than a pass for a partial) and the raw agreement's Wilson
// interval, in percent.
type TrustInput struct {
	N              int
	Kappa          statistician.Kappa
	AgreementLower *float64
	AgreementUpper *float64
}

// band places a kappa bound and an agreement bound on the scale
// explore < monitor < gate (0, 1, 2): the lower of the two.
func band(kappa, agreement float64) int {
	k, a := 0, 0
	switch {
	case kappa >= GateKappa:
		k = 2
	case kappa >= MonitorKappa:
		k = 1
	}
	switch {
	case agreement >= GateAgreement:
		a = 2
	case agreement >= MonitorAgreement:
		a = 1
	}
	return min(k, a)
}

var bandName = [3]string{TrustExplore, TrustMonitor, TrustGate}

// Trust decides what light can be trusted for:
//
//   - insufficient_evidence when fewer than MinTrustRuns runs were paired,
//     kappa or the agreement interval is not defined, or the intervals are
//     so wide that their lower bounds say explore while their upper bounds
//     say gate (the data cannot tell the bands apart);
//   - otherwise the band of the lower bounds: gate when the kappa lower
//     bound is at least GateKappa and the agreement lower bound at least
//     GateAgreement; monitor when they clear MonitorKappa and
//     MonitorAgreement; explore below.
//
// It returns the level and the reasons, one sentence each.
func Trust(in TrustInput) (string, []string) {
	switch {
	case in.N < MinTrustRuns:
		return TrustInsufficient, []string{fmt.Sprintf("only %d runs have both verdicts; a verdict needs at least %d", in.N, MinTrustRuns)}
	case in.Kappa.Reason != "":
		return TrustInsufficient, []string{"kappa is not defined: " + in.Kappa.Reason}
	case in.AgreementLower == nil || in.AgreementUpper == nil:
		return TrustInsufficient, []string{"the agreement interval is not defined"}
	}
	kl, ku := in.Kappa.CI95.Lower, in.Kappa.CI95.Upper
	al, au := *in.AgreementLower, *in.AgreementUpper
	low, high := band(kl, al), band(ku, au)
	why := []string{
		// %.3g is the display rule's 3 significant digits for a statistic
		// (report.DisplayStat), so that the summary sentence and this line
		// show kappa alike.
		fmt.Sprintf("linear kappa %.3g [%.3g, %.3g]: its lower bound %s", in.Kappa.Value, kl, ku,
			bars(kl, fmt.Sprintf("%.1f", MonitorKappa), fmt.Sprintf("%.1f", GateKappa), MonitorKappa, GateKappa)),
		fmt.Sprintf("the agreement's lower bound %.2f%% %s", al,
			bars(al, fmt.Sprintf("%.0f%%", MonitorAgreement), fmt.Sprintf("%.0f%%", GateAgreement), MonitorAgreement, GateAgreement)),
	}
	if low == 0 && high == 2 {
		return TrustInsufficient, append(why, fmt.Sprintf("the intervals reach from explore to gate; more paired runs would tell (now %d)", in.N))
	}
	return bandName[low], why
}

// bars says where x stands against the monitoring and gating bars.
func bars(x float64, monitorText, gateText string, monitor, gate float64) string {
	switch {
	case x >= gate:
		return "clears the gating bar " + gateText
	case x >= monitor:
		return "clears the monitoring bar " + monitorText + " but not the gating bar " + gateText
	}
	return "is below the monitoring bar " + monitorText
}
