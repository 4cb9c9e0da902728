package main

import (
	"context"
	"fmt"
	"io"
	"reflect"
	"sort"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/runner"
)

// cmdMerge combines the reports of all shards of one calibration into the
// report one unsharded run would have written: it takes the union of the
// per-run comparisons and failures and recomputes every statistic from
// them (no statistic is averaged across shards).
func cmdMerge(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("merge", stderr)
	out := fs.String("o", "", "write the merged report to `file` (atomically) instead of stdout")
	format := fs.String("format", "yaml", "report format: yaml, json, markdown or html")
	var requires stringList
	fs.Var(&requires, "require", "gate `EXPR` on the merged report (repeatable); an unmet gate exits 3")
	baselinePath := fs.String("baseline", "", "previous report `FILE` to compare the merged report with")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: evalcal merge [flags] SHARD_REPORT...   (every shard i/n of one run --shard job)")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if !validReportFormat(*format) {
		return usageErrorf("merge: -format must be yaml, json, markdown or html, got %q", *format)
	}
	gs, err := parseGates(requires, report.Report{}, *baselinePath != "")
	if err != nil {
		return err
	}
	var baseline *report.Report
	if *baselinePath != "" {
		if baseline, err = report.ReadReport(*baselinePath); err != nil {
			return inputError(fmt.Errorf("merge: -baseline: %w", err))
		}
	}
	if fs.NArg() == 0 {
		return usageErrorf("merge: no shard report given")
	}
	shards := make([]*report.Report, fs.NArg())
	for i, path := range fs.Args() {
		r, err := report.ReadReport(path)
		if err != nil {
			return inputError(fmt.Errorf("merge: %w", err))
		}
		shards[i] = r
	}
	merged, err := mergeShards(shards, fs.Args())
	if err != nil {
		return inputError(err)
	}
	fmt.Fprintf(stderr, "evalcal: merged %d shards\n", len(shards))
	return finishReport(merged, baseline, gs, *format, *out, stdout, stderr, func() error { return nil })
}

// mergeShards checks that the reports are the shards 1..n of one job
// (same inputs, each shard once) and recombines them.
func mergeShards(shards []*report.Report, names []string) (*report.Report, error) {
	first := shards[0]
	_, n, err := parseShard(first.Inputs.Shard)
	if err != nil {
		return nil, fmt.Errorf("merge: %s is not a shard report (inputs.shard %q)", names[0], first.Inputs.Shard)
	}
	seen := make([]string, n+1)
	var cs []comparator.Comparison
	var failures []runner.Failure
	runOf := map[string]string{}
	for k, r := range shards {
		i, m, err := parseShard(r.Inputs.Shard)
		switch {
		case err != nil:
			return nil, fmt.Errorf("merge: %s is not a shard report (inputs.shard %q)", names[k], r.Inputs.Shard)
		case m != n:
			return nil, fmt.Errorf("merge: %s is shard %s but %s is of %d shards", names[k], r.Inputs.Shard, names[0], n)
		case seen[i] != "":
			return nil, fmt.Errorf("merge: shard %d/%d given twice (%s and %s)", i, n, seen[i], names[k])
		}
		seen[i] = names[k]
		if d := sameJob(first, r); d != "" {
			return nil, fmt.Errorf("merge: %s and %s are not shards of one job: %s differs", names[0], names[k], d)
		}
		for _, c := range r.Comparisons {
			if prev, dup := runOf[c.RunID]; dup {
				return nil, fmt.Errorf("merge: run %s is in both %s and %s", c.RunID, prev, names[k])
			}
			runOf[c.RunID] = names[k]
			cs = append(cs, c)
		}
		failures = append(failures, r.Failures...)
	}
	for i := 1; i <= n; i++ {
		if seen[i] == "" {
			return nil, fmt.Errorf("merge: shard %d/%d is missing", i, n)
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].RunID < cs[j].RunID })
	sort.SliceStable(failures, func(i, j int) bool {
		if failures[i].RunID != failures[j].RunID {
			return failures[i].RunID < failures[j].RunID
		}
		return failures[i].Depth == runner.Light && failures[j].Depth != runner.Light
	})
	merged := *first
	merged.Inputs.Shard = ""
	fillResults(&merged, cs, failures, first.Inputs.Bins)
	return &merged, nil
}

// sameJob names the first input that differs between two shard reports,
// or returns "".
func sameJob(a, b *report.Report) string {
	ai, bi := a.Inputs, b.Inputs
	ai.Shard, bi.Shard = "", ""
	switch {
	case a.SchemaVersion != b.SchemaVersion:
		return "schema_version"
	case a.GeneratedBy != b.GeneratedBy:
		return "generated_by"
	case !reflect.DeepEqual(ai, bi):
		return "inputs"
	case !reflect.DeepEqual(a.Sample, b.Sample):
		return "sample"
	}
	return ""
}
