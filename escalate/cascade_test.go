package escalate

import (
	"math"
	"testing"
)

func TestPolicyRoutesBelowTheThresholdToDeep(t *testing.T) {
	p := Policy{Source: SourceScoreDistance, Met: true, Threshold: 10, Target: Target{0.9, 0.1}, N: 200, Cuts: DefaultCuts}
	if err := p.Check(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		ev       Evidence
		conf     float64
		escalate bool
	}{
		{Evidence{Verdict: "pass", Scores: []float64{80, 90}}, 10, false}, // at the threshold: light decides
		{Evidence{Verdict: "pass", Scores: []float64{79.5, 90}}, 9.5, true},
		{Evidence{Verdict: "fail", Scores: []float64{5, 90}}, 35, false},
		{Evidence{Verdict: "partial", Scores: []float64{90, 90}}, 0, true}, // verdict against the score
		{Evidence{Verdict: "pass"}, 0, true},                               // no scores: deep decides
	} {
		conf, esc, err := p.Route(c.ev)
		if err != nil || conf != c.conf || esc != c.escalate {
			t.Errorf("Route(%+v) = %v, %v, %v; want %v, %v", c.ev, conf, esc, err, c.conf, c.escalate)
		}
	}
	if _, _, err := p.Route(Evidence{Verdict: "pass", Scores: []float64{-1}}); err == nil {
		t.Error("Route accepted a score of -1")
	}
	if got := Final("pass", "fail", true); got != "fail" {
		t.Errorf("Final(escalated) = %s, want deep's fail", got)
	}
	if got := Final("pass", "", false); got != "pass" {
		t.Errorf("Final(not escalated) = %s, want light's pass", got)
	}
}

func TestPolicyWithoutThresholdEscalatesEverything(t *testing.T) {
	p := Policy{Source: SourceUnanimity, Met: false, Target: Target{0.95, 0.1}, N: 30, Cuts: DefaultCuts}
	if !p.Escalates(1) || !p.Escalates(math.MaxFloat64) {
		t.Fatal("a policy with no threshold let light decide")
	}
}

func TestPolicyCheck(t *testing.T) {
	good := Policy{Source: SourceProbability, Met: true, Threshold: 0.9, Target: Target{0.9, 0.1}, N: 100, Cuts: DefaultCuts}
	for name, mutate := range map[string]func(*Policy){
		"source":    func(p *Policy) { p.Source = "x" },
		"target":    func(p *Policy) { p.Target.Agreement = 1 },
		"threshold": func(p *Policy) { p.Threshold = math.NaN() },
		"n":         func(p *Policy) { p.N = -1 },
		"cuts":      func(p *Policy) { p.Cuts = Cuts{70, 40} },
	} {
		p := good
		mutate(&p)
		if err := p.Check(); err == nil {
			t.Errorf("Check accepted a bad %s: %+v", name, p)
		}
	}
	if err := good.Check(); err != nil {
		t.Errorf("Check(good) = %v", err)
	}
}
