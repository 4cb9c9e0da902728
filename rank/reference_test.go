package rank

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"testing"
)

// refSet is one data set of testdata/reference.json (see reference.py for
// the calls that made it).
type refSet struct {
	Seed       int    `json:"seed"`
	Deep       string `json:"deep"`
	Candidates []struct {
		Name             string     `json:"name"`
		Light            string     `json:"light"`
		Matches          int        `json:"matches"`
		Wilson95         [2]float64 `json:"wilson95"`
		Kappa            float64    `json:"kappa"`
		KappaSE          float64    `json:"kappa_se"`
		KappaCI          [2]float64 `json:"kappa_ci"`
		LightPassDeepNot int        `json:"light_pass_deep_not"`
		DeepPassLightNot int        `json:"deep_pass_light_not"`
		LeniencyP        float64    `json:"leniency_p"`
	} `json:"candidates"`
	Pairs []struct {
		A, B  string
		AOnly int     `json:"a_only"`
		BOnly int     `json:"b_only"`
		P     float64 `json:"p"`
		HolmP float64 `json:"holm_p"`
	} `json:"pairs"`
}

func loadReference(t *testing.T) []refSet {
	t.Helper()
	data, err := os.ReadFile("testdata/reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Sets []refSet `json:"sets"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Sets
}

// inputsOf turns a reference data set into Rank's inputs; run ids are
// zero-padded positions so that their order is the data set's.
func inputsOf(s refSet) []Input {
	var in []Input
	for _, c := range s.Candidates {
		var outs []Outcome
		for i := range c.Light {
			outs = append(outs, Outcome{RunID: fmt.Sprintf("run-%05d", i), Light: int8(c.Light[i] - '0'), Deep: int8(s.Deep[i] - '0')})
		}
		in = append(in, Input{Name: c.Name, Spec: "exec:" + c.Name, Outcomes: outs})
	}
	return in
}

func near(got, want, tol float64) bool { return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want)) }

// TestRankMatchesReference checks every figure of the ranking document
// against scipy and statsmodels (testdata/reference.py).
func TestRankMatchesReference(t *testing.T) {
	for _, s := range loadReference(t) {
		doc, err := Rank(inputsOf(s))
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]Candidate{}
		for _, c := range doc.Candidates {
			byName[c.Name] = c
		}
		for _, want := range s.Candidates {
			got := byName[want.Name]
			id := fmt.Sprintf("set %d %s", s.Seed, want.Name)
			if got.Agree.Matches != want.Matches || got.Agree.N != len(s.Deep) {
				t.Errorf("%s: agreement %d/%d, want %d/%d", id, got.Agree.Matches, got.Agree.N, want.Matches, len(s.Deep))
			}
			if w := got.Agree.Wilson95; w == nil || !near(w.Lower, want.Wilson95[0], 1e-12) || !near(w.Upper, want.Wilson95[1], 1e-12) {
				t.Errorf("%s: wilson95 %+v, want %v", id, w, want.Wilson95)
			}
			k := got.Kappa
			if !near(k.Value, want.Kappa, 1e-12) || !near(k.SE, want.KappaSE, 1e-9) ||
				!near(k.CI95.Lower, max(-1, want.KappaCI[0]), 1e-9) || !near(k.CI95.Upper, min(1, want.KappaCI[1]), 1e-9) {
				t.Errorf("%s: kappa %+v, want %v se %v ci %v", id, k, want.Kappa, want.KappaSE, want.KappaCI)
			}
			l := got.Leniency
			if l.LightPassDeepNot != want.LightPassDeepNot || l.DeepPassLightNot != want.DeepPassLightNot || !near(l.McNemarP, want.LeniencyP, 1e-12) {
				t.Errorf("%s: leniency %+v, want %d %d p %v", id, l, want.LightPassDeepNot, want.DeepPassLightNot, want.LeniencyP)
			}
		}
		if len(doc.Pairwise) != len(s.Pairs) {
			t.Fatalf("set %d: %d pairs, want %d", s.Seed, len(doc.Pairwise), len(s.Pairs))
		}
		for _, want := range s.Pairs {
			found := false
			for _, got := range doc.Pairwise {
				aOnly, bOnly := got.AOnly, got.BOnly
				switch {
				case got.A == want.A && got.B == want.B:
				case got.A == want.B && got.B == want.A:
					aOnly, bOnly = bOnly, aOnly
				default:
					continue
				}
				found = true
				if aOnly != want.AOnly || bOnly != want.BOnly || !near(got.P, want.P, 1e-12) || !near(got.HolmP, want.HolmP, 1e-12) {
					t.Errorf("set %d %s-%s: %+v, want %+v", s.Seed, want.A, want.B, got, want)
				}
			}
			if !found {
				t.Errorf("set %d: no pair %s-%s", s.Seed, want.A, want.B)
			}
		}
	}
}
