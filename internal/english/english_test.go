package english

import "testing"

func TestCount(t *testing.T) {
	for _, tt := range []struct {
		n    int
		want string
	}{{0, "0 runs"}, {1, "1 run"}, {2, "2 runs"}, {-1, "-1 runs"}} {
		if got := Count(tt.n, "run", "runs"); got != tt.want {
			t.Errorf("Count(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	if got := Noun(1, "passes", "pass"); got != "passes" {
		t.Errorf("Noun(1) = %q", got)
	}
}
