package sampler

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/inspection"
)

// Well-known files of a run directory.
var (
	logFiles      = []string{"state.md", "vm.log.md"}
	sourceFiles   = []string{"program.prose", "program.md", "root.prose.md"}
	manifestFiles = []string{"manifest.md", "forme.manifest.json", "compiled-intent.json", "compile/topology.json"}
)

// ErrorFileName is the file a failed service leaves in its workspace.
const ErrorFileName = "__error.md"

// runFiles is the description's view of a run directory (see runFilesOf).
type runFiles struct {
	paths []string         // regular files, slash-separated, relative, sorted
	size  map[string]int64 // by path
	dirs  map[string]bool  // directories, relative
	warn  []string
}

func (f runFiles) has(p string) bool { _, ok := f.size[p]; return ok }

func (f runFiles) first(names []string) string {
	for _, n := range names {
		if f.has(n) {
			return n
		}
	}
	return ""
}

// detectEra names the layout of a run directory from the files it
// holds, newest era first: compiled-intent.json, receipts or
// world-model(s)/ is EraReactor; forme.manifest.json or vm.log.md is
// EraVMLogForme; manifest.md, services/ or program.md is EraStateMDv2;
// program.prose or state.md is EraStateMDv1; otherwise EraUnknown.
func detectEra(rf runFiles) inspection.Era {
	switch {
	case rf.has("compiled-intent.json") || rf.has("receipts.json") || rf.dirs["receipts"] ||
		rf.dirs["world-model"] || rf.dirs["world-models"]:
		return inspection.EraReactor
	case rf.has("forme.manifest.json") || rf.has("vm.log.md"):
		return inspection.EraVMLogForme
	case rf.has("manifest.md") || rf.dirs["services"] || rf.has("program.md"):
		return inspection.EraStateMDv2
	case rf.has("program.prose") || rf.has("state.md"):
		return inspection.EraStateMDv1
	}
	return inspection.EraUnknown
}

// LogFile is the run log's name (state.md or vm.log.md) in the run
// directory dir, "" when it has none or dir cannot be opened. See
// RunDir.LogFile.
func LogFile(dir string) string {
	d, err := OpenRunDir(dir)
	if err != nil {
		return ""
	}
	defer d.Close()
	return d.LogFile()
}

// ParseLogFile opens and parses a run log with ParseLog; the error names
// the file. A symlink is followed, but only a regular file is opened
// (non-blocking), and at most MaxLogBytes are read. Inside a run
// directory, RunDir.ParseLog also keeps the read inside the run.
func ParseLogFile(p string) (Log, error) {
	f, _, err := openRegular(p)
	if err != nil {
		return Log{Events: []Event{}}, err
	}
	defer f.Close()
	l, err := ParseLog(f)
	if err != nil {
		return l, fmt.Errorf("sampler: %s: %w", p, err)
	}
	return l, nil
}

// Describe is DescribeContext without a deadline.
func Describe(dir string) (inspection.Run, error) { return DescribeContext(context.Background(), dir) }

// DescribeContext reads the run directory dir into a Run: its era,
// system (from the manifest, the log's front matter, header or envelope,
// or the source's front matter, in that order), status (from the log's
// terminator; a log without one whose front matter says `status: failed`
// or `completed` takes that, with a warning), services declared (from
// the manifest, else the log), completed / errored / skipped (log events,
// reactor receipts and `__error.md` files), bindings present (files under
// bindings/ and world-model(s)/*/published.json) and missing (declared
// outputs not present), error files, size, file count and ContentHash.
// A Run is Valid when it has a log, a source or manifest, and at least
// one binding or published output.
//
// Files are read through a RunDir: nothing outside dir is read (a
// symlink leading out, such as a manifest linked from elsewhere, is
// treated as absent, with a warning), a symlink inside dir to a regular
// file counts as that file, and a pipe, socket or device is listed (and
// hashed) but never opened. What cannot be read becomes a warning; the
// error is non-nil only when dir itself cannot be listed, holds more
// than MaxRunEntries entries, a file changes while hashed, or ctx is
// done.
func DescribeContext(ctx context.Context, dir string) (inspection.Run, error) {
	run := newRun(dir)
	d, err := OpenRunDir(dir)
	if err != nil {
		return run, fmt.Errorf("sampler: describe %s: %w", dir, errors.Unwrap(err))
	}
	defer d.Close()
	entries, err := walkTree(ctx, d)
	if err != nil {
		return run, err
	}
	return describeTree(ctx, d, entries)
}

func newRun(dir string) inspection.Run {
	return inspection.Run{ID: filepath.Base(filepath.Clean(dir)), Path: dir, Era: inspection.EraUnknown, Status: inspection.StatusIncomplete}
}

// describeTree describes the run whose tree walkTree listed.
func describeTree(ctx context.Context, d *RunDir, entries []treeEntry) (inspection.Run, error) {
	run := newRun(d.Path())
	rf := runFilesOf(d, entries)
	run.Warnings = append(run.Warnings, rf.warn...)
	run.Era = detectEra(rf)
	run.Files = len(rf.paths)
	for _, p := range rf.paths {
		run.SizeBytes += rf.size[p]
	}
	var err error
	if run.ContentHash, err = contentHash(ctx, d, entries); err != nil {
		return run, err
	}

	logName := rf.first(logFiles)
	var lg Log
	if logName != "" {
		lg, err = d.ParseLog(ctx, logName)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return run, ctxErr
			}
			run.Warnings = append(run.Warnings, err.Error())
		}
		for _, w := range lg.Warnings {
			run.Warnings = append(run.Warnings, logName+": "+w)
		}
		run.Status = lg.Status()
		if lg.Terminator == nil {
			switch st := inspection.Status(strings.ToLower(lg.FrontMatter["status"])); st {
			case inspection.StatusFailed, inspection.StatusCompleted:
				run.Status = st
				run.Warnings = append(run.Warnings, fmt.Sprintf("%s: no terminator; status %q taken from the front matter", logName, st))
			}
		}
	}

	man, err := d.LoadManifest(ctx, run.Era)
	if err != nil {
		run.Warnings = append(run.Warnings, err.Error())
	}
	sourceName := rf.first(sourceFiles)
	run.System = systemName(man, lg, d, sourceName)
	run.Metadata = lg.Metadata

	describeServices(ctx, &run, d, rf, lg, man)
	describeBindings(&run, rf, man)

	var missing []string
	if logName == "" {
		missing = append(missing, "no log (state.md or vm.log.md)")
	}
	if sourceName == "" && man.File == "" && rf.first(manifestFiles) == "" {
		missing = append(missing, "no source or manifest (program.prose, program.md, root.prose.md, manifest.md, forme.manifest.json or compiled-intent.json)")
	}
	if len(run.BindingsPresent) == 0 {
		missing = append(missing, "no binding or published output")
	}
	run.Valid = len(missing) == 0
	run.Invalid = strings.Join(missing, "; ")
	normalizeRun(&run)
	return run, nil
}

func systemName(man Manifest, lg Log, d *RunDir, source string) string {
	for _, s := range []string{man.System, lg.FrontMatter["system"], programName(lg.Program),
		lg.Meta["system"], programName(lg.Meta["program"]), programName(lg.Meta["root"]), sourceName(d, source)} {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return "unknown"
}

// programName turns a program reference into a name:
// "~/x/eng-team/bug.md" -> "bug", "plan.prose" -> "plan".
func programName(p string) string {
	p = strings.TrimSpace(p)
	if p == "" {
		return ""
	}
	p = path.Base(filepath.ToSlash(p))
	for _, ext := range []string{".prose.md", ".prose", ".md"} {
		if t, ok := strings.CutSuffix(p, ext); ok && t != "" {
			return t
		}
	}
	return p
}

// maxSourceHead is how much of a source file sourceName reads.
const maxSourceHead = 64 * 1024

// sourceName reads `name:` from the source's YAML front matter, within
// its first maxSourceHead bytes.
func sourceName(d *RunDir, source string) string {
	if source == "" {
		return ""
	}
	f, _, err := d.Open(source)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, maxSourceHead))
	for n := 0; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if n == 0 && line != "---" {
			return ""
		}
		if n > 0 && line == "---" {
			return ""
		}
		if v, ok := strings.CutPrefix(line, "name:"); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return ""
}

// ServiceEvents are the events of a log that ran a service: not inputs,
// VM actions, parallel brackets or notes, plus the narrative headings of
// services no marker mentions, all in line order. They come from
// Log.Events and Log.Narrative, which keep only a log's first events;
// ServiceSummaries covers every event of any log.
func ServiceEvents(lg Log) []Event {
	var out []Event
	marked := map[string]bool{}
	for _, ev := range lg.Events {
		if !isServiceEvent(ev) {
			continue
		}
		out = append(out, ev)
		marked[ev.Service] = true
	}
	n := len(out)
	for _, ev := range lg.Narrative {
		if !marked[ev.Service] {
			out = append(out, ev)
		}
	}
	if len(out) > n && n > 0 {
		sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	}
	return out
}

// isServiceEvent: a service step with an outcome (not an input, a VM
// action, a parallel bracket or a note).
func isServiceEvent(ev Event) bool {
	if ev.Kind != "" || ev.Service == "" {
		return false
	}
	switch ev.Outcome {
	case OutcomeOK, OutcomeError, OutcomeSkipped:
		return true
	}
	return false
}

// ServiceSummaries is ServiceEvents aggregated by service, from every
// event of the log however long: one summary per service, the services
// markers mention first from Log.Services, plus the narrative's summary
// of each service no marker mentions, all in order of first line.
func ServiceSummaries(lg Log) []ServiceSummary {
	out := append([]ServiceSummary(nil), lg.Services...)
	marked := make(map[string]bool, len(lg.Services))
	for _, s := range lg.Services {
		marked[s.Service] = true
	}
	n := len(out)
	for _, s := range lg.NarrativeServices {
		if !marked[s.Service] {
			out = append(out, s)
		}
	}
	if len(out) > n && n > 0 {
		sort.SliceStable(out, func(i, j int) bool { return out[i].First < out[j].First })
	}
	return out
}

type receipt struct {
	Node   string `json:"node"`
	Status string `json:"status"`
}

func describeServices(ctx context.Context, run *inspection.Run, d *RunDir, rf runFiles, lg Log, man Manifest) {
	completed, errored, skipped := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, s := range ServiceSummaries(lg) {
		if s.OK > 0 {
			completed[s.Service] = true
		}
		if s.Error > 0 {
			errored[s.Service] = true
		}
		if s.Skipped > 0 {
			skipped[s.Service] = true
		}
	}
	readReceipts(ctx, run, d, rf, func(r receipt) {
		switch strings.ToLower(r.Status) {
		case "rendered", "completed", "ok", "succeeded":
			completed[r.Node] = true
		case "failed", "error", "errored":
			errored[r.Node] = true
		case "skipped":
			skipped[r.Node] = true
		}
	})
	for _, p := range rf.paths {
		if path.Base(p) != ErrorFileName {
			continue
		}
		run.ErrorFiles = append(run.ErrorFiles, p)
		if dir := path.Dir(p); dir != "." {
			errored[path.Base(dir)] = true
		}
	}
	declared := man.Services
	if len(declared) == 0 {
		set := map[string]bool{}
		for s := range completed {
			set[s] = true
		}
		for s := range errored {
			set[s] = true
		}
		for s := range skipped {
			set[s] = true
		}
		declared = sortedKeys(set)
	}
	run.ServicesDeclared = append([]string{}, declared...)
	run.ServicesCompleted = sortedKeys(completed)
	run.ServicesErrored = sortedKeys(errored)
	run.ServicesSkipped = sortedKeys(skipped)
	if run.ErrorFiles == nil {
		run.ErrorFiles = []string{}
	}
}

// maxReceiptsBytes bounds what is read of one receipts file; the rest is
// skipped with a warning.
const maxReceiptsBytes = 64 << 20

// readReceipts reads reactor receipts, passing each to use:
// receipts/{node}.jsonl (one JSON a line, at most MaxLogLine bytes a
// line) and receipts.json (a JSON array, at most 16 MiB). A bad or
// over-long line is a warning and the file goes on.
func readReceipts(ctx context.Context, run *inspection.Run, d *RunDir, rf runFiles, use func(receipt)) {
	for _, p := range rf.paths {
		switch {
		case p == "receipts.json":
			b, err := readManifestFile(ctx, d, p)
			if err != nil {
				run.Warnings = append(run.Warnings, err.Error())
				continue
			}
			var rs []receipt
			if err := json.Unmarshal(b, &rs); err != nil {
				run.Warnings = append(run.Warnings, fmt.Sprintf("%s: not a JSON array of receipts: %v", p, err))
				continue
			}
			for _, r := range rs {
				use(r)
			}
		case strings.HasPrefix(p, "receipts/") && strings.HasSuffix(p, ".jsonl"):
			node := strings.TrimSuffix(path.Base(p), ".jsonl")
			err := eachLine(ctx, d, p, maxReceiptsBytes, func(n int, line []byte, tooLong bool) {
				switch {
				case tooLong:
					run.Warnings = append(run.Warnings, fmt.Sprintf("%s:%d: longer than %d bytes, skipped", p, n, MaxLogLine))
					return
				case len(bytes.TrimSpace(line)) == 0:
					return
				}
				var r receipt
				if err := json.Unmarshal(line, &r); err != nil {
					run.Warnings = append(run.Warnings, fmt.Sprintf("%s:%d: bad receipt: %v", p, n, err))
					return
				}
				if r.Node == "" {
					r.Node = node
				}
				use(r)
			})
			if err != nil {
				run.Warnings = append(run.Warnings, err.Error())
			}
		}
	}
}

// eachLine calls fn for each line of the regular file name in the run
// (without its newline), reading at most limit bytes; a line longer than
// MaxLogLine is passed truncated with tooLong set. The error names the
// file: it could not be opened or read, or it is longer than limit (the
// lines before are passed).
func eachLine(ctx context.Context, d *RunDir, name string, limit int64, fn func(n int, line []byte, tooLong bool)) error {
	f, _, err := d.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	lr := &io.LimitedReader{R: ctxReader{ctx: ctx, r: f}, N: limit + 1}
	br := bufio.NewReaderSize(lr, 64*1024)
	var line []byte
	tooLong := false
	for n := 1; ; {
		chunk, err := br.ReadSlice('\n')
		if room := MaxLogLine - len(line); len(chunk) > room {
			line = append(line, chunk[:max(room, 0)]...)
			tooLong = true
		} else {
			line = append(line, chunk...)
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil || (errors.Is(err, io.EOF) && len(line) > 0):
			fn(n, bytes.TrimSuffix(line, []byte("\n")), tooLong)
			n++
			line, tooLong = line[:0], false
			if err == nil {
				continue
			}
		}
		if lr.N <= 0 {
			return fmt.Errorf("sampler: read %s: longer than %d bytes; the rest is not read", d.full(name), limit)
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("sampler: read %s line %d: %w", d.full(name), n, err)
		}
		return nil
	}
}

// PublishedKey maps a published output's path to the form manifests
// declare: world-models/<hex(node)>/published.json ->
// world-model/<node>/published.json; other paths are unchanged.
func PublishedKey(p string) string {
	if rest, ok := strings.CutPrefix(p, "world-models/"); ok {
		if node, tail, ok := strings.Cut(rest, "/"); ok {
			return "world-model/" + hexNodeName(node) + "/" + tail
		}
	}
	return p
}

// IsPublished says whether p (relative, slash-separated) is a binding
// (under bindings/) or a published world-model file (under world-model/
// or world-models/, outside a versions/ history folder).
func IsPublished(p string) bool {
	switch {
	case strings.HasPrefix(p, "bindings/"):
		return true
	case strings.HasPrefix(p, "world-model/") || strings.HasPrefix(p, "world-models/"):
		return !strings.Contains(p, "/versions/")
	}
	return false
}

func describeBindings(run *inspection.Run, rf runFiles, man Manifest) {
	present := map[string]bool{}
	run.BindingsPresent = []string{}
	for _, p := range rf.paths {
		if IsPublished(p) {
			run.BindingsPresent = append(run.BindingsPresent, p)
			present[PublishedKey(p)] = true
		}
	}
	run.BindingsMissing = []string{}
	outputs := man.Outputs
	if len(man.Services) == 0 && run.Era == inspection.EraStateMDv1 {
		// Without a readable program, a v1 run still owes one binding per
		// service its log ran: bindings/{name}.md.
		for _, s := range run.ServicesDeclared {
			outputs = append(outputs, Output{Service: s, Path: "bindings/" + s + ".md"})
		}
	}
	for _, o := range outputs {
		if !present[o.Path] {
			run.BindingsMissing = append(run.BindingsMissing, o.Path)
		}
	}
	sort.Strings(run.BindingsMissing)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
