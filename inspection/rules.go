package inspection

// The verdict cuts on the 0-100 scores: a run fails when a score is under
// FailBelow and passes when both reach PassAt (and no critical flag
// stands), partial otherwise. The builtin inspector applies them; the
// importers scale them to [0, 1]; the advisor searches for better ones
// starting from them.
const (
	FailBelow = 40.0
	PassAt    = 70.0
)

// The light depth's score caps: a light inspection never scores a run's
// runtime fidelity above LightRuntimeCap nor its task effectiveness above
// LightTaskCap (deep is uncapped). The builtin inspector applies them and
// the LLM judges' built-in light prompt asks for them.
const (
	LightRuntimeCap = 85
	LightTaskCap    = 80
)

// Flag ids. They are stable: the comparator matches flags by id across
// inspectors and the advisor names them in recommendations. The builtin
// inspector raises all of them; the LLM judges' built-in prompts ask the
// model to use the defect ids (DefectFlagIDs) when they fit.
const (
	FlagRunFailed         = "run-failed"          // log ends in ---error
	FlagRunIncomplete     = "run-incomplete"      // log has no terminator
	FlagMissingBinding    = "missing-binding"     // a service that should have published has no binding
	FlagErrorFile         = "error-file"          // workspace/{svc}/__error.md (deep: not recovered)
	FlagUnhandledError    = "unhandled-error"     // deep: an unrecovered error in a run that says it completed
	FlagEmptyOutput       = "empty-output"        // 0 bytes (deep: also whitespace or an empty envelope body)
	FlagOrderMismatch     = "order-mismatch"      // deep: log order contradicts the manifest's
	FlagPlaceholder       = "placeholder-output"  // deep: TODO / TBD / FIXME / lorem ipsum / <placeholder>
	FlagTruncated         = "truncated-output"    // deep: cut mid-sentence, open code fence, JSON cut short
	FlagBindingUnparsable = "binding-unparseable" // deep: a JSON output does not parse
	FlagBindingEnvelope   = "binding-envelope"    // deep: a Markdown binding lacks its `# name` / `kind:` envelope
	FlagPublishedMismatch = "published-mismatch"  // deep: published.json lists an output that is absent or differs
	FlagLogUnreadable     = "log-unreadable"      // the log could not be read
	FlagManifestBroken    = "manifest-unreadable" // the manifest could not be parsed
	FlagOutputUnreadable  = "output-unreadable"   // an output file could not be read
)

// FlagInputTruncated is the id of an info flag an inspector adds when it
// could not show the judge the whole run (an LLM prompt's token budget).
// It is about the inspector's input, not about the run, so the comparator
// leaves it out of flag overlap and disagreement types.
const FlagInputTruncated = "prompt-truncated"

// DefectFlagIDs returns the ids of the defects a run can have, in the
// order the LLM judges' prompts list them: every builtin flag id but the
// three about an unreadable file, which only a program reading the
// directory can raise.
func DefectFlagIDs() []string {
	return []string{
		FlagRunFailed, FlagRunIncomplete, FlagMissingBinding, FlagErrorFile, FlagUnhandledError,
		FlagEmptyOutput, FlagOrderMismatch, FlagPlaceholder, FlagTruncated,
		FlagBindingUnparsable, FlagBindingEnvelope, FlagPublishedMismatch,
	}
}

// VerdictRank orders verdicts from the strictest: fail 0 < partial 1 <
// pass 2 (anything else ranks as pass).
func VerdictRank(v string) int {
	switch v {
	case VerdictFail:
		return 0
	case VerdictPartial:
		return 1
	}
	return 2
}

// Verdict is the verdict rule of the inspectors evalcal ships
// (docs/DESIGN.md): fail if the run did not complete or either score is
// under FailBelow; pass if both reach PassAt and no flag is critical;
// partial otherwise.
func Verdict(completed bool, runtime, task float64, flags []Flag) string {
	if !completed || runtime < FailBelow || task < FailBelow {
		return VerdictFail
	}
	for _, f := range flags {
		if f.Severity == SeverityCritical {
			return VerdictPartial
		}
	}
	if runtime >= PassAt && task >= PassAt {
		return VerdictPass
	}
	return VerdictPartial
}
