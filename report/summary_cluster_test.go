package report

import (
	"strings"
	"testing"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/statistician"
)

// clusteredGateReport is trustReport's gate case (400 runs, 94%
// agreement, Wilson lower bound 91.3%) whose runs come from g clusters
// with a clustered interval of [lo, hi] (nil: none).
func clusteredGateReport(field string, g int, ci *statistician.Interval) *Report {
	r := trustReport(400, 376, 0.86, 0.81, 0.91)
	r.Inputs.Cluster = field
	r.AgreementClustered.Percent, r.AgreementClustered.N, r.AgreementClustered.Clusters = r.AgreementRate.Percent, 400, g
	r.AgreementClustered.CI95 = ci
	r.AgreementClustered.Method = statistician.MethodCR2BMWilson
	if ci == nil {
		r.AgreementClustered.Method = ""
		r.AgreementClustered.Reason = "no clustered interval: 2 clusters, need at least 5"
	}
	return r
}

// TestTrustUsesTheClusteredBoundWhenClustersAreNamed: the same runs are
// gate on Wilson's bound and monitor when --cluster names a field whose
// clustered interval's lower bound (72%) is under the gating bar (80%).
func TestTrustUsesTheClusteredBoundWhenClustersAreNamed(t *testing.T) {
	ci := &statistician.Interval{Lower: 72, Upper: 99}
	plain := clusteredGateReport("", 12, ci)
	Summarize(plain)
	if plain.Summary.Trust != advisor.TrustGate {
		t.Fatalf("without --cluster: %s (%v), want gate on Wilson's bound", plain.Summary.Trust, plain.Summary.Why)
	}
	r := clusteredGateReport("task", 12, ci)
	Summarize(r)
	if r.Summary.Trust != advisor.TrustMonitor {
		t.Fatalf("with --cluster task: %s (%v), want monitor on the clustered bound 72%%", r.Summary.Trust, r.Summary.Why)
	}
	if !strings.Contains(strings.Join(r.Summary.Why, " | "), "clustered by task") ||
		!strings.Contains(r.Summary.Why[2], "72.00%") || !strings.Contains(r.Summary.Sentence, "clustered by task (12 clusters) [72.00%, 99.00%]") {
		t.Errorf("why %q, sentence %q: want the clustered bound named", r.Summary.Why, r.Summary.Sentence)
	}
}

// TestTrustWithoutAClusteredIntervalIsInsufficient: with --cluster and
// two clusters there is no clustered interval, so no verdict, and the
// reason says why.
func TestTrustWithoutAClusteredIntervalIsInsufficient(t *testing.T) {
	r := clusteredGateReport("conversation", 2, nil)
	Summarize(r)
	if r.Summary.Trust != advisor.TrustInsufficient || !strings.Contains(r.Summary.Why[0], "2 clusters, need at least 5") {
		t.Fatalf("trust %s, why %q: want insufficient_evidence with the clustered reason", r.Summary.Trust, r.Summary.Why)
	}
}

// TestSameFamilyEffectCapsGateAtMonitor: a significant same-family effect
// caps gate at monitor and the summary says why; an insignificant one
// does not.
func TestSameFamilyEffectCapsGateAtMonitor(t *testing.T) {
	for _, sig := range []bool{true, false} {
		r := trustReport(400, 376, 0.86, 0.81, 0.91)
		r.Bias = &Bias{SameFamily: SameFamilyEffect{Tested: true, Significant: sig, Words: "same-family effect: the judge is kind to openai"}}
		Summarize(r)
		want := advisor.TrustGate
		if sig {
			want = advisor.TrustMonitor
		}
		if r.Summary.Trust != want {
			t.Fatalf("significant %v: trust %s, want %s", sig, r.Summary.Trust, want)
		}
		said := strings.Contains(r.Summary.Sentence, "kind to openai") &&
			strings.Contains(r.Summary.Why[len(r.Summary.Why)-1], "capped at monitor")
		if said != sig {
			t.Errorf("significant %v: sentence %q, why %q", sig, r.Summary.Sentence, r.Summary.Why)
		}
	}
	// monitor and explore are not raised or lowered by the cap.
	r := trustReport(200, 110, 0.25, 0.15, 0.35)
	r.Bias = &Bias{SameFamily: SameFamilyEffect{Tested: true, Significant: true, Words: "same-family effect"}}
	Summarize(r)
	if r.Summary.Trust != advisor.TrustExplore {
		t.Errorf("explore with a same-family effect became %s", r.Summary.Trust)
	}
}
