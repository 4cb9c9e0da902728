package calibrate

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
)

// flagInspector answers at once with k flags per inspection, half of them
// shared by light and deep, and scores and verdicts that vary with the
// run, so that every statistic has work to do.
type flagInspector struct{ k int }

func (f flagInspector) Identity() string { return fmt.Sprintf("flags/%d", f.k) }

func (f flagInspector) Inspect(_ context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	h := 0
	for _, c := range run.ID {
		h = h*31 + int(c)
	}
	h &= 0xffff
	score := float64(h % 101)
	if depth == inspection.Light {
		score = float64((h / 7) % 101)
	}
	verdict := inspection.VerdictFail
	switch {
	case score >= 70:
		verdict = inspection.VerdictPass
	case score >= 40:
		verdict = inspection.VerdictPartial
	}
	insp := inspection.Inspection{RunID: run.ID, System: run.System, Depth: depth,
		RuntimeFidelity: score, TaskEffectiveness: float64((h / 3) % 101), Verdict: verdict,
		Flags: make([]inspection.Flag, 0, f.k)}
	for i := range f.k {
		id := fmt.Sprintf("check-%d", i)
		if i%2 == 1 {
			id = fmt.Sprintf("%s-%s-%d", depth, run.ID, i) // found by one depth only
		}
		insp.Flags = append(insp.Flags, inspection.Flag{ID: id, Severity: inspection.SeverityWarning, Description: "d", Evidence: "e"})
	}
	return insp, nil
}

// syntheticRuns are n valid runs of four systems.
func syntheticRuns(n int) []inspection.Run {
	runs := make([]inspection.Run, n)
	for i := range runs {
		runs[i] = inspection.Run{ID: fmt.Sprintf("20300101-%06d-%06x", i/1000000, i%1000000), Path: fmt.Sprintf("runs/%d", i),
			System: fmt.Sprintf("system-%d", i%4), Status: inspection.StatusCompleted, Era: inspection.EraStateMDv1,
			ServicesDeclared: []string{"a", "b"}, ServicesCompleted: []string{"a", "b"}, ServicesErrored: []string{},
			BindingsPresent: []string{"a", "b"}, BindingsMissing: []string{}, ErrorFiles: []string{},
			SizeBytes: int64(1000 + i%5000), Files: 5, ContentHash: fmt.Sprintf("%064x", i+1), Valid: true}
	}
	return runs
}

// BenchmarkCalibrateScaling is the pipeline after discovery (selection,
// inspection by an instant inspector, comparison, statistics, advice) and
// the YAML report, for growing numbers of runs and of flags per
// inspection. Issue 12: nothing quadratic, so µs/run must stay flat as
// runs grow and µs/flag as flags grow (runs=100000 only without -short).
func BenchmarkCalibrateScaling(b *testing.B) {
	type size struct{ runs, flags int }
	sizes := []size{{1000, 2}, {10000, 2}, {1000, 20}, {1000, 200}}
	if !testing.Short() {
		sizes = append(sizes, size{100000, 2}, size{1000, 2000})
	}
	for _, s := range sizes {
		b.Run(fmt.Sprintf("runs=%d/flags=%d", s.runs, s.flags), func(b *testing.B) {
			runs := syntheticRuns(s.runs)
			insp := flagInspector{k: s.flags}
			cfg := Config{Runs: runs, Light: insp, Deep: insp, LightSpec: "flags", DeepSpec: "flags",
				Sample: sampler.SelectOptions{Seed: 1}, Runner: runner.Options{Jobs: 2}, Bins: 10, GeneratedBy: "bench"}
			for b.Loop() {
				rep, err := Run(context.Background(), cfg)
				if err != nil {
					b.Fatal(err)
				}
				if len(rep.Comparisons) != s.runs {
					b.Fatalf("%d comparisons, want %d", len(rep.Comparisons), s.runs)
				}
				if err := reportenc.WriteYAML(io.Discard, rep); err != nil {
					b.Fatal(err)
				}
			}
			perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(perOp/float64(s.runs)/1e3, "µs/run")
			b.ReportMetric(perOp/float64(s.runs*s.flags*2)/1e3, "µs/flag")
		})
	}
}
