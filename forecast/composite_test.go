package forecast

import (
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
