// Package importers reads the results other evaluation tools already
// computed, inspect_ai logs (`inspect:LOG#SCORER`) and promptfoo result
// files (`promptfoo:FILE#ASSERTION`), as inspector sources: a team that
// scores the same samples with a cheap scorer and an expensive one can ask
// whether the cheap one can stand in, without running anything again.
//
// A Source is one judge: the verdicts one scorer or assertion gave in one
// file. It implements inspection.Inspector and returns the same inspection at
// either depth; which side it is on is the command line's choice. It also
// tells which runs it covers (Covers), so that a deep side whose scorer
// scored some samples only is a deep subset, and lists what it could not
// read (Unattributed).
//
// # inspect_ai
//
// The value v of the chosen scorer on a sample (samples[].scores.SCORER.value,
// a Score's Value: str | int | float | bool, a list of them, or a dict of
// them) maps to a number x in [0, 1] the way inspect_ai's value_to_float
// does (scorer/_metric.py), except that what it would warn about and count
// as 0 is an error of that run instead:
//
//	"C" -> 1     "P" -> 0.5     "I" -> 0     "N" -> 0, flag no-answer (warning)
//	other strings, lower-cased: "yes", "true" -> 1; "no", "false" -> 0;
//	    a finite number written as a string -> that number; else an error
//	true -> 1, false -> 0; a number -> itself
//	a number outside [0, 1] -> an error
//	a list -> an error (one sample, one verdict)
//	a dict -> an error naming its keys, unless the scorer was named
//	    SCORER.KEY: then its entry KEY, mapped by the same rules (a sample
//	    whose dict lacks KEY is not covered)
//	null (how NaN, +-Infinity are read: Score.unscored) -> an error: the
//	    scorer rendered no verdict
//
// and then
//
//	runtime_fidelity = task_effectiveness = 100 * x
//	verdict = pass if x >= 0.7, fail if x < 0.4, partial otherwise
//
// (docs/DESIGN.md's thresholds on the 0-100 score; so C passes, P is partial,
// I and N fail). A sample with an error (samples[].error) fails whatever
// its score, with a critical run-error flag whose evidence is the error
// message; its scores are 100 * x when the scorer gave a value, else 0. A
// sample halted by a limit (samples[].limit) keeps its verdict and gets a
// warning sample-limit flag. The summary is "SCORER = VALUE: explanation"
// (SummaryRunes at most); the score's metadata is not read. A sample
// without the scorer and without an error is not covered; a sample the
// log marks invalidated is left out and listed by Unattributed. Costs are
// not recorded (a Score carries no usage).
//
// Non-finite floats: Python's json module and pydantic write NaN and
// Infinity as bare tokens, which JSON does not have; they are read as
// null wherever they are (outside strings).
//
// # promptfoo
//
// With no assertion named, a result's verdict is promptfoo's own: pass
// when success is true, fail otherwise, and both scores are 100 * score
// (the weighted mean of its assertions' scores). With an assertion named,
// the result's component results (gradingResult.componentResults, one per
// assertion, assert-sets flattened as promptfoo flattens them) whose
// assertion.metric is that name are taken, or, when no component of the
// file has such a metric, those whose assertion.type is; several are
// combined as promptfoo combines a test's assertions (AssertionsResult):
//
//	pass  = every component passed
//	score = sum(weight_i * score_i) / sum(weight_i)   (weight default 1;
//	        the plain mean when the weights sum to 0)
//
// and the verdict is pass or fail, both scores 100 * score. A score
// outside [0, 1] is an error of that run; so is a component whose grader
// failed (metadata.graderError: a model-graded assertion that produced no
// verdict). A result that failed with an error (failureReason 2; before
// failureReason existed, an error and no gradingResult) is a fail with a
// critical run-error flag, whatever is selected. A result without the
// selected assertion is not covered. Cost.Tokens is the grading tokens of
// what was selected (tokensUsed.total); the reason is the summary.
//
// # Overriding the mapping
//
// A spec may end with options after a "?", once the "#" is written:
// inspect:LOG#SCORER?OPTIONS, inspect:LOG#?OPTIONS for the log's only
// scorer, promptfoo:FILE#ASSERTION?OPTIONS (ParseSelector; a scorer or
// assertion whose name holds a "?" needs a trailing one, "#polite??").
// OPTIONS are KEY=VALUE pairs separated by commas, each key once, each
// VALUE a finite number:
//
//	VALUE=x  inspect_ai: the string value VALUE, matched exactly, maps to x
//	         in [0, 1] before the default mapping: P=0 makes P a fail,
//	         N=0.5 makes N partial (its no-answer flag stays), correct=1
//	         maps a value the default mapping does not know;
//	         value.VALUE=x says the same of any VALUE, also one named max,
//	         pass or fail (value.pass=1,value.fail=0)
//	max=M    inspect_ai: numbers, and numbers written as strings, are
//	         divided by M > 0 and must lie in [0, M]: max=10 reads 0-10
//	         rubric scores (7 -> 0.7, a pass); booleans and strings that
//	         map by name are not divided
//	pass=T   the verdict thresholds on x (after max=): pass when x >= T,
//	fail=F   fail when x < F, partial in between; T and F in [0, 1],
//	         F <= T; by default 0.7 and 0.4 for inspect_ai
//
// promptfoo takes pass= and fail= only (its scores are in [0, 1] already
// and it has no string values to map): pass=T makes the verdict the
// score's, with F = T unless fail= is given, instead of promptfoo's own
// pass or fail; fail= alone is an error. What does not depend on a value
// is unchanged: a sample or result with an error fails, a null value is
// an error. A bad option is an error naming it. The options, keys sorted
// and numbers in their shortest form, end the source's identity
// ("inspect:<hex>#match?P=0,max=10"), so the inspection cache keeps
// mappings apart.
//
// # Limits
//
// Every file is opened with internal/inputfile (regular files, pipes and
// character devices; a directory or socket is refused) and read at most
// MaxFileBytes. A .json file is streamed: memory is bounded by its largest
// sample or result. A .eval archive's members are read one at a time,
// never trusting their declared sizes: a member declaring more than
// MaxMemberBytes is refused unread, one inflating past its declaration or
// the limit is cut, all members together stay under MaxUncompressedBytes,
// and the central directory may hold at most MaxMembers entries (checked
// in its end record before it is read). Loads honour ctx between samples.
package importers
