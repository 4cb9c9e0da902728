package escalate

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// escalateRefs is testdata/reference/escalate_values.json, written by
// escalate_ref.py: an independent implementation of the fixed-sequence
// procedure with scipy's exact binomial test, on seeded datasets.
type escalateRefs struct {
	Tool     string `json:"tool"`
	Call     string `json:"call"`
	Datasets map[string]struct {
		Confidence []float64 `json:"confidence"`
		Agree      []bool    `json:"agree"`
	} `json:"datasets"`
	Cases []struct {
		Dataset        string  `json:"dataset"`
		Agreement      float64 `json:"agreement"`
		Risk           float64 `json:"risk"`
		MinCovered     int     `json:"min_covered"`
		Met            bool    `json:"met"`
		Threshold      float64 `json:"threshold"`
		Covered        int     `json:"covered"`
		Matches        int     `json:"matches"`
		AgreementLower float64 `json:"agreement_lower"`
		Coverage95     [2]float64
		Agreement95    [2]float64
		Steps          []struct {
			Threshold float64 `json:"threshold"`
			Covered   int     `json:"covered"`
			Matches   int     `json:"matches"`
			Lower     float64 `json:"lower"`
			Rejected  bool    `json:"rejected"`
		} `json:"steps"`
	} `json:"cases"`
}

func TestCalibrateMatchesScipyFixedSequence(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "reference", "escalate_values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var refs escalateRefs
	if err := json.Unmarshal(b, &refs); err != nil {
		t.Fatal(err)
	}
	if len(refs.Cases) < 10 {
		t.Fatalf("only %d reference cases", len(refs.Cases))
	}
	met := 0
	for _, c := range refs.Cases {
		name := fmt.Sprintf("%s A=%v D=%v", c.Dataset, c.Agreement, c.Risk)
		d := refs.Datasets[c.Dataset]
		runs := make([]Scored, len(d.Confidence))
		for i := range runs {
			runs[i] = Scored{Confidence: d.Confidence[i], Agree: d.Agree[i]}
		}
		res, err := Calibrate(runs, Target{Agreement: c.Agreement, Risk: c.Risk})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.MinCovered != c.MinCovered || res.Met != c.Met {
			t.Errorf("%s: min covered %d met %v; scipy %d %v", name, res.MinCovered, res.Met, c.MinCovered, c.Met)
			continue
		}
		var tested []Point
		for _, p := range res.Points {
			if p.Tested {
				tested = append(tested, p)
			}
		}
		if len(tested) != len(c.Steps) {
			t.Errorf("%s: %d steps tested, scipy %d", name, len(tested), len(c.Steps))
			continue
		}
		for i, s := range c.Steps {
			g := tested[i]
			if g.Threshold != s.Threshold || g.Covered != s.Covered || g.Matches != s.Matches || g.Passed != s.Rejected || math.Abs(g.Lower-s.Lower) > 1e-9 {
				t.Errorf("%s: step %d = %+v, scipy %+v", name, i, g, s)
			}
		}
		if !c.Met {
			continue
		}
		met++
		if res.Threshold != c.Threshold || res.Covered != c.Covered || res.Matches != c.Matches || math.Abs(res.AgreementLower-c.AgreementLower) > 1e-9 {
			t.Errorf("%s: threshold %v covering %d (%d agree, bound %v); scipy %v, %d, %d, %v", name, res.Threshold, res.Covered, res.Matches, res.AgreementLower, c.Threshold, c.Covered, c.Matches, c.AgreementLower)
		}
		for _, iv := range []struct {
			what      string
			got, want [2]float64
		}{
			{"coverage", [2]float64{res.Coverage.Lower, res.Coverage.Upper}, c.Coverage95},
			{"agreement", [2]float64{res.Agreement.Lower, res.Agreement.Upper}, c.Agreement95},
		} {
			if math.Abs(iv.got[0]-iv.want[0]) > 1e-9 || math.Abs(iv.got[1]-iv.want[1]) > 1e-9 {
				t.Errorf("%s: %s interval %v, scipy %v", name, iv.what, iv.got, iv.want)
			}
		}
	}
	// The datasets must exercise both answers.
	if met == 0 || met == len(refs.Cases) {
		t.Errorf("%d of %d reference cases met the target; want some of each", met, len(refs.Cases))
	}
}
