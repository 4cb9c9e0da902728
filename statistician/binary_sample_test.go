package statistician

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// mixedForecasts returns n forecasts mixing stated confidences (0.01
// steps, many ties), 4-decimal values and continuous ones, with 0 and 1
// among them, outcomes drawn from the forecast.
func mixedForecasts(n int, seed uint64) ([]float64, []int) {
	r := rand.New(rand.NewPCG(seed, 2))
	p, y := make([]float64, n), make([]int, n)
	for i := range p {
		switch i % 4 {
		case 0:
			p[i] = float64(r.IntN(101)) / 100
		case 1:
			p[i] = math.Round(r.Float64()*1e4) / 1e4
		case 2:
			p[i] = r.Float64()
		default:
			p[i] = float64(r.IntN(2))
		}
		if r.Float64() < p[i] {
			y[i] = 1
		}
	}
	return p, y
}

func sortedSample(t testing.TB, p []float64, y []int) SortedBinary {
	t.Helper()
	var s BinarySample
	for i := range p {
		if err := s.Add(p[i], y[i]); err != nil {
			t.Fatal(err)
		}
	}
	sorted, err := s.Sorted(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sorted
}

// The sorted sample gives bit for bit what the slice functions give (they
// share no code path for the values: a map of distinct values there, two
// sorted arrays here), and so does any permutation of the input.
func TestSortedBinaryEqualsTheSliceFunctionsInAnyOrder(t *testing.T) {
	for _, n := range []int{1, 2, 7, 100, 5000, 3*sampleChunkLen + 5} {
		p, y := mixedForecasts(n, uint64(n))
		wantM, err := MurphyExact(p, y)
		if err != nil {
			t.Fatal(err)
		}
		wantC, _ := CORP(p, y)
		var wantB []BinnedMurphy
		for _, m := range []Binning{EqualFrequencyBins, FixedBins} {
			for _, k := range []int{1, 4, 10, 37} {
				b, err := MurphyBinned(p, y, k, m)
				if err != nil {
					t.Fatal(err)
				}
				wantB = append(wantB, b)
			}
		}
		perm := rand.New(rand.NewPCG(9, uint64(n))).Perm(n)
		pp, yy := make([]float64, n), make([]int, n)
		for i, j := range perm {
			pp[i], yy[i] = p[j], y[j]
		}
		for _, in := range [][2]any{{p, y}, {pp, yy}} {
			s := sortedSample(t, in[0].([]float64), in[1].([]int))
			m, _ := s.Murphy()
			c, _ := s.CORP()
			if d := cmp.Diff(wantM, m); d != "" {
				t.Errorf("n=%d: Murphy (-slices +sorted):\n%s", n, d)
			}
			if d := cmp.Diff(wantC, c); d != "" {
				t.Errorf("n=%d: CORP (-slices +sorted):\n%s", n, d)
			}
			m2, c2, err := s.MurphyAndCORP()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff([2]any{wantM, wantC}, [2]any{m2, c2}); d != "" {
				t.Errorf("n=%d: MurphyAndCORP (-apart +together):\n%s", n, d)
			}
			// The squared errors' moments about the Brier score, by a
			// plain loop over the forecasts.
			var s2, s3, s4 float64
			for i := range p {
				d := (p[i]-float64(y[i]))*(p[i]-float64(y[i])) - wantM.Brier
				s2 += d * d
				s3 += d * d * d
				s4 += d * d * d * d
			}
			em := s.ErrorMoments(wantM.Brier)
			if em.N != n || math.Abs(em.Sum2-s2) > 1e-9*(1+s2) || math.Abs(em.Sum3-s3) > 1e-9*(1+math.Abs(s3)) || math.Abs(em.Sum4-s4) > 1e-9*(1+s4) {
				t.Errorf("n=%d: moments %+v, loop %v %v %v", n, em, s2, s3, s4)
			}
			i := 0
			for _, meth := range []Binning{EqualFrequencyBins, FixedBins} {
				for _, k := range []int{1, 4, 10, 37} {
					b, err := s.Binned(k, meth)
					if err != nil {
						t.Fatal(err)
					}
					if d := cmp.Diff(wantB[i], b); d != "" {
						t.Errorf("n=%d %s/%d (-slices +sorted):\n%s", n, meth, k, d)
					}
					i++
				}
			}
		}
	}
}

// The squared-error cells are the distinct (p - y)^2 in ascending order
// with their counts, as a map over the forecasts gives them.
func TestSquaredErrorsAreTheDistinctSquaredErrorsInOrder(t *testing.T) {
	p, y := mixedForecasts(20000, 5)
	want := map[float64]int{}
	for i := range p {
		d := p[i] - float64(y[i])
		want[d*d]++
	}
	got := map[float64]int{}
	prev := math.Inf(-1)
	for e, c := range sortedSample(t, p, y).SquaredErrors() {
		if !(e > prev) {
			t.Fatalf("squared error %v after %v: not strictly ascending", e, prev)
		}
		prev = e
		got[e] = c
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("cells (-map +sorted):\n%s", d)
	}
}

// addTimes(x, c) is exactly c calls of add(x).
func TestAddTimesEqualsRepeatedAdds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	for trial := 0; trial < 2000; trial++ {
		var a, b exactSum
		for k := 0; k < 3; k++ {
			x := r.Float64()
			switch trial % 5 {
			case 0:
				x = math.Ldexp(x, -1000-r.IntN(74)) // subnormal range
			case 1:
				x = float64(r.IntN(2))
			case 2:
				x *= x
			}
			c := uint64(r.IntN(300))
			for range c {
				a.add(x)
			}
			b.addTimes(x, c)
		}
		if a.bigInt().Cmp(b.bigInt()) != 0 {
			t.Fatalf("trial %d: repeated adds %v, addTimes %v", trial, a.Float64(), b.Float64())
		}
	}
	// Counts far beyond what a loop could check: c * x summed exactly.
	var s exactSum
	s.addTimes(0.1, 1<<40)
	if got, want := s.Float64(), 0.1*(1<<40); got != want { // a power of two times 0.1 is exact
		t.Errorf("addTimes(0.1, 2^40) = %v, want %v", got, want)
	}
}

func TestSortFloatsSortsLikeSlicesSort(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{0, 1, sortLeafLen + 1, 5 * sortLeafLen} {
		for _, kind := range []string{"continuous", "ties", "sorted", "reversed", "constant"} {
			x := make([]float64, n)
			for i := range x {
				switch kind {
				case "continuous":
					x[i] = r.Float64()
				case "ties":
					x[i] = float64(r.IntN(7)) / 6
				case "sorted":
					x[i] = float64(i)
				case "reversed":
					x[i] = float64(n - i)
				}
			}
			want := slices.Clone(x)
			slices.Sort(want)
			if err := sortFloats(context.Background(), x); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(x, want) {
				t.Errorf("n=%d %s: not sorted", n, kind)
			}
		}
	}
}

// cancelLagBound is how late a cancelled computation may stop in these
// tests: the design asks for about 100 ms, and a CI machine shared with
// other jobs can stretch a few milliseconds of work several times.
var cancelLagBound = map[bool]time.Duration{false: 250 * time.Millisecond, true: 2 * time.Second}[raceDetector]

// Values held in chunks sort in place as a slice would, with partitions
// and leaves that cross chunk boundaries.
func TestSortViewSortsChunkedValues(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, n := range []int{5, sampleChunkLen, sampleChunkLen + 1, 3*sortLeafLen + 17} {
		for _, ties := range []bool{false, true} {
			var c floatChunks
			var want []float64
			for range n {
				x := r.Float64()
				if ties {
					x = float64(r.IntN(50)) / 49
				}
				c.add(x)
				want = append(want, x)
			}
			slices.Sort(want)
			v, err := c.sortedView(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, 0, n)
			for i := range v.n {
				got = append(got, v.at(i))
			}
			if !slices.Equal(got, want) {
				t.Errorf("n=%d ties=%v: chunked values not sorted", n, ties)
			}
			for i, ch := range c.chunks[:len(c.chunks)-1] {
				if len(ch) != sampleChunkLen {
					t.Fatalf("n=%d: chunk %d holds %d values, want %d", n, i, len(ch), sampleChunkLen)
				}
			}
		}
	}
}

// A cancelled sort returns ctx.Err() at once; cancelled while running, it
// stops within a leaf's sort (about 3 ms), far below 100 ms.
func TestSortFloatsStopsWhenCancelled(t *testing.T) {
	x := make([]float64, 4<<20)
	r := rand.New(rand.NewPCG(5, 5))
	for i := range x {
		x[i] = r.Float64()
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := sortFloats(ctx, slices.Clone(x)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled sort: err %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan time.Time, 1)
	var err error
	go func() {
		err = sortFloats(ctx, x)
		stopped <- time.Now()
	}()
	time.Sleep(5 * time.Millisecond)
	cancelled := time.Now()
	cancel()
	end := <-stopped
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	// About 3 ms on an idle machine; the bound leaves room for a loaded one.
	if lag := end.Sub(cancelled); lag > cancelLagBound {
		t.Errorf("sort stopped %v after the cancel, want under %v", lag, cancelLagBound)
	} else {
		t.Logf("sort stopped %v after the cancel", lag)
	}
}

// A sample that grows in chunks keeps about 8 bytes per forecast.
func TestBinarySampleKeepsEightBytesAForecast(t *testing.T) {
	const n = 1 << 20
	var s BinarySample
	for i := range n {
		_ = s.Add(float64(i%1000)/1000, i%2)
	}
	held := 0
	for _, c := range [][][]float64{s.zeros.chunks, s.ones.chunks} {
		for _, ch := range c {
			held += 8 * cap(ch)
		}
	}
	if held > 8*n+2*8*sampleChunkLen {
		t.Errorf("%d forecasts hold %d bytes, want at most %d", n, held, 8*n+2*8*sampleChunkLen)
	}
	if s.Len() != n {
		t.Errorf("Len %d, want %d", s.Len(), n)
	}
}

func TestBinarySampleRejectsBadForecasts(t *testing.T) {
	var s BinarySample
	for _, c := range []struct {
		p float64
		y int
	}{{-0.1, 0}, {1.1, 1}, {math.NaN(), 0}, {0.5, 2}} {
		if err := s.Add(c.p, c.y); err == nil {
			t.Errorf("Add(%v, %d) = nil error", c.p, c.y)
		}
	}
	if s.Len() != 0 {
		t.Errorf("Len %d after bad forecasts, want 0", s.Len())
	}
	if _, err := (SortedBinary{}).Murphy(); err == nil {
		t.Error("Murphy of no forecasts: no error")
	}
}

func BenchmarkSortedSample1M(b *testing.B) {
	p, y := mixedForecasts(1<<20, 1)
	b.ReportAllocs()
	for b.Loop() {
		s := sortedSample(b, p, y)
		if _, err := s.Murphy(); err != nil {
			b.Fatal(err)
		}
		if _, err := s.CORP(); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Binned(10, EqualFrequencyBins); err != nil {
			b.Fatal(err)
		}
		for range s.SquaredErrors() {
		}
	}
}

func BenchmarkSortFloats1M(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	x := make([]float64, 1<<20)
	for i := range x {
		x[i] = r.Float64()
	}
	buf := make([]float64, len(x))
	for b.Loop() {
		copy(buf, x)
		if err := sortFloats(context.Background(), buf); err != nil {
			b.Fatal(err)
		}
	}
}
