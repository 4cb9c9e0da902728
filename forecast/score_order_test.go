package forecast

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/evalcal/evalcal/statistician"
)

// orderTestInput is the bundled worked and three-way examples plus three
// generated groups, one for each way the label's interval is computed:
// "stated" (2 decimals, 10,000: multinomial), "model-small" (continuous,
// 900: index) and "model-large" (continuous, 3,000: Cornish-Fisher). Times
// repeat, so the learning trend has ties to break.
func orderTestInput(t *testing.T) []byte {
	t.Helper()
	var in bytes.Buffer
	for _, f := range []string{"worked.jsonl", "three_way.jsonl"} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "score", f))
		if err != nil {
			t.Fatal(err)
		}
		in.Write(data)
	}
	for _, g := range []struct {
		agent    string
		n        int
		decimals int
	}{{"stated", 10_000, 2}, {"model-small", 900, -1}, {"model-large", 3000, -1}} {
		lines := benchJSONL(g.n, 1, g.decimals, uint64(g.n+g.decimals))
		in.Write(bytes.ReplaceAll(lines, []byte("agent-00"), []byte(g.agent)))
	}
	return in.Bytes()
}

// shuffleLines returns the lines of in in a seeded random order.
func shuffleLines(in []byte, seed uint64) []byte {
	lines := bytes.SplitAfter(in, []byte("\n"))
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	var out bytes.Buffer
	for _, l := range lines {
		out.Write(bytes.TrimSuffix(l, []byte("\n")))
		out.WriteByte('\n')
	}
	return out.Bytes()
}

// Shuffling the lines of a forecast file leaves every figure of the score
// document unchanged (issue 10): equal-frequency bins keep ties together,
// sums are exact, the bootstrap sees the squared errors in sorted order,
// and the trend breaks time ties by id.
func TestScoreReportDoesNotDependOnLineOrder(t *testing.T) {
	in := orderTestInput(t)
	fixed := DefaultScoreOptions()
	fixed.Binning = statistician.FixedBins
	trend := DefaultScoreOptions()
	trend.TrendWindow = 400
	for name, opts := range map[string]ScoreOptions{"default": DefaultScoreOptions(), "fixed bins": fixed, "trend": trend} {
		want, err := scoreJSONL(context.Background(), in, opts)
		if err != nil {
			t.Fatal(err)
		}
		methods := map[string]string{}
		for _, g := range want.Groups {
			methods[g.Key] = g.BSSCIMethod
		}
		if methods["stated"] != BootstrapMultinomial || methods["model-small"] != BootstrapIndex || methods["model-large"] != BootstrapCornishFisher {
			t.Fatalf("%s: methods %v: the input no longer covers the three methods", name, methods)
		}
		for seed := uint64(1); seed <= 3; seed++ {
			got, err := scoreJSONL(context.Background(), shuffleLines(in, seed), opts)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s, shuffle %d: report changed (-in order +shuffled):\n%s", name, seed, d)
			}
		}
	}
}
