package main

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/evalcal/evalcal/programs/builtin"
	execinspector "github.com/evalcal/evalcal/programs/exec"
	"github.com/evalcal/evalcal/programs/importers"
	"github.com/evalcal/evalcal/programs/saved"
	"github.com/evalcal/evalcal/runner"
	"github.com/evalcal/evalcal/sampler"
)

// specKinds are the inspector specs --light, --deep and --inspector take.
const specKinds = "builtin, exec:COMMAND, saved:FILE, openai:MODEL, anthropic:MODEL, inspect:LOG[#SCORER][?OPTIONS], promptfoo:FILE[#ASSERTION][?OPTIONS] or panel:SPEC,SPEC[,...][?agg=majority|median]"

// checkSpec checks the form of an inspector spec before any work.
func checkSpec(flag, spec string) error {
	kind, rest, _ := strings.Cut(spec, ":")
	switch {
	case spec == "builtin":
		return nil
	case (kind == "inspect" || kind == "promptfoo") && rest != "":
		// The mapping options (#SCORER?OPTIONS) are checked before any work.
		_, sel := importers.SplitSpec(rest)
		if _, _, err := importers.ParseSelector(kind, sel); err != nil {
			return usageErrorf("run: --%s: %w", flag, err)
		}
		return nil
	case (kind == "exec" || kind == "saved" || kind == "openai" || kind == "anthropic") && rest != "":
		return nil
	case kind == "panel":
		return checkPanelSpec(flag, rest)
	}
	return usageErrorf("run: --%s must be %s, got %q", flag, specKinds, spec)
}

// bringsRuns reports whether spec names results that bring their own runs
// (saved inspections, imported inspect_ai or promptfoo results), so that no
// run PATH is needed.
func bringsRuns(spec string) bool { return specFile(spec) != "" }

// specFile is the file a saved or imported spec reads, or "".
func specFile(spec string) string {
	kind, rest, _ := strings.Cut(spec, ":")
	switch kind {
	case "saved":
		return rest
	case "inspect", "promptfoo":
		path, _ := importers.SplitSpec(rest)
		return path
	}
	return ""
}

// sides are the two inspectors a run calibrates, with the runs a saved
// source brings when no PATH is given.
type sides struct {
	light, deep runner.Inspector
	runs        []sampler.Run
	// llm is true when a side is an LLM judge (retries default higher).
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

// openSides builds the light and deep inspectors from their specs. One spec
// on both sides is one inspector (one saved file is read once, one exec
// command parsed once). A saved file on one side only is keyed in the cache
// by its content, since its runs come from discovery.
func openSides(ctx context.Context, o *runOptions) (sides, error) {
	var s sides
	opened := map[string]runner.Inspector{}
	var savedRuns [][]sampler.Run
	var open func(flag, spec string) (runner.Inspector, error) // a panel opens its members with it
	open = func(flag, spec string) (runner.Inspector, error) {
		if in, ok := opened[spec]; ok {
			return in, nil
		}
		kind, rest, _ := strings.Cut(spec, ":")
		var in runner.Inspector
		switch kind {
		case "builtin":
			in = builtin.New()
		case "exec":
			e, err := execinspector.New(rest)
			if err != nil {
				return nil, usageErrorf("run: --%s: %v", flag, err)
			}
			in = e
		case "saved":
			if err := checkRegular(rest); err != nil {
				return nil, inputError(fmt.Errorf("run: --%s: %w", flag, err))
			}
			sv, runs, err := loadSaved(ctx, rest, o.shardIndex, o.shardCount)
			if err != nil {
				return nil, inputError(fmt.Errorf("run: --%s: %w", flag, err))
			}
			savedRuns = append(savedRuns, runs)
			in = sv
		case "inspect", "promptfoo":
			path, sel := importers.SplitSpec(rest)
			sel, mapping, err := importers.ParseSelector(kind, sel)
			if err != nil {
				return nil, usageErrorf("run: --%s: %w", flag, err)
			}
			if err := checkRegular(path); err != nil {
				return nil, inputError(fmt.Errorf("run: --%s: %w", flag, err))
			}
			load := importers.LoadInspectWith
			if kind == "promptfoo" {
				load = importers.LoadPromptfooWith
			}
			src, runs, err := load(ctx, path, sel, mapping)
			if err != nil {
				if errors.Is(err, importers.ErrChooseScorer) || errors.Is(err, importers.ErrUnknownSelector) {
					return nil, usageErrorf("run: --%s: %v", flag, err)
				}
				return nil, inputError(fmt.Errorf("run: --%s: %w", flag, err))
			}
			savedRuns = append(savedRuns, runs)
			s.imported = true
			in = src
		case "panel":
			p, err := openPanel(rest, func(member string) (runner.Inspector, error) { return open(flag, member) })
			if err != nil {
				return nil, err
			}
			in = p
		case "openai", "anthropic":
			j, err := openJudge(kind, rest, flag, o)
			if err != nil {
				return nil, err
			}
			s.llm = true
			in = j
		default:
			return nil, checkSpec(flag, spec)
		}
		opened[spec] = in
		if c, ok := in.(io.Closer); ok {
			s.closers = append(s.closers, c)
		}
		return in, nil
	}
	var err error
	if s.light, err = open("light", o.Light); err != nil {
		return s, err
	}
	if s.deep, err = open("deep", o.Deep); err != nil {
		return s, err
	}
	switch {
	case o.Light != o.Deep:
		s.light, s.deep = ownIdentity(s.light), ownIdentity(s.deep)
	case strings.HasPrefix(o.Deep, "saved:"):
		// One file on both sides (--inspections): a missing deep line is a
		// failure, not a run left out of a deep subset.
		sv := s.deep.(*saved.Inspector)
		s.light, s.deep = savedBoth{sv}, savedBoth{sv}
	}
	if len(o.Paths) == 0 {
		s.runs = unionRuns(savedRuns)
	}
	return s, nil
}

// savedSide is a saved file used on one side only: its identity names the
// file's content, so the cache never serves labels from an older file.
type savedSide struct {
	*saved.Inspector
}

func (s savedSide) Identity() string { return "saved:" + s.Fingerprint()[:16] }

// savedBoth is one saved file on both sides: it hides the file's coverage,
// so a run with no deep line is a failed inspection as it always was.
type savedBoth struct {
	sv *saved.Inspector
}

func (s savedBoth) Identity() string { return s.sv.Identity() }
func (s savedBoth) Inspect(ctx context.Context, run sampler.Run, depth runner.Depth) (runner.Inspection, error) {
	return s.sv.Inspect(ctx, run, depth)
}
func (s savedBoth) Unattributed() []string { return s.sv.Unattributed() }

// ownIdentity gives a saved inspector used on one side its own identity.
func ownIdentity(in runner.Inspector) runner.Inspector {
	if sv, ok := in.(*saved.Inspector); ok {
		return savedSide{sv}
	}
	return in
}

// unionRuns joins the runs of the saved files given (light and deep may be
// two files): one run per id, its content hash over both files' lines.
func unionRuns(lists [][]sampler.Run) []sampler.Run {
	if len(lists) == 1 {
		return lists[0]
	}
	byID := map[string]sampler.Run{}
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
			byID[r.ID] = prev
		}
	}
	out := make([]sampler.Run, 0, len(ids))
	for _, id := range ids {
		out = append(out, byID[id])
	}
	sortRuns(out)
	return out
}

func sortRuns(rs []sampler.Run) {
	slices.SortFunc(rs, func(a, b sampler.Run) int { return cmp.Compare(a.ID, b.ID) })
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
		return nil, fmt.Errorf("%s: %w", path, err)
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
func (p prices) priceOf(in runner.Inspector) *runner.Price {
	b, ok := in.(runner.Billed)
	if !ok {
		return nil
	}
	if pr, ok := p[b.Model()]; ok {
		return &pr
	}
	return nil
}
