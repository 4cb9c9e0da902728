package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/inspection"

	"github.com/spf13/cobra"

	"github.com/evalcal/evalcal/drift"
	"github.com/evalcal/evalcal/sampler"
)

// driftJudgeFlags are the judge flags drift takes: all but the cache's,
// since a drift check must ask the judge again (a cached answer would hide
// a model updated behind the same name).
var driftJudgeFlags = func() []string {
	var out []string
	for _, f := range judgeFlags {
		if f != "cache" && f != "no-cache" {
			out = append(out, f)
		}
	}
	return out
}()

// driftOptions are evalcal drift's flags and arguments.
type driftOptions struct {
	run        runOptions
	AnchorFile string
	Alpha      float64
	MaxDrop    float64 // points
	History    string
	Output     outputOptions

	anchors   *drift.Anchors
	deepGiven bool
}

// newCmdDrift builds `evalcal drift`. runF, when not nil, replaces the
// command's body.
func newCmdDrift(f *factory, runF func(context.Context, *driftOptions) error) *cobra.Command {
	o := &driftOptions{run: runOptions{io: f.io}}
	c := &cobra.Command{
		Use:   "drift [flags] ANCHORS [PATH...]",
		Short: "inspect frozen anchor runs again and say whether a judge changed",
		Long: `Inspect exactly the runs of an anchor file (evalcal anchor freeze) again with the
light judge given now (and the deep one, with --deep), never from the cache, and
compare each side run by run with what was frozen: the runs whose verdict crossed
the pass line, their rate with a Wilson interval and McNemar's exact test of one
direction against the other, Cohen's kappa then against now, the mean shift of each
score with a paired t interval, and light's change in agreement with deep's frozen
labels with Newcombe's paired interval. Drift is detected (exit 3) when the flips are
significant at --alpha or the agreement fell by more than --max-drop points (the
interval's upper bound below -max-drop). Each side inspected is tested at alpha over
the number of sides.

The runs are found in the PATHs given, else where they were frozen from; saved or
imported results bring their runs. An anchor run that is missing or whose content
changed since the freeze stops the check (exit 2, naming the runs). A judge whose
identity changed since the freeze is named with what changed.

--history DIR reads the earlier drift documents of the same anchors and judges in
DIR (file-name order: name them by date) and gives the anytime-valid answer over
every night: night k is held to alpha/(k(k+1)), so checking every night for a year
keeps the chance of any false alarm at alpha.`,
		Example: `  evalcal drift anchors.yaml -o drift.yaml
  evalcal drift anchors.yaml --light saved:judge-july.jsonl
  evalcal drift anchors.yaml --light openai:gpt-4o-mini --history drift/ -o drift/$(date +%F).yaml`,
		Args: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorHint("Run 'evalcal drift --help' for usage.", "drift: no ANCHORS file given")
			}
			return nil
		},
		RunE: func(c *cobra.Command, args []string) error {
			o.AnchorFile, o.run.Paths, o.run.args = args[0], args[1:], f.args
			o.Output.formatGiven = c.Flags().Changed("format")
			o.run.retriesGiven = c.Flags().Changed("retries")
			o.run.LLM.seedGiven = c.Flags().Changed("judge-seed")
			o.deepGiven = c.Flags().Changed("deep")
			if err := o.validate(); err != nil {
				return err
			}
			if runF != nil {
				return runF(c.Context(), o)
			}
			return driftRun(c.Context(), o)
		},
	}
	c.Annotations = map[string]string{usageAnnotation: "evalcal drift [flags] ANCHORS [PATH...]"}
	fs := c.Flags()
	addJudgeFlags(fs, &o.run, driftJudgeFlags)
	fs.Lookup("deep").Usage = "`SPEC` of the deep inspector to inspect the anchors again with (default: none; deep's frozen labels are used)"
	fs.Float64Var(&o.Alpha, "alpha", 0.05, "significance level `A` of the flip test, in (0, 1); intervals are at 1 - A")
	fs.Float64Var(&o.MaxDrop, "max-drop", 5, "largest fall of light's agreement with deep, in `POINTS` (0..100), that is not drift")
	fs.StringVar(&o.History, "history", "", "`DIR` of the earlier nights' drift documents: adds the anytime-valid answer over every night")
	o.Output.addFlags(fs, "drift document", "yaml", anchorFormats)
	return c
}

// validate checks the flags, reads the anchor file and checks the run
// flags as evalcal run does, before any work.
func (o *driftOptions) validate() error {
	switch {
	case !(o.Alpha > 0 && o.Alpha < 1):
		return usageErrorf("drift: --alpha must be in (0, 1), got %v", o.Alpha)
	case !(o.MaxDrop >= 0 && o.MaxDrop < 100):
		return usageErrorf("drift: --max-drop must be in [0, 100) points, got %v", o.MaxDrop)
	}
	if o.History != "" {
		if fi, err := os.Stat(o.History); err != nil || !fi.IsDir() {
			return usageErrorf("drift: --history %s: not a directory", o.History)
		}
	}
	data, err := readRegularFile(o.AnchorFile)
	if err != nil {
		return inputError(fmt.Errorf("drift: %w", err))
	}
	if o.anchors, err = drift.ParseAnchors(data, o.AnchorFile); err != nil {
		return inputError(err)
	}
	r := &o.run
	if !o.deepGiven {
		// Deep is inspected again only when asked: the light judge is what
		// a nightly check watches, and deep's labels are frozen.
		light := r.Light
		if light == "" {
			light = r.Inspector
			if r.Inspections != "" {
				light = "saved:" + r.Inspections
			}
		}
		r.Deep = light
	}
	if len(r.Paths) == 0 && !bringsRuns(r.Light) && !bringsRuns(r.Inspector) && r.Inspections == "" {
		if len(o.anchors.Paths) == 0 {
			return usageErrorf("drift: the anchors came from saved or imported results: give --light saved:FILE (or an importer) with tonight's results, or run PATHs")
		}
		r.Paths = o.anchors.Paths
	}
	if o.deepGiven && !o.anchors.HasDeep() {
		return usageErrorf("drift: --deep: the anchors in %s hold no deep labels to compare deep with", o.AnchorFile)
	}
	if err := r.validate(); err != nil {
		return asCommand(err, "drift")
	}
	if err := o.Output.resolve("drift", anchorFormats...); err != nil {
		return err
	}
	inputs := []string{o.AnchorFile, r.PriceFile, r.LLM.LightPrompt, r.LLM.DeepPrompt}
	for _, spec := range []string{r.Light, r.Deep} {
		if path := specFile(spec); path != "" {
			inputs = append(inputs, path)
		}
	}
	return o.Output.check("drift", r.io.Out, inputs...)
}

// readRegularFile reads a regular file whole.
func readRegularFile(path string) ([]byte, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	return os.ReadFile(path)
}

// driftRun is evalcal drift's body, after validate.
func driftRun(ctx context.Context, o *driftOptions) error {
	r, a := &o.run, o.anchors
	stderr := r.io.ErrOut
	s, err := openSides(ctx, r)
	if err != nil {
		return err
	}
	defer s.Close()
	if sv, ok := inspection.As[fingerprinted](s.light); ok && !o.deepGiven {
		// One saved file on the light side only: its identity names its
		// content, as at the freeze.
		s.light = inspection.Wrap(sv, inspection.Override{Identity: "saved:" + sv.Fingerprint()[:16]})
	}
	found := s.runs
	fromSource := len(r.Paths) == 0
	if !fromSource {
		d, err := sampler.DiscoverContext(ctx, r.Paths, sampler.DiscoverOptions{})
		if err != nil {
			return inputError(fmt.Errorf("drift: %w", err))
		}
		found = d.Runs
	}
	runs, notes, err := matchAnchors(a, found, fromSource)
	if err != nil {
		return inputError(err)
	}
	opts, err := r.runnerOptions(s)
	if err != nil {
		return err
	}
	opts.DeepRuns = map[string]bool{}
	if o.deepGiven {
		for _, ar := range a.Runs {
			if ar.Deep != nil {
				opts.DeepRuns[ar.ID] = true
			}
		}
	}
	res, err := inspectAnchors(ctx, runs, s, opts, stderr)
	if err != nil {
		return err
	}
	in := drift.Input{Anchors: a, AnchorFile: filepath.ToSlash(o.AnchorFile), LightNow: map[string]drift.Observation{},
		LightJudge: judgeOf(r.Light, s.light, inspection.Light), GeneratedBy: "evalcal " + version,
		Options: drift.Options{Alpha: o.Alpha, MaxDrop: o.MaxDrop / 100}}
	if o.deepGiven {
		in.DeepNow = map[string]drift.Observation{}
		dj := judgeOf(r.Deep, s.deep, inspection.Deep)
		in.DeepJudge = &dj
	}
	for _, p := range res.Pairs {
		in.LightNow[p.Run.ID] = observation(p.Light)
		if in.DeepNow != nil {
			in.DeepNow[p.Run.ID] = observation(p.Deep)
		}
	}
	for _, l := range res.LightOnly {
		in.LightNow[l.Run.ID] = observation(l.Light)
	}
	for _, f := range res.Failures {
		in.Missing = append(in.Missing, fmt.Sprintf("%s %s: %s", f.RunID, f.Depth, f.Reason))
	}
	if len(in.LightNow) == 0 {
		return fmt.Errorf("drift: no anchor run got a light inspection (%d failures)", len(res.Failures))
	}
	doc, err := buildDrift(in, o, stderr)
	if err != nil {
		return err
	}
	doc.Warnings = append(doc.Warnings, notes...)
	data, err := encodeDriftAs(doc, o.Output.Format)
	if err != nil {
		return err
	}
	if err := o.Output.write(r.io.Out, data); err != nil {
		return err
	}
	for _, w := range doc.Warnings {
		fmt.Fprintf(stderr, "evalcal: note: %s\n", w)
	}
	judgeNote(stderr, "light", doc.Judges.Light.Changed)
	if doc.Judges.Deep != nil {
		judgeNote(stderr, "deep", doc.Judges.Deep.Changed)
	}
	if o.Output.toFile() {
		fmt.Fprintf(stderr, "evalcal: drift document written to %s\n", o.Output.Path)
	}
	fmt.Fprintf(stderr, "evalcal: %s\n", doc.Sentence)
	if doc.Detected {
		return gateError(errors.New("drift: drift detected"))
	}
	return nil
}

// judgeNote says on stderr what changed in a side's judge since the
// freeze, so that drift is never silently compared across judges.
func judgeNote(w io.Writer, side string, changed []string) {
	if len(changed) > 0 {
		fmt.Fprintf(w, "evalcal: note: the %s judge changed since the freeze: %s\n", side, strings.Join(changed, "; "))
	}
}

// buildDrift builds tonight's document, with the history when asked for:
// the earlier documents of the same series in DIR, by file name.
func buildDrift(in drift.Input, o *driftOptions, stderr io.Writer) (*drift.Document, error) {
	doc, err := drift.Build(in)
	if err != nil {
		return nil, inputError(err)
	}
	if o.History == "" {
		return doc, nil
	}
	h, warnings, err := readHistory(o.History, doc, o.Output.Path)
	if err != nil {
		return nil, inputError(err)
	}
	in.History = h
	if doc, err = drift.Build(in); err != nil {
		return nil, inputError(err)
	}
	doc.Warnings = append(doc.Warnings, warnings...)
	if len(h.Earlier) > 0 || h.Skipped > 0 {
		fmt.Fprintf(stderr, "evalcal: history: %d earlier nights of these anchors and judges in %s, %d documents of others skipped\n", len(h.Earlier), o.History, h.Skipped)
	}
	return doc, nil
}

// readHistory reads the drift documents in dir (not below it), in file
// name order, and keeps those of tonight's series; the output file, when
// it is in dir, is left out (it is tonight's). A file that is not a drift
// document is ignored; a drift document that cannot be read is a warning.
func readHistory(dir string, tonight *drift.Document, output string) (*drift.HistoryInput, []string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, fmt.Errorf("drift: --history: %w", err)
	}
	var outInfo os.FileInfo
	if output != "" && output != "-" {
		outInfo, _ = os.Stat(output)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
			if e.Type().IsRegular() {
				names = append(names, e.Name())
			}
		}
	}
	sort.Strings(names)
	h := &drift.HistoryInput{}
	var warnings []string
	for _, name := range names {
		path := filepath.Join(dir, name)
		if fi, err := os.Stat(path); err == nil && outInfo != nil && os.SameFile(fi, outInfo) {
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil || !drift.IsDocument(data) {
			continue
		}
		d, err := drift.ParseDocument(data, path)
		if err != nil {
			warnings = append(warnings, fmt.Sprintf("history: %v (left out)", err))
			continue
		}
		if !drift.SameSeries(d, tonight) {
			h.Skipped++
			continue
		}
		h.Earlier = append(h.Earlier, d)
		h.Names = append(h.Names, filepath.ToSlash(path))
	}
	return h, warnings, nil
}

// matchAnchors finds every anchor run among the runs found, in anchor
// order. A run found in a directory must have the content hash it was
// frozen with; a run a saved or imported source brings (now or at the
// freeze) is checked by id only, and a note says so. Missing runs and
// changed ones are one error naming them all.
func matchAnchors(a *drift.Anchors, found []inspection.Run, fromSource bool) ([]inspection.Run, []string, error) {
	byID := make(map[string]inspection.Run, len(found))
	for _, r := range found {
		byID[r.ID] = r
	}
	var runs []inspection.Run
	var missing, changed []string
	idsOnly := 0
	for _, ar := range a.Runs {
		r, ok := byID[ar.ID]
		switch {
		case !ok:
			missing = append(missing, ar.ID)
			continue
		case fromSource || ar.FromSource:
			idsOnly++
		case r.ContentHash != ar.ContentHash:
			changed = append(changed, fmt.Sprintf("%s (%s → %s)", ar.ID, shortHash(ar.ContentHash), shortHash(r.ContentHash)))
			continue
		case !r.Valid:
			changed = append(changed, fmt.Sprintf("%s (now invalid: %s)", ar.ID, r.Invalid))
			continue
		}
		runs = append(runs, r)
	}
	var parts []string
	if len(changed) > 0 {
		parts = append(parts, fmt.Sprintf("%d anchor %s changed since the freeze: %s", len(changed), plural("run", len(changed)), strings.Join(changed, ", ")))
	}
	if len(missing) > 0 {
		parts = append(parts, fmt.Sprintf("%d anchor %s missing: %s", len(missing), pluralIs("run", len(missing)), strings.Join(missing, ", ")))
	}
	if len(parts) > 0 {
		return nil, nil, fmt.Errorf("drift: %s; a drift check needs exactly the frozen runs (freeze new anchors with evalcal anchor freeze if the change is intended)", strings.Join(parts, "; "))
	}
	var notes []string
	if idsOnly > 0 {
		notes = append(notes, fmt.Sprintf("%d anchor runs come from saved or imported results: their ids are checked, not their content", idsOnly))
	}
	return runs, notes, nil
}

// pluralIs is "run is" or "runs are".
func pluralIs(noun string, n int) string {
	if n == 1 {
		return noun + " is"
	}
	return noun + "s are"
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// encodeDriftAs encodes the drift document as YAML or JSON, numbers exact.
func encodeDriftAs(d *drift.Document, format string) ([]byte, error) {
	if format == "json" {
		data, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return nil, fmt.Errorf("drift: %w", err)
		}
		return append(data, '\n'), nil
	}
	return drift.EncodeDocument(d)
}
