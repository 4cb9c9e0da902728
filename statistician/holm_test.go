package statistician

import (
	"math"
	"testing"
)

// Holm by hand: p = (0.01, 0.04, 0.03, 0.005), m = 4; sorted 0.005,
// 0.01, 0.03, 0.04 -> 4x0.005 = 0.02, 3x0.01 = 0.03, 2x0.03 = 0.06,
// 1x0.04 = 0.04 -> running max 0.02, 0.03, 0.06, 0.06.
func TestHolmByHand(t *testing.T) {
	got := Holm([]float64{0.01, 0.04, 0.03, 0.005})
	want := []float64{0.03, 0.06, 0.06, 0.02}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-15 {
			t.Fatalf("Holm = %v, want %v", got, want)
		}
	}
	if got := Holm([]float64{0.6, 0.9}); got[0] != 1 || got[1] != 1 {
		t.Errorf("capped at 1: %v", got)
	}
	if got := Holm(nil); len(got) != 0 {
		t.Errorf("Holm(nil) = %v", got)
	}
}
