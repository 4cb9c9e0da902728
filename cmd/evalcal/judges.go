package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/programs/all"
	"github.com/evalcal/evalcal/programs/spec"
	"github.com/evalcal/evalcal/runner"
)

// fingerprinted is a source of saved inspections seen through any wrapper
// (inspection.As): its Fingerprint names the file's content, and it keeps
// the coverage a wrapper for both sides hides.
type fingerprinted interface {
	inspection.Inspector
	Fingerprint() string
}

// specKinds are the inspector specs --light, --deep and --inspector take,
// as the help lists them.
func specKinds() string { return all.Kinds().Usage() }

// checkSpec checks the form of an inspector spec before any work.
func checkSpec(flag, s string) error {
	_, _, err := all.Kinds().Parse(s)
	switch {
	case errors.Is(err, spec.ErrForm):
		return usageErrorf("run: --%s must be %s, got %q", flag, specKinds(), s)
	case err != nil:
		return usageErrorf("run: --%s: %w", flag, err)
	}
	return nil
}

// bringsRuns reports whether spec names results that bring their own runs
// (saved inspections, imported inspect_ai or promptfoo results), so that no
// run PATH is needed.
func bringsRuns(s string) bool { return specFile(s) != "" }

// specFile is the file a saved or imported spec reads, or "".
func specFile(s string) string { return all.Kinds().File(s) }

// sides are the two inspectors a run calibrates, with the runs a saved
// source brings when no PATH is given.
type sides struct {
	light, deep inspection.Inspector
	runs        []inspection.Run
	// llm is true when a side is billed per token (an LLM judge): retries
	// default higher.
	llm bool
	// imported is true when a side imports another tool's results: its runs
	// are one task's samples, so a one-system sample is expected.
	imported bool
	// closers release what the inspectors hold (an exec inspector's
	// reaper); Close calls them.
	closers []io.Closer
}

// Close releases the inspectors' resources.
func (s sides) Close() {
	for _, c := range s.closers {
		_ = c.Close()
	}
}

// openSides builds the light and deep inspectors from their specs through
// the registry of spec kinds (programs/all). One spec on both sides is one
// inspector (one saved file is read once, one exec command parsed once),
// opened knowing it is used on both (spec.Env.Both).
func openSides(ctx context.Context, o *runOptions) (sides, error) {
	var s sides
	kinds := all.Kinds()
	opened := map[string]inspection.Inspector{}
	var savedRuns [][]inspection.Run
	member := shardMember(o.shardIndex, o.shardCount)
	var open func(flag, text string) (inspection.Inspector, error) // a panel opens its members with it
	open = func(flag, text string) (inspection.Inspector, error) {
		if in, ok := opened[text]; ok {
			return in, nil
		}
		kind, arg, err := kinds.Parse(text)
		if err != nil {
			return nil, checkSpec(flag, text)
		}
		if kind.File != nil && !(kind.Dir && isDir(kind.File(arg))) {
			if err := checkRegular(kind.File(arg)); err != nil {
				return nil, inputError(fmt.Errorf("run: --%s: %w", flag, err))
			}
		}
		env := spec.Env{Both: o.Light == o.Deep, Judge: o.LLM.judge(flag), Member: member, MemberOnly: o.ownRuns,
			Open: func(m string) (inspection.Inspector, error) { return open(flag, m) }}
		got, err := kind.Open(ctx, arg, env)
		if err != nil {
			var fe *spec.FlagError
			if errors.As(err, &fe) {
				return nil, inputError(fmt.Errorf("run: %w", err))
			}
			return nil, inputError(fmt.Errorf("run: --%s: %w", flag, err))
		}
		if kind.File != nil {
			savedRuns = append(savedRuns, got.Runs)
		}
		s.imported = s.imported || got.Imported
		if _, ok := inspection.As[inspection.Billed](got.Inspector); ok {
			s.llm = true
		}
		if c, ok := inspection.As[io.Closer](got.Inspector); ok {
			s.closers = append(s.closers, c)
		}
		opened[text] = got.Inspector
		return got.Inspector, nil
	}
	var err error
	if s.light, err = open("light", o.Light); err != nil {
		return s, err
	}
	if s.deep, err = open("deep", o.Deep); err != nil {
		return s, err
	}
	if len(o.Paths) == 0 {
		s.runs = unionRuns(savedRuns)
	}
	return s, nil
}

// unionRuns joins the runs of the saved files given (light and deep may be
// two files): one run per id, its content hash over both files' lines.
func unionRuns(lists [][]inspection.Run) []inspection.Run {
	if len(lists) == 1 {
		return lists[0]
	}
	if out, ok := unionOfOne(lists); ok {
		return out
	}
	byID := map[string]inspection.Run{}
	var ids []string
	for _, list := range lists {
		for _, r := range list {
			prev, ok := byID[r.ID]
			if !ok {
				byID[r.ID] = r
				ids = append(ids, r.ID)
				continue
			}
			sum := sha256.Sum256([]byte(prev.ContentHash + "\x00" + r.ContentHash))
			prev.ContentHash = hex.EncodeToString(sum[:])
			prev.SizeBytes += r.SizeBytes
			if prev.System == "" {
				prev.System = r.System
			}
			var conflicts []string
			if !maps.Equal(prev.Metadata, r.Metadata) { // equal: one file on both sides
				prev.Metadata, conflicts = inspection.MergeMetadata(maps.Clone(prev.Metadata), r.Metadata)
			}
			for _, c := range conflicts {
				prev.Warnings = append(slices.Clone(prev.Warnings), "metadata."+c+": the light file's value is kept")
			}
			byID[r.ID] = prev
		}
	}
	out := make([]inspection.Run, 0, len(ids))
	for _, id := range ids {
		out = append(out, byID[id])
	}
	sortRuns(out)
	return out
}

// unionOfOne is unionRuns of two lists that are one slice of runs sorted
// by unique id (an importer's file on both sides, programs/importers):
// each run joined with itself, as the map of unionRuns would join it,
// without a map of every run. ok is false for other lists.
func unionOfOne(lists [][]inspection.Run) (out []inspection.Run, ok bool) {
	if len(lists) != 2 {
		return nil, false
	}
	a, b := lists[0], lists[1]
	if len(a) == 0 || len(a) != len(b) || &a[0] != &b[0] {
		return nil, false
	}
	for i := 1; i < len(a); i++ {
		if a[i-1].ID >= a[i].ID {
			return nil, false
		}
	}
	out = make([]inspection.Run, len(a))
	for i, r := range a {
		sum := sha256.Sum256([]byte(r.ContentHash + "\x00" + r.ContentHash))
		r.ContentHash = hex.EncodeToString(sum[:])
		r.SizeBytes += r.SizeBytes
		out[i] = r
	}
	return out, true
}

func sortRuns(rs []inspection.Run) {
	slices.SortFunc(rs, func(a, b inspection.Run) int { return cmp.Compare(a.ID, b.ID) })
}

// prices maps a model name to its price.
type prices map[string]runner.Price

// parsePrice reads MODEL=IN/OUT[/CACHED], USD per million tokens.
func parsePrice(s string) (string, runner.Price, error) {
	model, rest, ok := strings.Cut(s, "=")
	parts := strings.Split(rest, "/")
	if !ok || model == "" || len(parts) < 2 || len(parts) > 3 {
		return "", runner.Price{}, fmt.Errorf("want MODEL=IN/OUT or MODEL=IN/OUT/CACHED_IN (USD per million tokens), got %q", s)
	}
	var v [3]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil || x < 0 || x != x || x > 1e6 {
			return "", runner.Price{}, fmt.Errorf("%q: %q is not a price in [0, 1e6] USD per million tokens", s, p)
		}
		v[i] = x
	}
	p := runner.Price{Input: v[0], Output: v[1]}
	if len(parts) == 3 {
		c := v[2]
		p.CachedInput = &c
	}
	return model, p, nil
}

// readPriceFile reads a YAML price file: a map of model name to
// {input, output, cached_input} in USD per million tokens.
func readPriceFile(path string) (prices, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	data = trimBOM(data)
	var raw map[string]runner.Price
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("%s: %w", path, yamlError(err))
	}
	out := prices{}
	for model, p := range raw {
		if p.Input < 0 || p.Output < 0 || (p.CachedInput != nil && *p.CachedInput < 0) {
			return nil, fmt.Errorf("%s: %s: negative price", path, model)
		}
		out[model] = p
	}
	return out, nil
}

// trimBOM drops a UTF-8 byte-order mark at the start of data.
func trimBOM(data []byte) []byte {
	return []byte(strings.TrimPrefix(string(data), "\ufeff"))
}

// priceOf returns the price of a side's model, nil for an inspector that
// is not billed or a model with no price.
func (p prices) priceOf(in inspection.Inspector) *runner.Price {
	b, ok := inspection.As[inspection.Billed](in)
	if !ok {
		return nil
	}
	if pr, ok := p[b.Model()]; ok {
		return &pr
	}
	return nil
}
