// Package inspection is evalcal's domain vocabulary: the run an inspector
// is shown (Run), what it says about it (Inspection, Flag, Service, Cost,
// Usage), the verdict rule's cuts and the light caps, the flag ids the
// comparator matches across inspectors, the errors an inspector marks its
// failures with (Permanent, Fatal, RetryAfter, WithUsage), and the
// inspector protocol itself (Inspector and its optional capabilities, all
// in inspector.go, with Wrap and As so that a wrapper forwards them).
//
// It is a leaf: it imports only the standard library, so every stage
// (runner, comparator, advisor, report) and every inspector in programs/
// can share it without importing each other. The scheduler that calls
// inspectors is package runner.
package inspection
