// Package forecast scores the probability forecasts agents make: JSONL
// forecast files and prediction logs, trading calls resolved against
// prices, learning trends, and the held-out gate for self-learned lessons.
// All arithmetic is the statistician package's scoring core.
package forecast

import "time"

// Kind is the shape of a forecast.
type Kind int

const (
	// Binary forecasts state P(outcome = 1) in Confidence.
	Binary Kind = iota
	// Ordinal forecasts state a probability per ordered category in Probs
	// (for three-way forecasts: down, flat, up).
	Ordinal
)

// Forecast is one forecast with its resolved outcome.
type Forecast struct {
	ID    string
	Agent string
	// At is when the forecast was made; zero when the input had none.
	At   time.Time
	Kind Kind
	// Confidence is P(outcome = 1) for Binary forecasts, in [0, 1].
	Confidence float64
	// Outcome is 0 or 1 for Binary forecasts, and the index of the
	// category that happened for Ordinal ones.
	Outcome int
	// Probs holds the probabilities of the ordered categories (Ordinal).
	Probs []float64
	// Fields holds the input's top-level scalar fields as text, so that
	// forecasts can be grouped by any of them (score --by FIELD).
	Fields map[string]string
	// Source and Line say where the forecast was read (1-based line).
	Source string
	Line   int
}
