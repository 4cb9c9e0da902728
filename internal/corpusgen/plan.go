package corpusgen

// Outcomes a planned run is written with.
const (
	outcomeCompleted  = "completed"
	outcomeFailed     = "failed"
	outcomeIncomplete = "incomplete"
)

// Planted defects. Each is a finding id that a light or a deep inspection
// is expected to report (see expectations).
const (
	DefectMissingBinding = "missing-binding"    // a declared, completed service has no binding
	DefectErrorFile      = "error-file"         // workspace/{svc}/__error.md is present
	DefectEmptyOutput    = "empty-output"       // a published output is 0 bytes
	DefectOrderMismatch  = "order-mismatch"     // log order differs from the manifest's order
	DefectPlaceholder    = "placeholder-output" // TODO / TBD / lorem ipsum / <placeholder> output
	DefectTruncated      = "truncated-output"   // an output stops mid-sentence
	DefectSkippedUnbound = "skipped-unbound"    // an optional node skipped by design has no binding
	DefectRecoveredError = "recovered-error"    // __error.md left by a service that then succeeded on retry
)

// Findings that are not planted defects but follow from the outcome.
const (
	FindingRunFailed     = "run-failed"     // log ends in ---error
	FindingRunIncomplete = "run-incomplete" // log has no terminator
)

// Log and layout features: format variety, not defects.
const (
	featParallel         = "parallel-block"    // ∥start / Na→ / ∥done
	featSkippedOptional  = "skipped-node"      // N→ node ∅ skipped
	featASCIIArrows      = "ascii-arrows"      // -> instead of →
	featAnnotations      = "annotations"       // text after ✓
	featFrontMatter      = "yaml-front-matter" // a leading --- YAML block
	featNarrative        = "narrative"         // prose sections between markers
	featRepeatedEnd      = "repeated-end"      // two ---end lines
	featTZOffset         = "tz-offset"         // timestamps with -03:00
	featNoBlank          = "no-blank-after-header"
	featLoopMarkers      = "loop-markers"        // loop:, #N, commit: markers outside the spec
	featVMAction         = "vm-action"           // [vm-action] markers
	featInputMarkers     = "input-markers"       // [input] markers
	featCutMidLine       = "cut-mid-line"        // the last log line is cut off
	featHeaderOnly       = "header-only"         // the log stops after its header
	featUnicodeArrows    = "unicode-arrows"      // era 2 with → although ASCII is usual there
	featNoTrailingNL     = "no-trailing-newline" // the log's last line has no newline
	featMultipleReceipts = "receipt-chain"       // a node with two receipts (prev chain)
)

// Invalid reasons (the sampler should list these runs as invalid).
const (
	invalidNoBindings = "no bindings or published outputs"
	invalidNoLog      = "no log (state.md missing)"
	invalidNoSource   = "no source or manifest (root.prose.md and forme.manifest.json missing)"
)

// Size classes: the approximate size of one ordinary output.
const (
	sizeTiny   = "tiny"
	sizeSmall  = "small"
	sizeMedium = "medium"
	sizeLarge  = "large"
)

// outputTarget is the target size in bytes of an ordinary output and of a
// bulk output for a size class.
func outputTarget(size string, bulk bool) int {
	switch size {
	case sizeTiny:
		return 120
	case sizeSmall:
		return 500
	case sizeLarge:
		if bulk {
			return 100_000
		}
		return 1500
	default:
		return 1500
	}
}

// spec is one planned run.
type spec struct {
	era      int
	system   string
	size     string
	outcome  string
	defects  []string
	features []string
	invalid  string
	// flavour is the placeholder text for DefectPlaceholder.
	flavour string
}

func (s spec) has(x string) bool {
	for _, d := range s.defects {
		if d == x {
			return true
		}
	}
	for _, f := range s.features {
		if f == x {
			return true
		}
	}
	return false
}

// corpusPlan is the fixed list of runs the corpus is made of; the seed
// varies timestamps, ids and text, never the plan. The mix is chosen so
// that about 55% of the valid runs are clean and a structural light check
// agrees with a deep one on about 80% of them (see MANIFEST.md).
func corpusPlan() []spec {
	c, f, inc := outcomeCompleted, outcomeFailed, outcomeIncomplete
	return []spec{
		// Era 1: program.prose + state.md + bindings/{name}.md.
		{era: 1, system: "bug-triage", size: sizeSmall, outcome: c},
		{era: 1, system: "release-notes", size: sizeLarge, outcome: c, features: []string{featTZOffset, featNoBlank}},
		{era: 1, system: "docs-sync", size: sizeTiny, outcome: c},
		{era: 1, system: "flaky-test-hunt", size: sizeMedium, outcome: c, features: []string{featLoopMarkers}},
		{era: 1, system: "bug-triage", size: sizeMedium, outcome: f},
		{era: 1, system: "docs-sync", size: sizeMedium, outcome: inc},
		{era: 1, system: "release-notes", size: sizeMedium, outcome: c, defects: []string{DefectMissingBinding}},
		{era: 1, system: "flaky-test-hunt", size: sizeSmall, outcome: c, defects: []string{DefectPlaceholder}, flavour: "TODO"},
		{era: 1, system: "bug-triage", size: sizeSmall, outcome: c, features: []string{featRepeatedEnd}},
		{era: 1, system: "docs-sync", size: sizeSmall, outcome: c, defects: []string{DefectSkippedUnbound}, features: []string{featSkippedOptional}},
		{era: 1, system: "release-notes", size: sizeSmall, outcome: c, invalid: invalidNoBindings},
		// Era 2: program.md + manifest.md + state.md + services/ + workspace/ + bindings/{svc}/.
		{era: 2, system: "bug-triage", size: sizeMedium, outcome: c, features: []string{featASCIIArrows, featAnnotations, featVMAction, featInputMarkers}},
		{era: 2, system: "dependency-audit", size: sizeMedium, outcome: c, features: []string{featASCIIArrows}},
		{era: 2, system: "dependency-audit", size: sizeLarge, outcome: c, features: []string{featASCIIArrows, featAnnotations}},
		{era: 2, system: "docs-sync", size: sizeSmall, outcome: c, features: []string{featUnicodeArrows}},
		{era: 2, system: "release-notes", size: sizeMedium, outcome: c, features: []string{featASCIIArrows, featAnnotations, featInputMarkers}},
		{era: 2, system: "bug-triage", size: sizeMedium, outcome: f, features: []string{featASCIIArrows}},
		{era: 2, system: "dependency-audit", size: sizeMedium, outcome: inc, features: []string{featASCIIArrows, featCutMidLine}},
		{era: 2, system: "docs-sync", size: sizeMedium, outcome: c, defects: []string{DefectOrderMismatch}, features: []string{featASCIIArrows}},
		{era: 2, system: "release-notes", size: sizeMedium, outcome: c, defects: []string{DefectEmptyOutput}, features: []string{featASCIIArrows}},
		{era: 2, system: "bug-triage", size: sizeSmall, outcome: c, defects: []string{DefectTruncated}, features: []string{featASCIIArrows, featAnnotations}},
		{era: 2, system: "dependency-audit", size: sizeSmall, outcome: c, invalid: invalidNoLog, features: []string{featASCIIArrows}},
		// Era 3: root.prose.md + forme.manifest.json + vm.log.md + sources/ + workspace/ + bindings/.
		{era: 3, system: "layoffs-discover", size: sizeMedium, outcome: c, features: []string{featInputMarkers, featAnnotations}},
		{era: 3, system: "layoffs-discover", size: sizeMedium, outcome: c, features: []string{featFrontMatter, featNarrative, featInputMarkers}},
		{era: 3, system: "dependency-audit", size: sizeMedium, outcome: c, features: []string{featNarrative}},
		{era: 3, system: "flaky-test-hunt", size: sizeSmall, outcome: c},
		{era: 3, system: "bug-triage", size: sizeTiny, outcome: c, features: []string{featNoTrailingNL}},
		{era: 3, system: "docs-sync", size: sizeSmall, outcome: c, features: []string{featAnnotations, featRepeatedEnd}},
		{era: 3, system: "layoffs-discover", size: sizeMedium, outcome: f, defects: []string{DefectErrorFile}, features: []string{featFrontMatter, featNarrative, featInputMarkers}},
		{era: 3, system: "dependency-audit", size: sizeSmall, outcome: f, defects: []string{DefectErrorFile}},
		{era: 3, system: "layoffs-discover", size: sizeSmall, outcome: inc, features: []string{featFrontMatter, featHeaderOnly}},
		{era: 3, system: "flaky-test-hunt", size: sizeMedium, outcome: c, defects: []string{DefectRecoveredError}, features: []string{featAnnotations}},
		{era: 3, system: "bug-triage", size: sizeMedium, outcome: c, defects: []string{DefectOrderMismatch}, features: []string{featInputMarkers}},
		{era: 3, system: "dependency-audit", size: sizeMedium, outcome: c, defects: []string{DefectMissingBinding, DefectPlaceholder}, flavour: "<placeholder>"},
		{era: 3, system: "layoffs-discover", size: sizeSmall, outcome: c, invalid: invalidNoSource},
		// Era 4: compiled-intent.json + root.prose.md + vm.log.md + world-model/ + receipts/.
		{era: 4, system: "release-notes", size: sizeMedium, outcome: c, features: []string{featMultipleReceipts}},
		{era: 4, system: "docs-sync", size: sizeSmall, outcome: c},
		{era: 4, system: "layoffs-discover", size: sizeLarge, outcome: c, features: []string{featAnnotations, featInputMarkers}},
		{era: 4, system: "flaky-test-hunt", size: sizeTiny, outcome: c},
		{era: 4, system: "dependency-audit", size: sizeMedium, outcome: c, features: []string{featFrontMatter, featNarrative}},
		{era: 4, system: "bug-triage", size: sizeSmall, outcome: c, features: []string{featASCIIArrows, featRepeatedEnd}},
		{era: 4, system: "release-notes", size: sizeMedium, outcome: f},
		{era: 4, system: "docs-sync", size: sizeSmall, outcome: inc},
		{era: 4, system: "layoffs-discover", size: sizeMedium, outcome: c, defects: []string{DefectPlaceholder}, flavour: "TBD"},
		{era: 4, system: "flaky-test-hunt", size: sizeMedium, outcome: c, defects: []string{DefectTruncated}},
		// Later additions, one per line so that adding a run does not
		// reshuffle the ids of the runs above.
		{era: 1, system: "bug-triage", size: sizeMedium, outcome: c, defects: []string{DefectPlaceholder}, flavour: "lorem ipsum", features: []string{featTZOffset}},
		{era: 2, system: "release-notes", size: sizeSmall, outcome: c, features: []string{featASCIIArrows}},
		{era: 3, system: "flaky-test-hunt", size: sizeMedium, outcome: c, features: []string{featNarrative, featAnnotations}},
		{era: 4, system: "docs-sync", size: sizeMedium, outcome: c, features: []string{featInputMarkers}},
	}
}

// expectations says what a structural light check and a deep check
// should find in a run planned by s, and the verdicts they should reach
// under the docs/DESIGN.md rule. Light sees outcome, missing and empty
// bindings and error files; it cannot tell a by-design skip or a
// recovered error from a defect (so it is pessimistic there), and it
// cannot see order, placeholders or truncation (so it is optimistic).
func expectations(s spec) (light, deep []string, lightVerdict, deepVerdict string) {
	light, deep = []string{}, []string{}
	switch s.outcome {
	case outcomeFailed:
		light = append(light, FindingRunFailed)
		deep = append(deep, FindingRunFailed)
	case outcomeIncomplete:
		light = append(light, FindingRunIncomplete)
		deep = append(deep, FindingRunIncomplete)
	}
	for _, d := range s.defects {
		switch d {
		case DefectMissingBinding, DefectEmptyOutput, DefectErrorFile:
			light = append(light, d)
			deep = append(deep, d)
		case DefectSkippedUnbound:
			light = append(light, DefectMissingBinding)
		case DefectRecoveredError:
			light = append(light, DefectErrorFile)
		case DefectOrderMismatch, DefectPlaceholder, DefectTruncated:
			deep = append(deep, d)
		}
	}
	return light, deep, verdictFor(s, len(light)), verdictFor(s, len(deep))
}

// verdictFor: fail when the run did not complete or two defects pile up,
// partial for one, pass for none.
func verdictFor(s spec, findings int) string {
	switch {
	case s.outcome != outcomeCompleted || findings >= 2:
		return "fail"
	case findings == 1:
		return "partial"
	default:
		return "pass"
	}
}
