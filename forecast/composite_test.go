package forecast

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func fptr(x float64) *float64 { return &x }

func TestCompositeSpreadsUnmeasuredWeightInProportion(t *testing.T) {
	// Hand-worked: weights calibration 0.1, returns 0.5, drawdown 0.4.
	// Calibration unmeasured: its 0.1 spreads over returns and drawdown in
	// proportion 5:4, so they weigh 0.5 x 1/0.9 = 0.5556 and 0.4 x 1/0.9 =
	// 0.4444; score = (0.5 x 60 + 0.4 x 90)/0.9 = 66/0.9 = 73.333...
	w := map[string]float64{"calibration": 0.1, "returns": 0.5, "drawdown": 0.4}
	got, err := Composite(w, map[string]*float64{"calibration": nil, "returns": fptr(60), "drawdown": fptr(90)})
	if err != nil {
		t.Fatal(err)
	}
	want := CompositeScore{Score: fptr(66 / 0.9), Terms: []CompositeTerm{
		{Term: "calibration", Weight: 0.1},
		{Term: "drawdown", Weight: 0.4, Effective: 0.4 / 0.9, Value: fptr(90)},
		{Term: "returns", Weight: 0.5, Effective: 0.5 / 0.9, Value: fptr(60)},
	}}
	if diff := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("composite (-want +got):\n%s", diff)
	}
}

func TestCompositeAllMeasuredIsTheWeightedSum(t *testing.T) {
	// 0.1 x 32 + 0.5 x 60 + 0.4 x 90 = 3.2 + 30 + 36 = 69.2.
	w := map[string]float64{"calibration": 0.1, "returns": 0.5, "drawdown": 0.4}
	got, err := Composite(w, map[string]*float64{"calibration": fptr(32), "returns": fptr(60), "drawdown": fptr(90), "unweighted": fptr(1000)})
	if err != nil {
		t.Fatal(err)
	}
	if got.Score == nil || *got.Score < 69.2-1e-9 || *got.Score > 69.2+1e-9 {
		t.Errorf("score = %v, want 69.2", got.Score)
	}
}

func TestCompositeWithNothingMeasuredIsNull(t *testing.T) {
	got, err := Composite(map[string]float64{"calibration": 1}, nil)
	if err != nil || got.Score != nil || got.Reason == "" {
		t.Errorf("Composite = %+v, %v; want null score with a reason", got, err)
	}
}

func TestParseWeights(t *testing.T) {
	got, err := ParseWeights(" calibration=0.10, returns=0.5 ")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]float64{"calibration": 0.1, "returns": 0.5}, got); diff != "" {
		t.Errorf("weights (-want +got):\n%s", diff)
	}
	for _, bad := range []string{"", "calibration", "=1", "a=-1", "a=NaN", "a=1,a=2", "a=0,b=0", "a=x"} {
		if _, err := ParseWeights(bad); err == nil {
			t.Errorf("ParseWeights(%q) accepted", bad)
		}
	}
}

func TestCompositeForGroupsUsesMeasuredCalibration(t *testing.T) {
	rep := CallReport{Groups: []GroupScore{
		{Agent: "a", Season: "s1", Calibration: fptr(32)},
		{Agent: "a", Season: "s2"},
	}}
	terms := map[string]map[string]*float64{"a": {"returns": fptr(60), "calibration": fptr(99)}}
	got, err := CompositeForGroups(rep, map[string]float64{"calibration": 0.5, "returns": 0.5}, terms)
	if err != nil {
		t.Fatal(err)
	}
	// s1: 0.5 x 32 + 0.5 x 60 = 46; s2: calibration unmeasured -> 60.
	if *got[0].Score != 46 || *got[1].Score != 60 {
		t.Errorf("scores %v, %v; want 46, 60", *got[0].Score, *got[1].Score)
	}
}

func TestCompositeNormalisesWeightsToSumOne(t *testing.T) {
	// Issue 13 item 15: calibration=5,returns=5 with only returns (48)
	// measured is 48, not 5 x 10/5 x 48 = 480; and every weight scaled by
	// the same factor gives the same score: 0.5 x 40 + 0.5 x 60 = 50.
	w, err := ParseWeights("calibration=5,returns=5")
	if err != nil {
		t.Fatal(err)
	}
	got, err := Composite(w, map[string]*float64{"returns": fptr(48)})
	if err != nil || got.Score == nil || *got.Score != 48 {
		t.Fatalf("score %v, %v; want 48", got.Score, err)
	}
	for _, weights := range []string{"a=1,b=1", "a=5,b=5", "a=1e308,b=1e308", "a=1e-300,b=1e-300"} {
		w, err := ParseWeights(weights)
		if err != nil {
			t.Fatalf("%s: %v", weights, err)
		}
		got, err := Composite(w, map[string]*float64{"a": fptr(40), "b": fptr(60)})
		if err != nil || got.Score == nil || *got.Score != 50 {
			t.Errorf("%s: score %v, %v; want 50", weights, got.Score, err)
			continue
		}
		if got.Terms[0].Effective != 0.5 || got.Terms[1].Effective != 0.5 {
			t.Errorf("%s: effective weights %v, %v; want 0.5 each", weights, got.Terms[0].Effective, got.Terms[1].Effective)
		}
	}
}

func TestCompositeRejectsNegativeAndNonFiniteWeights(t *testing.T) {
	for _, w := range []float64{-1, math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := Composite(map[string]float64{"a": 1, "b": w}, map[string]*float64{"a": fptr(1), "b": fptr(2)}); err == nil {
			t.Errorf("weight %v accepted", w)
		}
	}
	for _, bad := range []string{"a=1e309", "a=-0.5,b=1", "a=Inf", "a=1,b=+Inf"} {
		if _, err := ParseWeights(bad); err == nil {
			t.Errorf("ParseWeights(%q) accepted", bad)
		}
	}
}

func TestCompositeDoesNotDependOnMapOrder(t *testing.T) {
	// Twenty terms whose weight sum depends on the order of addition
	// (1e16 + 1 + 1 = 1e16, while 1 + 1 + 1e16 = 1e16 + 2): the score must
	// be the same bit for bit on every call (Go randomises map order).
	w := map[string]float64{"a": 1e16}
	v := map[string]*float64{"a": fptr(0)}
	for i := 1; i < 20; i++ {
		name := string(rune('a' + i))
		w[name] = 1
		v[name] = fptr(1e17)
	}
	v["b"] = nil // unmeasured: its weight is spread
	first, err := Composite(w, v)
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		got, err := Composite(w, v)
		if err != nil {
			t.Fatal(err)
		}
		if *got.Score != *first.Score {
			t.Fatalf("score %v then %v", *first.Score, *got.Score)
		}
	}
}
