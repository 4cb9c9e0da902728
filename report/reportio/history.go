package reportio

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
)

// History is a series of calibration reports, typically one a night, in
// report order, with the reports that could not be read.
type History struct {
	Nights  []HistoryNight `yaml:"nights" json:"nights"`
	Skipped []HistorySkip  `yaml:"skipped" json:"skipped"`
}

// HistoryNight is what the history view shows of one report: its verdict,
// agreement and linear kappa with their intervals, the deep pass-rate
// estimate when deep ran on a subset, and the gates that failed.
type HistoryNight struct {
	// Label names the night on the x axis and in the table: the report's
	// file name without its extension (reports carry no date).
	Label string `yaml:"label" json:"label"`
	Path  string `yaml:"path" json:"path"`
	Trust string `yaml:"trust" json:"trust"`
	// N is the number of runs compared.
	N int `yaml:"n" json:"n"`
	// Agreement is the agreement rate in percent with its Wilson interval;
	// nil over no run, with AgreementReason.
	Agreement       *float64               `yaml:"agreement" json:"agreement"`
	AgreementCI     *statistician.Interval `yaml:"agreement_ci95" json:"agreement_ci95"`
	AgreementReason string                 `yaml:"agreement_reason,omitempty" json:"agreement_reason,omitempty"`
	// Kappa is the linearly weighted kappa with its interval; nil when it
	// is not defined, with KappaReason.
	Kappa       *float64               `yaml:"kappa_linear" json:"kappa_linear"`
	KappaCI     *statistician.Interval `yaml:"kappa_linear_ci95" json:"kappa_linear_ci95"`
	KappaReason string                 `yaml:"kappa_reason,omitempty" json:"kappa_reason,omitempty"`
	// Estimate is the deep pass rate over all runs (a proportion, with
	// the estimator the report's summary quotes); nil when deep ran on
	// every run or no estimator had a valid interval. EstimateRuns is the
	// number of runs it covers.
	Estimate     *report.BestEstimate `yaml:"estimate" json:"estimate"`
	EstimateRuns int                  `yaml:"estimate_runs" json:"estimate_runs"`
	// Gates counts the gates the report records; GatesFailed lists the
	// expressions of those that failed.
	Gates       int      `yaml:"gates" json:"gates"`
	GatesFailed []string `yaml:"gates_failed" json:"gates_failed"`
	// Judges is "light IDENTITY, deep IDENTITY" and Runs the run paths
	// the report read: a series whose judges or run paths change compares
	// different things, which the view says (issue 28).
	Judges string `yaml:"judges" json:"judges"`
	Runs   string `yaml:"runs" json:"runs"`
}

// HistorySkip is a report of the series that could not be read, and why.
type HistorySkip struct {
	Path   string `yaml:"path" json:"path"`
	Reason string `yaml:"reason" json:"reason"`
}

// ErrNoHistory is returned (wrapped) when no report of a series could be
// read.
var ErrNoHistory = errors.New("no calibration report could be read")

// historyExtensions are the file extensions a directory's reports carry.
var historyExtensions = map[string]bool{".yaml": true, ".yml": true, ".json": true}

// NightOf takes from a report what the history view shows. A report whose
// summary carries no gate records but counts failed gates still counts
// as a night whose gates failed.
func NightOf(label, path string, r *report.Report) HistoryNight {
	n := HistoryNight{Label: label, Path: path, Trust: r.Summary.Trust, N: r.AgreementRate.N, Gates: len(r.Gates), GatesFailed: []string{},
		Judges: "light " + r.Inputs.Light.Identity + ", deep " + r.Inputs.Deep.Identity, Runs: strings.Join(r.Inputs.Paths, " ")}
	if a := r.AgreementRate; a.Percent != nil && a.Wilson95 != nil {
		p, ci := *a.Percent, *a.Wilson95
		n.Agreement, n.AgreementCI = &p, &ci
	} else {
		n.AgreementReason = cmp.Or(a.Reason, "no run has both verdicts")
	}
	if k := r.Kappa.Linear; k.Reason == "" && k.N > 0 {
		v, ci := k.Value, k.CI95
		n.Kappa, n.KappaCI = &v, &ci
	} else {
		n.KappaReason = cmp.Or(k.Reason, "no run has both verdicts")
	}
	if e := r.Estimate; e != nil && e.Best != nil {
		b := *e.Best
		n.Estimate, n.EstimateRuns = &b, e.NLight
	}
	for _, g := range gates.Failed(r.Gates) {
		n.GatesFailed = append(n.GatesFailed, g.Expr)
	}
	if len(n.GatesFailed) == 0 && r.Summary.GatesFailed > 0 {
		n.GatesFailed = append(n.GatesFailed, fmt.Sprintf("%d gates (not recorded)", r.Summary.GatesFailed))
	}
	return n
}

// ReadHistory reads a series of calibration reports: each path is a
// report (YAML or JSON) or a directory, whose *.yaml, *.yml and *.json
// regular files are read in file-name order (name nightly reports by
// date, 2026-03-01.yaml, and that order is the nights'). The series keeps
// the order of paths. Each report is read with ReadReportContext (size
// limit, schema check) and only what the view shows is kept, so memory is
// bounded by the largest report. A report that cannot be read is recorded
// in Skipped with the reason and the rest goes on; an error is returned
// only when ctx ends or no report could be read (ErrNoHistory).
func ReadHistory(ctx context.Context, paths []string) (History, error) {
	h := History{Nights: []HistoryNight{}, Skipped: []HistorySkip{}}
	var files []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			h.Skipped = append(h.Skipped, HistorySkip{Path: p, Reason: err.Error()})
			continue
		}
		if !fi.IsDir() {
			files = append(files, p)
			continue
		}
		entries, err := os.ReadDir(p)
		if err != nil {
			h.Skipped = append(h.Skipped, HistorySkip{Path: p, Reason: err.Error()})
			continue
		}
		// os.ReadDir returns the entries sorted by file name.
		for _, e := range entries {
			if !historyExtensions[strings.ToLower(filepath.Ext(e.Name()))] {
				continue
			}
			full := filepath.Join(p, e.Name())
			if efi, err := os.Stat(full); err != nil || !efi.Mode().IsRegular() {
				reason := "not a regular file"
				if err != nil {
					reason = err.Error()
				}
				h.Skipped = append(h.Skipped, HistorySkip{Path: full, Reason: reason})
				continue
			}
			files = append(files, full)
		}
	}
	labels := historyLabels(files)
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return h, fmt.Errorf("report: read history: %w", err)
		}
		r, err := ReadReportContext(ctx, f)
		if err != nil {
			if ctx.Err() != nil {
				return h, fmt.Errorf("report: read history: %w", ctx.Err())
			}
			h.Skipped = append(h.Skipped, HistorySkip{Path: f, Reason: err.Error()})
			continue
		}
		h.Nights = append(h.Nights, NightOf(labels[i], f, r))
	}
	if len(h.Nights) == 0 {
		return h, fmt.Errorf("report: read history: %w (%d skipped)", ErrNoHistory, len(h.Skipped))
	}
	return h, nil
}

// historyLabels names each file by its base name without the extension,
// or by its whole path where two files share that name.
func historyLabels(files []string) []string {
	out := make([]string, len(files))
	count := map[string]int{}
	for i, f := range files {
		out[i] = strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		count[out[i]]++
	}
	for i, f := range files {
		if count[out[i]] > 1 {
			out[i] = f
		}
	}
	return out
}

// Changes warns, one sentence per kind, when the reports of the series were
// computed by other judges or on other run paths: their figures then differ
// for that reason too, and a change between them says nothing of light
// alone. Nil for a steady series.
func (h History) Changes() []string {
	nights := h.Nights
	var out []string
	for _, c := range []struct {
		what string
		of   func(HistoryNight) string
	}{
		{"judges", func(n HistoryNight) string { return n.Judges }},
		{"run paths", func(n HistoryNight) string { return n.Runs }},
	} {
		var changes []string
		for i := 1; i < len(nights); i++ {
			if a, b := c.of(nights[i-1]), c.of(nights[i]); a != b {
				changes = append(changes, fmt.Sprintf("%s (%s) after %s (%s)", nights[i].Label, b, nights[i-1].Label, a))
			}
		}
		if len(changes) > 0 {
			out = append(out, fmt.Sprintf("Warning: the %s change within the series, so these reports compare different things: %s.",
				c.what, strings.Join(changes, "; ")))
		}
	}
	return out
}

// FailedNights counts the nights whose gates failed.
func (h History) FailedNights() int {
	n := 0
	for _, night := range h.Nights {
		if len(night.GatesFailed) > 0 {
			n++
		}
	}
	return n
}
