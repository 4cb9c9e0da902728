// Package render lays out evalcal's documents for people: the calibration
// report, the history of nightly reports, score, calls and rank documents,
// as Markdown (for PR comments) and self-contained HTML with SVG charts
// (gonum/plot). Renderers compute no statistics; they only lay out what
// the documents hold, rounded by the report's precision rule
// (report/precision.go).
package render
