package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/internal/reportenc"
	"github.com/evalcal/evalcal/report"
)

// Values of --runs-out besides a file.
const (
	runsOutAuto = "auto"
	runsOutNone = "none"
)

// addRunsFlag defines --runs-out (run and merge): where the report's
// per-run listings go.
func (o *outputOptions) addRunsFlag(fs *pflag.FlagSet) {
	fs.StringVar(&o.RunsOut, "runs-out", runsOutAuto, fmt.Sprintf("write the per-run listings to the JSON Lines `FILE` and keep the report O(1) in the runs; "+
		"auto: REPORT.runs.jsonl next to a yaml or json -o REPORT of a sample of more than %d runs (a shard's too); none: in the report", report.RunsFileThreshold))
}

// checkWithRuns is checkRuns, then check (run and merge).
func (o *outputOptions) checkWithRuns(cmd string, stdout io.Writer, inputs ...string) error {
	if err := o.checkRuns(cmd, inputs...); err != nil {
		return err
	}
	return o.check(cmd, stdout, inputs...)
}

// checkRuns validates --runs-out after resolve: a runs file goes with a
// YAML or JSON report (a Markdown or HTML page renders from the whole
// report), and is neither the report nor one of inputs.
func (o *outputOptions) checkRuns(cmd string, inputs ...string) error {
	switch o.RunsOut {
	case "", runsOutAuto, runsOutNone:
		return nil
	}
	if o.RunsOut == "-" {
		return usageErrorf("%s: --runs-out needs a file (stdout holds the report)", cmd)
	}
	if f := canonicalFormat(o.Format); f != "yaml" && f != "json" {
		return usageErrorf("%s: --runs-out goes with a yaml or json report, not %s", cmd, f)
	}
	for _, in := range append([]string{o.Path}, inputs...) {
		if in != "" && in != "-" && filepath.Clean(in) == filepath.Clean(o.RunsOut) {
			return usageErrorf("%s: --runs-out %s is also the report or an input; name another file", cmd, o.RunsOut)
		}
	}
	return (&outputOptions{Path: o.RunsOut}).check(cmd, nil)
}

// runsPath is the runs file for rep, or "" to keep the listings in the
// report: --runs-out FILE; with auto, the -o file's name with
// ".runs.jsonl" for its extension when the report is YAML or JSON, goes
// to a file and its sample has more than report.RunsFileThreshold runs
// (the whole sample's, for a shard: merge then reads the shards' runs
// files, much faster than their YAML; n times its own for a shard that
// read its own runs only).
func (o *outputOptions) runsPath(rep *report.Report) string {
	switch o.RunsOut {
	case "", runsOutNone:
		return ""
	case runsOutAuto:
		f := canonicalFormat(o.Format)
		sampled := max(len(rep.Sample.Runs), rep.Sample.Composition.Sampled)
		if rep.Inputs.ShardScope == report.ShardScopeOwn {
			// The shard knows its own part only: the whole is about n
			// times it (membership is by a hash of the run id).
			if _, n, err := calibrate.ParseShard(rep.Inputs.Shard); err == nil {
				sampled *= n
			}
		}
		if !o.toFile() || (f != "yaml" && f != "json") || sampled <= report.RunsFileThreshold {
			return ""
		}
		return strings.TrimSuffix(o.Path, filepath.Ext(o.Path)) + ".runs.jsonl"
	}
	return o.RunsOut
}

// splitRuns writes rep's per-run listings to the runs file when there is
// one (runsPath) and returns the report to write: rep itself, or its copy
// that names the runs file. The runs file's path is recorded relative to
// the report's directory when it lies there or below (so a report and its
// runs file move together), else as given.
func (o *outputOptions) splitRuns(ctx context.Context, rep *report.Report) (*report.Report, error) {
	path := o.runsPath(rep)
	if path == "" {
		return rep, nil
	}
	recorded := path
	if o.toFile() {
		if rel, err := relativeTo(filepath.Dir(o.Path), path); err == nil {
			recorded = rel
		}
	}
	return reportenc.SplitRuns(ctx, rep, path, recorded)
}

// relativeTo is path relative to dir when it lies in dir or below it.
func relativeTo(dir, path string) (string, error) {
	ad, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	ap, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(ad, ap)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is not under %s", path, dir)
	}
	return filepath.ToSlash(rel), nil
}
