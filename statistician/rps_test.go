package statistician

import (
	"math"
	"testing"
)

func TestRPSNormalisedByCategoriesMinusOne(t *testing.T) {
	tests := []struct {
		probs   []float64
		outcome int
		want    float64
	}{
		{[]float64{0, 0, 1}, 0, 1},   // worst possible
		{[]float64{0, 1, 0}, 0, 0.5}, // one step off
		{[]float64{1, 0, 0}, 0, 0},
		{[]float64{0.2, 0.3, 0.5}, 2, (0.04 + 0.25) / 2}, // F = 0.2, 0.5; O = 0, 0
		{[]float64{0.5, 0.5}, 1, 0.25},                   // K = 2 is the Brier score
	}
	for _, tt := range tests {
		got, err := RPS(tt.probs, tt.outcome)
		if err != nil {
			t.Fatalf("RPS(%v, %d): %v", tt.probs, tt.outcome, err)
		}
		if math.Abs(got-tt.want) > 1e-15 {
			t.Errorf("RPS(%v, %d) = %v, want %v", tt.probs, tt.outcome, got, tt.want)
		}
	}
}

func TestRPSRejectsBadForecasts(t *testing.T) {
	tests := []struct {
		probs   []float64
		outcome int
	}{
		{[]float64{1}, 0},
		{[]float64{0.5, 0.6}, 0},
		{[]float64{-0.1, 1.1}, 0},
		{[]float64{math.NaN(), 1}, 0},
		{[]float64{0.5, 0.5}, 2},
		{[]float64{0.5, 0.5}, -1},
	}
	for _, tt := range tests {
		if _, err := RPS(tt.probs, tt.outcome); err == nil {
			t.Errorf("RPS(%v, %d): no error", tt.probs, tt.outcome)
		}
	}
}

func TestMeanRPSAndSkillMatchNumpy(t *testing.T) {
	_, cases := forecastReference(t)
	for _, c := range cases {
		r, err := MeanRPS(c.Probs, c.Outcomes, c.Baseline)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		checkRef(t, c.Name+": mean rps", r.Mean, c.MeanRPS)
		checkRef(t, c.Name+": baseline rps", r.BaselineRPS, c.BaselineRPS)
		if !r.Skill.Defined() {
			t.Fatalf("%s: skill undefined: %s", c.Name, r.Skill.Reason)
		}
		checkRef(t, c.Name+": rpss", r.Skill.Value, c.RPSS)
	}
}

func TestRPSSkillIsUndefinedWhenTheBaselineIsPerfect(t *testing.T) {
	// Every outcome is category 1 and so is climatology: baseline RPS 0.
	r, err := MeanRPS([][]float64{{0.1, 0.8, 0.1}, {0, 1, 0}}, []int{1, 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Skill.Defined() || r.BaselineRPS != 0 {
		t.Errorf("skill = %+v with baseline RPS %v; want a reason", r.Skill, r.BaselineRPS)
	}
}

func TestMeanRPSRejectsMixedCategoryCounts(t *testing.T) {
	if _, err := MeanRPS([][]float64{{0.5, 0.5}, {0.2, 0.3, 0.5}}, []int{0, 1}, nil); err == nil {
		t.Error("no error for forecasts with 2 and 3 categories")
	}
}
