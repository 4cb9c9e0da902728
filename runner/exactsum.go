package runner

import "math"

// Cost sums are kept as integers so that they do not depend on the order
// the inspections finish in (--jobs) or on how a job was sharded: a float64
// sum does (20.00000000000001 one way, 19.999999999999794 another; issue
// 26). USD are counted in nano-dollars and seconds in microseconds; each
// inspection's cost is rounded to that unit once, the integers are added,
// and the total is printed as units / scale. A total read back from a
// report converts to the same integer (units below 2^53, i.e. nine
// million dollars and 285 years, are exact in a float64), so merging shard
// totals with AddUSD / AddSeconds gives the unsharded report's figure to
// the bit.
const (
	usdScale     = 1e9 // nano-dollars per dollar
	secondsScale = 1e6 // microseconds per second
)

// toUnits rounds v*scale to an integer, saturating at ±2^62 (NaN is 0):
// costs are validated finite and non-negative before they get here.
func toUnits(v, scale float64) int64 {
	x := math.Round(v * scale)
	switch {
	case math.IsNaN(x):
		return 0
	case x >= 1<<62:
		return 1 << 62
	case x <= -(1 << 62):
		return -(1 << 62)
	}
	return int64(x)
}

// AddUSD is a + b in USD, summed as nano-dollars (see toUnits): merge uses
// it to add shard totals the way the runner added inspections.
func AddUSD(a, b float64) float64 {
	return float64(toUnits(a, usdScale)+toUnits(b, usdScale)) / usdScale
}

// AddSeconds is a + b in seconds, summed as microseconds.
func AddSeconds(a, b float64) float64 {
	return float64(toUnits(a, secondsScale)+toUnits(b, secondsScale)) / secondsScale
}
