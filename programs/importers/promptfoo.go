package importers

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/inputfile"
)

// ResultFailureReason values of promptfoo (src/types/index.ts): a result
// that failed because of an error, not an assertion.
const promptfooFailureError = 2

// LoadPromptfoo reads the JSON file `promptfoo eval -o FILE.json` writes
// (an OutputFile: {evalId, results: {version, timestamp, results[],
// prompts, stats}, config, shareableUrl, metadata}) and returns a Source
// serving one assertion's verdicts and the runs its results are, sorted
// by id. results.version 3 (EvaluateSummaryV3, the current format) is
// read, and 2 (EvaluateSummaryV2: the same results[], with a table);
// other versions are refused. The results are streamed one by one. The
// JSON Lines output (`promptfoo eval -o FILE.jsonl`: one result a line,
// no version) is read too, line by line, when the file is named .jsonl or
// its first line is a whole result (see isJSONL); a line that is not JSON
// is listed by Unattributed with its number, and the rest is read.
//
// Each result (one test case on one prompt and provider) is a run: ID is
// "test<testIdx>-prompt<promptIdx>" (stable while the config's tests and
// prompts keep their order, and readable for keying saved labels);
// System is the provider's label, else its id; Era is "promptfoo";
// Status is failed for a result that failed with an error (failureReason
// 2), completed otherwise; ContentHash is the SHA-256 of the result's
// JSON.
//
// assertion selects what a run's verdict is: "" is the test's overall
// result (success and score); otherwise the component results
// (gradingResult.componentResults) whose assertion.metric is assertion,
// or, when no component of the file has that metric, whose
// assertion.type is assertion (e.g. "contains", "llm-rubric"). A name
// found in no component is an error wrapping ErrUnknownSelector, listing
// the file's types and metrics. The mapping is in the package
// documentation.
//
// One bad result loses nothing else: a result whose testIdx and
// promptIdx can be read but whose other fields cannot, or whose score is
// outside [0, 1], fails its run's inspection with an error naming the
// file, the line and the field; a result without them is listed by
// Unattributed. The whole file fails when it cannot be opened or is not a
// regular file, pipe or character device, is longer than MaxFileBytes, is
// not JSON, has another results.version, holds no result, or when ctx
// ends.
func LoadPromptfoo(ctx context.Context, path, assertion string) (*Source, []inspection.Run, error) {
	return loadPromptfoo(ctx, path, assertion, Options{}, defaultLimits)
}

// promptfooDialect is the options of promptfoo:FILE#ASSERTION?OPTIONS:
// pass= and fail= only (promptfoo's scores are in [0, 1] already and it
// has no string values); pass= replaces promptfoo's own verdict.
var promptfooDialect = Dialect{Name: "promptfoo", FailFollowsPass: true,
	Refuse: func(key string) string {
		if key == optMax {
			return "promptfoo scores are in [0, 1] already; it takes pass= and fail= only"
		}
		return "promptfoo results have no string values to map; it takes pass= and fail= only"
	}}

// LoadPromptfooWith is LoadPromptfoo with the verdict thresholds of opts
// (only Pass and Fail apply; ParseSelector reads them from a spec). The
// source's identity ends with "?" and the options when there are any.
func LoadPromptfooWith(ctx context.Context, path, assertion string, opts Options) (*Source, []inspection.Run, error) {
	return loadPromptfoo(ctx, path, assertion, opts, defaultLimits)
}

func loadPromptfoo(ctx context.Context, path, assertion string, opts Options, lim limits) (*Source, []inspection.Run, error) {
	pf, err := readPromptfoo(ctx, path, lim)
	if err != nil {
		return nil, nil, err
	}
	return pf.source(assertion, opts)
}

// readPromptfoo reads a results file, JSON or JSON Lines.
func readPromptfoo(ctx context.Context, path string, lim limits) (parsedFile, error) {
	f, stop, err := inputfile.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("promptfoo: open %s: %w", path, err)
	}
	defer f.Close()
	defer stop()
	pf := &promptfooFile{path: path}
	br := bufio.NewReaderSize(f, 64<<10)
	read := pf.read
	if isJSONL(path, br) {
		read = pf.readLines
	}
	if err := read(ctx, br, lim); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return nil, fmt.Errorf("promptfoo: read %s: %w", path, inputfile.ReadError(ctx, err))
	}
	return pf, nil
}

// promptfooFile is what a load keeps of a results file.
type promptfooFile struct {
	path         string
	sum          string
	results      []promptfooResult
	unattributed []string
	// runs are the results' runs, sorted, once source has built them
	// (they are the same whatever the assertion; shared, read-only).
	runs []inspection.Run
}

// promptfooResult is one EvaluateResult as a load keeps it.
type promptfooResult struct {
	testIdx, promptIdx int
	where, label       string
	hash               string
	size               int64
	failure            error
	system             string
	success            bool
	score              float64
	isError            bool
	errMessage         string
	grading            *gradingResult
	// metadata is the result's `vars` and `metadata` (flat fields only;
	// metadata wins a field both give); metaSkips are what was left out.
	metadata  inspection.Metadata
	metaSkips []string
}

// gradingResult is the part of a GradingResult a load keeps.
type gradingResult struct {
	pass       bool
	score      float64
	reason     string
	tokens     int64
	components []componentResult
}

// componentResult is one assertion's GradingResult.
type componentResult struct {
	typ, metric string
	pass        bool
	score       float64
	weight      float64
	reason      string
	graderError bool
	tokens      int64
}

// read streams the file: results.version and results.results are read,
// everything else skipped.
func (pf *promptfooFile) read(ctx context.Context, r io.Reader, lim limits) error {
	s := newJSONStream(r, lim.file)
	var version *int
	err := s.object(func(key string) error {
		defer s.line() // forget the newlines read so far
		if key == "testIdx" {
			return errResultAtTop
		}
		if key != "results" {
			return s.skip()
		}
		return s.object(func(key string) error {
			defer s.line()
			switch key {
			case "version":
				var v int
				if err := s.dec.Decode(&v); err != nil {
					return fieldOf("results.version", err)
				}
				version = &v
				return nil
			case "results":
				return s.array(func(i int) error {
					if err := ctx.Err(); err != nil {
						return err
					}
					raw, line, err := s.rawValue()
					if err != nil {
						return fmt.Errorf("in results.results[%d]: %w", i, err)
					}
					pf.add(raw, fmt.Sprintf("%s:%d", pf.path, line), fmt.Sprintf("results.results[%d] ", i))
					return nil
				})
			}
			return s.skip()
		})
	})
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return jsonError(err, s, lim.file)
	}
	pf.sum = s.lim.hexSum()
	switch {
	case version == nil:
		return errors.New("no results.version: not the JSON `promptfoo eval -o` writes")
	case *version != 2 && *version != 3:
		return fmt.Errorf("results.version %d; evalcal reads versions 2 and 3", *version)
	}
	return nil
}

// resultWire is the part of an EvaluateResult a load reads; each field is
// decoded on its own, so that a bad one is named.
type resultWire struct {
	TestIdx       json.RawMessage `json:"testIdx"`
	PromptIdx     json.RawMessage `json:"promptIdx"`
	Provider      json.RawMessage `json:"provider"`
	Success       json.RawMessage `json:"success"`
	Score         json.RawMessage `json:"score"`
	Error         json.RawMessage `json:"error"`
	FailureReason json.RawMessage `json:"failureReason"`
	GradingResult json.RawMessage `json:"gradingResult"`
}

type gradingWire struct {
	Pass             *bool             `json:"pass"`
	Score            *float64          `json:"score"`
	Reason           string            `json:"reason"`
	TokensUsed       *tokensWire       `json:"tokensUsed"`
	ComponentResults []json.RawMessage `json:"componentResults"`
	Assertion        *struct {
		Type   string   `json:"type"`
		Metric string   `json:"metric"`
		Weight *float64 `json:"weight"`
	} `json:"assertion"`
	Metadata *struct {
		GraderError bool `json:"graderError"`
	} `json:"metadata"`
}

type tokensWire struct {
	Total int64 `json:"total"`
}

// add reads one result.
func (pf *promptfooFile) add(raw []byte, where, label string) {
	r, err := parseResult(raw)
	sum := sha256.Sum256(raw)
	r.where, r.label, r.size, r.hash = where, label, int64(len(raw)), hex.EncodeToString(sum[:])
	if err != nil {
		if r.testIdx < 0 {
			pf.unattributed = append(pf.unattributed, fmt.Sprintf("%s: %s%v", where, label, err))
			return
		}
		r.failure = resultError(r, err)
	}
	pf.results = append(pf.results, r)
}

// resultError is an error about result r, naming where it is.
func resultError(r promptfooResult, err error) error {
	return fmt.Errorf("promptfoo: %s: %stest %d prompt %d: %w", r.where, r.label, r.testIdx, r.promptIdx, err)
}

// parseResult reads the fields of an EvaluateResult that mapping needs;
// raw must be clean and valid JSON (as a jsonStream gives it). testIdx is
// -1 when the test and prompt indexes could not be read.
func parseResult(raw []byte) (promptfooResult, error) {
	r := promptfooResult{testIdx: -1, promptIdx: -1}
	var w resultWire
	var vars, metadata json.RawMessage
	err := eachField(raw, func(key, value []byte) { // a later duplicate key wins, as in encoding/json
		switch string(key) {
		case "testIdx":
			w.TestIdx = value
		case "promptIdx":
			w.PromptIdx = value
		case "provider":
			w.Provider = value
		case "success":
			w.Success = value
		case "score":
			w.Score = value
		case "error":
			w.Error = value
		case "failureReason":
			w.FailureReason = value
		case "gradingResult":
			w.GradingResult = value
		case "vars":
			vars = value
		case "metadata":
			metadata = value
		}
	})
	if err != nil {
		return r, err
	}
	testIdx, err := index(w.TestIdx)
	if err != nil {
		return r, &inspection.FieldError{Field: "testIdx", Err: err}
	}
	promptIdx, err := index(w.PromptIdx)
	if err != nil {
		return r, &inspection.FieldError{Field: "promptIdx", Err: err}
	}
	r.testIdx, r.promptIdx = testIdx, promptIdx
	var provider struct {
		ID    string `json:"id"`
		Label string `json:"label"`
	}
	if !isNull(w.Provider) {
		if err := json.Unmarshal(w.Provider, &provider); err != nil {
			return r, fieldOf("provider", err)
		}
	}
	r.system = cmp.Or(provider.Label, provider.ID, "promptfoo")
	r.metadata, r.metaSkips = resultMetadata(vars, metadata)
	if isNull(w.Success) || json.Unmarshal(w.Success, &r.success) != nil {
		return r, &inspection.FieldError{Field: "success", Err: errors.New("missing or not a boolean")}
	}
	if isNull(w.Score) || json.Unmarshal(w.Score, &r.score) != nil {
		return r, &inspection.FieldError{Field: "score", Err: errors.New("missing or not a number")}
	}
	var reason *int
	if !isNull(w.FailureReason) {
		if err := json.Unmarshal(w.FailureReason, &reason); err != nil {
			return r, fieldOf("failureReason", err)
		}
	}
	var msg *string
	if !isNull(w.Error) {
		if err := json.Unmarshal(w.Error, &msg); err != nil {
			return r, fieldOf("error", err)
		}
	}
	if msg != nil {
		r.errMessage = truncate(oneLine(*msg), SummaryRunes)
	}
	if !isNull(w.GradingResult) {
		g, err := parseGrading(w.GradingResult, "gradingResult")
		if err != nil {
			return r, err
		}
		r.grading = &g
	}
	// An error result: failureReason ERROR, or (files from before
	// failureReason) an error message and no grading at all.
	r.isError = reason != nil && *reason == promptfooFailureError ||
		reason == nil && r.grading == nil && r.errMessage != ""
	return r, nil
}

// index reads testIdx or promptIdx: an integer, 0 or more.
func index(raw json.RawMessage) (int, error) {
	if isNull(raw) {
		return 0, errors.New("missing")
	}
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil || x < 0 || x != math.Trunc(x) || x > math.MaxInt32 {
		return 0, fmt.Errorf("%s is not an index", truncate(string(raw), 40))
	}
	return int(x), nil
}

// gradingFastWire is gradingWire with its component results decoded in
// the same pass.
type gradingFastWire struct {
	gradingWire
	ComponentResults []gradingWire `json:"componentResults"`
}

// parseGrading reads a GradingResult and its component results: in one
// pass of encoding/json, or, when that fails, one pass for the result
// and one for each component, so that the error names the component.
func parseGrading(raw json.RawMessage, field string) (gradingResult, error) {
	var fast gradingFastWire
	if json.Unmarshal(raw, &fast) == nil {
		return gradingOf(fast.gradingWire, fast.ComponentResults, field)
	}
	var w gradingWire
	if err := json.Unmarshal(raw, &w); err != nil {
		return gradingResult{}, fieldOf(field, err)
	}
	comps := make([]gradingWire, len(w.ComponentResults))
	for i, c := range w.ComponentResults {
		if err := json.Unmarshal(c, &comps[i]); err != nil {
			return gradingResult{}, fieldOf(fmt.Sprintf("%s.componentResults[%d]", field, i), err)
		}
	}
	return gradingOf(w, comps, field)
}

// gradingOf checks a decoded GradingResult and its components.
func gradingOf(w gradingWire, comps []gradingWire, field string) (gradingResult, error) {
	if w.Pass == nil {
		return gradingResult{}, &inspection.FieldError{Field: field + ".pass", Err: errors.New("missing")}
	}
	if w.Score == nil {
		return gradingResult{}, &inspection.FieldError{Field: field + ".score", Err: errors.New("missing")}
	}
	g := gradingResult{pass: *w.Pass, score: *w.Score, reason: truncate(oneLine(w.Reason), SummaryRunes)}
	if w.TokensUsed != nil {
		g.tokens = w.TokensUsed.Total
	}
	if len(comps) > 0 {
		g.components = make([]componentResult, 0, len(comps))
	}
	for i, cw := range comps {
		if cw.Pass == nil {
			f := fmt.Sprintf("%s.componentResults[%d]", field, i)
			return gradingResult{}, &inspection.FieldError{Field: f + ".pass", Err: errors.New("missing")}
		}
		if cw.Score == nil {
			f := fmt.Sprintf("%s.componentResults[%d]", field, i)
			return gradingResult{}, &inspection.FieldError{Field: f + ".score", Err: errors.New("missing")}
		}
		comp := componentResult{pass: *cw.Pass, score: *cw.Score, weight: 1, reason: truncate(oneLine(cw.Reason), SummaryRunes)}
		if a := cw.Assertion; a != nil {
			comp.typ, comp.metric = a.Type, a.Metric
			if a.Weight != nil {
				comp.weight = *a.Weight
			}
		}
		if cw.Metadata != nil {
			comp.graderError = cw.Metadata.GraderError
		}
		if cw.TokensUsed != nil {
			comp.tokens = cw.TokensUsed.Total
		}
		g.components = append(g.components, comp)
	}
	return g, nil
}

// source resolves the assertion and maps every result.
func (pf *promptfooFile) source(assertion string, opts Options) (*Source, []inspection.Run, error) {
	switch {
	case len(pf.results) == 0 && len(pf.unattributed) > 0:
		return nil, nil, fmt.Errorf("promptfoo: %s: no readable result (%w); first: %s", pf.path, ErrNothingToImport, pf.unattributed[0])
	case len(pf.results) == 0:
		return nil, nil, fmt.Errorf("promptfoo: %s: no results (%w)", pf.path, ErrNothingToImport)
	}
	byMetric, err := pf.resolve(assertion)
	if err != nil {
		return nil, nil, err
	}
	identity := "promptfoo:" + pf.sum[:16]
	if suffix := opts.identitySuffix(); assertion != "" || suffix != "" {
		identity += "#" + assertion + suffix // as a spec writes it
	}
	src := &Source{identity: identity, selector: assertion, results: make(map[string]result, len(pf.results)),
		unattributed: slices.Clone(pf.unattributed)}
	build := pf.runs == nil // the runs do not depend on the assertion: built once
	var runs []inspection.Run
	if build {
		runs = make([]inspection.Run, 0, len(pf.results))
	}
	first := make(map[string]string, len(pf.results))
	for _, r := range pf.results {
		id := "test" + strconv.Itoa(r.testIdx) + "-prompt" + strconv.Itoa(r.promptIdx)
		if at, dup := first[id]; dup {
			src.results[id] = result{err: resultError(r, fmt.Errorf("test %d prompt %d is also at %s; which is right cannot be told", r.testIdx, r.promptIdx, at))}
			continue
		}
		first[id] = r.where
		if build {
			runs = append(runs, r.run(id))
		}
		if r.failure != nil {
			src.results[id] = result{err: r.failure}
			continue
		}
		if res, covered := mapResult(r, assertion, byMetric, opts); covered {
			res.insp.RunID, res.insp.System = id, r.system
			src.results[id] = res
		}
	}
	if build {
		pf.runs = sortRuns(runs)
	}
	return src, pf.runs, nil
}

// run is the run result r is, named id.
func (r promptfooResult) run(id string) inspection.Run {
	run := inspection.Run{ID: id, Era: EraPromptfoo, System: r.system, Status: inspection.StatusCompleted, Valid: true,
		SizeBytes: r.size, Files: 1, ContentHash: r.hash}
	if r.isError {
		run.Status = inspection.StatusFailed
		run.Warnings = append(run.Warnings, "error: "+r.errMessage)
	}
	if r.failure != nil {
		run.Status = inspection.StatusUnknown
		return run
	}
	run.Metadata = r.metadata
	for _, w := range r.metaSkips {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%s: %stest %d prompt %d: %s", r.where, r.label, r.testIdx, r.promptIdx, w))
	}
	return run
}

// resolve decides whether assertion names a metric (when any component
// of the file has it) or an assertion type.
func (pf *promptfooFile) resolve(assertion string) (byMetric bool, err error) {
	if assertion == "" {
		return false, nil
	}
	metrics, types := map[string]bool{}, map[string]bool{}
	for _, r := range pf.results {
		if r.grading == nil {
			continue
		}
		for _, c := range r.grading.components {
			if c.metric != "" {
				metrics[c.metric] = true
			}
			if c.typ != "" {
				types[c.typ] = true
			}
		}
	}
	switch {
	case metrics[assertion]:
		return true, nil
	case types[assertion]:
		return false, nil
	}
	return false, fmt.Errorf("promptfoo: %s: assertion %q %w as a metric or type of any component result (types: %s; metrics: %s)",
		pf.path, assertion, ErrUnknownSelector, listOf(types), listOf(metrics))
}

func listOf(set map[string]bool) string {
	if len(set) == 0 {
		return "none"
	}
	names := make([]string, 0, len(set))
	for n := range set {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// mapResult maps a result under opts (see the package documentation);
// covered is false when the selected assertion has no component in the
// result and the result is not an error.
func mapResult(r promptfooResult, assertion string, byMetric bool, opts Options) (result, bool) {
	if r.isError {
		insp := inspection.Inspection{Verdict: inspection.VerdictFail, Summary: truncate("error: "+r.errMessage, SummaryRunes),
			Flags: []inspection.Flag{{ID: FlagRunError, Severity: inspection.SeverityCritical,
				Description: "promptfoo recorded an error for this test", Evidence: r.errMessage}}}
		return result{insp: insp}, true
	}
	if assertion == "" {
		if err := checkScore(r.score); err != nil {
			return result{err: resultError(r, &inspection.FieldError{Field: "score", Err: err})}, true
		}
		insp := opts.promptfooVerdict(r.success, r.score)
		reason := r.errMessage
		if r.grading != nil {
			reason = r.grading.reason
			insp.Cost.Tokens = r.grading.tokens
		}
		insp.Summary = summaryOf("overall", r.success, r.score, reason)
		return result{insp: insp}, true
	}
	if r.grading == nil {
		return result{}, false
	}
	var picked []componentResult
	var fields []string
	for i, c := range r.grading.components {
		if byMetric && c.metric == assertion || !byMetric && c.typ == assertion {
			picked = append(picked, c)
			fields = append(fields, fmt.Sprintf("gradingResult.componentResults[%d]", i))
		}
	}
	if len(picked) == 0 {
		return result{}, false
	}
	pass, total, weights := true, 0.0, 0.0
	var reasons []string
	var tokens int64
	for i, c := range picked {
		if c.graderError {
			return result{err: resultError(r, &inspection.FieldError{Field: fields[i],
				Err: fmt.Errorf("the grader failed, so there is no verdict: %s", c.reason)})}, true
		}
		if err := checkScore(c.score); err != nil {
			return result{err: resultError(r, &inspection.FieldError{Field: fields[i] + ".score", Err: err})}, true
		}
		if !(c.weight >= 0) {
			return result{err: resultError(r, &inspection.FieldError{Field: fields[i] + ".assertion.weight",
				Err: fmt.Errorf("negative weight %v: an assertion's weight is 0 or more", c.weight)})}, true
		}
		pass = pass && c.pass
		total += c.weight * c.score
		weights += c.weight
		tokens += c.tokens
		if c.reason != "" {
			reasons = append(reasons, c.reason)
		}
	}
	if !(weights > 0) {
		// Weights of 0 only: no weighted mean exists, and a plain mean
		// would be a score promptfoo never gave.
		return result{err: resultError(r, &inspection.FieldError{Field: strings.Join(fields, ", ") + " assertion.weight",
			Err: fmt.Errorf("the weights of the %d %q assertions sum to 0: no weighted mean", len(picked), assertion)})}, true
	}
	score := total / weights
	insp := opts.promptfooVerdict(pass, score)
	insp.Cost.Tokens = tokens
	insp.Summary = summaryOf(assertion, pass, score, strings.Join(reasons, "; "))
	return result{insp: insp}, true
}

func checkScore(x float64) error {
	if !(x >= 0 && x <= 1) {
		return fmt.Errorf("%v is outside [0, 1]", x)
	}
	return nil
}

func summaryOf(what string, pass bool, score float64, reason string) string {
	word := "fail"
	if pass {
		word = "pass"
	}
	s := fmt.Sprintf("%s: %s, score %.3g", what, word, score)
	if reason != "" {
		s += ": " + reason
	}
	return truncate(s, SummaryRunes)
}
