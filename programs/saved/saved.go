// Package saved serves inspections saved in a JSONL file
// (`--inspections FILE` or `--inspector saved:FILE`, issue 3), so a
// calibration can be computed from inspections made elsewhere.
//
// Each non-blank line is one inspection object (schema in docs/DESIGN.md;
// `program` is accepted for `system`) with its `run_id` and `depth`.
// A run's light and deep inspections are paired by run_id; a line may carry
// the run's `metadata`, a flat object of strings, numbers and booleans
// (inspection.Metadata; the run's is the union of its lines'). Lines end in
// "\n" or "\r\n"; a UTF-8 byte-order mark at the start of the file is
// ignored. A line is at most MaxLineBytes long and the file at most
// MaxFileBytes.
package saved

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"slices"
	"strings"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/internal/inputfile"
	"github.com/evalcal/evalcal/internal/lines"
)

// Identity is the inspector identity of saved inspections. The cache key
// still changes with the inspections, since they are the run's content.
const Identity = "saved/1"

// ErrNotSaved is wrapped by Inspect when the file holds no inspection of
// the run at the asked depth.
var ErrNotSaved = errors.New("no saved")

// Inspector serves saved inspections by run id and depth. It is
// read-only after Load and safe for concurrent use.
type Inspector struct {
	// byKey holds the inspections decoded when the file is not read again
	// (a pipe, or under RereadBytes); otherwise Inspect reads them from
	// file at refs (lineref.go).
	byKey map[key]inspection.Inspection
	file  *lineFile
	// pi holds the inclusion_probability a run's deep line records.
	pi map[string]float64
	// fingerprint is the SHA-256 over every run's content hash, in id order.
	fingerprint string
	// bad holds, per run and depth, why its saved line was rejected.
	bad map[key]error
	// ids lists by depth index, sorted, the runs the file has a line for
	// at that depth: decoded, rejected, or skimmed (another shard's line
	// in LoadShard); refs[k][i] is where the accepted line of run
	// ids[k][i] is (none for the others). Sorted lists and binary search
	// rather than a map: a million runs' map was 185 MB, these are 100.
	ids  [2][]string
	refs [2][]lineRef
	// unattributed are rejected lines whose run_id and depth could not be
	// read, as "file:line: why".
	unattributed []string
}

// Unattributed returns the rejected lines that name no readable run_id and
// depth ("file:line: why", in file order); rejected lines that do name
// them fail that run's inspection instead (see Load).
func (in *Inspector) Unattributed() []string { return slices.Clone(in.unattributed) }

type key struct {
	runID string
	depth inspection.Depth
}

// entry is a run's saved lines, light and deep.
type entry struct {
	pi *float64
	// got says depth index k has an accepted line (line[k], ref[k]), sys
	// its system; insp holds it decoded when the file is not a regular
	// one (Inspector.byKey).
	got  [2]bool
	sys  [2]string
	insp [2]*inspection.Inspection
	ref  [2]lineRef
	line [2]int
	lineSums
	// system is what the first line of each depth names (lineSystem),
	// valid or not; named says that line was seen.
	system [2]string
	named  [2]bool
	// md is the run's metadata, from its lines in file order; warn
	// holds what of it was skipped ("file:line: why").
	md   inspection.Metadata
	warn []string
}

// name records the system of the first line seen at depth index k.
func (e *entry) name(k int, system string) {
	if !e.named[k] {
		e.named[k], e.system[k] = true, system
	}
}

// lineSystem is the system a line names: skim's reading when skim reads
// the line (so that a shard that only skims it agrees), else the decoded
// inspection's, else none.
func lineSystem(line []byte, insp *inspection.Inspection) string {
	if _, _, system, ok := skim(line); ok {
		return system
	}
	if insp != nil {
		return insp.System
	}
	return ""
}

// Load is LoadContext with a context that never ends.
func Load(path string) (*Inspector, []inspection.Run, error) {
	return LoadContext(context.Background(), path)
}

// LoadContext reads the saved inspections in path and returns an
// Inspector serving them and the runs they describe, sorted by id. Each
// run has Era "saved", ID = run_id, System from its inspections (light
// first), SizeBytes = the bytes of its lines, Valid = true, an empty Path
// and Status, and ContentHash = hex SHA-256 of
//
//	"light\x00" + light line + "\x00deep\x00" + deep line
//
// (a missing depth is an empty line; lines are trimmed of surrounding
// space, and of a byte-order mark at the start of the file), so the
// inspection cache sees a changed inspection as new content.
//
// Bad lines lose nothing else: a line that is not an inspection, has a
// value inspection.CheckInspection rejects, repeats a (run_id, depth) pair,
// names another system than the run's other depth, or is longer than
// MaxLineBytes (its first MaxLineBytes are still read for its run_id and
// depth) is rejected with an error naming the file, the line and the
// field; a line that fails because of a byte-order mark (a UTF-8 one
// after the first line, a UTF-16 one) says "byte-order mark". When its
// run_id and depth can still be read, that inspection fails with this
// error (Inspect returns it as permanent, and the runner records it as
// the run's failure); otherwise the line is listed by Unattributed. A
// repeated pair rejects both lines: which one is right cannot be told. A
// run with one depth only is not an error here: Inspect fails permanently
// for the missing depth, and the runner records that as a Failure.
//
// The whole file fails when it cannot be opened, is a directory or a
// special file other than a pipe or character device, is longer than
// MaxFileBytes, holds no inspection and no attributable line, or when ctx
// ends (the error wraps ctx.Err(); a pipe waiting for its writer is given
// up at once).
func LoadContext(ctx context.Context, path string) (*Inspector, []inspection.Run, error) {
	return load(ctx, path, defaultLimits, selection{})
}

// LoadShard is LoadContext for one shard of a job (`run --shard i/n`):
// member tells whether a run id belongs to the shard. The lines of other
// shards' runs are only skimmed for run_id, depth and system (skim), not
// decoded nor checked: the shard never inspects those runs (their own
// shard reports their bad lines), and the runs, the fingerprint, Covers
// and the systems are the same as LoadContext's, so the shard's sample
// is the unsharded one. A line skim cannot read is decoded as without
// shards. Inspect of another shard's run fails with ErrNotSaved.
func LoadShard(ctx context.Context, path string, member func(runID string) bool) (*Inspector, []inspection.Run, error) {
	return load(ctx, path, defaultLimits, selection{member: member})
}

// LoadMembers is LoadShard for a shard that needs no other shard's runs
// (spec.Env.MemberOnly: every valid run is sampled and no deep subset is
// drawn over the whole sample). The lines of other shards' runs are read
// for their run_id only (lineRunID) and left out: the runs, the
// fingerprint, Covers, RunIDs and Unattributed are those of the shard's
// own runs, plus the rejected lines that name no run, which every shard
// lists alike. A file in which no line names one of the shard's runs is
// not an error (the shard has no work) unless it holds no line at all
// with a run id. Reading a line costs about a tenth of decoding it, so
// that 64 shards together do little more than one unsharded run (README
// "Performance").
func LoadMembers(ctx context.Context, path string, member func(runID string) bool) (*Inspector, []inspection.Run, error) {
	return load(ctx, path, defaultLimits, selection{member: member, only: true})
}

// selection is which runs a load decodes: every one (member nil), the
// members' (member), and with only the members' alone (the others' lines
// left out rather than skimmed).
type selection struct {
	member func(runID string) bool
	only   bool
	// last and lastIn remember the membership of the last run id asked
	// (a run's lines are mostly next to each other).
	last   []byte
	lastIn bool
}

// in says whether run id is a member (every run is when member is nil).
func (s *selection) in(id []byte) bool {
	if s.member == nil {
		return true
	}
	if s.last == nil || !bytes.Equal(id, s.last) {
		s.last, s.lastIn = append(s.last[:0], id...), s.member(string(id))
	}
	return s.lastIn
}

// load reads path (see LoadContext); sel selects the runs whose lines are
// decoded (LoadShard, LoadMembers). (long: one pass over the lines, where
// each line's outcome (decoded, skimmed, left out, bad, duplicate)
// updates the same counters and limits.)
func load(ctx context.Context, path string, lim limits, sel selection) (*Inspector, []inspection.Run, error) {
	f, stop, err := inputfile.Open(ctx, path)
	if err != nil {
		return nil, nil, fmt.Errorf("saved: open %s: %w", path, err)
	}
	defer stop()
	reread := false // the file is kept open and read again by Inspect (lineref.go)
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() >= lim.reread {
		reread = true
	}
	closeFile := true
	defer func() {
		if closeFile {
			f.Close()
		}
	}()
	seed := maphash.MakeSeed()
	entries := make(map[string]*entry, sizeHint(f))
	order := make([]string, 0, sizeHint(f)) // the run ids as first seen: sorted already in most files
	decoded := 0
	others := 0 // lines of other shards' runs left out (LoadMembers)
	bad := map[key]error{}
	var unattributed []string
	var keep arena // the runs' lines, for their content hashes
	entryOf := func(id string) *entry {
		e := entries[id]
		if e == nil {
			e = &entry{}
			entries[id] = e
			order = append(order, id)
		}
		return e
	}
	reject := func(lineNo int, line []byte, long bool, err error) {
		err = fmt.Errorf("saved: %s:%d: %w", path, lineNo, err)
		id, depth, ok := attribution(line)
		if long {
			id, depth, ok = attributionOfPrefix(line)
		}
		if !ok {
			unattributed = append(unattributed, strings.TrimPrefix(err.Error(), "saved: "))
			return
		}
		if sel.only && !sel.in([]byte(id)) {
			others++
			return
		}
		e := entryOf(id)
		k := depthIndex(depth)
		e.keep(k, line, &keep)
		e.name(k, lineSystem(line, nil))
		if _, seen := bad[key{id, depth}]; !seen {
			bad[key{id, depth}] = err
		}
	}
	err = eachParsedLine(ctx, f, lim, sel, func(pl *parsedLine) error {
		lineNo, line := pl.no, pl.line
		switch pl.kind {
		case lineBlank:
			return nil
		case lineLong:
			reject(lineNo, line, true, fmt.Errorf("line longer than %d bytes", lim.line))
			return nil
		case lineOther:
			others++
			return nil
		case lineSkimmed:
			e, k := entryOf(pl.id), depthIndex(inspection.Depth(pl.depth))
			e.keep(k, line, &keep)
			e.name(k, pl.system)
			return nil
		}
		insp := pl.insp
		if pl.err != nil {
			reject(lineNo, line, false, pl.err)
			return nil
		}
		if sel.only && !sel.in([]byte(insp.RunID)) {
			others++
			return nil
		}
		e := entryOf(insp.RunID)
		k := depthIndex(insp.Depth)
		if e.got[k] || bad[key{insp.RunID, insp.Depth}] != nil && e.line[k] > 0 {
			reject(lineNo, line, false, fmt.Errorf("run %s: %s inspection already given at line %d", insp.RunID, insp.Depth, e.line[k]))
			e.got[k], e.insp[k] = false, nil
			return nil
		}
		if o := e.sys[1-k]; e.got[1-k] && o != "" && insp.System != "" && o != insp.System {
			reject(lineNo, line, false, fmt.Errorf("run %s: %w", insp.RunID,
				&inspection.FieldError{Field: "system", Err: fmt.Errorf("%q, but line %d says %q", insp.System, e.line[1-k], o)}))
			return nil
		}
		if bad[key{insp.RunID, insp.Depth}] != nil {
			return nil // an earlier line for this pair was rejected
		}
		if pl.piErr != nil {
			reject(lineNo, line, false, fmt.Errorf("run %s: %w", insp.RunID, pl.piErr))
			return nil
		}
		if pl.pi != nil {
			e.pi = pl.pi
		}
		e.got[k], e.sys[k], e.line[k] = true, insp.System, lineNo
		if reread {
			e.ref[k] = lineRef{off: pl.off, n: uint32(len(line)), no: lineNo, hash: maphash.Bytes(seed, line)}
		} else {
			e.insp[k] = &insp
		}
		e.decoded(k, line, &keep)
		decoded++
		e.name(k, pl.named)
		if pl.hasMd {
			e.addMetadata(fmt.Sprintf("%s:%d", path, lineNo), pl.md, pl.mdSkip, pl.mdErr)
		}
		return nil
	})
	var le *lineError
	switch {
	case errors.As(err, &le) && errors.Is(le.err, lines.ErrFileTooLong):
		return nil, nil, fmt.Errorf("saved: %s: longer than %d bytes (at line %d)", path, lim.file, le.no)
	case errors.As(err, &le):
		return nil, nil, fmt.Errorf("saved: read %s:%d: %w", path, le.no, inputfile.ReadError(ctx, le.err))
	case err != nil:
		return nil, nil, err
	}
	if len(entries) == 0 && others == 0 {
		if len(unattributed) > 0 {
			return nil, nil, fmt.Errorf("saved: %s: no inspections; first rejected line: %s", path, unattributed[0])
		}
		return nil, nil, fmt.Errorf("saved: %s: no inspections", path)
	}

	in := &Inspector{bad: bad, unattributed: unattributed, pi: map[string]float64{}}
	if reread {
		in.keepFile(f, path, seed)
		closeFile = false
	} else {
		in.byKey = make(map[key]inspection.Inspection, decoded)
	}
	runs := make([]inspection.Run, 0, len(entries))
	slices.Sort(order) // the runs in id order (fast: most files are in that order already)
	for k := range 2 { // sized once: appending a million ids was a tenth of the load's allocations
		n := 0
		for _, e := range entries {
			n += int(e.seen >> k & 1)
		}
		in.ids[k] = make([]string, 0, n)
		if in.file != nil {
			in.refs[k] = make([]lineRef, 0, n)
		}
	}
	for _, id := range order {
		e := entries[id]
		// Every line with a run id and depth is in seen: decoded,
		// rejected (then in bad) or skimmed.
		for k := range 2 {
			if e.seen&(1<<k) != 0 {
				in.ids[k] = append(in.ids[k], id)
				if in.file != nil {
					in.refs[k] = append(in.refs[k], e.ref[k]) // zero unless got[k]
				}
			}
		}
		if e.pi != nil {
			in.pi[id] = *e.pi
		}
		run := inspection.Run{ID: id, Era: inspection.EraSaved, Status: inspection.StatusUnknown, Valid: true, ContentHash: e.contentHashOf()}
		run.System = cmp.Or(e.system[0], e.system[1])
		run.Metadata, run.Warnings = e.md, e.warn
		for k := range 2 {
			run.SizeBytes += int64(e.size[k])
			switch {
			case !e.got[k]:
			case in.byKey != nil:
				in.byKey[key{id, e.insp[k].Depth}] = *e.insp[k]
			}
		}
		delete(entries, id) // what is needed of it is in run, ids and refs now
		runs = append(runs, run)
	}
	h := sha256.New()
	for _, r := range runs {
		h.Write([]byte(r.ID + "\x00" + r.ContentHash + "\n"))
	}
	in.fingerprint = hex.EncodeToString(h.Sum(nil))
	return in, runs, nil
}

// addMetadata adds the `metadata` object of a line found at where
// ("file:line"), as MetadataFromJSON read it (md, what it skipped, or why
// it could not), to the run's. A field that is not a string, number or
// boolean, a metadata value that is not an object, and a field another
// line of the run gives another value are warnings on the run, naming
// where and the field; the first line's value is kept.
func (e *entry) addMetadata(where string, md inspection.Metadata, skipped []inspection.MetadataSkip, err error) {
	if err != nil {
		e.warn = append(e.warn, fmt.Sprintf("%s: %v: skipped", where, err))
		return
	}
	for _, s := range skipped {
		e.warn = append(e.warn, where+": "+s.String())
	}
	var conflicts []string
	e.md, conflicts = inspection.MergeMetadata(e.md, md)
	for _, c := range conflicts {
		e.warn = append(e.warn, fmt.Sprintf("%s: metadata.%s: an earlier line of the run gave the first value, which is kept", where, c))
	}
}

// inclusionProbability reads a line's optional inclusion_probability: the
// probability with which the run was chosen for this (deep) inspection,
// in (0, 1]. Absent is nil.
func inclusionProbability(line []byte) (*float64, error) {
	if !mayHoldKey(line, "inclusion_probability") {
		return nil, nil // decoding every line for a key it lacks took 8% of the CPU at 100k runs
	}
	var v struct {
		P *float64 `json:"inclusion_probability"`
	}
	if err := json.Unmarshal(line, &v); err != nil || v.P == nil {
		return nil, nil
	}
	if !(*v.P > 0 && *v.P <= 1) {
		return nil, &inspection.FieldError{Field: "inclusion_probability", Err: fmt.Errorf("%v is not in (0, 1]", *v.P)}
	}
	return v.P, nil
}

// mayHoldKey says whether encoding/json could find key (lower-case ASCII)
// in the JSON line: false only when the line is ASCII without escapes and
// does not hold key in any case (encoding/json matches keys without
// regard to case, and folds some non-ASCII letters into ASCII ones).
func mayHoldKey(line []byte, key string) bool {
	for _, c := range line {
		if c >= 0x80 || c == '\\' {
			return true
		}
	}
	for i := 0; i+len(key) <= len(line); i++ {
		if line[i]|0x20 == key[0] && bytes.EqualFold(line[i:i+len(key)], []byte(key)) {
			return true
		}
	}
	return false
}

// Covers reports whether the file holds a line for run id at depth (a
// rejected line counts: the run's inspection then fails with its reason).
// Runs a deep file does not cover are the ones not in the deep subset.
func (in *Inspector) Covers(runID string, depth inspection.Depth) bool {
	_, ok := slices.BinarySearch(in.ids[depthIndex(depth)], runID)
	return ok
}

// sizeHint guesses the number of runs in f from its size (two lines of
// some 300 bytes a run), so that the map of runs is not grown a million
// times over; 0 when f's size is not known.
func sizeHint(f *os.File) int {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return int(min(fi.Size()/600, 1<<22))
}

// RunIDs returns the ids of the runs the file holds a line for at depth
// (those Covers reports), sorted: calibrate checks them against the runs
// found before any call.
func (in *Inspector) RunIDs(depth inspection.Depth) []string {
	switch depth {
	case inspection.Light, inspection.Deep:
		return slices.Clone(in.ids[depthIndex(depth)])
	}
	return nil
}

// InclusionProbability returns the inclusion_probability recorded on the
// run's lines (issue 9: how a human-labelled subset was drawn).
func (in *Inspector) InclusionProbability(runID string) (float64, bool) {
	p, ok := in.pi[runID]
	return p, ok
}

// Fingerprint is the SHA-256 over every run's id and content hash, in id
// order: it changes whenever any inspection in the file does.
func (in *Inspector) Fingerprint() string { return in.fingerprint }

// attribution reads the run_id and depth of a rejected line, if it can.
func attribution(line []byte) (string, inspection.Depth, bool) {
	var v struct {
		RunID string `json:"run_id"`
		Depth string `json:"depth"`
	}
	if json.Unmarshal(line, &v) != nil || v.RunID == "" {
		return "", "", false
	}
	switch d := inspection.Depth(v.Depth); d {
	case inspection.Light, inspection.Deep:
		return v.RunID, d, true
	}
	return "", "", false
}

// parseLine decodes one line and requires run_id and depth.
func parseLine(line []byte) (inspection.Inspection, error) {
	insp, err := inspection.ParseInspection(line)
	if err != nil {
		return insp, err
	}
	switch {
	case insp.RunID == "":
		return insp, &inspection.FieldError{Field: "run_id", Err: errors.New("missing")}
	case insp.Depth == "":
		return insp, &inspection.FieldError{Field: "depth", Err: errors.New("missing")}
	}
	return insp, nil
}

func depthIndex(d inspection.Depth) int {
	if d == inspection.Light {
		return 0
	}
	return 1
}

// Release lets go of the inspections Inspect serves (calibrate.Releaser:
// a calibration whose runner is done with them, at a million runs some
// 1.2 GB); Inspect then fails as for a run the file does not hold.
// Coverage, inclusion probabilities, the fingerprint and the rejected
// lines stay. Not safe to call while Inspect is running.
func (in *Inspector) Release() {
	in.byKey, in.refs = nil, [2][]lineRef{}
	if in.file != nil {
		_ = in.file.f.Close()
		in.file = nil
	}
}

// Identity returns the constant Identity.
func (in *Inspector) Identity() string { return Identity }

// Inspect returns the saved inspection of run at depth. A run or depth
// the file does not hold is a permanent error wrapping ErrNotSaved
// ("saved: run X: no saved deep inspection"): asking again will not help.
func (in *Inspector) Inspect(ctx context.Context, run inspection.Run, depth inspection.Depth) (inspection.Inspection, error) {
	if err := ctx.Err(); err != nil {
		return inspection.Inspection{}, err
	}
	if err := in.bad[key{run.ID, depth}]; err != nil {
		return inspection.Inspection{}, inspection.Permanent(err)
	}
	notSaved := func() error {
		return inspection.Permanent(fmt.Errorf("saved: run %s: %w %s inspection", run.ID, ErrNotSaved, depth))
	}
	if lf := in.file; lf != nil {
		k := depthIndex(depth)
		i, ok := slices.BinarySearch(in.ids[k], run.ID)
		if !ok || in.refs[k][i].n == 0 || (depth != inspection.Light && depth != inspection.Deep) {
			return inspection.Inspection{}, notSaved()
		}
		return lf.reread(in.refs[k][i])
	}
	insp, ok := in.byKey[key{run.ID, depth}]
	if !ok {
		return inspection.Inspection{}, notSaved()
	}
	insp.Services = slices.Clone(insp.Services)
	insp.Flags = slices.Clone(insp.Flags)
	return insp, nil
}

var _ inspection.Inspector = (*Inspector)(nil)
