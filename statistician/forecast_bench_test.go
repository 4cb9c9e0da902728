package statistician

import (
	"testing"
)

// benchN is the number of forecasts per benchmark operation: the figures
// the README quotes are for 10 million forecasts.
const benchN = 10_000_000

func reportPerForecast(b *testing.B) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchN, "ns/forecast")
}

// BenchmarkDistinctAccumulator10M streams 10 million forecasts through the
// exact (distinct-value) accumulator and computes Murphy and CORP.
func BenchmarkDistinctAccumulator10M(b *testing.B) {
	benchP, benchY := randomForecasts(benchN, 42) // before b.Loop: not timed
	b.ReportAllocs()
	for b.Loop() {
		a := NewDistinctAccumulator()
		for i := range benchP {
			if err := a.Add(benchP[i], benchY[i]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := a.Murphy(); err != nil {
			b.Fatal(err)
		}
		if _, err := a.CORP(); err != nil {
			b.Fatal(err)
		}
	}
	reportPerForecast(b)
}

// BenchmarkFixedBinAccumulator10M streams 10 million forecasts through ten
// fixed-width bins (exact sums) and computes the binned decomposition.
func BenchmarkFixedBinAccumulator10M(b *testing.B) {
	benchP, benchY := randomForecasts(benchN, 42) // before b.Loop: not timed
	b.ReportAllocs()
	for b.Loop() {
		a, _ := NewFixedBinAccumulator(10)
		for i := range benchP {
			if err := a.Add(benchP[i], benchY[i]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := a.Result(); err != nil {
			b.Fatal(err)
		}
	}
	reportPerForecast(b)
}

// BenchmarkBrier10M is the slice Brier score of 10 million forecasts.
func BenchmarkBrier10M(b *testing.B) {
	benchP, benchY := randomForecasts(benchN, 42) // before b.Loop: not timed
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Brier(benchP, benchY); err != nil {
			b.Fatal(err)
		}
	}
	reportPerForecast(b)
}

// BenchmarkRPSAccumulator10M streams 10 million three-way forecasts through
// the RPS accumulator.
func BenchmarkRPSAccumulator10M(b *testing.B) {
	benchP, benchY := randomForecasts(benchN, 43) // before b.Loop: not timed
	b.ReportAllocs()
	probs := make([]float64, 3)
	for b.Loop() {
		a, _ := NewRPSAccumulator(3)
		for i, p := range benchP {
			probs[0], probs[1], probs[2] = (1-p)/2, (1-p)/2, p
			if err := a.Add(probs, 2*benchY[i]); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := a.Result(); err != nil {
			b.Fatal(err)
		}
	}
	reportPerForecast(b)
}
