package sampler

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Well-known files of a run directory.
var (
	logFiles      = []string{"state.md", "vm.log.md"}
	sourceFiles   = []string{"program.prose", "program.md", "root.prose.md"}
	manifestFiles = []string{"manifest.md", "forme.manifest.json", "compiled-intent.json", "compile/topology.json"}
)

// ErrorFileName is the file a failed service leaves in its workspace.
const ErrorFileName = "__error.md"

// runFiles is one walk over a run directory.
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

// walkRun lists dir's regular files without following links.
func walkRun(dir string) (runFiles, error) {
	rf := runFiles{size: map[string]int64{}, dirs: map[string]bool{}}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		rel, rerr := filepath.Rel(dir, p)
		if rerr != nil {
			return rerr
		}
		rel = filepath.ToSlash(rel)
		if err != nil {
			if p == dir {
				return err
			}
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // the relative path already names the file
			}
			rf.warn = append(rf.warn, fmt.Sprintf("%s: unreadable: %v", rel, err))
			return nil
		}
		switch {
		case d.IsDir():
			if rel != "." {
				rf.dirs[rel] = true
			}
		case d.Type().IsRegular():
			info, ierr := d.Info()
			if ierr != nil {
				rf.warn = append(rf.warn, fmt.Sprintf("%s: unreadable: %v", rel, ierr))
				return nil
			}
			rf.paths = append(rf.paths, rel)
			rf.size[rel] = info.Size()
		default:
			rf.warn = append(rf.warn, fmt.Sprintf("%s: not a regular file, ignored", rel))
		}
		return nil
	})
	if err != nil {
		return rf, fmt.Errorf("sampler: walk %s: %w", dir, err)
	}
	sort.Strings(rf.paths)
	return rf, nil
}

// detectEra names the layout of a run directory from the files it
// holds, newest era first: compiled-intent.json, receipts or
// world-model(s)/ is EraReactor; forme.manifest.json or vm.log.md is
// EraVMLogForme; manifest.md, services/ or program.md is EraStateMDv2;
// program.prose or state.md is EraStateMDv1; otherwise EraUnknown.
func detectEra(rf runFiles) Era {
	switch {
	case rf.has("compiled-intent.json") || rf.has("receipts.json") || rf.dirs["receipts"] ||
		rf.dirs["world-model"] || rf.dirs["world-models"]:
		return EraReactor
	case rf.has("forme.manifest.json") || rf.has("vm.log.md"):
		return EraVMLogForme
	case rf.has("manifest.md") || rf.dirs["services"] || rf.has("program.md"):
		return EraStateMDv2
	case rf.has("program.prose") || rf.has("state.md"):
		return EraStateMDv1
	}
	return EraUnknown
}

// LogFile is the run log's name (state.md or vm.log.md) in the run
// directory dir, "" when it has none.
func LogFile(dir string) string {
	for _, n := range logFiles {
		if fi, err := os.Stat(filepath.Join(dir, n)); err == nil && fi.Mode().IsRegular() {
			return n
		}
	}
	return ""
}

// ParseLogFile opens and parses a run log with ParseLog; the error names
// the file.
func ParseLogFile(p string) (Log, error) {
	f, err := os.Open(p)
	if err != nil {
		return Log{}, fmt.Errorf("sampler: open %s: %w", p, err)
	}
	defer f.Close()
	l, err := ParseLog(f)
	if err != nil {
		return l, fmt.Errorf("sampler: %s: %w", p, err)
	}
	return l, nil
}

// Describe reads the run directory dir into a Run: its era, system (from
// the manifest, the log's front matter, header or envelope, or the
// source's front matter, in that order), status (from the log's
// terminator; a log without one whose front matter says `status: failed`
// or `completed` takes that, with a warning), services declared (from
// the manifest, else the log), completed / errored / skipped (log events,
// reactor receipts and `__error.md` files), bindings present (files under
// bindings/ and world-model(s)/*/published.json) and missing (declared
// outputs not present), error files, size, file count and ContentHash.
// A Run is Valid when it has a log, a source or manifest, and at least
// one binding or published output. What cannot be read becomes a warning;
// the error is non-nil only when dir itself cannot be walked.
func Describe(dir string) (Run, error) {
	run := Run{ID: filepath.Base(filepath.Clean(dir)), Path: dir, Era: EraUnknown, Status: StatusIncomplete}
	fi, err := os.Stat(dir)
	if err != nil {
		return run, fmt.Errorf("sampler: describe %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return run, fmt.Errorf("sampler: describe %s: not a directory", dir)
	}
	rf, err := walkRun(dir)
	if err != nil {
		return run, err
	}
	run.Warnings = append(run.Warnings, rf.warn...)
	run.Era = detectEra(rf)
	run.Files = len(rf.paths)
	for _, p := range rf.paths {
		run.SizeBytes += rf.size[p]
	}
	if run.ContentHash, err = contentHash(dir, rf.paths); err != nil {
		return run, err
	}

	logName := rf.first(logFiles)
	var lg Log
	if logName != "" {
		lg, err = ParseLogFile(filepath.Join(dir, logName))
		if err != nil {
			run.Warnings = append(run.Warnings, err.Error())
		}
		for _, w := range lg.Warnings {
			run.Warnings = append(run.Warnings, logName+": "+w)
		}
		run.Status = lg.Status()
		if lg.Terminator == nil {
			switch st := Status(strings.ToLower(lg.FrontMatter["status"])); st {
			case StatusFailed, StatusCompleted:
				run.Status = st
				run.Warnings = append(run.Warnings, fmt.Sprintf("%s: no terminator; status %q taken from the front matter", logName, st))
			}
		}
	}

	man, err := LoadManifest(dir, run.Era)
	if err != nil {
		run.Warnings = append(run.Warnings, err.Error())
	}
	sourceName := rf.first(sourceFiles)
	run.System = systemName(man, lg, dir, sourceName)

	describeServices(&run, rf, lg, man)
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
	return run, nil
}

// contentHash is the hex SHA-256 over, for each path in sorted order, the
// path, a NUL, the decimal size, a NUL and the contents; the sizes keep
// the encoding unambiguous. Files are streamed.
func contentHash(dir string, paths []string) (string, error) {
	h := sha256.New()
	for _, p := range paths {
		full := filepath.Join(dir, filepath.FromSlash(p))
		f, err := os.Open(full)
		if err != nil {
			return "", fmt.Errorf("sampler: hash %s: %w", full, err)
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return "", fmt.Errorf("sampler: hash %s: %w", full, err)
		}
		io.WriteString(h, p+"\x00"+strconv.FormatInt(fi.Size(), 10)+"\x00")
		n, err := io.Copy(h, f)
		f.Close()
		if err != nil {
			return "", fmt.Errorf("sampler: hash %s: %w", full, err)
		}
		if n != fi.Size() {
			return "", fmt.Errorf("sampler: hash %s: file changed while read (%d of %d bytes)", full, n, fi.Size())
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func systemName(man Manifest, lg Log, dir, source string) string {
	for _, s := range []string{man.System, lg.FrontMatter["system"], programName(lg.Program),
		lg.Meta["system"], programName(lg.Meta["program"]), programName(lg.Meta["root"]), sourceName(dir, source)} {
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

// sourceName reads `name:` from the source's YAML front matter.
func sourceName(dir, source string) string {
	if source == "" {
		return ""
	}
	f, err := os.Open(filepath.Join(dir, source))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64*1024))
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
// services no marker mentions, all in line order.
func ServiceEvents(lg Log) []Event {
	var out []Event
	marked := map[string]bool{}
	for _, ev := range lg.Events {
		if ev.Kind != "" || ev.Service == "" {
			continue
		}
		switch ev.Outcome {
		case OutcomeOK, OutcomeError, OutcomeSkipped:
			out = append(out, ev)
			marked[ev.Service] = true
		}
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

type receipt struct {
	Node   string `json:"node"`
	Status string `json:"status"`
}

func describeServices(run *Run, rf runFiles, lg Log, man Manifest) {
	completed, errored, skipped := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, ev := range ServiceEvents(lg) {
		switch ev.Outcome {
		case OutcomeOK:
			completed[ev.Service] = true
		case OutcomeError:
			errored[ev.Service] = true
		case OutcomeSkipped:
			skipped[ev.Service] = true
		}
	}
	for _, r := range readReceipts(run, rf) {
		switch strings.ToLower(r.Status) {
		case "rendered", "completed", "ok", "succeeded":
			completed[r.Node] = true
		case "failed", "error", "errored":
			errored[r.Node] = true
		case "skipped":
			skipped[r.Node] = true
		}
	}
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

// readReceipts reads reactor receipts: receipts/{node}.jsonl (one JSON a
// line) and receipts.json (a JSON array). Bad lines are warnings.
func readReceipts(run *Run, rf runFiles) []receipt {
	var out []receipt
	for _, p := range rf.paths {
		full := filepath.Join(run.Path, filepath.FromSlash(p))
		switch {
		case p == "receipts.json":
			b, _, err := readCapped(run.Path, p)
			if err != nil {
				run.Warnings = append(run.Warnings, err.Error())
				continue
			}
			var rs []receipt
			if err := json.Unmarshal(b, &rs); err != nil {
				run.Warnings = append(run.Warnings, fmt.Sprintf("%s: not a JSON array of receipts: %v", p, err))
				continue
			}
			out = append(out, rs...)
		case strings.HasPrefix(p, "receipts/") && strings.HasSuffix(p, ".jsonl"):
			f, err := os.Open(full)
			if err != nil {
				run.Warnings = append(run.Warnings, fmt.Sprintf("sampler: open %s: %v", full, err))
				continue
			}
			node := strings.TrimSuffix(path.Base(p), ".jsonl")
			sc := bufio.NewScanner(f)
			sc.Buffer(make([]byte, 64*1024), MaxLogLine)
			for n := 1; sc.Scan(); n++ {
				if strings.TrimSpace(sc.Text()) == "" {
					continue
				}
				var r receipt
				if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
					run.Warnings = append(run.Warnings, fmt.Sprintf("%s:%d: bad receipt: %v", p, n, err))
					continue
				}
				if r.Node == "" {
					r.Node = node
				}
				out = append(out, r)
			}
			if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
				run.Warnings = append(run.Warnings, fmt.Sprintf("%s: %v", p, err))
			}
			f.Close()
		}
	}
	return out
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

func describeBindings(run *Run, rf runFiles, man Manifest) {
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
	if len(man.Services) == 0 && run.Era == EraStateMDv1 {
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
