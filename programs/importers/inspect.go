package importers

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/inputfile"
)

// legacyScorer is the key inspect_ai gives the single `score` of logs
// written before `scores` existed, until it renames it after the log's
// first scorer (EvalLog.populate_scorer_name_for_samples).
const legacyScorer = "88F74D2C"

// LoadInspect reads an inspect_ai log and returns a Source serving the
// verdicts of one scorer and the runs the log's samples are, sorted by id.
// Both log formats are read, told apart by their first bytes: a .json log
// (one EvalLog document, streamed sample by sample) and a .eval log (a zip
// archive: header.json, or _journal/start.json while the eval runs, and
// one samples/{id}_epoch_{n}.json member per sample; stored, deflate or
// Zstandard members (method 93, INSPECT_USE_ZSTD); see the limits of this
// package).
//
// Each sample is a run: ID is the sample id (a number as written, a
// string as is), followed by "#" and the epoch when the eval ran more
// than one epoch (eval.config.epochs, or a sample's epoch above 1);
// System is the task name (eval.task); Era is "inspect"; Status is failed
// when the sample holds an error, incomplete when it was halted by a
// limit, completed otherwise; ContentHash is the SHA-256 of the sample's
// JSON, so the inspection cache sees a changed sample as new content.
//
// scorer names the scorer (a key of samples[].scores): "" takes the log's
// only scorer, and is an error wrapping ErrChooseScorer, listing them,
// when there are several; "NAME.KEY" takes the entry KEY of a scorer
// whose values are dicts. A scorer found on no sample is an error
// wrapping ErrUnknownSelector. The mapping of a value to an inspection is
// in the package documentation.
//
// One bad sample loses nothing else: a sample whose id and epoch can be
// read but whose other fields cannot, or whose value cannot be mapped,
// fails its run's inspection with an error naming the file, the line (or
// member) and the field; a sample without a readable id and epoch, and a
// sample the log marks invalidated, are listed by Unattributed. The whole
// file fails when it cannot be opened or is not a regular file, pipe or
// character device, is longer than MaxFileBytes, is not JSON (a .json log
// with a syntax error cannot be read past it) or not a zip archive, when
// a .eval archive passes its member or total limits, holds no sample, or
// when ctx ends.
func LoadInspect(ctx context.Context, path, scorer string) (*Source, []inspection.Run, error) {
	return loadInspect(ctx, path, scorer, Options{}, defaultLimits)
}

// inspectDialect is the options of inspect:LOG#SCORER?OPTIONS: all of
// them (max=, pass=, fail= and string values' mappings), with inspect_ai's
// default thresholds.
var inspectDialect = Dialect{Name: "inspect"}

// LoadInspectWith is LoadInspect with the value mapping overridden by
// opts (see Options; ParseSelector reads them from a spec). The source's
// identity ends with "?" and the options (Options.String) when there are
// any.
func LoadInspectWith(ctx context.Context, path, scorer string, opts Options) (*Source, []inspection.Run, error) {
	return loadInspect(ctx, path, scorer, opts, defaultLimits)
}

func loadInspect(ctx context.Context, path, scorer string, opts Options, lim limits) (*Source, []inspection.Run, error) {
	log, err := readInspect(ctx, path, lim)
	if err != nil {
		return nil, nil, err
	}
	return log.source(scorer, opts)
}

// readInspect reads a log file or a log directory.
func readInspect(ctx context.Context, path string, lim limits) (parsedFile, error) {
	read := readInspectLog
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		read = readInspectDir
	}
	log, err := read(ctx, path, lim)
	if err != nil {
		return nil, err
	}
	return log, nil
}

// readInspectLog reads one log file, .json or .eval.
func readInspectLog(ctx context.Context, path string, lim limits) (*inspectLog, error) {
	f, stop, err := inputfile.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("inspect: open %s: %w", path, err)
	}
	defer f.Close()
	defer stop()
	br := bufio.NewReaderSize(f, 64<<10)
	head, _ := br.Peek(4)
	log := &inspectLog{path: path}
	if bytes.HasPrefix(head, []byte("PK")) {
		err = log.readEval(ctx, f, br, lim)
	} else {
		err = log.readJSON(ctx, br, lim)
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%v)", ctxErr, err)
		}
		return nil, fmt.Errorf("inspect: read %s: %w", path, inputfile.ReadError(ctx, err))
	}
	return log, nil
}

// inspectLog is what a load keeps of a log: its header and, per sample,
// what mapping needs (never its transcript).
type inspectLog struct {
	path   string
	task   string
	epochs int
	// firstScore is results.scores[0].name (or the legacy
	// results.scorer.name): the name of a legacy sample `score`.
	firstScore   string
	sum          string
	samples      []inspectSample
	unattributed []string
	// idsFinal is true when the samples' ids are run ids already (a log
	// directory's, epochs included).
	idsFinal bool
	// runs are the samples' runs, sorted, once source has built them
	// (they are the same whatever the scorer; shared, read-only).
	runs []inspection.Run
}

// inspectSample is one sample as a load keeps it.
type inspectSample struct {
	id    string
	epoch int
	// where is "file:line" (a .json log) or "file: member" (a .eval log);
	// label is "samples[i] " in a .json log.
	where, label string
	hash         string
	size         int64
	// task is the task of the sample's log when the load read a log
	// directory (readInspectDir); "" takes the log's.
	task string
	// failure, when set, is why the sample could not be read.
	failure     error
	errMessage  string
	hasError    bool
	limit       string
	invalidated bool
	scores      scoreSet
	// metadata is the sample's `metadata` (flat fields only); metaSkips
	// are the fields left out of it.
	metadata  inspection.Metadata
	metaSkips []string
}

// inspectScore is one scorer's Score on a sample.
type inspectScore struct {
	value       json.RawMessage
	answer      string
	explanation string
	err         error
}

// headerWire is the part of EvalLog (header.json, or a .json log's top
// level) a load reads; _journal/start.json has the same eval.
type headerWire struct {
	Eval struct {
		Task   string `json:"task"`
		Config struct {
			Epochs *int `json:"epochs"`
		} `json:"config"`
	} `json:"eval"`
	Results *resultsWire `json:"results"`
}

type resultsWire struct {
	Scores []struct {
		Name string `json:"name"`
	} `json:"scores"`
	Scorer *struct {
		Name string `json:"name"`
	} `json:"scorer"`
}

func (l *inspectLog) setHeader(h headerWire) {
	l.task = h.Eval.Task
	if e := h.Eval.Config.Epochs; e != nil {
		l.epochs = *e
	}
	l.setResults(h.Results)
}

func (l *inspectLog) setResults(r *resultsWire) {
	switch {
	case r == nil:
	case len(r.Scores) > 0:
		l.firstScore = r.Scores[0].Name
	case r.Scorer != nil:
		l.firstScore = r.Scorer.Name
	}
}

// readJSON streams a .json log: eval and results are decoded whole, each
// element of samples on its own, and everything else is skipped.
func (l *inspectLog) readJSON(ctx context.Context, r io.Reader, lim limits) error {
	s := newJSONStream(r, lim.file)
	err := s.object(func(key string) error {
		var err error
		switch key {
		case "eval":
			var h headerWire
			if err = s.dec.Decode(&h.Eval); err != nil {
				err = fieldOf("eval", err)
			}
			l.setHeader(h)
		case "results":
			var res resultsWire
			if err = s.dec.Decode(&res); err != nil {
				err = fieldOf("results", err)
			}
			l.setResults(&res)
		case "samples":
			err = s.array(func(i int) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				raw, line, err := s.rawValue()
				if err != nil {
					return fmt.Errorf("in samples[%d]: %w", i, err)
				}
				sum := sha256.Sum256(raw)
				l.addSample(raw, fmt.Sprintf("%s:%d", l.path, line), fmt.Sprintf("samples[%d] ", i), sum[:], "")
				return nil
			})
		default:
			err = s.skip()
		}
		s.line() // forget the newlines read so far
		return err
	})
	if err == nil {
		err = s.end()
	}
	if err != nil {
		return jsonError(err, s, lim.file)
	}
	l.sum = s.lim.hexSum()
	return nil
}

// jsonError says what stopped a streamed document.
func jsonError(err error, s *jsonStream, max int64) error {
	var se *json.SyntaxError
	switch {
	case errors.Is(err, errFileTooLong):
		return fmt.Errorf("longer than %d bytes", max)
	case errors.As(err, &se):
		return fmt.Errorf("not valid JSON after line %d: %w", s.line(), err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return fmt.Errorf("the JSON document ends early, after line %d (truncated?)", s.line())
	}
	return err
}

// fieldOf names the field of a decoding error.
func fieldOf(field string, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := field
		if te.Field != "" {
			f += "." + te.Field
		}
		return &inspection.FieldError{Field: f, Err: fmt.Errorf("%s is not a %s", te.Value, te.Type)}
	}
	return err
}

// samplesMember matches inspect_ai's sample members, samples/{id}_epoch_{n}.json.
var samplesMember = regexp.MustCompile(`^samples/([^/]+)_epoch_([0-9]+)\.json$`)

// readEval reads a .eval archive: its header, then each sample member in
// directory order (of members with one name, the last, as Python's
// zipfile reads them).
func (l *inspectLog) readEval(ctx context.Context, f *os.File, br *bufio.Reader, lim limits) error {
	a, err := openEvalArchive(ctx, f, br, lim)
	if err != nil {
		return err
	}
	l.sum = a.sum
	last := map[string]int{}
	for i, m := range a.zr.File {
		last[m.Name] = i
	}
	header, ok := last["header.json"]
	if !ok {
		header, ok = last["_journal/start.json"]
	}
	if !ok {
		return errors.New("neither header.json nor _journal/start.json: not an inspect_ai .eval log")
	}
	hm := a.zr.File[header]
	data, err := a.readMember(hm)
	if err != nil {
		return fmt.Errorf("%s: %w", hm.Name, err)
	}
	var h headerWire
	if err := unmarshalClean(data, &h); err != nil {
		return fmt.Errorf("%s: %w", hm.Name, fieldOf("", err))
	}
	l.setHeader(h)
	for i, m := range a.zr.File {
		if last[m.Name] != i || !strings.HasPrefix(m.Name, "samples/") || !strings.HasSuffix(m.Name, ".json") ||
			strings.Count(m.Name, "/") != 1 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		where := l.path + ": " + m.Name
		data, err := a.readMember(m)
		if errors.Is(err, errUncompressedTotal) {
			return fmt.Errorf("%s: %w", m.Name, err)
		}
		if err != nil {
			l.reject(inspectSample{where: where}, m.Name, fmt.Errorf("cannot be read: %w", err))
			continue
		}
		sum := sha256.Sum256(data)
		l.addSample(data, where, "", sum[:], m.Name)
	}
	return nil
}

// unmarshalClean decodes one JSON document after cleanJSON.
func unmarshalClean(data []byte, v any) error {
	clean, err := cleanJSON(data)
	if err != nil {
		return err
	}
	return json.Unmarshal(clean, v)
}

// cleanJSON applies cleanReader's rewrites to one JSON document (a
// byte-order mark dropped, NaN and Infinity made null) and checks it is
// valid JSON; a syntax error names its line.
func cleanJSON(data []byte) ([]byte, error) {
	c := newCleanReader(bytes.NewReader(data))
	c.chunk = make([]byte, len(data)+1) // one read takes it all
	clean, _ := io.ReadAll(c)
	if json.Valid(clean) {
		return clean, nil
	}
	var v any
	err := json.Unmarshal(clean, &v)
	var se *json.SyntaxError
	if errors.As(err, &se) {
		line := 1 + bytes.Count(clean[:min(int(se.Offset), len(clean))], []byte("\n"))
		return nil, fmt.Errorf("line %d: not valid JSON: %w", line, err)
	}
	if err == nil {
		err = errors.New("not valid JSON")
	}
	return nil, err
}

// source resolves the scorer and maps every sample under opts.
func (l *inspectLog) source(scorer string, opts Options) (*Source, []inspection.Run, error) {
	if len(l.samples) == 0 {
		if len(l.unattributed) > 0 {
			return nil, nil, fmt.Errorf("inspect: %s: no readable sample (%w); first: %s", l.path, ErrNothingToImport, l.unattributed[0])
		}
		return nil, nil, fmt.Errorf("inspect: %s: no samples (%w; was it written with log_samples=False?)", l.path, ErrNothingToImport)
	}
	l.renameLegacyScores()
	names := l.scorerNames()
	name, key, err := l.resolve(scorer, names)
	if err != nil {
		return nil, nil, err
	}
	selector := name
	if key != "" {
		selector += "." + key
	}
	system := l.task
	if system == "" {
		system = "inspect"
	}
	epochs := l.sampleEpochs()
	if l.idsFinal {
		epochs = 1 // readInspectDir added the epochs
	}
	src := &Source{identity: fmt.Sprintf("inspect:%s#%s%s", l.sum[:16], selector, opts.identitySuffix()), selector: selector,
		results: make(map[string]result, len(l.samples)), unattributed: slices.Clone(l.unattributed)}
	build := l.runs == nil // the runs do not depend on the scorer: built once
	var runs []inspection.Run
	if build {
		runs = make([]inspection.Run, 0, len(l.samples))
	}
	first := make(map[string]string, len(l.samples))
	for _, s := range l.samples {
		if s.invalidated {
			src.unattributed = append(src.unattributed, fmt.Sprintf("%s: %ssample %s epoch %d: invalidated in the log; left out",
				s.where, s.label, s.id, s.epoch))
			continue
		}
		id := s.id
		if epochs > 1 {
			id += "#" + strconv.Itoa(s.epoch)
		}
		if at, dup := first[id]; dup {
			src.results[id] = result{err: sampleError(s, fmt.Errorf("sample %s epoch %d is also at %s; which is right cannot be told", s.id, s.epoch, at))}
			continue
		}
		first[id] = s.where
		system := system
		if s.task != "" {
			system = s.task
		}
		if build {
			runs = append(runs, s.run(id, system))
		}
		if s.failure != nil {
			src.results[id] = result{err: s.failure}
			continue
		}
		if r, covered := mapSample(s, name, key, selector, opts); covered {
			r.insp.RunID, r.insp.System = id, system
			src.results[id] = r
		}
	}
	if build {
		l.runs = sortRuns(runs)
	}
	return src, l.runs, nil
}

// run is the run sample s is, named id, of system.
func (s *inspectSample) run(id, system string) inspection.Run {
	run := inspection.Run{ID: id, Era: EraInspect, System: system, Status: inspection.StatusCompleted, Valid: true,
		SizeBytes: s.size, Files: 1, ContentHash: s.hash}
	switch {
	case s.hasError:
		run.Status = inspection.StatusFailed
		run.Warnings = append(run.Warnings, "sample error: "+s.errMessage)
	case s.limit != "":
		run.Status = inspection.StatusIncomplete
		run.Warnings = append(run.Warnings, "halted by its "+s.limit)
	}
	if s.failure != nil {
		run.Status = inspection.StatusUnknown
		return run
	}
	run.Metadata = s.metadata
	for _, w := range s.metaSkips {
		run.Warnings = append(run.Warnings, fmt.Sprintf("%s: %ssample %s epoch %d: %s", s.where, s.label, s.id, s.epoch, w))
	}
	return run
}

// sampleEpochs is the number of epochs the log ran: the header's, or the
// highest epoch of a sample when that is more.
func (l *inspectLog) sampleEpochs() int {
	epochs := l.epochs
	for _, s := range l.samples {
		epochs = max(epochs, s.epoch)
	}
	return epochs
}

// renameLegacyScores renames each sample's legacy single score after the
// log's first scorer, as inspect_ai does; it runs once the header (which
// names that scorer) and every sample have been read.
func (l *inspectLog) renameLegacyScores() {
	if l.firstScore == "" {
		return
	}
	for i := range l.samples {
		s := &l.samples[i]
		if sc, ok := s.scores.get(legacyScorer); ok {
			s.scores.remove(legacyScorer)
			s.scores.set(l.firstScore, sc)
		}
	}
}

// scorerNames are the scorers of the log's samples, sorted.
func (l *inspectLog) scorerNames() []string {
	set := map[string]bool{}
	for i := range l.samples {
		for _, n := range l.samples[i].scores {
			set[n.name] = true
		}
	}
	return slices.Sorted(maps.Keys(set))
}

// resolve turns the scorer asked for into a scorer name and a dict key.
func (l *inspectLog) resolve(scorer string, names []string) (name, key string, err error) {
	list := strings.Join(names, ", ")
	switch {
	case scorer == "" && len(names) == 1:
		return names[0], "", nil
	case scorer == "" && len(names) == 0:
		return "", "", fmt.Errorf("inspect: %s: no sample has a score (%w)%s", l.path, ErrNothingToImport, l.firstFailure())
	case scorer == "":
		return "", "", fmt.Errorf("inspect: %s: the log has %d scorers (%s): %w with inspect:%s#SCORER",
			l.path, len(names), list, ErrChooseScorer, l.path)
	case slices.Contains(names, scorer):
		return scorer, "", nil
	}
	if i := strings.LastIndexByte(scorer, '.'); i > 0 && slices.Contains(names, scorer[:i]) {
		return scorer[:i], scorer[i+1:], nil
	}
	if list == "" {
		list = "none"
	}
	return "", "", fmt.Errorf("inspect: %s: scorer %q %w (the log's scorers: %s)%s", l.path, scorer, ErrUnknownSelector, list, l.firstFailure())
}

// firstFailure names the first sample that could not be read, for errors
// that may be its consequence.
func (l *inspectLog) firstFailure() string {
	for _, s := range l.samples {
		if s.failure != nil {
			return "; first unreadable sample: " + s.failure.Error()
		}
	}
	return ""
}
